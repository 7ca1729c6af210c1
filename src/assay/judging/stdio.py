"""Programs judged by what they print or return: stdin/stdout cases and calls on JSON arguments (LiveCodeBench's).

Rule "stdio": each case is a stdin text and the stdout expected for it. The program (the problem's context,
then the sample) runs once per case in a fresh sandbox with that text on stdin; only its stdout comes back,
and the trusted side compares it with LiveCodeBench's rules (lcb_runner/evaluation/testing_util.py,
`grade_stdio`): the whole output stripped and split on newlines, each line stripped; the same number of
lines; each line equal as text, or its whitespace-separated tokens all equal as `Decimal` numbers ("1.50"
is "1.5", "2" is "2.0"; no other tolerance). The expected output never enters the sandbox, and no test
file is there to read: the run's work dir holds the program and a small runner, nothing else. As upstream,
`SystemExit` ends the program and its output so far is the answer; any other exception is a runtime error,
whatever was printed. Cases run in order and the first that fails decides the verdict.

Rule "call": each case is positional arguments (plain JSON data) and the expected value. The program runs
once in the Python driver; the entry point is the method of one `Solution()` when the program's text has
`class Solution` (LeetCode's shape, as upstream decides it), else the function of that name. The driver
reports each result as plain data; the trusted side compares it with Python's `==` after turning a tuple
result into a list, as upstream does (so `True == 1` and exact float equality, as there). An object with a
forged `__eq__` is not plain data and fails.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from decimal import Decimal, InvalidOperation
from typing import Any

from assay.languages import plaindata
from assay.languages import python as py
from assay.problems import CaseTests, Problem, Status, TestDetail, Verdict
from assay.sandbox.base import Sandbox, SandboxLimits

IO_RULES = ("stdio", "call")
DEFAULT_TIMEOUT = 6.0  # CPU seconds per test (LiveCodeBench's --timeout 6, there of wall time)
MAX_DETAILS = 5
_ENTRY = "_assay_solution_entry"

# The runner in the sandbox: the sample's code as __main__, SystemExit ending it (as LiveCodeBench's
# call_method swallows it). It decides nothing: the trusted side compares what the program printed.
_RUNNER = """import sys
sys.path.extend({paths!r})
sys.argv = ["main.py"]
with open("main.py", encoding="utf-8") as _f:
    _code = compile(_f.read(), "main.py", "exec")
del _f
try:
    exec(_code, {{"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}})
except SystemExit:
    pass
sys.stdout.flush()
"""


def stripped_lines(text: str) -> list[str]:
    """LiveCodeBench's `get_stripped_lines`: the text stripped, split on newlines, each line stripped."""
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except (InvalidOperation, ValueError):
        return None


def output_mismatch(got: str, expected: str) -> str:
    """Why `got` is not the expected stdout under LiveCodeBench's rules; "" when it is."""
    ours, theirs = stripped_lines(got), stripped_lines(expected)
    if len(ours) != len(theirs):
        return f"{len(ours)} lines of output, expected {len(theirs)} (its first: {_short(ours[0])})"
    for n, (a, b) in enumerate(zip(ours, theirs, strict=True), 1):
        if a == b:
            continue
        da, db = _decimals(a), _decimals(b)
        try:
            same = da is not None and db is not None and da == db
        except InvalidOperation:  # a signalling NaN
            same = False
        if not same:
            return f"line {n}: {_short(a)} != {_short(b)} (expected)"
    return ""


def _short(text: str, limit: int = 120) -> str:
    return repr(text) if len(text) <= limit else repr(text[: limit // 2]) + "..." + repr(text[-limit // 2 :])


def judge_io(sandbox: Sandbox, problem: Problem, code: str, timeout: float, base: SandboxLimits) -> Verdict:
    """The verdict of one program on a problem whose tests are stdio or call cases."""
    tests = problem.tests
    assert isinstance(tests, CaseTests) and tests.rule in IO_RULES
    program = (problem.context.rstrip("\n") + "\n\n" if problem.context.strip() else "") + code
    try:
        compile(program, "main.py", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return Verdict(Status.COMPILE_ERROR, message=f"failed: {type(exc).__name__}: {exc}")
    if tests.rule == "call":
        return _judge_calls(sandbox, problem, program, code, timeout, base)
    return _judge_stdio(sandbox, tests, program, timeout, base)


def _judge_stdio(sandbox: Sandbox, tests: CaseTests, program: str, timeout: float, base: SandboxLimits) -> Verdict:
    files = {"runner.py": _RUNNER.format(paths=py.site_paths()).encode(), "main.py": program.encode()}
    argv = [sys.executable, "-I", "-S", "runner.py"]
    total = 0.0
    counts: dict[str, int] = {}
    sizes = {c.suite: sum(1 for d in tests.cases if d.suite == c.suite) for c in tests.cases}
    for i, case in enumerate(tests.cases):
        expected = str(case.expected)
        stdin = str(case.args[0]).encode()
        limits = dataclasses.replace(base, cpu_seconds=timeout, wall_seconds=min(base.wall_seconds, 2 * timeout + 5),
                                     output_bytes=max(base.output_bytes, 4 * len(expected.encode()) + (1 << 20)))
        result = sandbox.run(argv, files, limits, stdin=stdin)
        total += result.wall_seconds
        name = f"{case.suite}[{i}]"
        status, message = Status.PASSED, ""
        stdout = result.stdout.decode("utf-8", "replace")
        stderr = result.stderr.decode("utf-8", "replace")
        if result.error:
            status, message = Status.SANDBOX_ERROR, f"sandbox error: {result.error}"
        elif result.timed_out:
            status, message = Status.TIMEOUT, f"test {i}: timed out"
        elif result.exit_code != 0:
            if "MemoryError" in stderr[-4000:]:
                status, message = Status.MEMORY_EXCEEDED, f"test {i}: memory limit exceeded"
            else:
                how = f"exit status {result.exit_code}" if result.exit_code is not None else f"signal {result.signal}"
                last = next((ln for ln in reversed(stderr.strip().splitlines()) if ln.strip()), "")
                status, message = Status.RUNTIME_ERROR, f"test {i}: runtime error ({how})" + (f": {last[:300]}" if last else "")
        elif result.output_truncated:
            status, message = Status.FAILED, f"test {i}: more output than {limits.output_bytes} bytes"
        else:
            why = output_mismatch(stdout, expected)
            if why:
                status, message = Status.FAILED, f"test {i} ({case.suite}): wrong answer: {why}"
        if status is Status.PASSED:
            counts[case.suite] = counts.get(case.suite, 0) + 1
            continue
        details = [TestDetail(name, status, message, result.cpu_seconds), *_suites(sizes, counts)]
        text = "timed out" if status is Status.TIMEOUT else f"failed: {message}"
        return Verdict(status, message=text, tests=details, duration_s=total, stdout=stdout[-4000:], stderr=stderr[-4000:])
    return Verdict(Status.PASSED, message="passed", tests=_suites(sizes, counts), duration_s=total)


def _suites(sizes: dict[str, int], counts: dict[str, int]) -> list[TestDetail]:
    return [TestDetail(f"suite:{s}", Status.PASSED if counts.get(s, 0) == n else Status.FAILED, f"{counts.get(s, 0)}/{n} passed")
            for s, n in sizes.items()]


def _judge_calls(sandbox: Sandbox, problem: Problem, program: str, code: str, timeout: float, base: SandboxLimits) -> Verdict:
    tests = problem.tests
    assert isinstance(tests, CaseTests)
    entry = problem.entry_point
    if "class Solution" in code:  # upstream's own test of the shape (compile_code)
        program += f"\n\n{_ENTRY} = getattr(Solution(), {entry!r})\n"
        entry = _ENTRY
    args = [c.args for c in tests.cases]
    job = py.cases_job(program, entry, args, [timeout] * len(args), run_all=False, big_output=None)
    job["load_limit"] = timeout
    cpu = (timeout + 1) * len(args) + 5  # upstream's per-problem budget
    limits = dataclasses.replace(base, cpu_seconds=cpu, wall_seconds=min(base.wall_seconds, 2 * cpu + 10), channel_bytes=py.CASES_CHANNEL_BYTES)
    run = py.run_driver(sandbox, job, limits)
    return judge_call_outcomes(run, tests)


def judge_call_outcomes(run: py.DriverRun, tests: CaseTests) -> Verdict:
    """Compare the driver's reported results with the expected values, case by case, on the trusted side."""
    early = py._early_end(run) if run.report is None else py._load_failure(run.report)
    sizes = {c.suite: sum(1 for d in tests.cases if d.suite == c.suite) for c in tests.cases}
    counts: dict[str, int] = {}
    first: tuple[Status, str, str] | None = None
    for i, outcome in enumerate(run.outcomes[: len(tests.cases)]):
        case = tests.cases[i]
        kind, payload, cpu = outcome[0], outcome[1], outcome[-1]
        if kind == "ok":
            try:
                got: Any = plaindata.decode(payload)
            except (ValueError, TypeError, KeyError) as exc:
                first = (Status.FAILED, f"{case.suite}[{i}]", f"test {i}: undecodable result ({exc})")
                break
            if isinstance(got, tuple):  # upstream: "don't penalize model if it produces tuples instead of lists"
                got = list(got)
            if _equal(got, case.expected):
                counts[case.suite] = counts.get(case.suite, 0) + 1
                continue
            first = (Status.FAILED, f"{case.suite}[{i}]",
                     f"test {i} ({case.suite}): wrong answer for {_short(json.dumps(list(case.args))[:400])}: expected "
                     f"{py._short(case.expected)}, got {py._short(got)}")
        else:
            status = py._KIND_STATUS.get(kind, Status.RUNTIME_ERROR)
            first = (status, f"{case.suite}[{i}]", f"test {i}: " + ("timed out" if kind == "timeout" else str(payload)))
        del cpu
        break
    if first is None and early is not None:
        first = (early[0], "load", early[1])
    if first is None and len(run.outcomes) < len(tests.cases):
        first = (Status.RUNTIME_ERROR, "run", "the program stopped before all tests ran")
    stdout = run.sandbox.stdout.decode("utf-8", "replace")[-4000:]
    stderr = run.sandbox.stderr.decode("utf-8", "replace")[-4000:]
    if first is None:
        return Verdict(Status.PASSED, message="passed", tests=_suites(sizes, counts), duration_s=run.sandbox.wall_seconds)
    status, name, message = first
    text = "timed out" if status is Status.TIMEOUT else f"failed: {message}"
    return Verdict(status, message=text, tests=[TestDetail(name, status, message), *_suites(sizes, counts)][: MAX_DETAILS + len(sizes)],
                   duration_s=run.sandbox.wall_seconds, stdout=stdout, stderr=stderr)


def _equal(got: Any, expected: Any) -> bool:
    try:
        return bool(got == expected)
    except RecursionError:
        return False
