"""The bubblewrap sandbox against real hostile programs; SandboxContract is shared with the process sandbox."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.sandbox import (
    Availability,
    BubblewrapSandbox,
    ProcessSandbox,
    Sandbox,
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
    get_sandbox,
)

from .hostile import program

PY = [sys.executable, "-I", "-S"]
FAST = SandboxLimits(
    cpu_seconds=5,
    wall_seconds=15,
    memory_bytes=512 * 1024**2,
    processes=16,
    file_size_bytes=4 * 1024**2,
    open_files=64,
    output_bytes=64 * 1024,
    disk_bytes=8 * 1024**2,
)
ALLOWED_ENV = {"PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED"}
IS_ROOT = os.geteuid() == 0


def run_py(sandbox: Sandbox, source: bytes | str, *args: str, limits: SandboxLimits = FAST, **kw: object) -> SandboxResult:
    """Run a Python program as main.py in the sandbox."""
    code = source.encode() if isinstance(source, str) else source
    return sandbox.run([*PY, "main.py", *args], {"main.py": code}, limits, **kw)  # type: ignore[arg-type]


def run_hostile(sandbox: Sandbox, name: str, *args: str, limits: SandboxLimits = FAST) -> SandboxResult:
    """Run tests/sandbox/hostile/<name>.py in the sandbox."""
    return run_py(sandbox, program(name), *args, limits=limits)


def assert_healthy(sandbox: Sandbox) -> None:
    """A normal program still runs normally."""
    result = run_py(sandbox, "import sys; print(sys.stdin.read().upper())", stdin=b"fine")
    assert (result.exit_code, result.stdout, result.error) == (0, b"FINE\n", None), result


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line contains marker."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                if marker.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    found.append(int(name))
            except OSError:
                continue
    return found


def assert_no_process(marker: str) -> None:
    """Nothing with marker in its command line runs on the host (and kill any survivor)."""
    survivors = processes_with(marker)
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"processes outlived the run: {survivors}"


class SandboxContract:
    """What every sandbox promises; subclasses provide the `sandbox` fixture."""

    def test_exit_codes_and_signals(self, sandbox: Sandbox) -> None:
        assert run_py(sandbox, "import sys; sys.exit(3)").exit_code == 3
        high = run_py(sandbox, "import sys; sys.exit(137)")  # not to be mistaken for SIGKILL
        assert (high.exit_code, high.signal) == (137, None)
        segv = run_py(sandbox, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
        assert (segv.exit_code, segv.signal, segv.timed_out, segv.error) == (None, signal.SIGSEGV, False, None)

    def test_no_privileges(self, sandbox: Sandbox) -> None:
        result = run_py(sandbox, "print(open('/proc/self/status').read())")
        status = dict(line.split(":", 1) for line in result.stdout.decode().splitlines() if ":" in line)
        assert status["NoNewPrivs"].strip() == "1" and int(status["CapEff"], 16) == 0
        if IS_ROOT:  # a uid of its own on the host, no root anywhere
            assert all(int(x) != 0 for x in status["Uid"].split()), status["Uid"]

    def test_localhost_is_the_runs_own_loopback(self, sandbox: Sandbox) -> None:
        """`localhost` resolves (BigCodeBench/1038 and 1040 serve on it), to a loopback only the run has."""
        source = ("import socket\nserver = socket.create_server(('localhost', 0))\nclient = socket.create_connection(server.getsockname()[:2])\n"
                  "conn, _ = server.accept(); client.sendall(b'ping'); print(socket.gethostbyname('localhost'), conn.recv(4).decode())\n")
        result = run_py(sandbox, source)
        assert (result.exit_code, result.stdout.decode().split()) == (0, ["127.0.0.1", "ping"]), result

    def test_missing_program_is_exit_127(self, sandbox: Sandbox) -> None:
        result = sandbox.run(["/nonexistent/tool"], {}, FAST)
        assert result.exit_code == 127

    def test_streams_channel_files_and_collect(self, sandbox: Sandbox) -> None:
        source = (
            "import os, sys\n"
            "print(sys.stdin.read()[::-1]); print('err', file=sys.stderr)\n"
            "os.write(3, b'result:' + open('data/in.txt', 'rb').read())\n"
            "open('out.txt', 'w').write('written inside')\n"
        )
        files = {"main.py": source.encode(), "data/in.txt": b"payload"}
        result = sandbox.run([*PY, "main.py"], files, FAST, stdin=b"abc", collect=("out.txt", "nope.txt"))
        assert (result.exit_code, result.error) == (0, None), result
        assert (result.stdout, result.stderr, result.channel) == (b"cba\n", b"err\n", b"result:payload")
        assert result.files == {"out.txt": b"written inside"}
        assert result.cpu_seconds > 0 and result.wall_seconds > 0

    def test_environment_is_an_allowlist(self, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("ASSAY_TEST_SECRET", "hunter2")
        result = run_py(sandbox, "import os, json; print(json.dumps(dict(os.environ)))", env={"EXTRA": "1"})
        env = __import__("json").loads(result.stdout)
        assert set(env) == ALLOWED_ENV | {"EXTRA"}
        assert env["PYTHONHASHSEED"] == "0" and env["LC_ALL"] == "C.UTF-8" and "hunter2" not in result.stdout.decode()
        override = run_py(sandbox, "import os; print(os.environ['PYTHONHASHSEED'])", env={"PYTHONHASHSEED": "7"})
        assert override.stdout == b"7\n"

    def test_wall_clock_kills_a_sleeper_that_ignores_sigterm(self, sandbox: Sandbox) -> None:
        start = time.monotonic()
        result = run_hostile(sandbox, "busy_loop", "sleep", limits=SandboxLimits(**{**FAST.__dict__, "wall_seconds": 1.0}))
        assert result.timed_out and result.stdout == b"started\n" and result.error is None
        assert time.monotonic() - start < 5
        assert_healthy(sandbox)

    def test_cpu_limit_is_a_timeout(self, sandbox: Sandbox) -> None:
        result = run_hostile(sandbox, "busy_loop", "cpu", limits=SandboxLimits(**{**FAST.__dict__, "cpu_seconds": 1.0}))
        assert result.timed_out and result.signal in (signal.SIGXCPU, signal.SIGKILL), result
        assert 0.9 <= result.cpu_seconds < 3
        assert_healthy(sandbox)

    def test_fork_bomb_is_capped(self, sandbox: Sandbox) -> None:
        marker = f"bomb-{uuid.uuid4()}"
        limits = SandboxLimits(**{**FAST.__dict__, "processes": 12})
        result = run_py(sandbox, program("fork_bomb"), "300", marker, limits=limits)
        forked, failed = (int(x) for x in result.stdout.split()[:2])
        assert forked < 12 and failed > 0, result
        assert_no_process(marker)
        assert_healthy(sandbox)

    def test_memory_bomb_hits_the_address_space_cap(self, sandbox: Sandbox) -> None:
        result = run_hostile(sandbox, "memory_bomb", limits=SandboxLimits(**{**FAST.__dict__, "memory_bytes": 256 * 1024**2}))
        assert result.exit_code == 1 and result.stdout.startswith(b"MemoryError"), result
        assert int(result.stdout.split()[1]) < 256
        assert_healthy(sandbox)

    def test_output_flood_is_capped_and_returns_promptly(self, sandbox: Sandbox) -> None:
        start = time.monotonic()
        result = run_hostile(sandbox, "flood")
        assert result.output_truncated and len(result.stdout) == FAST.output_bytes
        assert not result.timed_out and time.monotonic() - start < 5
        assert_healthy(sandbox)

    def test_channel_flood_is_capped(self, sandbox: Sandbox) -> None:
        small = type(sandbox)(channel_bytes=4096)  # type: ignore[call-arg]
        result = run_hostile(small, "flood", "channel")
        assert result.output_truncated and len(result.channel) == 4096

    def test_parallel_runs_from_threads(self, sandbox: Sandbox) -> None:
        source = "import sys, time; time.sleep(0.2); print(sys.argv[1])"
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda i: run_py(sandbox, source, str(i)), range(8)))
        assert [r.stdout for r in results] == [f"{i}\n".encode() for i in range(8)]


@pytest.fixture(scope="module")
def bwrap() -> BubblewrapSandbox:
    availability = BubblewrapSandbox.available()
    if not availability:
        pytest.skip(f"bubblewrap unavailable: {availability.reason}")
    return BubblewrapSandbox()


class TestBubblewrapContract(SandboxContract):
    @pytest.fixture
    def sandbox(self, bwrap: BubblewrapSandbox) -> Sandbox:
        return bwrap


def test_daemon_does_not_outlive_the_run(bwrap: BubblewrapSandbox) -> None:
    marker = f"daemon-{uuid.uuid4()}"
    result = run_hostile(bwrap, "daemon", marker)
    assert result.exit_code == 0 and result.stdout == b"parent done\n", result
    assert_no_process(marker)
    assert_healthy(bwrap)


def test_killing_the_parent_and_everyone(bwrap: BubblewrapSandbox) -> None:
    result = run_hostile(bwrap, "kill_parent")
    assert result.exit_code == 0 and b"still alive" in result.stdout, result
    assert b"ppid 1\n" in result.stdout  # pid 1 of the namespace: immune to signals from inside
    assert_healthy(bwrap)


@pytest.mark.slow
def test_endless_fork_bomb_ends_at_the_wall_clock(bwrap: BubblewrapSandbox) -> None:
    marker = f"bomb-{uuid.uuid4()}"
    limits = SandboxLimits(**{**FAST.__dict__, "processes": 12, "wall_seconds": 2.0, "cpu_seconds": 2.0})
    start = time.monotonic()
    result = run_py(bwrap, program("fork_bomb"), "50", marker, "forever", limits=limits)
    assert result.timed_out and time.monotonic() - start < 6, result
    assert_no_process(marker)
    assert_healthy(bwrap)


def test_no_network(bwrap: BubblewrapSandbox) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.1)
        result = run_hostile(bwrap, "connect", str(server.getsockname()[1]))
        assert result.stdout.startswith(b"refused"), result
        with pytest.raises(TimeoutError):
            server.accept()


def test_writes_stay_inside(bwrap: BubblewrapSandbox, tmp_path: Path) -> None:
    marker = f"assay-escape-{uuid.uuid4()}"
    targets = [f"/tmp/{marker}", str(tmp_path / "out"), f"/etc/{marker}", f"/usr/{marker}", f"/{marker}",
               f"/dev/{marker}", f"{sys.base_prefix}/{marker}", f"/work/main/{marker}"]
    result = run_hostile(bwrap, "escape_fs", *targets)
    lines = dict(line.rsplit(" ", 1) for line in result.stdout.decode().splitlines())
    assert lines[f"/tmp/{marker}"] == "WROTE" and lines[str(tmp_path / "out")] == "WROTE"  # the sandbox's own /tmp
    assert all(lines[t] != "WROTE" for t in targets[2:]), lines
    for target in targets:
        assert not os.path.exists(target), target


def test_secrets_are_out_of_sight(bwrap: BubblewrapSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_TEST_SECRET", "hunter2")
    secret = tmp_path / "secret.txt"
    secret.write_text("hunter2")
    result = run_hostile(bwrap, "secrets", str(secret), "/root/.bash_history", "/etc/shadow", "/etc/hostname")
    out = result.stdout.decode()
    assert "hunter2" not in out and "READ" not in out, out
    assert "env None" in out
    listing = {line.split()[1]: line for line in out.splitlines() if line.startswith("ls ")}
    if sys.base_prefix.startswith("/root/"):  # only the interpreter's own top dir shows through
        assert listing["/root"] == f"ls /root {[Path(sys.base_prefix).parts[2]]}"
    for top in ("/home", "/work"):
        # Invisible, except the path down to the interpreter's environment when it lives there (a venv in a checkout).
        shown = sorted({Path(p).parts[2] for p in (sys.prefix, sys.base_prefix) if p.startswith(top + "/")})
        assert ("FileNotFoundError" in listing[top]) if not shown else listing[top] == f"ls {top} {shown}", listing[top]
    interpreter_in_tmp = sorted({Path(p).parts[2] for p in (sys.prefix, sys.base_prefix) if p.startswith("/tmp/")})
    assert listing["/tmp"] == f"ls /tmp {interpreter_in_tmp}"  # a fresh /tmp: at most the bound interpreter


def test_filling_the_disk_stops_at_the_tmpfs_size(bwrap: BubblewrapSandbox) -> None:
    start = time.monotonic()
    result = run_hostile(bwrap, "fill_disk", "/sandbox", "/tmp", "/dev/shm", "/", "/dev")
    report = {line.split()[0]: line.split()[1:] for line in result.stdout.decode().splitlines()}
    for top in ("/sandbox", "/tmp", "/dev/shm"):
        written, reason = int(report[top][0]), report[top][1]
        assert written <= FAST.disk_bytes // 1024**2 and reason == "ENOSPC", (top, report)
    assert report["/"][1] == "EROFS" and report["/dev"][1] == "EROFS"
    assert time.monotonic() - start < 10
    big = run_py(bwrap, "open('big', 'wb').write(b'0' * (8 * 1024 * 1024))", limits=FAST)
    assert big.exit_code == 1 and b"File too large" in big.stderr, big


def test_only_its_own_processes_are_visible(bwrap: BubblewrapSandbox) -> None:
    result = run_py(bwrap, "import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
    assert result.stdout == b"[1, 2]\n", result


def test_availability_and_factory() -> None:
    availability = BubblewrapSandbox.available()
    sandbox = get_sandbox() if availability else get_sandbox(allow_weak=True)
    assert sandbox.name == ("bubblewrap" if availability else "process")


def test_factory_without_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BubblewrapSandbox, "available", classmethod(lambda cls: Availability(False, "no bwrap")))
    with pytest.raises(SandboxUnavailable) as info:
        get_sandbox()
    message = str(info.value)
    assert "\n" not in message and "apt-get install bubblewrap" in message and "--allow-weak-sandbox" in message
    assert isinstance(get_sandbox(allow_weak=True), ProcessSandbox)


def test_extra_read_only_binds(tmp_path: Path) -> None:
    if not BubblewrapSandbox.available():
        pytest.skip("bubblewrap unavailable")
    tool = tmp_path / "toolchain"
    tool.mkdir()
    tool.joinpath("version").write_text("1.2.3")
    tool.chmod(0o755)
    tmp_path.chmod(0o755)
    sandbox = BubblewrapSandbox(ro_binds=(str(tool),))
    source = f"print(open('{tool}/version').read()); open('{tool}/x', 'w')"
    result = run_py(sandbox, source)
    assert result.stdout == b"1.2.3\n" and b"Read-only file system" in result.stderr, result
    with pytest.raises(ValueError):
        BubblewrapSandbox(ro_binds=("/nonexistent/toolchain",))


def test_a_broken_sandbox_is_an_error_not_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    if not BubblewrapSandbox.available():
        pytest.skip("bubblewrap unavailable")
    sandbox = BubblewrapSandbox()
    monkeypatch.setattr(sandbox, "_static", [*sandbox._static, "--ro-bind", "/nonexistent/assay", "/opt/x"])
    result = sandbox.run(["true"], {}, FAST)
    assert result.error and result.error.startswith("sandbox failed to start"), result
    assert "nonexistent/assay" in result.error and result.exit_code != 0


def test_large_stdin_is_fed_while_output_is_read(bwrap: BubblewrapSandbox) -> None:
    source = "import sys; data = sys.stdin.buffer.read(); print(len(data)); sys.stdout.write('y' * len(data))"
    result = run_py(bwrap, source, stdin=b"x" * 1024**2)
    assert result.stdout.startswith(b"1048576\n") and result.output_truncated and result.exit_code == 0


def test_bad_file_names_are_refused(bwrap: BubblewrapSandbox) -> None:
    for name in ("../x", "/etc/x", "a/../../x", ""):
        with pytest.raises(ValueError):
            bwrap.run(["true"], {name: b""}, FAST)

