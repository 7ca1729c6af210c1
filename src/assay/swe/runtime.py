"""Where a repository task's tests run: a bubblewrap workspace.

No network; own user, pid, ipc and uts namespaces; every capability dropped; /usr, the interpreter's
directories and the harness's plugin read-only; the checkout (at /testbed) and a scratch directory
writable, and nothing else of the host visible. Limits: CPU seconds and address space per process
(rlimits), and a wall-clock deadline for the whole run, after which every process in it is killed.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TESTBED = "/testbed"
SCRATCH = "/assay-scratch"
ETC = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/passwd", "/etc/group", "/etc/hosts",
       "/etc/localtime", "/etc/ssl", "/etc/ca-certificates")


@dataclass(frozen=True)
class Limits:
    """A test run's limits."""

    wall_seconds: float = 1800.0
    cpu_seconds: int = 3600
    memory_bytes: int = 8 * 1024**3
    output_bytes: int = 8 * 1024**2


@dataclass
class RunResult:
    """How the test command ended, and what it printed (capped)."""

    exit_code: int | None
    output: str
    wall_seconds: float
    timed_out: bool = False


class RuntimeUnavailable(RuntimeError):
    """The runtime cannot run here (bubblewrap missing or refused); the message says how to fix it."""


class Bwrap:
    """The bubblewrap runtime (the default)."""

    name = "bwrap"

    def __init__(self, ro_paths: Sequence[str] = (), mounts: Mapping[str, str] | None = None, rw_paths: Sequence[str] = (),
                 network: bool = False) -> None:
        """`ro_paths`: host directories shown read-only at their own paths; `mounts`: host directory -> where
        it is shown, read-only; `rw_paths` and `network`: for an environment's setup steps only (`assay.swe.envs`),
        directories shown writable at their own paths, and the host's network."""
        self.bwrap = shutil.which("bwrap")
        if self.bwrap is None:
            raise RuntimeUnavailable("bubblewrap is not installed: apt-get install bubblewrap (or pick --runtime podman)")
        self.ro_paths = sorted({os.path.realpath(p) for p in ro_paths if not os.path.realpath(p).startswith("/usr/")})
        self.mounts = dict(mounts or {})
        self.rw_paths = sorted({os.path.realpath(p) for p in rw_paths})
        self.network = network

    def argv(self, checkout: Path, scratch: Path, command: str, env: Mapping[str, str]) -> list[str]:
        assert self.bwrap is not None
        args = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "testbed",
                "--ro-bind", "/usr", "/usr"]
        for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
            if os.path.islink(name):
                args += ["--symlink", os.readlink(name), name]
            elif os.path.isdir(name):
                args += ["--ro-bind", name, name]
        for path in ETC:
            args += ["--ro-bind-try", path, path]
        for path in self.ro_paths:
            args += ["--ro-bind", path, path]
        for host, target in self.mounts.items():
            args += ["--ro-bind", host, target]
        if self.network:
            args += ["--share-net", "--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf", "--ro-bind-try", "/etc/nsswitch.conf",
                     "/etc/nsswitch.conf", "--ro-bind-try", "/etc/gitconfig", "/etc/gitconfig"]
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", str(checkout), TESTBED, "--bind", str(scratch), SCRATCH]
        for path in self.rw_paths:  # after the /tmp tmpfs, which would hide one below it
            args += ["--bind", path, path]
        args += ["--chdir", TESTBED, "--clearenv"]
        for key, value in env.items():
            args += ["--setenv", key, value]
        return [*args, "/bin/sh", "-c", command]

    def run(self, checkout: Path, scratch: Path, command: str, env: Mapping[str, str], limits: Limits) -> RunResult:
        """Run `command` (a shell command line) in /testbed; the statuses are read from `scratch` afterwards."""

        def rlimits() -> None:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds))
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        started = time.monotonic()
        out_path = scratch.parent / f"{scratch.name}.out"
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(self.argv(checkout, scratch, command, env), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    preexec_fn=rlimits, start_new_session=True)
            timed_out = False
            try:
                code: int | None = proc.wait(timeout=limits.wall_seconds)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                code = None
            except BaseException:  # Ctrl-C: the workspace goes with it
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise
        with open(out_path, "rb") as written:
            data = written.read(limits.output_bytes)
        out_path.unlink(missing_ok=True)
        if code is not None and code < 0:
            code = None
        return RunResult(code, data.decode("utf-8", "replace"), time.monotonic() - started, timed_out)
