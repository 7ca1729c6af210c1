"""The plain-process sandbox, and the runner both sandboxes use to start, feed, watch and kill a command."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from assay.sandbox._limits import (
    Confinement,
    Lease,
    SandboxSetupError,
    children,
    find_tool,
    init_argv,
    kill_uid,
    parse_report,
)
from assay.sandbox.base import Phase, PhaseResult, SandboxLimits, SandboxResult

CHANNEL_BYTES = 16 * 1024**2  # default cap on what the program writes to fd 3
FLOOD_BYTES = 16 * 1024**2  # a stream that overflows its cap by this much gets the run killed
EXIT_GRACE_S = 0.2  # after the program exits, how long stray holders of its pipes may keep them open
KILL_GRACE_S = 2.0  # after a kill, how long to wait for the pipes to close
MAX_FILES = 512
_READ = 1 << 16


# The channel pipe may be opened for writing by the run's uid (which is not ours): a harness in a language that
# cannot write to an inherited descriptor opens /dev/fd/3 instead of starting `cat >&3` (Lua: 1.5 ms a run).
# Only the run holds the descriptor, and anything it runs can write to fd 3 anyway; the read end stays ours.
CHANNEL_MODE = 0o622


def _channel_cap(fixed: int | None, limits: SandboxLimits) -> int:
    """The run's channel cap: the limit's, or the sandbox's own when one was set and is smaller."""
    return limits.channel_bytes if fixed is None else min(fixed, limits.channel_bytes)


def _gone() -> contextlib.suppress:
    """For best-effort kills and closes of things that may be gone already."""
    return contextlib.suppress(OSError)


def default_env(home: str, tmpdir: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    """The allowlisted environment of a run, plus whatever the caller adds."""
    env = {
        "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": home,
        "TMPDIR": tmpdir,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }
    env.update(extra or {})
    return env


def relative_path(name: str) -> PurePosixPath:
    """Check that a file name stays inside the work dir."""
    path = PurePosixPath(name)
    if not name or path.is_absolute() or any(part in ("..", ".") for part in path.parts):
        raise ValueError(f"sandbox file name must be a plain relative path, got {name!r}")
    return path


def check_files(files: Mapping[str, bytes], collect: Sequence[str]) -> None:
    """Reject file sets the sandbox cannot deliver."""
    if len(files) > MAX_FILES:
        raise ValueError(f"at most {MAX_FILES} files per sandbox run; pack more into an archive")
    for name in (*files, *collect):
        relative_path(name)


@dataclass
class Capture:
    """The first `cap` bytes of a stream, and how many bytes it carried in all."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    seen: int = 0

    def add(self, chunk: bytes) -> None:
        """Keep what fits under the cap; count the rest."""
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.seen += len(chunk)

    @property
    def truncated(self) -> bool:
        """True when bytes were dropped."""
        return self.seen > self.cap


@dataclass
class Outcome:
    """What the runner saw of one command."""

    status: int | None  # raw wait status; None when the command never started
    cpu_seconds: float
    wall_seconds: float
    stdout: Capture
    stderr: Capture
    channel: Capture
    report: Capture  # what the init wrote to its report pipe
    timed_out: bool = False  # the wall-clock watchdog fired
    flooded: bool = False  # killed because a stream overflowed its cap by FLOOD_BYTES
    error: str | None = None


def run_command(
    make_argv: Callable[[int, int], list[str]],
    lease: Lease,
    limits: SandboxLimits,
    *,
    cwd: str,
    env: Mapping[str, str],
    stdin: bytes,
    report_cap: int,
    more_fds: Sequence[int] = (),
    channel_bytes: int = CHANNEL_BYTES,
    spare_init: bool = False,
) -> Outcome:
    """Start make_argv(channel_fd, report_fd) with those fds and more_fds inherited; pump it, reap it.

    `spare_init`: on a kill, kill the init's children and let the init (a subreaper) clean up and
    report, instead of killing its whole process group at once.
    """
    out, err = Capture(limits.output_bytes), Capture(limits.output_bytes)
    channel, report = Capture(channel_bytes), Capture(report_cap)
    pipes = [os.pipe(), os.pipe()]
    os.fchmod(pipes[0][1], CHANNEL_MODE)
    writers = [w for _, w in pipes]
    argv = make_argv(*writers)
    start = time.monotonic()
    try:
        # no preexec_fn: that would force a full fork of this (possibly large) process
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            pass_fds=(*writers, *more_fds),
            start_new_session=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        for fd in (*writers, *(r for r, _ in pipes)):
            os.close(fd)
        return Outcome(None, 0.0, time.monotonic() - start, out, err, channel, report, error=f"could not start: {exc}")
    for w in writers:
        os.close(w)
    assert proc.stdout is not None and proc.stderr is not None
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err, pipes[0][0]: channel, pipes[1][0]: report}

    def kill() -> None:
        if spare_init and not lease.dedicated:
            for pid in children(proc.pid):
                with _gone():
                    os.kill(pid, signal.SIGKILL)
            return
        with _gone():
            os.killpg(proc.pid, signal.SIGKILL)
        if lease.dedicated:
            kill_uid(lease.uid)

    timed_out, flooded = _pump(proc, streams, stdin, start + limits.wall_seconds, kill)
    for r, _ in pipes:
        os.close(r)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: keep Popen from waiting again
    for f in (proc.stdin, proc.stdout, proc.stderr):
        if f is not None:
            with _gone():
                f.close()
    return Outcome(
        status,
        usage.ru_utime + usage.ru_stime,
        time.monotonic() - start,
        out,
        err,
        channel,
        report,
        timed_out=timed_out,
        flooded=flooded,
    )


def _pump(
    proc: subprocess.Popen[bytes],
    streams: dict[int, Capture],
    stdin: bytes,
    deadline: float,
    kill: Callable[[], None],
) -> tuple[bool, bool]:
    """Feed stdin and read every stream until the process is gone; returns (timed_out, flooded)."""
    poller = select.poll()
    for fd in streams:
        os.set_blocking(fd, False)
        poller.register(fd, select.POLLIN)
    stdin_fd = proc.stdin.fileno() if proc.stdin is not None else None
    if stdin_fd is not None:
        os.set_blocking(stdin_fd, False)
        poller.register(stdin_fd, select.POLLOUT)
    pidfd = os.pidfd_open(proc.pid)
    poller.register(pidfd, select.POLLIN)
    offset, exited, timed_out, flooded, hard_killed = 0, False, False, False, False
    give_up = math.inf  # set once the process is gone or killed: stop waiting for stray pipe holders
    open_streams = set(streams)
    try:
        while open_streams or not exited:
            now = time.monotonic()
            if not timed_out and not exited and now >= deadline:
                kill()
                timed_out, give_up = True, now + KILL_GRACE_S
            if now >= give_up:
                if not exited and not hard_killed:  # the init did not finish in time: no more sparing
                    with _gone():
                        os.killpg(proc.pid, signal.SIGKILL)
                    hard_killed, give_up = True, now + KILL_GRACE_S
                    continue
                break
            horizon = give_up if exited or timed_out else min(deadline, give_up)
            for fd, _ in poller.poll(max(0.0, horizon - now) * 1000):
                if fd == pidfd:
                    exited = True
                    poller.unregister(pidfd)
                    with _gone():  # the program is done; what it left in its group goes with it
                        os.killpg(proc.pid, signal.SIGKILL)
                    give_up = min(give_up, time.monotonic() + EXIT_GRACE_S)
                elif fd == stdin_fd:
                    try:
                        offset += os.write(fd, stdin[offset : offset + _READ])
                    except BlockingIOError:
                        continue
                    except OSError:  # the program closed stdin; fine
                        offset = len(stdin)
                    if offset >= len(stdin):
                        poller.unregister(fd)
                        proc.stdin.close()  # type: ignore[union-attr]
                        stdin_fd = None
                else:
                    try:
                        chunk = os.read(fd, _READ)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        poller.unregister(fd)
                        open_streams.discard(fd)
                        continue
                    capture = streams[fd]
                    capture.add(chunk)
                    if not flooded and capture.seen - capture.cap > FLOOD_BYTES:
                        kill()  # draining a flood forever would only burn the host's CPU
                        flooded, give_up = True, min(give_up, time.monotonic() + KILL_GRACE_S)
    finally:
        os.close(pidfd)
        if stdin_fd is not None:
            with _gone():
                proc.stdin.close()  # type: ignore[union-attr]
    return timed_out, flooded


def finish(outcome: Outcome, limits: SandboxLimits, phases: Sequence[Phase] = ()) -> SandboxResult:
    """Turn the runner's outcome and the init's report into a SandboxResult."""
    status, files = parse_report(bytes(outcome.report.data))
    phase_results = parse_phases(bytes(outcome.report.data), phases) if phases else []
    error = outcome.error
    if status is None:
        status = outcome.status  # no report: the init was killed (by us, or by the kernel) or never ran
        if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) != 0 and not outcome.flooded:
            # a launcher (nsenter, setpriv, prlimit, bwrap, the init) failed before the program ran
            tail = bytes(outcome.stderr.data).decode(errors="replace").strip().splitlines()[-1:] or [""]
            error = error or f"sandbox failed to start (exit status {os.WEXITSTATUS(status)}): {tail[0]}"
    exit_code = sig = None
    if status is not None:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
        else:
            exit_code = os.WEXITSTATUS(status)
    # SIGXCPU is the soft CPU limit; SIGKILL after the CPU budget is the hard one
    cpu_hit = sig == signal.SIGXCPU or (sig == signal.SIGKILL and outcome.cpu_seconds >= math.ceil(limits.cpu_seconds))
    if phases:
        cpu_hit = bool(phase_results) and phase_results[-1].timed_out
    return SandboxResult(
        exit_code=exit_code,
        signal=sig,
        stdout=bytes(outcome.stdout.data),
        stderr=bytes(outcome.stderr.data),
        channel=bytes(outcome.channel.data),
        wall_seconds=outcome.wall_seconds,
        cpu_seconds=outcome.cpu_seconds,
        timed_out=outcome.timed_out or cpu_hit,
        output_truncated=outcome.stdout.truncated or outcome.stderr.truncated or outcome.channel.truncated,
        error=error,
        files=files,
        phases=phase_results,
    )


def phased_limits(phases: Sequence[Phase], limits: SandboxLimits) -> SandboxLimits:
    """The whole run's limits: room for every phase's CPU and wall time (each phase has its own too)."""
    cpu = max([limits.cpu_seconds, *(p.cpu_seconds for p in phases)])
    wall = max(limits.wall_seconds, sum(p.wall_seconds for p in phases) + 5 * len(phases))
    memory = max([limits.memory_bytes, *(p.memory_bytes or 0 for p in phases)])
    return dataclasses.replace(limits, cpu_seconds=cpu, wall_seconds=wall, memory_bytes=memory)


def parse_phases(data: bytes, phases: Sequence[Phase]) -> list[PhaseResult]:
    """The init's phase lines (`phase NAME STATUS CPU WALL TIMED_OUT`), checked against the phases asked for."""
    results: list[PhaseResult] = []
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) != 6 or parts[0] != "phase" or len(results) >= len(phases) or parts[1] != phases[len(results)].name:
            continue
        try:
            status, cpu, wall, deadline = int(parts[2]), float(parts[3]), float(parts[4]), parts[5] == "1"
        except ValueError:
            continue
        exit_code = sig = None
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
        else:
            exit_code = os.WEXITSTATUS(status)
        limit = phases[len(results)].cpu_seconds
        cpu_hit = sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= math.ceil(limit))
        results.append(PhaseResult(parts[1], exit_code, sig, cpu, wall, timed_out=deadline or cpu_hit))
    return results


def _raw_status(phase: PhaseResult) -> int:
    """The wait status a phase's result stands for."""
    return phase.signal if phase.signal is not None else (phase.exit_code or 0) << 8


def phase_args(phases: Sequence[Phase]) -> list[str]:
    """The init's phase arguments: `--assay-phases N`, then per phase its settings, argc and argv."""
    args = ["--assay-phases", str(len(phases))]
    for p in phases:
        if not p.name.isalpha():
            raise ValueError(f"a phase name is a word, got {p.name!r}")
        memory_kb = (p.memory_bytes or 0) // 1024
        cpu = max(1, math.ceil(p.cpu_seconds))
        args += [p.name, str(cpu), f"{p.wall_seconds:.3f}", str(memory_kb), str(int(p.channel)), str(int(p.stdin)), p.output, str(len(p.argv)), *p.argv]
    return args


def failed(error: str) -> SandboxResult:
    """The result of a run the sandbox could not even start."""
    return SandboxResult(None, None, b"", b"", b"", 0.0, 0.0, error=error)


def report_cap(collect: Sequence[str], limits: SandboxLimits) -> int:
    """Room for the init's report: the status line and every collected file at its largest."""
    return 4096 + len(collect) * (limits.file_size_bytes + 4096)


class ProcessSandbox:
    """A plain subprocess in a fresh temp dir with rlimits and a watchdog; no filesystem or network isolation."""

    name = "process"
    isolation = (
        "plain process: NO filesystem or network isolation; rlimits, no-new-privs, env allowlist, output caps, "
        "its process tree is killed at the end (as root: a dedicated uid per run; otherwise the program runs "
        "as the caller and can signal the caller's processes)"
    )

    def __init__(self, ro_binds: Sequence[str] = (), channel_bytes: int | None = None) -> None:
        # as root the run's uid must still reach the interpreter and toolchains (e.g. under /root)
        self._confinement = Confinement(reveal=python_dirs() + list(ro_binds))
        self.ro_binds = tuple(ro_binds)  # what a cluster worker needs to make this sandbox again
        self._perl = find_tool("perl")
        missing = self._confinement.missing_tools() + ([] if self._perl else ["perl"])
        if missing:
            raise RuntimeError(f"the process sandbox needs {', '.join(missing)}: install util-linux and perl")
        self.channel_bytes = channel_bytes

    def run(
        self,
        argv: list[str],
        files: dict[str, bytes],
        limits: SandboxLimits,
        stdin: bytes = b"",
        env: dict[str, str] | None = None,
        collect: tuple[str, ...] = (),
        phases: Sequence[Phase] = (),
    ) -> SandboxResult:
        """Run argv in a fresh work dir holding `files`; return capped output and fd-3 data."""
        check_files(files, collect)
        if phases:
            argv = phase_args(phases)
        top = private_tempdir()
        try:
            work, tmp = os.path.join(top, "work"), os.path.join(top, "tmp")
            os.mkdir(work)
            os.mkdir(tmp)
            for name, data in files.items():
                target = Path(work, relative_path(name))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            with self._confinement.lease(limits, overhead=1, workdir=work) as lease:  # the init
                if lease.dedicated:
                    _chown_tree(top, lease.uid)

                def make_argv(channel: int, report: int) -> list[str]:
                    assert self._perl is not None
                    kill_all = f"uid:{lease.uid}" if lease.dedicated else "none"
                    init = init_argv(self._perl, report, channel, collect, limits.file_size_bytes, kill_all)
                    return [*lease.prefix, *init, *argv]

                outcome = run_command(
                    make_argv,
                    lease,
                    limits,
                    cwd=work,
                    env=default_env(work, tmp, env),
                    stdin=stdin,
                    report_cap=report_cap(collect, limits),
                    channel_bytes=_channel_cap(self.channel_bytes, limits),
                    spare_init=True,
                )
        except SandboxSetupError as exc:
            return failed(str(exc))
        finally:
            remove_tree(top)
        return finish(outcome, limits, phases)

    def run_phases(
        self,
        phases: Sequence[Phase],
        files: dict[str, bytes],
        limits: SandboxLimits,
        stdin: bytes = b"",
        env: dict[str, str] | None = None,
    ) -> SandboxResult:
        """Run the phases in one fresh work dir; the trusted init reports each phase."""
        return self.run([], files, phased_limits(phases, limits), stdin, env, phases=phases)


def python_dirs() -> list[str]:
    """The interpreter's install dirs (a venv and its base), which every run needs to see."""
    return sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)})


def _chown_tree(top: str, uid: int) -> None:
    for parent, dirs, names in os.walk(top):
        os.chown(parent, uid, uid)
        for name in (*dirs, *names):
            os.chown(os.path.join(parent, name), uid, uid, follow_symlinks=False)


def private_tempdir() -> str:
    """A fresh 0700 directory for one run's files."""
    return tempfile.mkdtemp(prefix="assay-run-")


def remove_tree(path: str) -> None:
    """Remove a run's directory even where the program took permissions away from its own dirs."""
    for _ in range(3):
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            return
        except PermissionError:
            # os.walk lists a dir after its parent visit made it searchable again
            for parent, dirnames, _ in os.walk(path):
                for name in dirnames:
                    with contextlib.suppress(OSError):
                        os.chmod(os.path.join(parent, name), 0o700)
    shutil.rmtree(path, ignore_errors=True)
