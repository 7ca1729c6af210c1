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
from dataclasses import dataclass, field
from typing import ClassVar

from assay.problems import Problem, Status, TestDetail, Verdict
from assay.sandbox.base import Limits, Sandbox, SandboxResult

ASSERT_EXIT = 97  # the exit status of a failed test assertion, in every language
SIGXCPU_EXIT = 128 + 24
SIGKILL_EXIT = 128 + 9
GiB = 1024**3
MiB = 1024**2
SCRIPT = "assay-run.sh"


@dataclass(frozen=True)
class Toolchain:
    """A language's tools as found on this machine."""

    language: str
    version: str
    tools: dict[str, str]  # tool name -> absolute path
    ro_binds: tuple[str, ...] = ()  # directories the sandbox must show (tools outside /usr)
    env: dict[str, str] = field(default_factory=dict)


class ToolchainMissing(RuntimeError):
    """A language cannot run here; the message says how to install what is missing."""


@dataclass(frozen=True)
class RunLimits:
    """Limits of one program's two phases."""

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
    aliases: ClassVar[tuple[str, ...]] = ()  # MultiPL-E's short names etc.: "rs", "cs", "sh"
    display: ClassVar[str]
    source: ClassVar[str]  # the program's file name in the work dir
    tools: ClassVar[tuple[str, ...]]  # executables needed; the first one's version is recorded
    version_args: ClassVar[tuple[str, ...]] = ("--version",)
    install_hint: ClassVar[str]  # e.g. "apt-get install -y golang-go"
    build: ClassVar[str | None] = None  # shell command of the build phase ({tool} placeholders), None for interpreters
    run: ClassVar[str]  # shell command of the run phase
    limits: ClassVar[RunLimits] = RunLimits()
    env: ClassVar[dict[str, str]] = {}
    # A completion that builds for any problem but solves none (the canary's stand-in for a model).
    stub: ClassVar[str] = ""
    config_dirs: ClassVar[tuple[str, ...]] = ()  # host configuration the toolchain reads, shown read-only where it exists
    # A library every benchmark program loads, probed once: (tool, its arguments, what to call it when missing).
    library_probe: ClassVar[tuple[str, tuple[str, ...], str] | None] = None

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
        return code + "\n" + self.wrap_tests(problem.tests.code, marker)  # type: ignore[union-attr]

    @abc.abstractmethod
    def wrap_tests(self, tests: str, marker: str) -> str:
        """The test section, with assertions routed to ASSERT_EXIT and the marker printed at its end."""

    def files(self, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """Files of the work dir besides the script."""
        return {self.source: self.program(problem, code, marker).encode()}

    def build_command(self, problem: Problem) -> str | None:
        """The build phase's shell command for this problem (None: nothing to build)."""
        return self.build

    def script(self, toolchain: Toolchain, limits: RunLimits, problem: Problem | None = None) -> str:
        """The two-phase shell script."""
        tools = {name.replace("-", "_").replace("+", "p").replace(".", "_"): shlex.quote(path) for name, path in toolchain.tools.items()}
        lines = ["#!/bin/sh", "exec 2>&1 </dev/null"]
        build = self.build_command(problem) if problem is not None else self.build
        if build:
            lines += [f"( {build.format(**tools)} ) 1>&2", 'rc=$?', 'echo "build $rc" >&3', '[ "$rc" -eq 0 ] || exit 0']
        else:
            lines.append('echo "build 0" >&3')
        cpu = max(1, int(limits.run_cpu + 0.999))
        lines += [f"ulimit -S -t {cpu}", f"ulimit -H -t {cpu + 1}"]  # soft first: a hard limit below the soft one is refused
        if limits.run_memory_bytes:
            lines.append(f"ulimit -v {limits.run_memory_bytes // 1024}")
        lines += [f"( {self.run.format(**tools)} ) 3>&-", 'echo "run $?" >&3']
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------ judging

    def prepare(self, toolchain: Toolchain) -> None:
        """Build what this toolchain's support directory gets on first use (once; a failure only costs speed)."""

    def judge(self, sandbox: Sandbox, problem: Problem, code: str, limits: RunLimits | None = None) -> Verdict:
        """Build and run one program against its tests in the sandbox; decide the verdict outside it."""
        limits = limits or self.limits
        try:
            toolchain = self.toolchain()
        except ToolchainMissing as exc:
            return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
        self.prepare(toolchain)
        marker = "ASSAY-DONE-" + secrets.token_hex(16)
        files = self.files(problem, code, marker)
        files[SCRIPT] = self.script(toolchain, limits, problem).encode()
        env = {"PATH": _path_for(toolchain), "HOME": "/tmp", **toolchain.env}
        box = Limits(
            cpu_seconds=limits.build_cpu,
            wall_seconds=limits.build_wall + limits.run_wall,
            memory_bytes=limits.memory_bytes,
            processes=limits.processes,
            disk_bytes=limits.disk_bytes,
            output_bytes=limits.output_bytes,
            channel_bytes=4096,
        )
        result = sandbox.run(["/bin/sh", SCRIPT], files, box, env=env)
        return classify(result, marker, limits)


def classify(result: SandboxResult, marker: str, limits: RunLimits) -> Verdict:
    """A verdict from the phase statuses the script reported on fd 3 and the marker on stdout."""
    output = result.stdout.decode("utf-8", "replace")
    duration = result.wall_seconds
    if result.error:
        return Verdict(Status.SANDBOX_ERROR, message=f"sandbox error: {result.error}", duration_s=duration, stdout=output[-2000:])
    phases = dict(_phases(result.channel))
    build = phases.get("build")
    if build is None:
        if result.timed_out:
            return Verdict(Status.TIMEOUT, message="timed out while building", duration_s=duration, stdout=output[-4000:])
        return Verdict(Status.SANDBOX_ERROR, message="the build did not report back", duration_s=duration, stdout=output[-2000:])
    if build != 0:
        return Verdict(Status.COMPILE_ERROR, message=f"compile error (exit status {build})", tests=[TestDetail("build", Status.COMPILE_ERROR, _tail(output))],
                       duration_s=duration, stdout=output[-4000:])
    run = phases.get("run")
    # Output after the build is the program's; the marker must be on a line of its own.
    done = any(line.strip() == marker for line in output.splitlines())
    shown = output.replace(marker, "<tests finished>")
    if run is None:
        if result.output_truncated:
            return Verdict(Status.RUNTIME_ERROR, message=f"output limit of {limits.output_bytes} bytes exceeded; killed", duration_s=duration, stdout=shown[-4000:])
        if result.timed_out:
            return Verdict(Status.TIMEOUT, message=f"timed out (wall clock, {limits.run_wall:g} s)", duration_s=duration, stdout=shown[-4000:])
        return Verdict(Status.RUNTIME_ERROR, message="the program killed its own test harness", duration_s=duration, stdout=shown[-4000:])
    if run in (SIGXCPU_EXIT, SIGKILL_EXIT) or (result.timed_out and run != 0):
        return Verdict(Status.TIMEOUT, message=f"timed out ({limits.run_cpu:g} s of CPU)", duration_s=duration, stdout=shown[-4000:])
    if run == ASSERT_EXIT:
        return Verdict(Status.FAILED, message="failed: a test assertion failed", tests=[TestDetail("tests", Status.FAILED, _tail(shown))],
                       duration_s=duration, stdout=shown[-4000:])
    if run != 0:
        return Verdict(Status.RUNTIME_ERROR, message=f"runtime error (exit status {run})", tests=[TestDetail("tests", Status.RUNTIME_ERROR, _tail(shown))],
                       duration_s=duration, stdout=shown[-4000:])
    if not done:
        return Verdict(Status.FAILED, message="failed: exited with status 0 before its tests finished", duration_s=duration, stdout=shown[-4000:])
    return Verdict(Status.PASSED, message="passed", tests=[TestDetail("tests", Status.PASSED)], duration_s=duration)


def _phases(channel: bytes) -> list[tuple[str, int]]:
    out = []
    for line in channel.decode("ascii", "replace").splitlines():
        match = re.fullmatch(r"(build|run) (\d+)", line.strip())
        if match:
            out.append((match.group(1), int(match.group(2))))
    return out


def _tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])[-3000:]


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
    return ":".join(dirs + ["/usr/local/bin", "/usr/bin", "/bin"])


class BraceLanguage(Language):
    """A language whose MultiPL-E tests begin by closing the prompt's function (`}`): C++, Java, Rust, Swift...

    A sample that is a whole program (an instruction-tuned model's reply) is spliced into that shape:
    the body after the prompt's signature, up to the brace that closes it, follows the prompt.
    """

    line_comment: ClassVar[str] = "//"
    # The `main` of a whole program (C++, Rust): when set, the code around the function is kept too (with_extras).
    own_main: ClassVar[re.Pattern[str] | None] = None

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """prompt + completion + tests, as MultiPL-E runs it (whole programs are spliced first)."""
        code = self.as_completion(problem, code)
        return code + "\n" + self.wrap_tests(problem.tests.code, marker)  # type: ignore[union-attr]

    def as_completion(self, problem: Problem, code: str) -> str:
        """prompt + body, whether the sample continued the prompt or rewrote the whole function."""
        if code.startswith(problem.prompt) and brace_depth(code[len(problem.prompt) :], self.line_comment) > -1:
            return code  # a completion that leaves the function open, as the tests expect
        signature = _last_line(problem.prompt)
        at = _find_line(code, signature)
        if at is None:
            return code  # not recognisable: judged as written (most likely a compile error)
        body = code[at:]
        end = closing_brace(body, self.line_comment)
        spliced = problem.prompt + (body[:end] if end is not None else body)
        if self.own_main is None:
            return spliced
        return with_extras(problem, code, spliced, self.own_main, self.line_comment)


def with_extras(problem: Problem, code: str, spliced: str, main: re.Pattern[str], line_comment: str = "//") -> str:
    """A whole program spliced into the prompt's shape keeps the code around the function (includes,
    imports, helpers before or after it), placed before the prompt, less its own `main` and what the
    prompt already has. The base splice keeps only the function's body."""
    if spliced is code or code.startswith(problem.prompt):
        return spliced  # a continued prompt, or not recognisable
    signature = _last_line(problem.prompt)
    after = _find_line(code, signature)
    if after is None:
        return spliced
    before = code[:after].splitlines(keepends=True)[:-1]
    while before and before[-1].strip().startswith(("///", "#[", "//")):
        before.pop()  # the function's own doc comment and attributes
    body = code[after:]
    end = closing_brace(body, line_comment)
    tail = body[end + 1 :] if end is not None else ""
    found = main.search(tail)
    if found:
        close = closing_brace(tail[found.end() :], line_comment)
        tail = tail[: found.start()] + (tail[found.end() + close + 1 :] if close is not None else "")
    imports = {line.strip() for line in problem.prompt.splitlines() if line.startswith("use ")}  # Rust: E0252 twice
    extras = [line for line in "".join(before).splitlines() + tail.splitlines() if line.strip() not in imports]
    text = "\n".join(extras).strip("\n")
    return text + "\n\n" + spliced if text.strip() else spliced


def brace_depth(text: str, line_comment: str = "//") -> int:
    """How many braces text opens (negative: it closes more than it opens), outside strings and comments."""
    depth = 0
    for ch in _code_chars(text, line_comment):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
    return depth


def closing_brace(body: str, line_comment: str = "//") -> int | None:
    """Index of the brace that closes a function whose body starts at body[0] (depth 1)."""
    depth = 1
    for i, ch in _code_chars_indexed(body, line_comment):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _code_chars(text: str, line_comment: str) -> list[str]:
    return [ch for _, ch in _code_chars_indexed(text, line_comment)]


def _code_chars_indexed(text: str, line_comment: str) -> list[tuple[int, str]]:
    """Characters outside string literals and comments, with their indexes (a rough but safe scanner)."""
    out: list[tuple[int, str]] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith(line_comment, i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        ch = text[i]
        if ch == "'":  # a char literal ('}', '\n', '\''); a Rust lifetime ('a) has no closing quote two or three on
            if i + 2 < n and text[i + 1] != "\\" and text[i + 2] == "'":
                i += 3
                continue
            if i + 3 < n and text[i + 1] == "\\" and text[i + 3] == "'":
                i += 4
                continue
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        out.append((i, ch))
        i += 1
    return out


def _last_line(text: str) -> str:
    return next((line for line in reversed(text.splitlines()) if line.strip()), "")


def _norm(line: str) -> str:
    return "".join(line.split())


def _find_line(code: str, signature: str) -> int | None:
    """Offset just after the line of code that matches the signature (whitespace ignored)."""
    want = _norm(signature)
    offset = 0
    for line in code.splitlines(keepends=True):
        offset += len(line)
        if want and _norm(line) == want:
            return offset
    return None
