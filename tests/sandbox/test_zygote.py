"""The warm zygote sandbox keeps every promise of the one-shot bubblewrap sandbox."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.sandbox import SandboxLimits, ZygoteSandbox, get_sandbox
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


@pytest.mark.parametrize(
    "check",
    [
        one_shot.test_daemon_does_not_outlive_the_run,
        one_shot.test_killing_the_parent_and_everyone,
        one_shot.test_endless_fork_bomb_ends_at_the_wall_clock,
        one_shot.test_no_network,
        one_shot.test_filling_the_disk_stops_at_the_tmpfs_size,
        one_shot.test_only_its_own_processes_are_visible,
        one_shot.test_large_stdin_is_fed_while_output_is_read,
    ],
    ids=lambda f: f.__name__.removeprefix("test_"),
)
def test_hostile_programs_are_contained(zygote: ZygoteSandbox, check) -> None:  # type: ignore[no-untyped-def]
    check(zygote)


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
