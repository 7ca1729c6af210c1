"""Warm bubblewrap sandboxes: one long-lived zygote per worker, fresh namespaces per run.

Starting bwrap and a Python interpreter costs 30-50 ms a run, more than most HumanEval samples
take to test. A zygote (see _zygote_main.py) is started once per worker inside a bubblewrap
sandbox like BubblewrapSandbox's (no network, read-only system, a dedicated uid as root); for
each run it forks a child that unshares new user, mount, pid and ipc namespaces, mounts a
fresh size-capped tmpfs work dir, /tmp and /proc, sets the run's rlimits, drops every capability
and becomes the program. When the program ends, its pid namespace is torn down with everything
in it. Python driver runs skip the interpreter start-up altogether: the child is already one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
import queue
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.sandbox.base import Phase, PhaseResult, SandboxLimits, SandboxResult
from assay.sandbox.bubblewrap import BubblewrapSandbox, _memfd
from assay.sandbox.process import (
    CHANNEL_MODE,
    FLOOD_BYTES,
    Capture,
    _channel_cap,
    _raw_status,
    check_files,
    default_env,
    parse_phases,
    phased_limits,
    relative_path,
)

_MAIN = Path(__file__).with_name("_zygote_main.py")
_PHP_WARM = Path(__file__).with_name("_php_warm.php")
_PHP_CLIENT = Path(__file__).with_name("_zygote_php.py")
_RUN_INIT_SOURCE = Path(__file__).with_name("_run_init.c")
_log = logging.getLogger(__name__)
_WORK = "/sandbox"
_IN_PROCESS_FLAGS = {"-I", "-S", "-X", "faulthandler"}
_READ = 1 << 16
_NPROC_OVERHEAD = 1  # the run's init: RLIMIT_NPROC counts per user namespace, and each run has its own
_HOST_GRACE_S = 10.0  # beyond the run's wall limit, before we give up on the zygote itself


class ZygoteDied(RuntimeError):
    """The zygote stopped answering; the run is retried on a fresh one."""


class _Zygote:
    """One zygote process and the socket to it."""

    def __init__(self, base: BubblewrapSandbox, spawn: bool = True, run_init: str | None = None, warm_php: bool = False) -> None:
        self.spawn = spawn
        self.run_init = run_init
        self.warm_php = warm_php
        self._stack = contextlib.ExitStack()
        zlimits = SandboxLimits(
            cpu_seconds=10**7, wall_seconds=10**7, memory_bytes=1 << 44, processes=4096,
            file_size_bytes=1 << 40, open_files=4096,
        )
        lease = self._stack.enter_context(base._confinement.lease(zlimits, overhead=0, sweep=True))
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock = parent
        bound = {"main.py": _MAIN, "php.py": _PHP_CLIENT, "php-warm.php": _PHP_WARM}  # in /zygote
        memfds = {name: _memfd(path.read_bytes()) for name, path in bound.items()}
        static = [a for a in base._static if a != "--disable-userns"]  # runs unshare a user namespace each
        # As the one-shot sandbox: /dev read-only but for /dev/shm (each run mounts its own capped tmpfs).
        args = ["--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--tmpfs", _WORK, "--tmpfs", "/tmp", "--dir", "/zygote"]
        for path in base.ro_paths:
            args += ["--ro-bind", path, path]
        for name, fd in memfds.items():
            args += ["--ro-bind-data", str(fd), f"/zygote/{name}"]
        args += ["--remount-ro", "/", "--chdir", _WORK, "--clearenv"]
        python = os.path.realpath(sys.executable)
        argv = [*lease.prefix, *static, *args, "--", python, "-I", "-S", "/zygote/main.py", str(child.fileno())]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            pass_fds=(child.fileno(), *memfds.values()), start_new_session=True,
        )
        child.close()
        for fd in memfds.values():
            os.close(fd)
        self.uid = lease.uid
        self.healthy = True

    def why_gone(self) -> str:
        """How the zygote ended (or that it still runs), with the tail of what it printed: for the error."""
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "it is still running"
        how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        said = b""
        if self.proc.stderr is not None:
            with contextlib.suppress(OSError):
                os.set_blocking(self.proc.stderr.fileno(), False)
                said = self.proc.stderr.read() or b""
        tail = said.decode(errors="replace").strip()[-300:]
        return f"it ended with {how}" + (f": {tail}" if tail else "")

    def close(self) -> None:
        """Stop the zygote and everything under it."""
        self.healthy = False
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self.proc.wait(timeout=5)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        self._stack.close()  # releases the uid slot (and sweeps anything left under it)

    def run(
        self, argv: list[str], files: dict[str, bytes], limits: SandboxLimits, stdin: bytes, env: dict[str, str], phases: Sequence[Phase] = ()
    ) -> SandboxResult:
        """Send one job (one program, or phases run by the run's init) and collect its outcome."""
        blob = b"".join(
            struct.pack("<IQ", len(name.encode()), len(data)) + name.encode() + data for name, data in files.items()
        )
        inprocess = not phases and argv[0] == sys.executable and argv[-1].endswith(".py") and set(argv[1:-1]) <= _IN_PROCESS_FLAGS
        header = {
            "argv": argv,
            "inprocess": inprocess,
            "faulthandler": "faulthandler" in argv,
            "env": env,
            "blob_size": len(blob),
            "phases": [dataclasses.asdict(p) for p in phases],
            "spawn": self.spawn,
            "run_init": self.run_init,
            "warm_php": self.warm_php and bool(phases),
            "limits": {
                "cpu_seconds": limits.cpu_seconds,
                "wall_seconds": limits.wall_seconds,
                "memory_bytes": limits.memory_bytes,
                "nproc": limits.processes + _NPROC_OVERHEAD,
                "file_size_bytes": limits.file_size_bytes,
                "open_files": limits.open_files,
                "disk_bytes": limits.disk_bytes,
            },
        }
        encoded = json.dumps(header).encode()
        pipes = {name: os.pipe() for name in ("stdin", "stdout", "stderr", "channel", "status")}
        os.fchmod(pipes["channel"][1], CHANNEL_MODE)
        theirs = [pipes["stdin"][0], pipes["stdout"][1], pipes["stderr"][1], pipes["channel"][1], pipes["status"][1]]
        ours = {"stdout": pipes["stdout"][0], "stderr": pipes["stderr"][0], "channel": pipes["channel"][0], "status": pipes["status"][0]}
        start = time.monotonic()
        try:
            try:
                # One message: the fds ride on its first bytes, and nothing can split the job from them.
                message = b"J" + struct.pack("<I", len(encoded)) + encoded + blob
                sent = socket.send_fds(self.sock, [message], theirs)
                self.sock.sendall(message[sent:])
            except OSError as exc:
                self.healthy = False
                raise ZygoteDied(str(exc)) from exc
        finally:
            for fd in theirs:
                os.close(fd)
        captures = {
            ours["stdout"]: Capture(limits.output_bytes),
            ours["stderr"]: Capture(limits.output_bytes),
            ours["channel"]: Capture(limits.channel_bytes),
            ours["status"]: Capture(4096),
        }
        try:
            reply, flooded = self._pump(pipes["stdin"][1], stdin, captures, start + limits.wall_seconds + _HOST_GRACE_S)
        except OSError as exc:  # the socket reset: the zygote is gone
            self.healthy = False
            raise ZygoteDied(f"the zygote's socket failed ({exc}); {self.why_gone()}") from exc
        wall = time.monotonic() - start
        status_data = bytes(captures[ours["status"]].data)
        if reply is None:
            self.healthy = False
            raise ZygoteDied(f"the zygote did not answer; {self.why_gone()}")
        phase_results: list[PhaseResult] = []
        if phases:
            phase_results = parse_phases(status_data, phases)
            last = phase_results[-1] if phase_results else None
            status = None if last is None else _raw_status(last)
            cpu = sum(p.cpu_seconds for p in phase_results)
        else:
            status_line = status_data.split()
            status, cpu = (int(status_line[0]), float(status_line[1])) if len(status_line) == 2 else (None, 0.0)
        exit_code = sig = None
        if status is not None:
            if os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
            else:
                exit_code = os.WEXITSTATUS(status)
        cpu_hit = not phases and (sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= math.ceil(limits.cpu_seconds)))
        if phases and phase_results:
            cpu_hit = phase_results[-1].timed_out
        error = None
        if not reply.get("started", True):
            error = "the sandbox could not start the run: " + bytes(captures[ours["stderr"]].data).decode(errors="replace")[-300:]
        elif status is None and not reply.get("timed_out") and not flooded:
            error = "the sandbox's run init gave no status"
        if flooded and sig is None:
            sig = signal.SIGKILL
        out, err, chan = (captures[ours[k]] for k in ("stdout", "stderr", "channel"))
        return SandboxResult(
            exit_code=exit_code,
            signal=sig,
            stdout=bytes(out.data),
            stderr=bytes(err.data),
            channel=bytes(chan.data),
            wall_seconds=wall,
            cpu_seconds=cpu,
            timed_out=bool(reply.get("timed_out")) or cpu_hit,
            output_truncated=out.truncated or err.truncated or chan.truncated,
            error=error,
            phases=phase_results,
        )

    def _pump(self, stdin_fd: int, stdin: bytes, captures: dict[int, Capture], deadline: float) -> tuple[dict[str, Any] | None, bool]:
        """Feed stdin, drain the pipes, and wait for the zygote's reply line."""
        poller = select.poll()
        for fd in captures:
            os.set_blocking(fd, False)
            poller.register(fd, select.POLLIN)
        os.set_blocking(stdin_fd, False)
        if stdin:
            poller.register(stdin_fd, select.POLLOUT)
        else:
            os.close(stdin_fd)
            stdin_fd = -1
        sock_fd = self.sock.fileno()
        poller.register(sock_fd, select.POLLIN)
        reply_buf = b""
        reply: dict[str, Any] | None = None
        offset, flooded, killed = 0, False, False
        open_fds = set(captures)
        try:
            while open_fds or reply is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None, flooded
                for fd, _ in poller.poll(remaining * 1000):
                    if fd == stdin_fd:
                        try:
                            offset += os.write(fd, stdin[offset : offset + _READ])
                        except BlockingIOError:
                            continue
                        except OSError:
                            offset = len(stdin)
                        if offset >= len(stdin):
                            poller.unregister(fd)
                            os.close(fd)
                            stdin_fd = -1
                    elif fd == sock_fd:
                        chunk = self.sock.recv(4096)
                        if not chunk:
                            return None, flooded
                        reply_buf += chunk
                        if b"\n" in reply_buf:
                            reply = json.loads(reply_buf.split(b"\n", 1)[0])
                            poller.unregister(sock_fd)
                    else:
                        try:
                            chunk = os.read(fd, _READ)
                        except BlockingIOError:
                            continue
                        if not chunk:
                            poller.unregister(fd)
                            open_fds.discard(fd)
                            continue
                        capture = captures[fd]
                        capture.add(chunk)
                        if not killed and capture.seen - capture.cap > FLOOD_BYTES:
                            self.sock.sendall(b"k")  # draining a flood forever only burns CPU
                            killed = flooded = True
        finally:
            if stdin_fd >= 0:
                os.close(stdin_fd)
            for fd in captures:
                with contextlib.suppress(OSError):
                    os.close(fd)
        return reply, flooded


class ZygoteSandbox:
    """The bubblewrap sandbox with warm zygotes: same isolation per run, a fraction of the start-up cost."""

    name = "bubblewrap"
    isolation = (
        "bubblewrap with warm zygotes: no network; per run its own user, mount, pid and ipc namespaces, "
        "a fresh size-capped tmpfs work dir and /tmp, no capabilities, rlimits; read-only /usr and interpreter "
        "dirs only; the run's pid namespace is killed at the end (as root: a dedicated uid per worker)"
    )

    def __init__(
        self,
        ro_binds: Sequence[str] = (),
        channel_bytes: int | None = None,
        spawn: bool | None = None,
        c_init: bool | None = None,
        warm_php: bool | None = None,
    ) -> None:
        # Phased runs start under the C run init (_run_init.c, built once per machine) where a C compiler
        # is here; ASSAY_SANDBOX_INIT=python (or c_init=False) keeps them on the Python init.
        if c_init is None:
            c_init = os.environ.get("ASSAY_SANDBOX_INIT", "c") != "python"
        self.run_init = run_init_binary() if c_init else None
        self._base = BubblewrapSandbox([*ro_binds, *([self.run_init] if self.run_init else [])], channel_bytes)
        self.channel_bytes = channel_bytes
        # Whether the run's init starts phases with posix_spawn where their limits allow (else it forks
        # itself for each); ASSAY_SANDBOX_SPAWN=0 turns it off.
        self.spawn = os.environ.get("ASSAY_SANDBOX_SPAWN", "1") != "0" if spawn is None else spawn
        # Whether a run that is one phase of `php FILE.php` forks the zygote's warm PHP (_php_warm.php) instead
        # of starting php; ASSAY_WARM_PHP=0 (or warm_php=False) starts php for each run, under the run init.
        self.warm_php = os.environ.get("ASSAY_WARM_PHP", "1") != "0" if warm_php is None else warm_php
        self.ro_paths = self._base.ro_paths
        self._idle: queue.SimpleQueue[_Zygote] = queue.SimpleQueue()
        self._all: list[_Zygote] = []
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def available(cls) -> bool:
        """Whether nested user namespaces work here (probed once by a real run)."""
        return _probe()

    def _take(self, fresh: bool = False) -> _Zygote:
        while not fresh:
            try:
                zygote = self._idle.get_nowait()
            except queue.Empty:
                break
            if zygote.proc.poll() is None:
                return zygote
            zygote.close()  # died while idle
        with self._lock:
            if self._closed:  # stopping (Ctrl-C): runs still in flight end, and none starts a zygote again
                raise ZygoteDied("the sandbox is closed")
            zygote = _Zygote(self._base, self.spawn, self.run_init, self.warm_php)
            self._all.append(zygote)
        return zygote

    def run(
        self,
        argv: list[str],
        files: dict[str, bytes],
        limits: SandboxLimits,
        stdin: bytes = b"",
        env: dict[str, str] | None = None,
        collect: tuple[str, ...] = (),
    ) -> SandboxResult:
        """Run argv in a fresh work dir holding `files`, in a fresh set of namespaces."""
        if collect:  # reading files back is the one-shot sandbox's job
            return self._base.run(argv, files, limits, stdin, env, collect)
        return self._run(argv, files, limits, stdin, env)

    def _run(
        self, argv: list[str], files: dict[str, bytes], limits: SandboxLimits, stdin: bytes, env: dict[str, str] | None, phases: Sequence[Phase] = ()
    ) -> SandboxResult:
        check_files(files, ())
        for name in files:
            relative_path(name)
        full_env = default_env(_WORK, "/tmp", env)
        limits = dataclasses.replace(limits, channel_bytes=_channel_cap(self.channel_bytes, limits))
        for attempt in (1, 2):
            try:
                zygote = self._take(fresh=attempt > 1)
            except ZygoteDied as exc:
                return SandboxResult(None, None, b"", b"", b"", 0.0, 0.0, error=f"sandbox zygote died: {exc}")
            try:
                result = zygote.run(argv, files, limits, stdin, full_env, phases)
            except ZygoteDied as exc:
                zygote.close()
                if attempt == 2:
                    return SandboxResult(None, None, b"", b"", b"", 0.0, 0.0, error=f"sandbox zygote died: {exc}")
                continue
            if zygote.healthy:
                self._idle.put(zygote)
            else:
                zygote.close()
            return result
        raise AssertionError("unreachable")

    def run_phases(
        self,
        phases: Sequence[Phase],
        files: dict[str, bytes],
        limits: SandboxLimits,
        stdin: bytes = b"",
        env: dict[str, str] | None = None,
    ) -> SandboxResult:
        """Run the phases in one fresh work dir and set of namespaces; the run's init reports each phase."""
        return self._run(list(phases[0].argv) if phases else [], files, phased_limits(phases, limits), stdin, env, phases)

    def close(self) -> None:
        """Stop every zygote (and the runs in them); none starts after this. All are killed first, then
        each is reaped and its uid swept, side by side (a sweep can take seconds on a loaded host)."""
        with self._lock:
            self._closed = True
            zygotes, self._all = self._all, []
        for zygote in zygotes:
            with contextlib.suppress(OSError):
                os.killpg(zygote.proc.pid, signal.SIGKILL)
        if len(zygotes) == 1:
            zygotes[0].close()
            return
        closing = [threading.Thread(target=zygote.close, name="assay-zygote-close") for zygote in zygotes]
        for thread in closing:
            thread.start()
        for thread in closing:
            thread.join()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


def _c_compiler() -> str | None:
    return shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def _publish(built: Path, binary: Path) -> None:
    """Put a built run init in place unless another process's build got there first, whose file then stays.

    Never over it (os.replace would): a sandbox shows the run init to its runs through a mount view that
    binds the file it found (the cache dir is closed to the run uid), and replacing that file unlinks the
    view's inode, so every zygote started after it fails to bind it (two test workers, or two `assay`
    processes, building at once on a fresh machine: CI's 'could not start the run')."""
    with contextlib.suppress(FileExistsError):
        os.link(built, binary)


@functools.cache
def run_init_binary() -> str | None:
    """The C run init, built from _run_init.c once per machine into the cache (static where libc.a is
    here); None where no C compiler can build it (the zygote's Python init runs the phases then)."""
    source = _RUN_INIT_SOURCE.read_bytes()
    digest = hashlib.sha256(source + os.uname().machine.encode()).hexdigest()[:16]
    cache = Path(os.environ.get("ASSAY_CACHE_DIR") or Path.home() / ".cache" / "assay") / "sandbox"
    binary = cache / f"run-init-{digest}"
    if binary.is_file() and os.access(binary, os.X_OK):
        return str(binary)
    compiler = _c_compiler()
    if compiler is None:
        _log.info("no C compiler: phased runs use the zygote's Python init")
        return None
    return str(binary) if build_run_init(compiler, binary) else None


def build_run_init(compiler: str, binary: Path) -> bool:
    """Build the run init with `compiler` and put it at `binary`, unless a concurrent build put one there
    first (that one stays: see _publish); False, with a warning, when it cannot be built."""
    try:
        binary.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=binary.parent) as tmp:
            out = Path(tmp) / "run-init"
            for static in (["-static"], []):
                done = subprocess.run(
                    [compiler, "-O2", *static, "-o", str(out), str(_RUN_INIT_SOURCE)], capture_output=True, timeout=120, check=False
                )
                if done.returncode == 0:
                    _publish(out, binary)
                    return True
            _log.warning("cannot build the C run init (phased runs use the Python init): %s", done.stderr.decode(errors="replace")[-300:])
    except (OSError, subprocess.SubprocessError) as exc:
        _log.warning("cannot build the C run init (phased runs use the Python init): %s", exc)
    return False


@functools.cache
def _probe() -> bool:
    sandbox = ZygoteSandbox()
    try:
        result = sandbox.run(["/bin/true"], {}, SandboxLimits(cpu_seconds=5, wall_seconds=20))
    except (OSError, RuntimeError):
        return False
    finally:
        sandbox.close()
    return result.error is None and result.exit_code == 0
