"""The sandbox protocol: run an untrusted command with isolation and limits, return plain data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one sandboxed run, as the sandbox enforces them (rlimits, wall clock, output,
    disk). Derived per run from a language's PhaseLimits and the run's JudgeSettings."""

    cpu_seconds: float = 10.0  # CPU time of the main process (RLIMIT_CPU); load does not shorten it
    wall_seconds: float = 60.0  # hard wall-clock limit for the whole run
    memory_bytes: int = 2 * 1024**3  # address space per process (RLIMIT_AS)
    processes: int = 64  # processes/threads the run may have at once
    file_size_bytes: int = 16 * 1024**2  # largest file the run may write (RLIMIT_FSIZE)
    open_files: int = 256  # RLIMIT_NOFILE
    output_bytes: int = 64 * 1024  # stdout and stderr are each cut to this many bytes
    disk_bytes: int = 64 * 1024**2  # size of the writable work dir and /tmp
    channel_bytes: int = 64 * 1024**2  # what the program may write to its result channel (fd 3)


@dataclass(frozen=True)
class Phase:
    """One step of a phased run (build, then run), started and watched by the sandbox's trusted init.

    Phases run one after another in the same work dir; a phase runs only if the one before it
    exited with status 0. The init alone holds the pipe their statuses are reported on, so no
    sandboxed process can forge or pre-empt a phase's status. Only a phase with `channel` gets the
    result channel (fd 3); the others have nothing open there. What a phase leaves running is
    killed before the next one starts.
    """

    name: str
    argv: tuple[str, ...]
    cpu_seconds: float
    wall_seconds: float  # enforced by the init: the phase and everything it started are killed at the deadline
    memory_bytes: int | None = None  # address space per process (None: the run's)
    channel: bool = False  # whether this phase gets the result channel on fd 3
    stdin: bool = False  # whether this phase reads the run's stdin (else /dev/null)
    # Where the phase's output goes: "stdout" (stdout and stderr apart), "merged" (both to stdout, in
    # the order written) or "stderr" (both to stderr: a build's chatter, kept apart from the program's).
    output: str = "stdout"


@dataclass(frozen=True)
class PhaseResult:
    """How one phase ended, as the trusted init saw it."""

    name: str
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    cpu_seconds: float
    wall_seconds: float
    timed_out: bool = False  # the phase's wall deadline or CPU limit was hit

    @property
    def ok(self) -> bool:
        """Exited with status 0."""
        return self.exit_code == 0


@dataclass
class SandboxResult:
    """What came back from one sandboxed run; all of it is untrusted data."""

    exit_code: int | None  # None when killed by a signal
    signal: int | None
    stdout: bytes
    stderr: bytes
    channel: bytes  # everything written to fd 3 (the result channel), capped
    wall_seconds: float
    cpu_seconds: float
    timed_out: bool = False  # wall-clock or CPU limit hit
    output_truncated: bool = False
    error: str | None = None  # set when the sandbox itself failed (not the program)
    files: dict[str, bytes] = field(default_factory=dict)
    phases: list[PhaseResult] = field(default_factory=list)  # a phased run's phases, in order, as far as they ran


class Sandbox(Protocol):
    """Runs one command in a fresh, isolated work dir and tears everything down afterwards."""

    name: str  # "bubblewrap" or "process"
    isolation: str  # one line that says what the sandbox guarantees, recorded in results

    def run(
        self,
        argv: list[str],
        files: dict[str, bytes],
        limits: SandboxLimits,
        stdin: bytes = b"",
        env: dict[str, str] | None = None,
        collect: tuple[str, ...] = (),
    ) -> SandboxResult:
        """Run argv in a fresh work dir holding `files`; return capped output and fd-3 data."""
        ...

    def run_phases(
        self,
        phases: Sequence[Phase],
        files: dict[str, bytes],
        limits: SandboxLimits,
        stdin: bytes = b"",
        env: dict[str, str] | None = None,
    ) -> SandboxResult:
        """Run the phases in one fresh work dir; each phase's status comes from the trusted init."""
        ...
