"""Phased runs (build, then run): the sandbox's trusted init reports each phase, and no phase can change that.

Attacks from the issue that found them: the run phase took the judge's fd 3 back from its parent shell
with pidfd_getfd and wrote `build 7`; build steps that execute code (perl -c BEGIN blocks, elixirc
module bodies) wrote fd 3; a run sleeping 100 s a call ran for 200 s. Every sandbox kind must hold.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator

import pytest

from assay.sandbox import BubblewrapSandbox, ProcessSandbox, SandboxLimits, ZygoteSandbox
from assay.sandbox.base import Phase, Sandbox

PY = sys.executable

# From the run phase: pidfd_getfd on every ancestor (the init, pid 1) and every fd number, then write
# a forged status everywhere it got a descriptor, and on fd 3 and fd 4 as they are.
STEAL = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
SYS_pidfd_open, SYS_pidfd_getfd = 434, 438
got = []
for pid in {os.getppid(), 1}:
    pidfd = libc.syscall(SYS_pidfd_open, pid, 0)
    print("pidfd_open", pid, pidfd, os.strerror(ctypes.get_errno()) if pidfd < 0 else "")
    if pidfd < 0:
        continue
    for fd in range(0, 12):
        new = libc.syscall(SYS_pidfd_getfd, pidfd, fd, 0)
        if new >= 0:
            got.append(new)
        else:
            print("getfd", pid, fd, os.strerror(ctypes.get_errno()))
for fd in got + [3, 4, 5]:
    try:
        os.write(fd, b"phase build 1792 0.0 0.0 0\nphase run 0 0.0 0.0 0\n0\n")
    except OSError as exc:
        print("write", fd, exc)
print("stolen", got, flush=True)
os._exit(7)
"""


def _sandboxes() -> Iterator[object]:
    yield pytest.param("zygote", id="zygote")
    yield pytest.param("zygote-python", id="zygote-python")  # the zygote's Python init, not the C one
    yield pytest.param("zygote-fork", id="zygote-fork")  # the Python init forks itself for each phase, not posix_spawn
    yield pytest.param("bubblewrap", id="bubblewrap")
    yield pytest.param("process", id="process")


@pytest.fixture(scope="module", params=list(_sandboxes()))
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    kind = request.param
    if kind.startswith("zygote") and not ZygoteSandbox.available():
        pytest.skip("nested user namespaces are not available here")
    if kind != "process" and not BubblewrapSandbox.available():
        pytest.skip("bubblewrap is not available here")
    box: Sandbox = {
        "zygote": ZygoteSandbox, "zygote-python": lambda: ZygoteSandbox(c_init=False), "zygote-fork": lambda: ZygoteSandbox(spawn=False, c_init=False),
        "bubblewrap": BubblewrapSandbox, "process": ProcessSandbox}[kind]()
    if kind == "zygote" and shutil.which("cc"):
        assert isinstance(box, ZygoteSandbox) and box.run_init, "a C compiler is here, so phased runs use the C run init"
    yield box
    close = getattr(box, "close", None)
    if close:
        close()


def build(script: str, cpu: float = 10, wall: float = 20) -> Phase:
    return Phase("build", ("/bin/sh", "-c", script), cpu, wall, output="stderr")


def run(argv: tuple[str, ...], cpu: float = 10, wall: float = 20) -> Phase:
    return Phase("run", argv, cpu, wall, channel=True, stdin=True, output="merged")


def test_each_phase_is_reported_by_the_init(sandbox: Sandbox) -> None:
    result = sandbox.run_phases([build("echo compiling; echo main > main"), run(("/bin/sh", "-c", "cat main; echo result >&3; exit 3"))],
                                {"src": b"x"}, SandboxLimits())
    assert [(p.name, p.exit_code) for p in result.phases] == [("build", 0), ("run", 3)], result
    assert result.stdout == b"main\n" and b"compiling" in result.stderr and result.channel == b"result\n"


def test_a_failed_build_stops_the_run(sandbox: Sandbox) -> None:
    result = sandbox.run_phases([build("exit 4"), run(("/bin/sh", "-c", "echo ran >&3"))], {}, SandboxLimits())
    assert [(p.name, p.exit_code) for p in result.phases] == [("build", 4)]
    assert result.channel == b""


def test_the_build_never_holds_the_channel(sandbox: Sandbox) -> None:
    # As perl -c runs BEGIN blocks, or elixirc module bodies: code at build time tries fd 3 (and 4, 5).
    script = "for fd in 3 4 5; do (echo 'build 7' >&$fd) 2>/dev/null && echo wrote $fd; done; ls -l /proc/self/fd; true"
    result = sandbox.run_phases([build(script), run(("/bin/sh", "-c", "echo honest >&3"))], {}, SandboxLimits())
    assert [p.exit_code for p in result.phases] == [0, 0]
    assert result.channel == b"honest\n", result
    assert b"wrote" not in result.stderr, result.stderr


def test_the_run_cannot_take_the_inits_descriptors(sandbox: Sandbox) -> None:
    result = sandbox.run_phases([build("true"), run((PY, "-I", "-S", "-c", STEAL))], {}, SandboxLimits())
    output = result.stdout.decode()
    assert [(p.name, p.exit_code) for p in result.phases] == [("build", 0), ("run", 7)], output
    assert "stolen []" in output, output
    # Whatever it wrote went to the result channel, which is only ever read as data: never a status.
    assert result.phases[-1].exit_code == 7


def test_the_run_phase_wall_limit_is_enforced(sandbox: Sandbox) -> None:
    start = time.monotonic()
    result = sandbox.run_phases([build("true"), run(("/bin/sh", "-c", "sleep 100; echo late >&3"), wall=2)], {}, SandboxLimits())
    elapsed = time.monotonic() - start
    assert result.phases[-1].timed_out and result.phases[-1].exit_code is None, result.phases
    assert 1.9 <= elapsed < 15 and result.channel == b"", (elapsed, result)


def test_the_build_wall_limit_is_enforced(sandbox: Sandbox) -> None:
    start = time.monotonic()
    result = sandbox.run_phases([build("sleep 100", wall=2), run(("/bin/sh", "-c", "echo ran >&3"))], {}, SandboxLimits())
    assert [p.name for p in result.phases] == ["build"] and result.phases[0].timed_out
    assert time.monotonic() - start < 15 and result.channel == b""


def test_what_the_build_leaves_running_dies_before_the_run(sandbox: Sandbox) -> None:
    # A daemon started at build time would keep writing into the work dir (or at the run's channel).
    script = "(setsid sh -c 'while true; do date +%s%N >> beat; sleep 0.05; done' &) ; sleep 0.3"
    check = "a=$(wc -l < beat); sleep 0.5; b=$(wc -l < beat); echo $a $b >&3"
    result = sandbox.run_phases([build(script), run(("/bin/sh", "-c", check))], {}, SandboxLimits())
    before, after = result.channel.split()
    assert before == after, result.channel


def test_a_cpu_bound_run_is_a_timeout(sandbox: Sandbox) -> None:
    result = sandbox.run_phases([run((PY, "-I", "-S", "-c", "while True: pass"), cpu=1, wall=20)], {}, SandboxLimits())
    assert result.phases[-1].timed_out, result.phases


LIMITS = "grep -E '^Max (cpu time|address space|processes|open files|file size) ' /proc/self/limits | tr -s ' '"


def limit_lines(text: bytes) -> dict[str, str]:
    rows = [line.strip().rsplit(" ", 3) for line in text.decode().splitlines() if line.startswith("Max")]
    return {row[0]: row[1] for row in rows}


@pytest.mark.parametrize(("build_cpu", "run_cpu"), [(7, 3), (2, 9)], ids=["falling", "rising"])
def test_each_phase_runs_under_its_own_limits(sandbox: Sandbox, build_cpu: int, run_cpu: int) -> None:
    # Limits that fall from build to run are set by the init on itself before a spawn; rising ones are not,
    # and must still hold as asked, each phase its own.
    gib = 1 << 30
    phases = [
        Phase("build", ("/bin/sh", "-c", LIMITS + " >&2"), build_cpu, 20, memory_bytes=3 * gib, output="stderr"),
        Phase("run", ("/bin/sh", "-c", LIMITS), run_cpu, 20, memory_bytes=2 * gib, channel=True),
    ]
    result = sandbox.run_phases(phases, {}, SandboxLimits(open_files=200, file_size_bytes=1 << 20))
    assert [p.exit_code for p in result.phases] == [0, 0], result
    built, ran = limit_lines(result.stderr), limit_lines(result.stdout)
    assert built["Max cpu time"] == str(build_cpu) and ran["Max cpu time"] == str(run_cpu), (built, ran)
    assert built["Max address space"] == str(3 * gib) and ran["Max address space"] == str(2 * gib), (built, ran)
    assert built["Max open files"] == ran["Max open files"] == "200"
    assert built["Max file size"] == ran["Max file size"] == str(1 << 20)


OPEN_FDS = r"""
import os, stat, sys
fds = {}
for fd in range(0, 1024):
    try:
        fds[fd] = "null" if stat.S_ISCHR(os.fstat(fd).st_mode) else "other"
    except OSError:
        pass
print(sorted(fds.items()), file=sys.stderr if sys.argv[1] == "build" else sys.stdout)
"""


def test_a_phase_holds_only_its_own_descriptors(sandbox: Sandbox) -> None:
    # The build: stdin (/dev/null), stdout, stderr. The run: those (stdin the run's) and the channel on fd 3.
    phases = [Phase("build", (PY, "-I", "-S", "-c", OPEN_FDS, "build"), 10, 20, output="stderr"),
              run((PY, "-I", "-S", "-c", OPEN_FDS, "run"))]
    result = sandbox.run_phases(phases, {}, SandboxLimits(), stdin=b"in")
    assert [p.exit_code for p in result.phases] == [0, 0], result
    assert b"[(0, 'null'), (1, 'other'), (2, 'other')]" in result.stderr, result.stderr
    assert b"[(0, 'other'), (1, 'other'), (2, 'other'), (3, 'other')]" in result.stdout, result.stdout


def test_a_phase_that_cannot_start_is_status_127(sandbox: Sandbox) -> None:
    result = sandbox.run_phases([Phase("build", ("/no/such/compiler", "x"), 5, 10, output="stderr"), run(("/bin/true",))], {}, SandboxLimits())
    assert [(p.name, p.exit_code) for p in result.phases] == [("build", 127)], result
    assert b"/no/such/compiler" in result.stderr and result.channel == b""


def test_a_phased_run_sees_its_files_its_env_and_fresh_dirs(sandbox: Sandbox) -> None:
    script = 'cat pkg/sub/data.txt; echo "[$ASSAY_PROBE]"; ls -A "$TMPDIR"; pwd; ls pkg'
    files = {"pkg/sub/data.txt": b"nested\n", "pkg/top.txt": b""}
    first = sandbox.run_phases([run(("/bin/sh", "-c", 'touch "$TMPDIR/left-over"; ' + script))], files, SandboxLimits(), env={"ASSAY_PROBE": "x y"})
    assert first.phases[0].exit_code == 0, first
    assert first.stdout.startswith(b"nested\n[x y]\nleft-over\n"), first.stdout
    assert first.stdout.endswith(b"sub\ntop.txt\n"), first.stdout
    again = sandbox.run_phases([run(("/bin/sh", "-c", script))], files, SandboxLimits(), env={"ASSAY_PROBE": "x y"})
    assert b"left-over" not in again.stdout, again.stdout  # each run has its own /tmp


def test_the_run_may_open_its_channel_for_writing_only(sandbox: Sandbox) -> None:
    # A language that cannot write to an inherited descriptor (Lua, R) opens /dev/fd/3 anew: the channel lets it.
    result = sandbox.run_phases([run(("/bin/sh", "-c", "echo opened > /dev/fd/3 && echo ok"))], {}, SandboxLimits())
    assert result.phases[0].exit_code == 0 and result.channel == b"opened\n", result
    if isinstance(sandbox, ProcessSandbox):
        return  # the run is our own uid there, so the pipe is its own
    # Reading it back (or through its read end) is not the run's: only the judge reads the channel.
    result = sandbox.run_phases([run(("/bin/sh", "-c", "cat /dev/fd/3 < /dev/null; echo status $?"))], {}, SandboxLimits())
    assert b"status 1" in result.stdout and b"ermission denied" in result.stdout, result.stdout
