"""Swift: swiftc builds a debug binary (assertions stay on, as MultiPL-E runs it), then it runs.

Most of a small program's build is the Clang module cache (SwiftShims, Glibc, Foundation's C
modules): about 2.3 of 2.6 CPU seconds for a program that imports Foundation. Assay records that
cache once per machine on the host, from its own sample program, in a private /tmp (the cache
remembers its own path), and each build copies it into the sandbox's /tmp/module-cache. A module
the copy lacks is simply built as before; without the cache every build is as slow as a cold one.

MultiPL-E's problems are judged as cases (assay.languages.swift_cases): the sample, the test
section's prefix, then a harness that encodes each call's result under the declared type and
writes it to fd 3; the trusted side compares. Hand-written unit-test suites (runner "units") run
their tests in the sample's process, reporting per-test tokens that only stdin carries
(assay.languages.swift_units).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages import swift_cases, swift_units
from assay.languages.base import ASSERT_EXIT, PhaseLimits, Toolchain, ToolchainMissing, build_failure, run_failure
from assay.languages.braces import BraceLanguage, brace_depth
from assay.languages.harness import NotSplittable, balanced
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import CaseTests, Problem, Runner, Status, TestDetail, Verdict, test_program
from assay.sandbox._limits import find_tool
from assay.sandbox.base import Sandbox, SandboxResult
from assay.values import Signature, Type

MODULE_CACHE = "/tmp/module-cache"  # inside the sandbox; the recorded cache must have been built at this path
MODULE_CACHE_ENV = "ASSAY_SWIFT_MODULE_CACHE"  # "off" builds every program with a cold cache
# The recorded cache as symlinks into its read-only copy (the compiler reads the modules through them, and anything it
# writes replaces a link in the run's own /tmp): 17 MB copied each build took 15 ms, 7% of a small program's build.
_COPY_CACHE = '[ -z "$ASSAY_SWIFT_MODULES" ] || cp -Rs "$ASSAY_SWIFT_MODULES" ' + MODULE_CACHE + "; "
# What the cache is recorded from: the modules MultiPL-E's and hand-written suites' programs import,
# with the flags of both kinds of build.
_CACHE_SAMPLE = """import Foundation
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
print(Date().timeIntervalSince1970 > 0, "a,b".components(separatedBy: ","))
"""
_CACHE_FLAGS = (("-Onone",), ("-swift-version", "5", "-Onone", "-wmo", "-module-name", "AssayProgram"))
# The case harness's helpers as a static library and module, built with the cache: type-checking them with
# every case program cost 50 ms of CPU a program. ASSAY_SWIFT_HARNESS_MODULE=0 puts them in the program.
_HARNESS_FLAGS = ("-Onone", "-parse-as-library", "-emit-library", "-static", "-emit-module", "-module-name", "AssayHarness")
HARNESS_MODULE_ENV = "ASSAY_SWIFT_HARNESS_MODULE"

# Shadows Swift.assert for the test section: a failed assertion exits with ASSERT_EXIT instead of
# trapping (SIGILL), which would look like any other crash.
ASSERT_SHIM = f"""
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
func assert(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String = String(), file: StaticString = #file, line: UInt = #line) {{
    if !condition() {{
        print("assertion failed: line \\(line) \\(message())")
        exit({ASSERT_EXIT})
    }}
}}
"""


class Swift(BraceLanguage):
    """Swift 5/6 on Linux (swift.org toolchains, e.g. /opt/swift)."""

    name = "swift"
    display = "Swift"
    multipl_e = "swift"
    stops = ("\n}",)  # the rest, as MultiPL-E's stop_tokens for the language (see Language.stops)
    unit_test_suites = True
    source = "main.swift"
    tools = ("swiftc",)
    version_args = ("--version",)
    install_hint = "download a toolchain from https://www.swift.org/install/linux/ (e.g. into /opt/swift) and put its usr/bin on PATH"
    build = _COPY_CACHE + "{swiftc} -Onone -module-cache-path " + MODULE_CACHE + " -o main main.swift"
    run = "./main"
    stub = '    fatalError("stub")\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=8 * 1024**3)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """MultiPL-E's Swift tests: close the function, helpers, then top-level asserts."""
        head, sep, rest = tests.partition("}\n")
        if tests.lstrip().startswith("}") and sep:
            return head + sep + ASSERT_SHIM + rest + f'\nprint("{marker}")\n'
        return ASSERT_SHIM + tests + f'\nprint("{marker}")\n'

    def as_completion(self, problem: Problem, code: str) -> str:
        """As BraceLanguage splices, and for tests that do not begin by closing the function (mxeval's: the
        completion closes it): a continuation that closes it is kept whole (helpers after it too), and a
        spliced reply gets its closing brace back."""
        if test_program(problem).code.lstrip().startswith("}"):
            return super().as_completion(problem, code)
        if code.startswith(problem.prompt) and brace_depth(code[len(problem.prompt) :], self.line_comment) < 0:
            return code
        spliced = super().as_completion(problem, code)
        if spliced.startswith(problem.prompt) and brace_depth(spliced[len(problem.prompt) :], self.line_comment) >= 0:
            spliced += "\n}\n"
        return spliced

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """Swift's `==` (see swift_cases.swift_equal): under AnyHashable, true is not 1."""
        return swift_cases.swift_equal(actual, expected)

    # ------------------------------------------------------------ cases (judged on the trusted side)

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `assert(f(x: ...) == expected)` lines: the call, verbatim, up to its closing parenthesis."""
        calls: list[tuple[str, str]] = []
        for line in tests.splitlines():
            if not line.startswith("assert("):
                continue
            name = re.match(r"assert\(([A-Za-z_]\w*)\(", line)
            if name is None:
                return None
            try:
                end = balanced(line, name.end() - 1, quotes='"')
            except NotSplittable:
                return None
            if not line[end:].startswith(" == "):
                return None
            calls.append((line[len("assert(") : end], ""))
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's Swift literal (see assay.languages.swift_cases)."""
        return swift_cases.render(value, t)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`f(a: 1, b: [2])`: Swift calls carry argument labels."""
        return swift_cases.render_call(signature, args)

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """main.swift: the sample as the program path splices it, the test section's prefix (it closes the
        prompt's function and defines MultiPL-E's `==` for arrays of tuples), then the case harness."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        tests = test_program(problem).code
        first = re.search(r"^(?:assert\(|var arg\d)", tests, re.M)  # mxeval's cases begin with their `var argNK` lines
        prefix = tests[: first.start()] if first else tests
        harness = swift_cases.case_harness(problem.tests.signature.returns, calls, module=Swift.has_support("ASSAY_SWIFT_HARNESS"))
        return {self.source: (self.as_completion(problem, code) + "\n" + prefix + harness).encode()}

    # ------------------------------------------------------------ hand-written suites (runner "units")

    def unit_solution(self, problem: Problem, code: str) -> str:
        """solution.swift of a unit-test suite: what a completion added to the prompt, less a repeated context."""
        if code.startswith(problem.prompt):  # a completion-style sample continues the prompt: keep what it added
            code = code[len(problem.prompt) :]
        return drop_repeated_context(code, problem.context)

    def unit_run(self, problem: Problem, code: str) -> swift_units.UnitRun:
        """The files, stdin and tokens of one run of a unit-test suite (fresh names and tokens each time)."""
        return swift_units.unit_run(test_program(problem).code, self.unit_solution(problem, code), problem.context)

    def files(self, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """MultiPL-E: one main.swift. Unit-test suites: prelude + context + solution + tests + a generated main
        (whose report needs the run's tokens on stdin: `judge` gives them)."""
        if test_program(problem).runner != Runner.UNITS:
            return super().files(problem, code, marker)
        return self.unit_run(problem, code).files

    def judge(self, sandbox: Sandbox, problem: Problem, code: str, limits: PhaseLimits | None = None) -> Verdict:
        """Unit-test suites are judged from the tokens each passing test reports (assay.languages.swift_units);
        everything else as the base class judges it."""
        if isinstance(problem.tests, CaseTests) or test_program(problem).runner != Runner.UNITS:
            return super().judge(sandbox, problem, code, limits)
        limits = limits or self.limits
        try:
            toolchain = self.toolchain()
        except ToolchainMissing as exc:
            return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
        self.prepare(toolchain)
        solution = self.unit_solution(problem, code)
        refused = swift_units.solution_violations(solution, problem.context)
        if refused:
            return Verdict(Status.FAILED, message="failed: the solution could subvert the tests it runs with: " + "; ".join(refused[:3]),
                           tests=[TestDetail("solution", Status.FAILED, "\n".join(refused))])
        run = swift_units.unit_run(test_program(problem).code, solution, problem.context)
        result = self.run_program(sandbox, problem, run.files, limits, toolchain, stdin=run.stdin, channel_bytes=UNIT_CHANNEL_BYTES)
        return unit_verdict(result, run, limits)

    def build_command(self, problem: Problem) -> str | None:
        """Unit-test suites compile several files with the suite's flags (Swift 5 mode, one frontend process);
        case programs link the harness module where there is one."""
        if isinstance(problem.tests, CaseTests) and Swift.has_support("ASSAY_SWIFT_HARNESS"):
            return _COPY_CACHE + "{swiftc} -Onone -module-cache-path " + MODULE_CACHE + " $ASSAY_SWIFT_HARNESS -o main main.swift"
        if test_program(problem).runner != Runner.UNITS:
            return self.build
        flags = " ".join(shlex.quote(f) for f in problem.compile_flags)
        sources = "prelude.swift " + ("context.swift " if problem.context.strip() else "") + "solution.swift tests.swift main.swift"
        return f"{_COPY_CACHE}{{swiftc}} {flags} -module-cache-path {MODULE_CACHE} {sources} -o main"

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """swiftc, plus the Clang module cache recorded once per machine (see the module docstring), and
        the case harness's module built with it ($ASSAY_SWIFT_HARNESS: its flags)."""
        base = super().toolchain()
        env = {**base.env, "ASSAY_SWIFT_MODULES": ""}
        cache = module_cache(base)
        if cache is None:
            return dataclasses.replace(base, env=env)
        env["ASSAY_SWIFT_MODULES"] = str(cache)
        harness = cache.parent / "harness"
        if (harness / "libAssayHarness.a").exists() and (harness / "AssayHarness.swiftmodule").exists() and not switched_off(HARNESS_MODULE_ENV):
            env["ASSAY_SWIFT_HARNESS"] = f"-I {harness} -L {harness} -lAssayHarness"
        return dataclasses.replace(base, ro_binds=tuple(sorted({*base.ro_binds, str(cache.parent)})), env=env)


def module_cache(toolchain: Toolchain) -> Path | None:
    """<support root>/swift-<key>/module-cache, recorded now if needed; None when turned off or it cannot be."""
    if switched_off(MODULE_CACHE_ENV):
        return None
    swiftc = toolchain.tools["swiftc"]
    bwrap = find_tool("bwrap")
    if bwrap is None:
        return None  # the cache must be recorded at the sandbox's path, in a private /tmp
    key = digest(toolchain.version, os.path.realpath(swiftc), file_stamp(os.path.realpath(swiftc)), _CACHE_SAMPLE, _CACHE_FLAGS, MODULE_CACHE,
                 swift_cases.HARNESS_MODULE, _HARNESS_FLAGS)
    try:
        support = support_dir("swift", key, lambda work: _record_module_cache(work, swiftc, bwrap))
    except (OSError, subprocess.SubprocessError):
        return None
    cache = support / "module-cache"
    return cache if cache.is_dir() and not re.search(r"\s", str(cache)) else None


def _record_module_cache(work: Path, swiftc: str, bwrap: str) -> None:
    """Build the sample with each kind of flags against MODULE_CACHE in a private /tmp, and the case
    harness's module (harness/; left out if it fails to build: case programs then carry the harness),
    then keep the cache."""
    (work / "sample.swift").write_text(_CACHE_SAMPLE)
    (work / "harness").mkdir()
    (work / "harness" / "AssayHarness.swift").write_text(swift_cases.HARNESS_MODULE)
    builds = " && ".join(
        f"{shlex.quote(swiftc)} {' '.join(flags)} -module-cache-path {MODULE_CACHE} sample.swift -o sample" for flags in _CACHE_FLAGS
    )
    module = (f"(cd harness && {shlex.quote(swiftc)} {' '.join(_HARNESS_FLAGS)} -module-cache-path {MODULE_CACHE} AssayHarness.swift "
              "-o libAssayHarness.a) || rm -rf harness")
    script = f"cd {shlex.quote(str(work))} && {builds} && ./sample >/dev/null && {{ {module}; }} && cp -R {MODULE_CACHE} module-cache"
    run_host([bwrap, "--dev-bind", "/", "/", "--tmpfs", "/tmp", "--die-with-parent", "--", "/bin/sh", "-c", script], work, timeout=600)
    for name in ("sample.swift", "sample"):
        (work / name).unlink()



UNIT_CHANNEL_BYTES = 64 * 1024


def unit_verdict(result: SandboxResult, run: swift_units.UnitRun, limits: PhaseLimits) -> Verdict:
    """A unit-test run's verdict: the build's status, then test by test in order (the first that failed
    decides), then how the run ended (a crash, a timeout, an exit before the last test or without status 0)."""
    failure = build_failure(result, limits)
    if failure is not None:
        return failure
    output = result.stdout.decode("utf-8", "replace")
    duration = result.wall_seconds
    report = swift_units.read_report(result.channel, run)
    if report.forged:
        return Verdict(Status.FAILED, message=f"failed: the result channel holds data no harness wrote ({report.forged})",
                       duration_s=duration, stdout=output[-4000:])
    details = [TestDetail(name, Status.PASSED if ok else Status.FAILED, message) for name, ok, message in report.results]
    phase = next(p for p in result.phases if p.name == "run")
    how = f"exit status {phase.exit_code}" if phase.exit_code is not None else f"signal {phase.signal}"
    failed = next(((name, message) for name, ok, message in report.results if not ok), None)
    if failed is not None:
        return Verdict(Status.FAILED, message=f"failed: {failed[0]}: {failed[1][:300]}", tests=details, duration_s=duration, stdout=output[-4000:])
    if not report.ended:
        ended = run_failure(result, limits, output)
        if ended is not None:
            ended.tests = details
            return ended
        missing = run.tests[len(report.results)] if len(report.results) < len(run.tests) else "the end line"
        details.append(TestDetail(missing, Status.RUNTIME_ERROR if phase.exit_code != 0 else Status.FAILED, how))
        if phase.exit_code == 0:
            return Verdict(Status.FAILED, message=f"failed: exited with status 0 before {missing} ran", tests=details,
                           duration_s=duration, stdout=output[-4000:])
        return Verdict(Status.RUNTIME_ERROR, message=f"runtime error ({how}) in {missing}", tests=details, duration_s=duration, stdout=output[-4000:])
    if not phase.ok:
        return Verdict(Status.RUNTIME_ERROR, message=f"runtime error ({how}) after its last test", tests=details, duration_s=duration,
                       stdout=output[-4000:])
    return Verdict(Status.PASSED, message="passed", tests=details, duration_s=duration)


def drop_repeated_context(code: str, context: str) -> str:
    """Remove declarations of the context that a model copied into its reply (they would be declared twice)."""
    if not context.strip():
        return code
    out = code
    for block in re.split(r"\n\s*\n", context.strip()):
        # Imports are never removed: the solution may need them itself.
        body = "\n".join(line for line in block.strip().splitlines() if not line.strip().startswith("import ")).strip()
        if not body or (body.startswith("//") and "\n" not in body):
            continue
        pattern = r"\s+".join(re.escape(tok) for tok in body.split())
        out = re.sub(pattern, "", out)
    return out
