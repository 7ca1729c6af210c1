"""The bubblewrap sandbox: no network, private namespaces, a read-only view of the system, tmpfs work dir.

A run is one chain of execs, started with vfork (no Python runs between fork and exec):

    nsenter --mount=<view> --setuid=U   as root: a uid of its own, so RLIMIT_NPROC counts per run; the
      (or setpriv --reuid=U)            view shows that uid the interpreter under /root, which bwrap binds
    prlimit <the run's rlimits>
    bwrap <namespaces, read-only binds, size-capped tmpfs, files copied in from memfds>
    perl init (pid 1 of the sandbox)    trusted: reports the exact wait status and collected files
    program

Files reach the work dir through `--file FD` from memfds: copied into the sandbox's own tmpfs, so
nothing the program writes can touch host disk. When pid 1 exits, the kernel kills everything left
in the pid namespace; --die-with-parent ties pid 1 to bwrap, and the watchdog kills bwrap.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from assay.sandbox._limits import Confinement, SandboxSetupError, find_tool, init_argv
from assay.sandbox.base import Phase, SandboxLimits, SandboxResult
from assay.sandbox.process import (
    _channel_cap,
    check_files,
    default_env,
    failed,
    finish,
    phase_args,
    phased_limits,
    python_dirs,
    relative_path,
    report_cap,
    run_command,
)

WORK_DIR = "/sandbox"  # not /work or /tmp: a venv or the interpreter may live there and is bound in
SANDBOX_UID = 1000  # the uid the program sees; on the host it is the caller's uid or the run's slot uid
ETC_FILES = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/hosts")  # hosts: localhost resolves (to the run's own loopback)


@dataclass(frozen=True)
class Availability:
    """Whether a sandbox can run here, and why not."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


class BubblewrapSandbox:
    """Runs each command in a fresh bubblewrap sandbox: no network, read-only system, tmpfs work dir."""

    name = "bubblewrap"
    isolation = (
        "bubblewrap: no network; own user, pid, ipc, uts and cgroup namespaces; read-only /usr, interpreter "
        "and toolchain dirs only; size-capped tmpfs work dir and /tmp; no capabilities; rlimits; the whole "
        "pid namespace is killed at the end (as root: a dedicated uid per run)"
    )

    def __init__(self, ro_binds: Sequence[str] = (), channel_bytes: int | None = None) -> None:
        binds = []
        for path in ro_binds:
            if not os.path.exists(path):
                raise ValueError(f"read-only bind path does not exist: {path}")
            binds.append(os.path.realpath(path))
        self.ro_paths = _outermost([p for p in python_dirs() + binds if not _under(p, "/usr")])
        self.channel_bytes = channel_bytes
        self._confinement = Confinement(reveal=self.ro_paths, no_new_privs=False)  # bwrap sets no-new-privs
        self._bwrap, self._perl = find_tool("bwrap"), find_tool("perl")
        missing = self._confinement.missing_tools()
        missing += [name for name, path in (("bwrap", self._bwrap), ("perl", self._perl)) if path is None]
        if missing:
            needs = ", ".join(missing)
            raise RuntimeError(f"the bubblewrap sandbox needs {needs}: install bubblewrap, util-linux and perl")
        help_text = subprocess.run([self._bwrap or "bwrap", "--help"], capture_output=True, text=True).stdout
        self._sized = "--size" in help_text  # bubblewrap >= 0.6; without it a tmpfs may grow to half the RAM
        if not self._sized:
            self.isolation += "; tmpfs sizes NOT capped (this bubblewrap has no --size)"
        self._static = self._static_args("--disable-userns" in help_text)

    @classmethod
    def available(cls) -> Availability:
        """Whether bubblewrap works on this host (probed once by running a command in it)."""
        return _probe()

    def _static_args(self, disable_userns: bool) -> list[str]:
        assert self._bwrap is not None
        args = [self._bwrap, "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        args += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        args += ["--disable-userns"] if disable_userns else []  # no nested namespaces for the program
        args += ["--cap-drop", "ALL", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", "sandbox"]
        args += ["--ro-bind", "/usr", "/usr"]
        for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(name):  # merged /usr: keep the links
                args += ["--symlink", os.readlink(name), name]
            elif os.path.isdir(name):
                args += ["--ro-bind", name, name]
        for path in ETC_FILES:
            args += ["--ro-bind-try", path, path]
        return [*args, "--proc", "/proc", "--dev", "/dev"]

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
        size = ["--size", str(limits.disk_bytes)] if self._sized else []
        args = [*size, "--tmpfs", "/tmp", *size, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
        args += [*size, "--tmpfs", WORK_DIR]
        fds: list[int] = []
        try:
            made = set()
            for name, data in files.items():
                rel = relative_path(name)
                for parent in reversed(rel.parents[:-1]):  # bwrap does not create missing parents
                    if parent not in made:
                        made.add(parent)
                        args += ["--dir", f"{WORK_DIR}/{parent}"]
                fds.append(_memfd(data))
                args += ["--perms", "0644", "--file", str(fds[-1]), f"{WORK_DIR}/{rel}"]
            for path in self.ro_paths:  # after the tmpfs mounts, which would hide binds beneath them
                args += ["--ro-bind", path, path]
            for path, text in _identity().items():
                fds.append(_memfd(text.encode()))
                args += ["--ro-bind-data", str(fds[-1]), path]
            args += ["--remount-ro", "/", "--chdir", WORK_DIR, "--clearenv"]
            for key, value in default_env(WORK_DIR, "/tmp", env).items():
                args += ["--setenv", key, value]
            # bwrap and its init count against the process cap; the pid namespace takes everything down with it
            with self._confinement.lease(limits, overhead=2, sweep=False) as lease:

                def make_argv(channel: int, report: int) -> list[str]:
                    assert self._perl is not None  # pid 1 may kill(-1): it only reaches its namespace
                    init = init_argv(self._perl, report, channel, collect, limits.file_size_bytes, "pid1")
                    return [*lease.prefix, *self._static, *args, "--as-pid-1", "--", *init, *argv]

                outcome = run_command(
                    make_argv,
                    lease,
                    limits,
                    cwd="/",
                    env={},
                    stdin=stdin,
                    report_cap=report_cap(collect, limits),
                    more_fds=fds,
                    channel_bytes=_channel_cap(self.channel_bytes, limits),
                )
        except SandboxSetupError as exc:
            return failed(str(exc))
        finally:
            for fd in fds:
                os.close(fd)
        return finish(outcome, limits, phases)

    def run_phases(
        self,
        phases: Sequence[Phase],
        files: dict[str, bytes],
        limits: SandboxLimits,
        stdin: bytes = b"",
        env: dict[str, str] | None = None,
    ) -> SandboxResult:
        """Run the phases in one fresh sandbox; its pid 1 (the trusted init) reports each phase."""
        return self.run([], files, phased_limits(phases, limits), stdin, env, phases=phases)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _outermost(paths: Sequence[str]) -> list[str]:
    """Drop duplicates and paths inside others, parents first."""
    kept: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any(_under(path, k) for k in kept):
            kept.append(path)
    return kept


def _memfd(data: bytes) -> int:
    fd = os.memfd_create("assay-file", os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _identity() -> dict[str, str]:
    """passwd and group for the sandbox user, so tools that look up the current user work."""
    uid = SANDBOX_UID
    return {
        "/etc/passwd": f"sandbox:x:{uid}:{uid}:sandbox:{WORK_DIR}:/bin/sh\nnobody:x:65534:65534::/:/bin/false\n",
        "/etc/group": f"sandbox:x:{uid}:\nnogroup:x:65534:\n",
    }


@functools.cache
def _probe() -> Availability:
    try:
        sandbox = BubblewrapSandbox()
    except (RuntimeError, ValueError, OSError) as exc:
        return Availability(False, str(exc))
    true = find_tool("true") or "/bin/true"
    result = sandbox.run([true], {"probe": b""}, SandboxLimits(cpu_seconds=5, wall_seconds=20))
    if result.error or result.exit_code != 0:
        why = result.error or result.stderr.decode(errors="replace").strip() or f"exit status {result.exit_code}"
        return Availability(False, f"bubblewrap does not work here: {why}")
    return Availability(True)

