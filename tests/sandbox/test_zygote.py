"""The warm zygote sandbox keeps every promise of the one-shot bubblewrap sandbox."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import assay.sandbox.zygote as zygote_module
from assay.sandbox import SandboxLimits, ZygoteSandbox, get_sandbox
from assay.sandbox.base import Phase, SandboxResult
from tests.sandbox import test_bubblewrap as one_shot
from tests.sandbox.test_bubblewrap import SandboxContract, run_py


@pytest.fixture(scope="module")
def zygote() -> Iterator[ZygoteSandbox]:
    if not ZygoteSandbox.available():
        pytest.skip("nested user namespaces are not available here")
    sandbox = ZygoteSandbox()
    yield sandbox
    sandbox.close()


class TestZygoteContract(SandboxContract):
    @pytest.fixture
    def sandbox(self, zygote: ZygoteSandbox) -> ZygoteSandbox:
        return zygote


HOSTILE = [
    one_shot.test_daemon_does_not_outlive_the_run,
    one_shot.test_killing_the_parent_and_everyone,
    one_shot.test_endless_fork_bomb_ends_at_the_wall_clock,
    one_shot.test_no_network,
    one_shot.test_filling_the_disk_stops_at_the_tmpfs_size,
    one_shot.test_only_its_own_processes_are_visible,
    one_shot.test_large_stdin_is_fed_while_output_is_read,
]


@pytest.mark.parametrize("check", HOSTILE, ids=lambda f: f.__name__.removeprefix("test_"))
def test_hostile_programs_are_contained(zygote: ZygoteSandbox, check) -> None:  # type: ignore[no-untyped-def]
    check(zygote)


class AsPhases:
    """The zygote sandbox with each program started as the run phase of a phased job: the C run init's path."""

    def __init__(self, box: ZygoteSandbox) -> None:
        self.box = box

    def run(self, argv: list[str], files: dict[str, bytes], limits: SandboxLimits, stdin: bytes = b"", env: dict[str, str] | None = None) -> SandboxResult:
        phase = Phase("run", tuple(argv), limits.cpu_seconds, limits.wall_seconds, channel=True, stdin=True)
        return self.box.run_phases([phase], files, limits, stdin, env)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.box, name)


@pytest.mark.parametrize("check", HOSTILE, ids=lambda f: f.__name__.removeprefix("test_"))
def test_hostile_programs_are_contained_under_the_c_run_init(zygote: ZygoteSandbox, check) -> None:  # type: ignore[no-untyped-def]
    if not zygote.run_init:
        assert not shutil.which("cc"), "a C compiler is here, so phased runs use the C run init"
        pytest.skip("no C compiler here: phased runs use the Python init")
    check(AsPhases(zygote))


def test_the_c_run_init_is_built_once_and_left_out_without_a_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path))
    compiler = zygote_module._c_compiler()
    try:
        zygote_module.run_init_binary.cache_clear()
        monkeypatch.setattr(zygote_module, "_c_compiler", lambda: None)
        assert zygote_module.run_init_binary() is None
        assert ZygoteSandbox(c_init=True).run_init is None  # and the sandbox runs phases under the Python init
        if compiler is None:
            pytest.skip("no C compiler here")
        monkeypatch.setattr(zygote_module, "_c_compiler", lambda: compiler)
        zygote_module.run_init_binary.cache_clear()
        built = zygote_module.run_init_binary()
        assert built is not None and Path(built).parent == tmp_path / "sandbox" and os.access(built, os.X_OK)
        stamp = os.stat(built).st_mtime_ns
        zygote_module.run_init_binary.cache_clear()

        def no_second_build() -> str:
            raise AssertionError("the C run init was built again")

        monkeypatch.setattr(zygote_module, "_c_compiler", no_second_build)
        assert zygote_module.run_init_binary() == built and os.stat(built).st_mtime_ns == stamp
    finally:
        zygote_module.run_init_binary.cache_clear()


def test_a_concurrent_build_leaves_the_run_init_every_zygote_binds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Two test workers (or two `assay` processes) on a fresh machine each find no run init and build one.
    # The cache dir is closed to the run uid, so a sandbox shows the file through a mount view that binds
    # the inode it found; the second build must not unlink it, or every zygote started after that fails
    # to bind it ("could not start the run", CI of 915eb85).
    compiler = zygote_module._c_compiler()
    if compiler is None:
        pytest.skip("no C compiler here")
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(closed))
    zygote_module.run_init_binary.cache_clear()
    try:
        first = zygote_module.run_init_binary()
        assert first is not None
        inode = os.stat(first).st_ino
        phase = Phase("run", ("/bin/sh", "-c", "echo ran >&3"), 5, 10, channel=True, stdin=True)
        box = ZygoteSandbox(c_init=True)
        try:
            assert box.run_phases([phase], {}, SandboxLimits()).channel == b"ran\n"
            assert zygote_module.build_run_init(compiler, Path(first))  # the other process's build, a moment late
            assert os.stat(first).st_ino == inode, "the second build replaced the run init under a live mount view"
            again = ZygoteSandbox(c_init=True)  # a new zygote through the same view
            try:
                result = again.run_phases([phase], {}, SandboxLimits())
                assert result.error is None and result.channel == b"ran\n", result
            finally:
                again.close()
        finally:
            box.close()
    finally:
        zygote_module.run_init_binary.cache_clear()


def test_writes_and_secrets(zygote: ZygoteSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one_shot.test_writes_stay_inside(zygote, tmp_path)
    one_shot.test_secrets_are_out_of_sight(zygote, tmp_path, monkeypatch)


def test_each_run_gets_fresh_namespaces_and_files(zygote: ZygoteSandbox) -> None:
    # A run leaves a file, a SysV-style marker in /dev/shm and a background process; the next sees none.
    leave = (
        "import os, subprocess\n"
        "open('left.txt', 'w').write('x'); open('/tmp/left', 'w').write('x'); open('/dev/shm/left', 'w').write('x')\n"
        "subprocess.Popen(['sleep', '30'])\n"
        "print(os.readlink('/proc/self/ns/pid'), os.readlink('/proc/self/ns/user'), os.readlink('/proc/self/ns/mnt'))\n"
    )
    look = (
        "import os\n"
        "print(os.path.exists('left.txt'), os.path.exists('/tmp/left'), os.path.exists('/dev/shm/left'))\n"
        "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "print(os.readlink('/proc/self/ns/pid'), os.readlink('/proc/self/ns/user'), os.readlink('/proc/self/ns/mnt'))\n"
    )
    first = run_py(zygote, leave)
    second = run_py(zygote, look)
    assert first.exit_code == 0 and second.exit_code == 0, (first.stderr, second.stderr)
    exists, pids, namespaces = second.stdout.decode().splitlines()
    assert exists == "False False False"
    assert pids == "[1, 2]"  # its init and itself: the sleeper died with the first run's namespace
    assert len(namespaces.split()) == 3  # (namespace inode numbers may be reused once one is gone)


def test_python_driver_runs_in_process_with_the_same_results(zygote: ZygoteSandbox) -> None:
    files = {"driver.py": b"import os, sys\nos.write(3, b'ok')\nprint(sys.flags.isolated, sys.flags.no_site)\n"}
    result = zygote.run([sys.executable, "-I", "-S", "-X", "faulthandler", "driver.py"], files, SandboxLimits(cpu_seconds=5, wall_seconds=20))
    assert result.exit_code == 0 and result.channel == b"ok" and result.stdout == b"1 1\n"


def test_factory_prefers_the_zygote() -> None:
    sandbox = get_sandbox()
    try:
        assert isinstance(sandbox, ZygoteSandbox) and sandbox.name == "bubblewrap"
    finally:
        sandbox.close()  # type: ignore[attr-defined]


def test_phased_runs_start_whatever_descriptor_numbers_the_host_is_at() -> None:
    # A busy host process (a test worker holding many sandboxes) passes the zygote its socket at whatever
    # number it is at, past 100 too, where the C run init keeps the job's descriptors: every run must still
    # start (CI of 915eb85: "descriptor 5 landed on 103, not 102", every Perl and D run of a worker a
    # sandbox error). The zygote's socket is put at each number around that range in turn.
    phase = Phase("run", ("/bin/sh", "-c", "echo ran >&3; ls /proc/self/fd"), 5, 10, channel=True, stdin=True)
    for at in range(96, 110):
        spare: list[int] = []
        try:
            while (fd := os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)) < at - 1:
                spare.append(fd)
            os.close(fd)  # the zygote's socket pair and its main-file memfd take the next numbers from here
            box = ZygoteSandbox()
            try:
                result = box.run_phases([phase], {}, SandboxLimits())
                assert result.error is None and result.channel == b"ran\n", (at, result)
                # 4: ls reading the dir; nothing of the zygote's
                assert result.stdout.split() == [b"0", b"1", b"2", b"3", b"4"], (at, result)
            finally:
                box.close()
        finally:
            for fd in spare:
                os.close(fd)
