"""The zygote: a warm, trusted process inside one long-lived bubblewrap sandbox (standard library only).

For each job it forks a child that unshares fresh user, mount, pid and ipc namespaces, so
every run still gets its own namespaces, a fresh size-capped tmpfs work dir and /tmp, its own
/proc, rlimits, no capabilities and a pid namespace that the kernel tears down (with every
process in it) when the run ends. What the zygote saves is process start-up: the run is a fork
of an interpreter that is already loaded, not a new bwrap and a new interpreter.

Process chain per job:  zygote -> C (unshares, forks, exits) -> G (pid 1 of the new namespaces:
mounts, then reaps) -> H (the program: the Python driver in-process, or execve of argv).

Protocol on the fd named by argv[1] (a Unix stream socket): the host sends b"J" with the job's fds
(stdin, stdout, stderr, channel, status) attached, a 4-byte length, a JSON header, then the files blob.
G writes H's raw wait status and CPU time to the status fd. The zygote answers one JSON line per
job: {"timed_out": bool}. A byte "k" from the host while a job runs kills it.

No `from __future__ import annotations` here: compile() passes its caller's future flags on, so the
driver compiled here, and through it the samples, would get string annotations too. typing is
preloaded for the runs anyway.
"""

import contextlib
import ctypes
import fcntl
import itertools
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
from types import CodeType
from typing import Any

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 1, 4, 38, 36
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}.get(os.uname().machine)
SYS_CLONE = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)
SIGCHLD = 17
# No new uts namespace: without capabilities in the outer one the run cannot rename the host anyway.
RUN_NAMESPACES = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC
WORK = "/sandbox"

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_code_cache: dict[bytes, CodeType] = {}
# Made once in the zygote, so a run's fork does not pay ctypes' first-call costs (0.3 ms a process):
_capset, _prctl = libc.syscall, libc.prctl
_CAP_HEADER = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
_CAP_DATA = (ctypes.c_uint32 * 6)()  # every set empty
# clone(2) with the GIL held (PyDLL), between Python's own fork hooks, as os.fork calls them:
_raw_syscall = ctypes.PyDLL(None, use_errno=True).syscall
_raw_syscall.restype = ctypes.c_long
_before_fork, _after_fork_child = ctypes.pythonapi.PyOS_BeforeFork, ctypes.pythonapi.PyOS_AfterFork_Child
_after_fork_parent = ctypes.pythonapi.PyOS_AfterFork_Parent


def check(ok: bool, what: str) -> None:
    if not ok:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def write_file(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def drop_capabilities() -> None:
    """Empty effective, permitted and inheritable sets (we stay in-process, so no execve drops them)."""
    if SYS_CAPSET is None:
        raise OSError("unknown capset syscall number on this machine")
    check(_capset(SYS_CAPSET, _CAP_HEADER, _CAP_DATA) == 0, "capset")
    check(_prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "no_new_privs")


def rlimits(limits: dict[str, Any]) -> list[tuple[int, int, int]]:
    """The rlimits of a run or a phase: (resource, soft, hard) each."""
    cpu = max(1, int(-(-limits["cpu_seconds"] // 1)))
    nofile = limits["open_files"]
    return [
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_AS, limits["memory_bytes"], limits["memory_bytes"]),
        (resource.RLIMIT_NPROC, limits["nproc"], limits["nproc"]),
        (resource.RLIMIT_FSIZE, limits["file_size_bytes"], limits["file_size_bytes"]),
        (resource.RLIMIT_NOFILE, nofile, nofile),
        (resource.RLIMIT_CORE, 0, 0),
    ]


def set_limits(limits: dict[str, Any]) -> None:
    for which, soft, hard in rlimits(limits):
        resource.setrlimit(which, (soft, hard))


def unpack_files(blob: bytes) -> list[tuple[str, bytes]]:
    files: list[tuple[str, bytes]] = []
    at = 0
    while at < len(blob):
        name_len, data_len = struct.unpack_from("<IQ", blob, at)
        at += 12
        name = blob[at : at + name_len].decode()
        at += name_len
        files.append((name, blob[at : at + data_len]))
        at += data_len
    return files


def warm_compile(script: str, blob: bytes) -> None:
    """Compile the in-process script once in the zygote, so each run's fork inherits the code."""
    for name, data in unpack_files(blob):
        if name == script and data not in _code_cache:
            if len(_code_cache) > 16:
                _code_cache.clear()
            _code_cache[data] = compile(data, os.path.join(WORK, script), "exec")


def preload() -> None:
    """Import what the driver and typical samples import, once, so runs start warm: before the first in-process
    run (Python), not at start, where a zygote that only starts programs would pay for them (8 ms)."""
    import bisect, collections, copy, functools, hashlib, heapq, itertools, math, random, re, string, time, typing  # noqa: E401,F401,I001


def preload_driver() -> None:
    """Before the first in-process run: the driver's own imports (logging: 4 ms of a run's CPU, threading 1.5 ms),
    and what its reports need when a sample raises. Each run is a fork, so a sample that changes one of them changes
    its own copy only. Not at start: a zygote that only starts programs stays small, and forks faster (0.2-0.7 ms)."""
    import logging, threading, traceback  # noqa: E401,F401,I001


def run_program(header: dict[str, Any], fds: list[int]) -> None:
    """H: become the program."""
    stdin, stdout, stderr, channel = fds[:4]
    for target, fd in ((0, stdin), (1, stdout), (2, stderr), (3, channel)):
        os.dup2(fd, target)
    os.closerange(4, 1 << 16)
    os.setsid()
    set_limits(header["limits"])
    drop_capabilities()
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # the program's own children cannot read its memory
    argv = header["argv"]
    if header.get("inprocess"):
        os.environ.clear()  # the driver runs in this interpreter, so its os.environ is the run's
        os.environ.update(header["env"])
        script = os.path.join(WORK, argv[-1])
        sys.argv = [script]
        with open(script, "rb") as handle:
            source = handle.read()
        code = _code_cache.get(source)  # compiled by the zygote before the fork, once per script
        if code is None:
            code = compile(source, script, "exec")
        if header.get("faulthandler"):
            import faulthandler

            faulthandler.enable()
        namespace = {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__}
        try:
            exec(code, namespace)
        except SystemExit as exc:
            code_ = exc.code
            os._exit(code_ if isinstance(code_, int) else (0 if code_ is None else 1))
        except BaseException:  # as an interpreter would: print and exit 1
            import traceback

            traceback.print_exc()
            os._exit(1)
        sys.stdout.flush()
        os._exit(0)
    try:
        os.execve(argv[0], argv, header["env"])
    except OSError as exc:
        os.write(2, f"sandbox: cannot run {argv[0]}: {exc}\n".encode())
        os._exit(127)


def run_phase(header: dict[str, Any], phase: dict[str, Any], fds: list[int]) -> None:
    """H for one phase of a phased run: its own fds and limits, then execve."""
    stdin, stdout, stderr, channel = fds[:4]
    if not phase["stdin"]:
        stdin = os.open("/dev/null", os.O_RDONLY)
    os.dup2(stdin, 0)
    os.dup2(stderr if phase["output"] == "stderr" else stdout, 1)
    os.dup2(stdout if phase["output"] == "merged" else stderr, 2)
    if phase["channel"]:
        os.dup2(channel, 3)
        os.closerange(4, 1 << 16)
    else:
        os.closerange(3, 1 << 16)  # a phase without the channel has nothing open on fd 3
    os.setsid()
    for which, soft, hard in phase_limits(header, phase):
        resource.setrlimit(which, (soft, hard))
    drop_capabilities()
    argv = phase["argv"]
    try:
        os.execve(argv[0], argv, header["env"])  # the env as given: nothing of the init's own
    except OSError as exc:
        os.write(2, f"sandbox: cannot run {argv[0]}: {exc}\n".encode())
        os._exit(127)


def kill_all_but_me() -> None:
    """As pid 1 of the run's pid namespace: kill every other process in it, then reap them all."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)
    while True:
        try:
            os.wait4(-1, 0)
        except ChildProcessError:
            return


def phase_limits(header: dict[str, Any], phase: dict[str, Any]) -> list[tuple[int, int, int]]:
    """The rlimits a phase runs under: the run's, with the phase's own CPU time and address space."""
    limits = dict(header["limits"], cpu_seconds=phase["cpu_seconds"])
    if phase.get("memory_bytes"):
        limits["memory_bytes"] = phase["memory_bytes"]
    return rlimits(limits)


def can_spawn(header: dict[str, Any]) -> bool:
    """Whether G can start the phases with posix_spawn (a vfork and execve: 0.5 ms, against 1.7 ms for
    forking this Python process and then execve). The child gets its rlimits from G, which sets each
    on itself before the spawn and can only lower them, so every limit must stay or fall from one phase
    to the next, and G itself must live under them (its own address space well below the memory
    limit, its descriptors below the open-files limit)."""
    if not header.get("spawn") or not hasattr(os, "posix_spawn"):
        return False
    with open("/proc/self/statm") as handle:
        own = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    plans = [phase_limits(header, phase) for phase in header["phases"]]
    if any(limit[1] < own + (256 << 20) for plan in plans for limit in plan if limit[0] == resource.RLIMIT_AS):
        return False
    if any(limit[0] == resource.RLIMIT_NOFILE and limit[1] <= 64 for plan in plans for limit in plan):
        return False
    return all(b[1] <= a[1] and b[2] <= a[2] for before, after in itertools.pairwise(plans) for a, b in zip(before, after, strict=True))


def spawn_phase(header: dict[str, Any], phase: dict[str, Any], fds: list[int]) -> int:
    """Start one phase with posix_spawn, as run_phase would fork it: G has no capabilities and no new
    privileges by now, every descriptor of G's is close-on-exec, and G is under the phase's rlimits."""
    stdin, stdout, stderr, channel = fds[:4]
    for which, soft, hard in phase_limits(header, phase):
        resource.setrlimit(which, (soft, hard))
    actions: list[tuple[Any, ...]] = [
        (os.POSIX_SPAWN_DUP2, stdin, 0) if phase["stdin"] else (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, stderr if phase["output"] == "stderr" else stdout, 1),
        (os.POSIX_SPAWN_DUP2, stdout if phase["output"] == "merged" else stderr, 2),
    ]
    if phase["channel"]:
        actions.append((os.POSIX_SPAWN_DUP2, channel, 3))
    argv = phase["argv"]
    return os.posix_spawn(argv[0], argv, header["env"], file_actions=actions, setsid=True)


def run_phases(header: dict[str, Any], fds: list[int], status_fd: int) -> None:
    """G's work in a phased run: each phase in turn, watched against its own wall deadline.

    G is pid 1, not dumpable, and holds the status fd alone: a phase cannot read, forge or
    pre-empt another phase's status. Whatever a phase leaves running is killed before the next starts.
    """
    spawn = can_spawn(header)
    if spawn:
        drop_capabilities()  # G needs none from here on: it starts, waits, kills and reports
        for name in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                os.set_inheritable(int(name), False)
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in fds[:5]]  # clear of 0-3, the file actions' targets
        for fd in fds[:5]:
            os.close(fd)
        fds, status_fd = moved, moved[4]
    results: list[str] = []
    for phase in header["phases"]:
        start = time.monotonic()
        if spawn:
            try:
                pid = spawn_phase(header, phase, fds)
            except OSError as exc:  # as the forked phase reports an execve that failed
                os.write(fds[2], f"sandbox: cannot run {phase['argv'][0]}: {exc}\n".encode())
                results.append(f'phase {phase["name"]} {127 << 8} 0.0 {time.monotonic() - start:.6f} 0\n')
                break
        else:
            pid = os.fork()
            if pid == 0:
                try:
                    os.close(status_fd)
                    run_phase(header, phase, fds)
                finally:
                    os._exit(127)
        pidfd = os.pidfd_open(pid)
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        timed_out = not poller.poll(int(phase["wall_seconds"] * 1000))
        os.close(pidfd)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status, usage = os.wait4(pid, 0)
        kill_all_but_me()
        cpu = usage.ru_utime + usage.ru_stime
        results.append(f'phase {phase["name"]} {status} {cpu:.6f} {time.monotonic() - start:.6f} {int(timed_out)}\n')
        if timed_out or status != 0:
            break
    for fd in fds[:4]:
        os.close(fd)
    os.write(status_fd, "".join(results).encode())
    os._exit(0)


def init(header: dict[str, Any], fds: list[int], blob: bytes) -> None:
    """G: pid 1 of the run's namespaces. Mount, fork the program (or each phase), reap, report, exit."""
    status_fd = fds[4]
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # the run, same uid, cannot ptrace us or take our fds (pidfd_getfd)
    # No PDEATHSIG: C exits at once by design. If the zygote dies, bwrap's pid namespace takes G along.
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) == 0, "make mounts private")
    size = str(header["limits"]["disk_bytes"]).encode()
    for where in (WORK.encode(), b"/tmp", b"/dev/shm"):
        opts = b"mode=1777,size=" + size if where != WORK.encode() else b"mode=0755,size=" + size
        check(libc.mount(b"tmpfs", where, b"tmpfs", MS_NOSUID | MS_NODEV, opts) == 0, f"mount {where!r}")
    check(libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV, None) == 0, "mount /proc")
    for name, data in unpack_files(blob):
        path = os.path.join(WORK, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
    os.chdir(WORK)
    if header.get("phases"):
        run_phases(header, fds, status_fd)
    pid = os.fork()
    if pid == 0:
        os.close(status_fd)
        run_program(header, fds)
    for fd in fds[:4]:
        os.close(fd)
    status, usage = 0, None
    while True:  # reap everything; stop when the program itself has ended
        try:
            got, st, ru = os.wait4(-1, 0)
        except ChildProcessError:
            break
        if got == pid:
            status, usage = st, ru
            break
    cpu = (usage.ru_utime + usage.ru_stime) if usage else 0.0
    os.write(status_fd, f"{status} {cpu}\n".encode())
    os._exit(0)  # as pid 1: the kernel now kills everything left in the namespace


def clone_run() -> int:
    """fork() straight into a fresh user, mount, pid and ipc namespace: the child is pid 1 of the new pid
    namespace. One clone(2) instead of a fork, unshare(2) and a second fork (the first of which only made
    the namespaces and exited): half the page-table copies and one Python process's exit less a run.
    Python's own fork bookkeeping runs around it (PyOS_BeforeFork / AfterFork), as os.fork does; the
    zygote has one thread, so no lock of libc's can be held across the clone."""
    _before_fork()
    pid = _raw_syscall(SYS_CLONE, ctypes.c_ulong(RUN_NAMESPACES | SIGCHLD), None, None, None, None)
    if pid == 0:
        _after_fork_child()
    else:
        err = ctypes.get_errno()
        _after_fork_parent()
        if pid < 0:
            raise OSError(err, f"clone: {os.strerror(err)}")
    return int(pid)


def start_job(header: dict[str, Any], fds: list[int], blob: bytes) -> int:
    """Clone G into the run's new namespaces; returns G's pid (0: none started)."""
    uid, gid = os.getuid(), os.getgid()
    try:
        g = clone_run()
    except OSError as exc:
        os.write(fds[2], f"sandbox: namespace setup failed: {exc}\n".encode())
        return 0
    if g == 0:
        try:
            try:
                libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # else /proc/self/*_map belong to root, not to us
                write_file("/proc/self/setgroups", "deny")
                write_file("/proc/self/uid_map", f"{uid} {uid} 1")
                write_file("/proc/self/gid_map", f"{gid} {gid} 1")
            except BaseException as exc:
                os.write(fds[2], f"sandbox: namespace setup failed: {exc}\n".encode())
                os._exit(125)
            init(header, fds, blob)
        except BaseException as exc:
            os.write(fds[2], f"sandbox: run setup failed: {exc}\n".encode())
        os._exit(125)
    return g


RUN_INIT_MAGIC = "ASSAY-RUN-INIT-1"
OUTPUTS = {"stdout": 0, "merged": 1, "stderr": 2}


def native_spec(header: dict[str, Any], blob: bytes) -> bytes:
    """The job as the C run init reads it: NUL-terminated fields, then the files blob."""
    fields: list[object] = [RUN_INIT_MAGIC, os.getuid(), os.getgid(), header["limits"]["disk_bytes"], len(header["phases"])]
    for phase in header["phases"]:
        fields += [phase["name"], int(phase["wall_seconds"] * 1000), int(bool(phase["channel"])), int(bool(phase["stdin"]))]
        fields.append(OUTPUTS[phase["output"]])
        for limit in phase_limits(header, phase):
            fields += limit
        fields += [len(phase["argv"]), *phase["argv"]]
    env = [f"{key}={value}" for key, value in header["env"].items()]
    fields += [len(env), *env, len(blob)]
    texts = [str(item).encode() for item in fields]
    if any(b"\0" in text for text in texts):
        raise ValueError("embedded null byte")  # as execve would refuse it: the Python init reports that
    return b"".join(text + b"\0" for text in texts) + blob


def start_native_job(header: dict[str, Any], fds: list[int], blob: bytes) -> int | None:
    """Start the C run init for a phased job (a tiny static process, spawned: no copy of this one);
    returns G's pid as start_job does (0: none started), or None when the job needs the Python init."""
    try:
        spec = native_spec(header, blob)
    except (ValueError, KeyError):
        return None
    memfd = os.memfd_create("assay-run-spec", 0)  # inherited by the run init, which maps it
    r, w = os.pipe()
    try:
        view = memoryview(spec)
        while view:
            view = view[os.write(memfd, view) :]
        os.set_inheritable(w, True)
        for fd in fds[:5]:
            os.set_inheritable(fd, True)
        # The zygote has one thread, so nothing else can inherit these before they are closed below.
        run_init = header["run_init"]  # the C run init (_run_init.c), bound read-only by the host
        c = os.posix_spawn(run_init, [run_init, *(str(fd) for fd in fds[:5]), str(memfd), str(w)], {})
    except OSError as exc:
        os.write(fds[2], f"sandbox: namespace setup failed: {exc}\n".encode())
        os.close(r)
        return 0
    finally:
        os.close(memfd)
        os.close(w)
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(r, 64)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, status = os.waitpid(c, 0)
    try:
        g = int(data.strip() or 0)
    except ValueError:
        g = 0
    if g <= 0:  # say why, so a sandbox error is never a blank one
        how = f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit status {os.WEXITSTATUS(status)}"
        os.write(fds[2], f"sandbox: the run init ended before it started the run ({how})\n".encode())
    return g


def load_warm_php() -> Any:
    """The zygote's client of the warm PHP launcher (_zygote_php.py, bound beside this file), run in a namespace
    of its own: nothing is added to sys.path or sys.modules, which in-process Python runs (forks of us) see."""
    space: dict[str, Any] = {}
    with open("/zygote/php.py") as handle:
        exec(compile(handle.read(), "/zygote/php.py", "exec"), space)
    return space["WarmPhp"](native_spec)


class Reader:
    """Exact reads from the socket, starting with bytes already received."""

    def __init__(self, sock: socket.socket, data: bytes) -> None:
        self.sock = sock
        self.buf = bytearray(data)

    def take(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(min(n - len(self.buf), 1 << 20))
            if not chunk:
                raise EOFError
            self.buf += chunk
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out


def serve(sock: socket.socket) -> None:
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # G is re-parented to us when C exits
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    warm_php = load_warm_php()
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, 8)
        except OSError:
            return
        if not data:
            return
        data = data.lstrip(b"k")  # late kill requests for jobs that had already ended
        if not data:
            for fd in fds:
                os.close(fd)
            continue
        reader = Reader(sock, data)
        if reader.take(1) != b"J" or len(fds) != 5:
            raise EOFError("protocol error")
        (size,) = struct.unpack("<I", reader.take(4))
        header = json.loads(reader.take(size))
        blob = reader.take(header["blob_size"])
        if header.get("inprocess"):
            preload()
            preload_driver()
            warm_compile(header["argv"][-1], blob)
        g = warm_php.start(header, fds, blob) if warm_php.eligible(header) else None
        if g is None and header.get("phases") and header.get("run_init"):
            g = start_native_job(header, fds, blob)
        if g is None:
            g = start_job(header, fds, blob)
        for fd in fds:
            os.close(fd)
        timed_out: bool | None = False
        if g > 0:
            pidfd = os.pidfd_open(g)
            poller = select.poll()
            poller.register(pidfd, select.POLLIN)
            poller.register(sock.fileno(), select.POLLIN)
            deadline_ms = int(header["limits"]["wall_seconds"] * 1000)
            done = False
            while not done:
                events = poller.poll(deadline_ms)
                if not events:
                    timed_out = True
                    break
                for fd, _ in events:
                    if fd == pidfd:
                        done = True
                    elif sock.recv(1) in (b"k", b""):  # the host asks us to stop this job
                        done = True
                        timed_out = None
            if not done or timed_out is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(g, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):  # G of the warm PHP launcher is its child, not ours
                os.waitpid(g, 0)
            os.close(pidfd)
        sock.sendall(json.dumps({"timed_out": bool(timed_out), "started": g > 0}).encode() + b"\n")


def main() -> None:
    fd = int(sys.argv[1])
    os.set_inheritable(fd, False)  # passed in inheritable: no run init or program of ours may hold it
    sock = socket.socket(fileno=fd)
    with contextlib.suppress(EOFError, BrokenPipeError, ConnectionResetError):
        serve(sock)


if __name__ == "__main__":
    main()
