"""What Assay knows about a programming language, and how a program in it is built, run and judged.

A program runs as one sandboxed shell script with two phases. The build phase (the compiler runs
inside the sandbox too: it is attack surface) reports its exit status on fd 3, the judge's channel.
The run phase gets fd 3 closed, tighter CPU and memory limits, and must end with exit status 0
*and* print the run's completion marker, which the test section prints after its last test: a
program that exits early with status 0 has not passed. Test assertions are routed to a reserved
exit status, so a failed test is told apart from a crash by exit status, not by reading stderr.
"""

from __future__ import annotations

import abc
import functools
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

from assay import values
from assay.problems import CaseTests, Problem, Runner, Status, TestDetail, Verdict, test_program
from assay.sandbox.base import Phase, Sandbox, SandboxLimits, SandboxResult
from assay.values import Signature, Type

ASSERT_EXIT = 97  # the exit status of a failed test assertion, in every language
SIGXCPU_EXIT = 128 + 24
SIGKILL_EXIT = 128 + 9
GiB = 1024**3
MiB = 1024**2


@dataclass(frozen=True)
class Toolchain:
    """A language's tools as found on this machine."""

    language: str
    version: str
    tools: dict[str, str]  # tool name -> absolute path
    ro_binds: tuple[str, ...] = ()  # directories the sandbox must show (tools outside /usr)
    env: dict[str, str] = field(default_factory=dict)


class Unrepresentable(ValueError):
    """A value, type or call this language cannot express (an int beyond its integer type, a union it lacks...)."""


class ToolchainMissing(RuntimeError):
    """A language cannot run here; the message says how to install what is missing."""


@dataclass(frozen=True)
class PhaseLimits:
    """A language's limits for one program's two phases, build and run (a compiler needs more than the
    program); the judge narrows the run phase's to its JudgeSettings and calibrated timeouts."""

    build_cpu: float = 120.0
    build_wall: float = 240.0
    run_cpu: float = 10.0
    run_wall: float = 30.0
    memory_bytes: int = 4 * GiB  # the build phase's address space per process
    run_memory_bytes: int | None = 2 * GiB  # None: the language manages its own (the JVM reserves far more than it uses)
    processes: int = 256
    disk_bytes: int = 512 * MiB
    output_bytes: int = 64 * 1024


class Language(abc.ABC):
    """A language plugin: subclasses set the class attributes and override what differs."""

    name: ClassVar[str]  # canonical name, as in Problem.language: "swift", "cpp", ...
    aliases: ClassVar[tuple[str, ...]] = ()  # other names a user or a benchmark may give it: "rs", "c++"
    display: ClassVar[str]  # the name people write, in tables and in prompts ("C++")
    multipl_e: ClassVar[str | None] = None  # MultiPL-E's short name ("rs", "cs"), where MultiPL-E has the language
    source: ClassVar[str]  # the program's file name in the work dir
    extension: ClassVar[str] = ""  # a source file's extension (".rs"); the source's unless set
    # Markdown fence info strings that mean this language besides its name, aliases and MultiPL-E name
    # (```golang, ```shell): extraction picks such a block from a reply.
    fence_tags: ClassVar[tuple[str, ...]] = ()
    # Where a completion of one of its prompts ends when the benchmark gives no stop strings of its own.
    stops: ClassVar[tuple[str, ...]] = ()
    # Extraction: a typed declaration `bool name(...) {` defines name (C-like languages), and a regex (with
    # a {name} placeholder) for this language's own definition forms, besides those every language shares.
    typed_declarations: ClassVar[bool] = False
    definition: ClassVar[str] = ""
    # Whether directory benchmarks (hand-written unit-test suites, docs/benchmark-format.md) can target it.
    unit_test_suites: ClassVar[bool] = False
    tools: ClassVar[tuple[str, ...]]  # executables needed; the first one's version is recorded
    version_args: ClassVar[tuple[str, ...]] = ("--version",)
    install_hint: ClassVar[str]  # e.g. "apt-get install -y golang-go"
    build: ClassVar[str | None] = None  # shell command of the build phase ({tool} placeholders), None for interpreters
    # The build only checks the syntax (`bash -n`, `perl -c`, `node --check`, ...) and leaves nothing the run needs. Case
    # runs then skip it (one start of the interpreter less a program), and check a run that failed before its harness
    # reported any case, so a compile error is still told from a runtime error (assay.judging.cases).
    build_checks_only: ClassVar[bool] = False
    run: ClassVar[str]  # shell command of the run phase
    limits: ClassVar[PhaseLimits] = PhaseLimits()
    env: ClassVar[dict[str, str]] = {}
    # A completion that builds for any problem but solves none (the canary's stand-in for a model).
    stub: ClassVar[str] = ""
    config_dirs: ClassVar[tuple[str, ...]] = ()  # host configuration the toolchain reads, shown read-only where it exists
    # A library every benchmark program loads, probed once: (tool, its arguments, what to call it when missing).
    library_probe: ClassVar[tuple[str, tuple[str, ...], str] | None] = None
    # MultiPL-E declares Python's floats as 32-bit floats here (C++, Java, C#, Scala, D `float`,
    # Haskell `Float`): the function sees float32 inputs, and its outputs carry float32 precision.
    float32: ClassVar[bool] = False
    # One number type for ints and floats (JavaScript's and TypeScript's number, R's double, a Perl scalar):
    # a whole-number float such as 3.0 arrives as 3, so where the type admits both (Any, a union) the
    # function cannot tell which Python meant, and HumanEval+ labels them differently (filter_integers).
    whole_floats_are_ints: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.extension and "source" in cls.__dict__:
            cls.extension = PurePosixPath(cls.source).suffix

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every name this language goes by: its own, its aliases, MultiPL-E's."""
        return tuple(dict.fromkeys((cls.name, *cls.aliases, *((cls.multipl_e,) if cls.multipl_e else ()))))

    @classmethod
    def fences(cls) -> tuple[str, ...]:
        """The fence info strings (lower case) that mark a block of this language."""
        return tuple(dict.fromkeys((*cls.names(), *cls.fence_tags)))

    def defines(self, code: str, name: str) -> bool:
        """Whether code (a block of a reply) defines `name`, not merely calls it: how extraction tells the
        solution from a usage example."""
        from assay.extract import defines_generically

        return defines_generically(code, name, typed=self.typed_declarations, extra=self.definition)

    # ------------------------------------------------------------ toolchain

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """The tools on this machine, their version, and what the sandbox must bind; raises ToolchainMissing."""
        found: dict[str, str] = {}
        for tool in cls.tools:
            path = cls.find_tool(tool)
            if path is None:
                raise ToolchainMissing(f"{cls.display}: {tool} not found; install with: {cls.install_hint}")
            found[tool] = path
        if cls.library_probe is not None:
            tool, args, library = cls.library_probe
            try:
                ok = subprocess.run([found[tool], *args], capture_output=True, timeout=120).returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
            if not ok:
                raise ToolchainMissing(f"{cls.display}: {library} is missing; install with: {cls.install_hint}")
        binds = {b for p in found.values() for b in _outside_system(p) + _outside_system(os.path.realpath(p))}
        binds |= {d for d in cls.config_dirs if os.path.isdir(d)}
        version = cls.read_version(found[cls.tools[0]])
        return Toolchain(cls.name, version, found, tuple(sorted(binds)), dict(cls.env))

    @classmethod
    def has_support(cls, variable: str) -> bool:
        """Whether this machine's toolchain sets `variable`: a support file built once (a harness module,
        a case header) that case builds use. False where the toolchain is missing."""
        try:
            return variable in cls.toolchain().env
        except ToolchainMissing:
            return False

    @classmethod
    def find_tool(cls, tool: str) -> str | None:
        """Where a tool is: on PATH, or in a well-known toolchain directory."""
        # Not resolved through symlinks: some tools read their own name (swiftc is swift-driver).
        path = shutil.which(tool) or shutil.which(tool, path="/opt/swift/usr/bin:/usr/lib/go/bin")
        return os.path.abspath(path) if path else None

    @classmethod
    def read_version(cls, tool_path: str) -> str:
        """The first non-empty line the tool prints for its version flag."""
        try:
            out = subprocess.run([tool_path, *cls.version_args], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"unknown ({exc})"
        text = (out.stdout or "") + (out.stderr or "")
        return next((line.strip() for line in text.splitlines() if line.strip()), "unknown")

    # ------------------------------------------------------------ programs

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The whole program: the sample's code, then the tests, then the marker print (MultiPL-E's shape)."""
        return code + "\n" + self.wrap_tests(test_program(problem).code, marker)

    @abc.abstractmethod
    def wrap_tests(self, tests: str, marker: str) -> str:
        """The test section, with assertions routed to ASSERT_EXIT and the marker printed at its end."""

    def files(self, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """Files of the work dir besides the script."""
        return {self.source: self.program(problem, code, marker).encode()}

    def build_command(self, problem: Problem) -> str | None:
        """The build phase's shell command for this problem (None: nothing to build)."""
        return self.build

    def phases(self, toolchain: Toolchain, limits: PhaseLimits, problem: Problem | None = None) -> list[Phase]:
        """The build phase (if the language has one) and the run phase, each with its own limits.

        The sandbox's trusted init runs them and reports their statuses; the build never holds the
        result channel, and the run gets it on fd 3.
        """
        tools = {name.replace("-", "_").replace("+", "p").replace(".", "_"): shlex.quote(path) for name, path in toolchain.tools.items()}
        out: list[Phase] = []
        build = self.build_command(problem) if problem is not None else self.build
        if build:
            out.append(Phase("build", phase_argv(build.format(**tools), toolchain.env), limits.build_cpu, limits.build_wall,
                             memory_bytes=limits.memory_bytes, output="stderr"))
        out.append(Phase("run", phase_argv(self.run.format(**tools), toolchain.env), limits.run_cpu, limits.run_wall,
                         memory_bytes=limits.run_memory_bytes, channel=True, stdin=True, output="merged"))
        return out

    # ------------------------------------------------------------ cases (judged on the trusted side)

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The call of each assert in a MultiPL-E test section, in order, with how the assert compares
        ("" for plain equality); None where this language's tests are not split into cases."""
        return None

    def render_value(self, value: Any, t: Type) -> str:
        """A literal of this language for a plain value of type t; raises Unrepresentable."""
        raise Unrepresentable(f"{self.display} has no value rendering")

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """A call of the entry point (as `candidate`) with these arguments; raises Unrepresentable."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        rendered = [self.render_value(a, t) for a, t in zip(args, signature.param_types, strict=True)]
        return f"candidate({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The work dir of a case run: the sample's code and a harness that calls `calls` in order and
        writes each result to fd 3 (assay.judging.records). Languages with a case harness override it."""
        raise Unrepresentable(f"{self.display} has no case harness")

    @property
    def has_case_harness(self) -> bool:
        """Whether this plugin judges cases (else its benchmarks' tests are judged as programs)."""
        return type(self).case_files is not Language.case_files

    def decode_result(self, payload: str, t: Type) -> Any:
        """A case's reported result (the wire text after `v`) as a plain value; raises values.WireError.
        Bash reports a call's stdout as a string and reads it back here; most languages write typed wire data."""
        return values.decode(values.parse_wire(payload), t)

    def normalize(self, value: Any, t: Type) -> Any:
        """A plain value as this language holds it (e.g. floats rounded to float32 where the prompt uses float)."""
        return value

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """Whether an output equals the expected one, as the benchmark's own assert compares in this language."""
        return values.equal(self.normalize(actual, t), self.normalize(expected, t))

    # ------------------------------------------------------------ judging

    def prepare(self, toolchain: Toolchain) -> None:  # noqa: B027 - a hook: most languages have nothing to prepare
        """Build what this toolchain's support directory gets on first use (once; a failure only costs speed)."""

    def check_may_explain(self, result: SandboxResult, reported: bool) -> bool:
        """Whether a failed case run may have failed on a syntax error, so that the check it skipped (`build_checks_only`)
        must tell: a run whose harness reported no case (a harness reports only once the whole program was read), unless
        the language knows better how its interpreter ends at one (Bash)."""
        return not reported

    def run_program(
        self, sandbox: Sandbox, problem: Problem, files: dict[str, bytes], limits: PhaseLimits, toolchain: Toolchain, stdin: bytes = b"",
        channel_bytes: int = 4096, only: str | None = None,
    ) -> SandboxResult:
        """Build and run one program's files in the sandbox, phase by phase (`only`: that phase alone, "build" or "run")."""
        env = {"PATH": _path_for(toolchain), "HOME": "/tmp", **toolchain.env}
        phases = [p for p in self.phases(toolchain, limits, problem) if only is None or p.name == only]
        box = SandboxLimits(
            cpu_seconds=max(limits.build_cpu, limits.run_cpu),
            wall_seconds=limits.build_wall + limits.run_wall,
            memory_bytes=max(limits.memory_bytes, limits.run_memory_bytes or 0),
            processes=limits.processes,
            disk_bytes=limits.disk_bytes,
            output_bytes=limits.output_bytes,
            channel_bytes=channel_bytes,
        )
        return sandbox.run_phases(phases, files, box, stdin=stdin, env=env)

    def judge(self, sandbox: Sandbox, problem: Problem, code: str, limits: PhaseLimits | None = None) -> Verdict:
        """Build and run one program against its tests in the sandbox; decide the verdict outside it.

        Cases whose expected outputs the benchmark gives are judged here too (assay.judging.cases);
        cases labelled by a reference solution need the executor, which computes the labels.
        """
        limits = limits or self.limits
        if not isinstance(problem.tests, CaseTests) and problem.tests.runner == Runner.MCEVAL:  # McEval's programs
            from assay.languages.mceval_shapes import judge_mceval

            return judge_mceval(self, sandbox, problem, code, limits)
        if isinstance(problem.tests, CaseTests):
            from assay.judging.cases import judge_cases, plan_for

            return judge_cases(self, sandbox, problem, code, plan_for(self, problem), limits)
        try:
            toolchain = self.toolchain()
        except ToolchainMissing as exc:
            return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
        if test_program(problem).runner == Runner.POLYGLOT:
            from assay.judging.polyglot import judge_polyglot

            return judge_polyglot(self, sandbox, problem, code, limits)
        if test_program(problem).runner == Runner.NATIVE:
            from assay.languages.native_tests import judge_native

            return judge_native(self, sandbox, problem, code, limits)
        self.prepare(toolchain)
        marker = "ASSAY-DONE-" + secrets.token_hex(16)
        result = self.run_program(sandbox, problem, self.files(problem, code, marker), limits, toolchain)
        return classify(result, marker, limits)


_SHELL_SYNTAX = re.compile(r"[;&|()<>`$*?\[\]{}~'\"\\#\n=]")
_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def phase_argv(command: str, env: Mapping[str, str]) -> tuple[str, ...]:
    """A phase's argv. A plain command (words, and $NAMEs of the toolchain's own environment, which
    the shell would only have split into words) is executed as it is: no shell starts, and the tool
    is the phase's process (its signal is its own); that saves about 0.7 ms a phase, a tenth of a
    small program's run. Any other command runs under /bin/sh, with `exec` where it is one command."""
    expanded = _VARIABLE.sub(lambda m: env.get(m.group(1), m.group(0)), command)
    words = expanded.split()
    if words and "/" in words[0] and not _SHELL_SYNTAX.search(expanded):
        return tuple(words)
    if not re.search(r"[;&|()<>`]", command):
        return ("/bin/sh", "-c", "exec " + command)
    return ("/bin/sh", "-c", command)


def build_failure(result: SandboxResult, limits: PhaseLimits) -> Verdict | None:
    """The verdict of a run that never got past its build (sandbox error, build timeout, compile error), else None."""
    output = result.stdout.decode("utf-8", "replace")
    build_output = result.stderr.decode("utf-8", "replace")
    duration = result.wall_seconds
    if result.error:
        return Verdict(Status.SANDBOX_ERROR, message=f"sandbox error: {result.error}", duration_s=duration, stdout=output[-2000:])
    phases = {p.name: p for p in result.phases}
    build = phases.get("build")
    if build is not None and not build.ok:
        if build.timed_out:
            return Verdict(Status.TIMEOUT, message=f"timed out while building ({limits.build_cpu:g} s of CPU, {limits.build_wall:g} s wall)",
                           duration_s=duration, stdout=build_output[-4000:])
        how = f"exit status {build.exit_code}" if build.exit_code is not None else f"killed by signal {build.signal}"
        return Verdict(Status.COMPILE_ERROR, message=f"compile error ({how})", tests=[TestDetail("build", Status.COMPILE_ERROR, _tail(build_output))],
                       duration_s=duration, stdout=build_output[-4000:])
    if "run" not in phases:  # the host stopped the whole run: a flood of output, or past every deadline
        if result.output_truncated:
            return Verdict(Status.RUNTIME_ERROR, message=f"output limit of {limits.output_bytes} bytes exceeded; killed", duration_s=duration, stdout=output[-4000:])
        if result.timed_out:
            return Verdict(Status.TIMEOUT, message="timed out", duration_s=duration, stdout=output[-4000:])
        return Verdict(Status.SANDBOX_ERROR, message="the sandbox's init reported no run phase", duration_s=duration, stdout=output[-2000:])
    return None


def run_failure(result: SandboxResult, limits: PhaseLimits, shown: str) -> Verdict | None:
    """The verdict of a run phase that hit a limit: output flood, CPU or wall time, memory; else None."""
    run = next(p for p in result.phases if p.name == "run")
    duration = result.wall_seconds
    if result.output_truncated and run.signal == 9 and not run.timed_out:
        return Verdict(Status.RUNTIME_ERROR, message=f"output limit of {limits.output_bytes} bytes exceeded; killed", duration_s=duration, stdout=shown[-4000:])
    # A shell between the init and the program reports its signal as 128 + n.
    cpu_hit = run.exit_code == SIGXCPU_EXIT or (run.exit_code == SIGKILL_EXIT and run.cpu_seconds >= limits.run_cpu)
    if run.timed_out or cpu_hit:
        wall = run.wall_seconds >= limits.run_wall
        what = f"wall clock, {limits.run_wall:g} s" if wall else f"{limits.run_cpu:g} s of CPU"
        return Verdict(Status.TIMEOUT, message=f"timed out ({what})", duration_s=duration, stdout=shown[-4000:])
    return None


_ERROR_WORD = re.compile(r"(?i)(fatal error|panic|panicked|exception|error|terminate called|segmentation fault|stack overflow|aborted)\b")


def error_line(*texts: str) -> str:
    """The language's own error line in a crashed run's output ("Fatal error: Index out of range", "panic:
    runtime error: ...", "java.lang.ArithmeticException: / by zero", "ZeroDivisionError: ..."): the first
    line that says so (with the next one where it ends in a colon, as Rust's panics do), or ""."""
    for text in texts:
        lines = [line.strip() for line in text.splitlines()]
        for i, line in enumerate(lines):
            if not line or line.startswith(("***", "Traceback", "at ", "File ")) or not _ERROR_WORD.search(line):
                continue
            if line.endswith(":") and i + 1 < len(lines) and lines[i + 1]:
                line = f"{line} {lines[i + 1]}"
            return line[:300]
    return ""


def classify(result: SandboxResult, marker: str, limits: PhaseLimits) -> Verdict:
    """A test program's verdict: phase statuses from the sandbox's init, the marker on stdout."""
    failure = build_failure(result, limits)
    if failure is not None:
        return failure
    run = next(p for p in result.phases if p.name == "run")
    duration = result.wall_seconds
    output = result.stdout.decode("utf-8", "replace")
    # The marker must be on a line of its own.
    done = any(line.strip() == marker for line in output.splitlines())
    shown = output.replace(marker, "<tests finished>")
    failure = run_failure(result, limits, shown)
    if failure is not None:
        return failure
    code = run.exit_code
    if code == ASSERT_EXIT:
        return Verdict(Status.FAILED, message="failed: a test assertion failed", tests=[TestDetail("tests", Status.FAILED, _tail(shown))],
                       duration_s=duration, stdout=shown[-4000:])
    if code != 0:
        how = f"exit status {code}" if code is not None else f"killed by signal {run.signal}"
        said = error_line(result.stderr.decode("utf-8", "replace"), output)
        return Verdict(Status.RUNTIME_ERROR, message=f"runtime error ({how})" + (f": {said}" if said else ""), tests=[TestDetail("tests", Status.RUNTIME_ERROR, _tail(shown))],
                       duration_s=duration, stdout=shown[-4000:])
    if not done:
        return Verdict(Status.FAILED, message="failed: exited with status 0 before its tests finished", duration_s=duration, stdout=shown[-4000:])
    return Verdict(Status.PASSED, message="passed", tests=[TestDetail("tests", Status.PASSED)], duration_s=duration)


def _tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])[-3000:]


@functools.cache
def judging_digest(language: str) -> str:  # one digest for all: the toolchain version tells languages apart
    """Hash of the code that shapes verdicts in other languages than Python: every plugin and plugin helper
    (they share code: splice.py for the JVM and .NET, java.py's float32 helpers for C# and Scala,
    harness.py for all), the value codec and the trusted-side judges. Part of every verdict's cache key."""
    import hashlib
    import importlib

    files = [Path(importlib.import_module(name).__file__ or "") for name in ("assay.judging.records", "assay.judging.cases", "assay.values")]
    here = Path(__file__).parent
    files += sorted(p for p in here.rglob("*") if p.is_file() and p.suffix != ".pyc" and p.name != "python_driver.py")
    h = hashlib.sha256()
    for path in files:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/")


def _outside_system(path: str) -> list[str]:
    """The top directory of a tool outside the system dirs (/opt/swift, /root/.rustup/...), to bind read-only."""
    if path.startswith(SYSTEM_DIRS) or path.startswith((sys.prefix + "/", sys.base_prefix + "/")):
        return []  # the sandbox shows the system and Assay's own interpreter already
    parts = path.split("/")
    if parts[1] == "opt" and len(parts) > 2:
        return ["/" + "/".join(parts[1:3])]
    if parts[1] in ("root", "home") and len(parts) > 3:
        return ["/" + "/".join(parts[1:4])]
    return [os.path.dirname(path)]


def _path_for(toolchain: Toolchain) -> str:
    dirs = []
    for path in toolchain.tools.values():
        d = os.path.dirname(path)
        if d not in dirs:
            dirs.append(d)
    return ":".join([*dirs, "/usr/local/bin", "/usr/bin", "/bin"])
