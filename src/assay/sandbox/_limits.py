"""Host-side guards shared by both sandboxes: per-run uids, rlimits, and the launcher chain that applies them.

No run executes Python between fork and exec: forking a big evaluation process (numpy, scipy,
many threads) costs 20-60 ms, so a run is started with vfork and small tools do the work instead
(nsenter or setpriv for the uid, prlimit for rlimits, a perl init for what must happen inside).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import math
import os
import platform
import resource
import shutil
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from assay.sandbox.base import SandboxLimits

# Runs started by root switch to a uid of their own, so RLIMIT_NPROC (ignored for root) counts
# per run and the run owns nothing on the host. Slots are exclusive across processes (flock).
UID_BASE = 2_000_000
UID_SLOTS = 4096
SLOT_LOCK_DIR = "/run/assay-sandbox"

_CLONE_NEWNS = 0x00020000
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.unshare.argtypes = [ctypes.c_int]


def find_tool(name: str) -> str | None:
    """Absolute path of a system tool, looked up in the standard dirs (not the caller's PATH)."""
    return shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin")


class SandboxSetupError(RuntimeError):
    """The host could not prepare a run (no uid left, no mount view): the sandbox's fault, not the program's."""


class SlotPool:
    """Thread-safe pool of dedicated unprivileged uids, one per concurrent run.

    A uid is held with an flock on /run/assay-sandbox/<uid>.lock, so several processes on one host
    never share one. Leases go round the range, so a uid whose killed processes the host's init has
    not reaped yet (they still count against RLIMIT_NPROC) rests before its next run.
    """

    def __init__(self, base: int = UID_BASE, size: int = UID_SLOTS, lock_dir: str = SLOT_LOCK_DIR) -> None:
        self.base = base
        self.size = size
        self._lock_dir = lock_dir
        self._mutex = threading.Lock()
        self._held: dict[int, int] = {}  # uid -> fd holding its lock
        self._next = 0

    def _acquire(self) -> int:
        os.makedirs(self._lock_dir, mode=0o700, exist_ok=True)
        for i in range(self.size):
            uid = self.base + (self._next + i) % self.size
            if uid in self._held:
                continue
            fd = os.open(f"{self._lock_dir}/{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another process on this host runs a sandbox with this uid
                os.close(fd)
                continue
            self._held[uid] = fd
            self._next = (uid - self.base + 1) % self.size
            return uid
        raise SandboxSetupError(f"all {self.size} sandbox uids are in use")

    @contextmanager
    def uid(self, sweep: bool = True) -> Iterator[int]:
        """Lease a free uid; on return, kill anything still running under it (if `sweep`) and free it."""
        with self._mutex:
            uid = self._acquire()
        try:
            yield uid
        finally:
            if sweep:
                kill_uid(uid)
            with self._mutex:
                os.close(self._held.pop(uid))  # closing drops the flock


_POOL: SlotPool | None = None
_POOL_MUTEX = threading.Lock()


def shared_pool() -> SlotPool:
    """The process-wide pool of run uids."""
    global _POOL
    with _POOL_MUTEX:
        if _POOL is None:
            _POOL = SlotPool()
        return _POOL


def _uid_pids(uid: int) -> tuple[list[int], list[int]]:
    """(live, zombie) pids whose real or effective uid is `uid`, read from status (ownership can hide)."""
    live: list[int] = []
    zombies: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as f:
                text = f.read(1024)
        except OSError:  # gone already
            continue
        state = text.find(b"\nState:\t")
        uids = text.find(b"\nUid:\t")
        if state < 0 or uids < 0:
            continue
        if uid in (int(x) for x in text[uids + 6 : text.find(b"\n", uids + 6)].split()[:2]):
            (zombies if text[state + 8 : state + 9] == b"Z" else live).append(int(name))
    return live, zombies


def kill_uid(uid: int) -> None:
    """Kill every process running as `uid` (root only); kill(-1) as that uid beats a live fork bomb."""
    setpriv, kill = find_tool("setpriv"), find_tool("kill")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        live, zombies = _uid_pids(uid)
        if live and setpriv and kill:
            # kill(-1) from a process of that uid signals all of them in one kernel pass
            subprocess.run(
                [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", kill, "-KILL", "-1"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
            )
        elif live:
            for pid in live:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        elif not zombies:
            return
        else:  # zombies count against RLIMIT_NPROC until their new parent (the host's init) reaps them
            deadline = min(deadline, time.monotonic() + 0.5)
        time.sleep(0.005)


def count_user_tasks(uid: int) -> int:
    """Threads currently owned by `uid` on the host: what RLIMIT_NPROC compares against."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.stat(f"/proc/{name}").st_uid != uid:
                continue
            with open(f"/proc/{name}/stat", "rb") as f:
                total += int(f.read().rsplit(b")", 1)[1].split()[17])  # num_threads
        except (OSError, ValueError, IndexError):
            continue
    return total


@dataclass
class RevealPlan:
    """Paths a run uid must reach although one of their ancestors is closed to it (e.g. /root)."""

    hide: dict[str, list[str]] = field(default_factory=dict)  # blocked ancestor -> paths beneath it

    @classmethod
    def for_paths(cls, paths: Sequence[str]) -> RevealPlan:
        """Find, for each path, the topmost ancestor that others may not search."""
        plan = cls()
        for path in paths:
            parts = Path(path).parts
            for i in range(2, len(parts)):
                ancestor = str(Path(*parts[:i]))
                if not os.stat(ancestor).st_mode & stat.S_IXOTH:
                    plan.hide.setdefault(ancestor, []).append(path)
                    break
        return plan

    def apply_in_child(self) -> None:
        """In a private mount namespace, cover each blocked ancestor with a tmpfs holding only the paths."""
        if _libc.unshare(_CLONE_NEWNS) != 0 or _libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
            raise OSError(ctypes.get_errno(), "cannot make a private mount namespace")
        for ancestor, paths in self.hide.items():
            # fds must be opened in the new namespace, before the tmpfs hides their targets
            fds = [os.open(p, os.O_PATH | os.O_CLOEXEC) for p in paths]
            if _libc.mount(b"tmpfs", ancestor.encode(), b"tmpfs", 0, b"mode=0755,size=64k") != 0:
                raise OSError(ctypes.get_errno(), f"cannot mount tmpfs on {ancestor}")
            for fd, path in zip(fds, paths, strict=True):
                if stat.S_ISDIR(os.stat(fd).st_mode):
                    os.makedirs(path, exist_ok=True)
                else:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
                if _libc.mount(f"/proc/self/fd/{fd}".encode(), path.encode(), None, _MS_BIND | _MS_REC, None) != 0:
                    raise OSError(ctypes.get_errno(), f"cannot bind {path}")
                os.close(fd)


class MountView:
    """A private mount namespace where a RevealPlan is applied, kept alive by a tiny helper process.

    bwrap resolves bind sources as the run uid, and that uid cannot search /root; entering this
    view (nsenter) first shows it the interpreter under /root and nothing else there.
    """

    def __init__(self, plan: RevealPlan) -> None:
        self.plan = plan
        self._helper: subprocess.Popen[bytes] | None = None
        self._mutex = threading.Lock()

    def namespace(self) -> str:
        """Path of the view's mount namespace, starting the helper if it is not running."""
        with self._mutex:
            if self._helper is None or self._helper.poll() is not None:
                try:
                    # the helper blocks reading a pipe only we hold: it exits when we do
                    self._helper = subprocess.Popen(
                        [find_tool("cat") or "cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                        preexec_fn=self.plan.apply_in_child,  # once, not per run: this forks all of us
                    )
                except (OSError, subprocess.SubprocessError) as exc:
                    raise SandboxSetupError(f"cannot prepare the mount view for {sorted(self.plan.hide)}: {exc}") from exc
            return f"/proc/{self._helper.pid}/ns/mnt"


_VIEWS: dict[tuple[tuple[str, tuple[str, ...]], ...], MountView] = {}
_VIEWS_MUTEX = threading.Lock()


def mount_view(plan: RevealPlan) -> MountView:
    """One shared view (and helper process) per plan, however many sandboxes use it."""
    key = tuple(sorted((k, tuple(v)) for k, v in plan.hide.items()))
    with _VIEWS_MUTEX:
        return _VIEWS.setdefault(key, MountView(plan))


def _clamp(which: int, value: int) -> int:
    _, hard = resource.getrlimit(which)
    return value if hard == resource.RLIM_INFINITY else min(value, hard)  # only root may raise a hard limit


def prlimit_args(limits: SandboxLimits, nproc: int) -> list[str]:
    """prlimit options for a run; the soft CPU limit sends SIGXCPU, the hard one a second later SIGKILL."""
    cpu = _clamp(resource.RLIMIT_CPU, max(1, math.ceil(limits.cpu_seconds)))
    cpu_hard = _clamp(resource.RLIMIT_CPU, cpu + 1)
    values = {
        "as": _clamp(resource.RLIMIT_AS, limits.memory_bytes),
        "fsize": _clamp(resource.RLIMIT_FSIZE, limits.file_size_bytes),
        "nofile": _clamp(resource.RLIMIT_NOFILE, limits.open_files),
        "nproc": _clamp(resource.RLIMIT_NPROC, nproc),
        "core": 0,
    }
    return [f"--cpu={cpu}:{cpu_hard}"] + [f"--{name}={v}:{v}" for name, v in values.items()]


# The trusted init that runs the program (pid 1 of a bubblewrap sandbox; the direct child of the
# launcher chain in the process sandbox). Args: report fd, channel fd, collect cap, kill mode,
# prctl syscall number, n, n collect paths, then the program's argv. It
#  - sets no-new-privs (setuid binaries give the program nothing), makes itself non-dumpable (the
#    program, same uid, cannot ptrace it to forge the report) and a child subreaper (orphans of the
#    program come to it, not to the host's init);
#  - moves the channel to fd 3 (dash cannot name fds above 9) and keeps the report fd from the program;
#  - waits for the program, then kills what it left: kill(-1) when that is safe (pid 1 of a
#    namespace, or a dedicated uid), else its children, round after round, and reaps them all;
#  - writes the program's raw wait status and the collected files to the report fd.
INIT_SCRIPT = r"""
$^F = 3;
my ($sfd, $cfd, $cap, $killall, $prctl, $n) = splice(@ARGV, 0, 6);
my @collect = splice(@ARGV, 0, $n);
if ($prctl) { syscall($prctl, 38, 1, 0, 0, 0); syscall($prctl, 4, 0, 0, 0, 0); syscall($prctl, 36, 1, 0, 0, 0); }
open(my $s, ">&=", $sfd) or die "assay-init: report fd: $!\n";
my $c;
if ($cfd != 3) {
    if ($sfd == 3) { open(my $t, ">&", $s) or die "assay-init: dup: $!\n"; close $s; $s = $t; }
    open($c, ">&", $cfd) or die "assay-init: channel: $!\n";
    fileno($c) == 3 or die "assay-init: channel landed on fd " . fileno($c) . "\n";
    open(my $o, ">&=", $cfd) and close $o;
}
# kill(-1) reaches every process this uid may signal: only ever as pid 1 of a namespace or as a
# dedicated run uid, checked here again so a wrong argument cannot turn it on the host
my $all = ($killall eq "pid1" && $$ == 1) || ($killall =~ /^uid:(\d+)$/ && $1 > 0 && $< == $1 && $> == $1);
sub sweep {
    if ($all) { kill 'KILL', -1 }
    else {
        for (1 .. 10000) {
            open(my $h, "<", "/proc/$$/task/$$/children") or last;
            my @k = split ' ', (<$h> // "");
            last unless @k;
            kill 'KILL', @k;
            waitpid($_, 0) for @k;
        }
    }
    1 while waitpid(-1, 1) > 0;  # WNOHANG: reap what is dead, never wait on a survivor
}
my $st;
if (@ARGV && $ARGV[0] eq "--assay-phases") {
    # Phases (build, then run): each with its own fds and limits, watched against its own wall
    # deadline; whatever a phase leaves running is killed before the next one starts.
    require Time::HiRes;
    require POSIX;
    shift @ARGV;
    my $np = shift @ARGV;
    for (1 .. $np) {
        my ($name, $cpu, $wall, $mem, $chan, $in, $out, $argc) = splice(@ARGV, 0, 8);
        my @pargv = splice(@ARGV, 0, $argc);
        my $t0 = Time::HiRes::time();
        my @c0 = times;
        my $pid = fork() // die "assay-init: fork: $!\n";
        if (!$pid) {
            close $s;
            delete $ENV{PWD};
            open(STDIN, "<", "/dev/null") unless $in;
            open(STDOUT, ">&", \*STDERR) if $out eq "stderr";
            open(STDERR, ">&", \*STDOUT) if $out eq "merged";
            POSIX::close(3) unless $chan;
            my $lim = "ulimit -S -t $cpu; ulimit -H -t " . ($cpu + 1) . ";" . ($mem > 0 ? " ulimit -v $mem;" : "");
            exec { "/bin/sh" } "/bin/sh", "-c", "$lim exec \"\$@\"", "assay-phase", @pargv;
            print STDERR "assay-init: cannot run $pargv[0]: $!\n";
            POSIX::_exit(127);
        }
        my $to = 0;
        $st = undef;
        eval {
            local $SIG{ALRM} = sub { die "assay-deadline\n" };
            Time::HiRes::alarm($wall);
            while ((my $w = waitpid(-1, 0)) > 0) { if ($w == $pid) { $st = $?; last } }
            Time::HiRes::alarm(0);
        };
        if (!defined $st) { $to = 1; kill 'KILL', $pid; waitpid($pid, 0); $st = $?; }
        sweep();
        my @c1 = times;
        my $used = ($c1[2] + $c1[3]) - ($c0[2] + $c0[3]);
        printf $s "phase %s %d %.6f %.6f %d\n", $name, $st, $used, Time::HiRes::time() - $t0, $to;
        last if $to || $st != 0;
    }
} else {
    my $pid = fork() // die "assay-init: fork: $!\n";
    if (!$pid) {
        close $s;
        delete $ENV{PWD};
        exec { $ARGV[0] } @ARGV;
        print STDERR "assay-init: cannot run $ARGV[0]: $!\n";
        exit 127;
    }
    while ((my $w = wait) > 0) { if ($w == $pid) { $st = $?; last } }
    sweep();
}
print $s "$st\n";
for my $f (@collect) {
    my $d;
    if (-f $f && open(my $h, "<:raw", $f)) { read($h, $d, $cap) }
    print $s length($f), " ", (defined $d ? length($d) : -1), "\n", $f, (defined $d ? $d : "");
}
close $s;
exit 0;
"""
_PRCTL = {"x86_64": 157, "aarch64": 167, "riscv64": 167}.get(platform.machine(), 0)


def init_argv(
    perl: str, report: int, channel: int, collect: Sequence[str], cap: int, kill_all: str = "none"
) -> list[str]:
    """The init's argv, up to where the program's argv follows.

    kill_all: "pid1" (kill(-1) when it is pid 1 of a namespace), "uid:N" (when it runs as the
    dedicated uid N), or "none" (kill its own descendants only).
    """
    args = [str(report), str(channel), str(cap), kill_all, str(_PRCTL), str(len(collect))]
    return [perl, "-e", INIT_SCRIPT, *args, *collect]


def parse_report(data: bytes) -> tuple[int | None, dict[str, bytes]]:
    """Read the init's report: phase lines (phased runs), the raw wait status line, then `len(path) len(data)\\n path data` entries."""
    while data.startswith(b"phase "):
        data = data.partition(b"\n")[2]
    line, sep, rest = data.partition(b"\n")
    if not sep or not line.strip().isdigit():
        return None, {}
    files = {}
    while rest:
        header, sep, rest = rest.partition(b"\n")
        try:
            name_len, data_len = (int(x) for x in header.split())
        except ValueError:
            break
        name, rest = rest[:name_len].decode(errors="replace"), rest[name_len:]
        if data_len >= 0:
            files[name], rest = rest[:data_len], rest[data_len:]
    return int(line), files


def children(pid: int) -> list[int]:
    """Direct children of pid (empty when it is gone)."""
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (OSError, ValueError):
        return []


@dataclass
class Lease:
    """One run's host identity: the uid it runs as and the launcher chain that puts it there."""

    uid: int
    dedicated: bool  # a uid of its own: everything the run leaves behind can be killed by uid
    prefix: list[str]  # argv to put before the command


class Confinement:
    """Per-run uid, mount view and rlimits, applied by a chain of small tools before the command."""

    def __init__(self, reveal: Sequence[str] = (), no_new_privs: bool = True) -> None:
        self.is_root = os.geteuid() == 0
        self.no_new_privs = no_new_privs
        self.pool = shared_pool() if self.is_root else None
        plan = RevealPlan.for_paths(reveal) if self.is_root else RevealPlan()
        self.view = mount_view(plan) if plan.hide else None
        self.tools = {name: find_tool(name) for name in ("prlimit", "setpriv", "nsenter")}
        if self.view is not None:
            self.view.namespace()  # a view that cannot be made should fail here, not in every run

    def missing_tools(self) -> list[str]:
        """Tools this confinement needs that the host lacks."""
        needed = ["prlimit"]
        if (self.is_root and self.view is None) or (self.no_new_privs and not _PRCTL):
            needed.append("setpriv")
        if self.view is not None:
            needed.append("nsenter")
        return [name for name in needed if self.tools[name] is None]

    @contextmanager
    def lease(
        self, limits: SandboxLimits, overhead: int, workdir: str | None = None, sweep: bool = True
    ) -> Iterator[Lease]:
        """Lease an identity for one run; `overhead` processes of ours count against its process cap.

        `sweep=False` skips the kill-by-uid scan after a normal exit, for callers whose runs cannot
        outlive their first process (a pid namespace); kills on timeout always sweep.
        """
        tool = {name: path or name for name, path in self.tools.items()}
        # the init sets no-new-privs itself where it knows the prctl syscall number
        nnp = [tool["setpriv"], "--no-new-privs", "--"] if self.no_new_privs and not _PRCTL else []
        if self.pool is None:
            uid = os.getuid()
            # NPROC counts every task of this uid, so the budget is what exists now plus the run's share
            nproc = count_user_tasks(uid) + limits.processes + overhead
            yield Lease(uid, False, [*nnp, tool["prlimit"], *prlimit_args(limits, nproc), "--"])
            return
        with self.pool.uid(sweep) as uid:
            if self.view is not None:
                # entering a mount namespace resets the cwd to its root, so name it again
                wd = [f"--wd={workdir}"] if workdir else []
                ids = [f"--setuid={uid}", f"--setgid={uid}"]  # --setgid also drops supplementary groups
                prefix = [tool["nsenter"], f"--mount={self.view.namespace()}", *wd, *ids, "--"]
            else:
                prefix = [tool["setpriv"], f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
            prlimit = [tool["prlimit"], *prlimit_args(limits, limits.processes + overhead), "--"]
            yield Lease(uid, True, [*prefix, *nnp, *prlimit])
