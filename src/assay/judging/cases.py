"""Cases judged on the trusted side in any language: the harness only reports outputs, Assay compares.

The program is the sample's code followed by the language's case harness: each case calls the entry
point with literal arguments (rendered by the language plugin, or MultiPL-E's own translation of
the call) and writes the result to the result channel (see `records`). Expected outputs never enter
the sandbox. The verdict: compile error from the build phase's status; then case by case in order,
the first wrong output (failed) or raised case (runtime error); then how the run phase ended, as the
sandbox's trusted init reported it (timeout, crash, or an exit before the last case: failed).
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay import values
from assay.judging.records import Records, read_records
from assay.languages import plaindata
from assay.languages.python import BigOutput
from assay.oracles import compare_output
from assay.problems import CaseTests, Problem, Status, TestDetail, Verdict
from assay.sandbox.base import Sandbox, SandboxResult

if TYPE_CHECKING:
    from assay.languages.base import Language, PhaseLimits

MAX_DETAILS = 5
FLOAT32_RTOL = 2.0**-21  # four float32 steps: a float32 computation of a float64 reference's result
CHANNEL_BYTES = 256 * 1024**2  # every output of one run (HumanEval+'s largest are ~100 MB as text)


@dataclass
class CasePlan:
    """What the trusted side needs to judge one problem's cases; none of it enters the sandbox but the calls."""

    calls: list[str]  # each case's call, in the problem's language
    expected: list[Any]
    args: list[tuple[Any, ...]]
    suites: list[str]
    atols: list[float]
    hints: list[str]
    rule: str = "exact"
    oracle: str | None = None
    suite_sizes: dict[str, int] = field(default_factory=dict)


def plan_for(language: Language, problem: Problem, expected: Sequence[Any] | None = None, atols: Sequence[float] | None = None) -> CasePlan:
    """The plan of a case-tested problem; `expected` (evalplus rule) comes from the reference, else from the cases."""
    tests = problem.tests
    assert isinstance(tests, CaseTests) and tests.signature is not None
    sig = tests.signature
    calls = [c.call if c.call is not None else language.render_call(sig, c.args) for c in tests.cases]
    if expected is None:
        expected = [values.as_wire(values.coerce(c.expected, sig.returns), sig.returns) for c in tests.cases]
    suites = [c.suite for c in tests.cases]
    return CasePlan(
        calls=calls,
        expected=list(expected),
        args=[c.args for c in tests.cases],
        suites=suites,
        atols=list(atols) if atols is not None else [tests.atol] * len(calls),
        hints=[c.hint for c in tests.cases],
        rule=tests.rule,
        oracle=tests.oracle,
        suite_sizes={s: suites.count(s) for s in dict.fromkeys(suites)},
    )


def judge_cases(language: Language, sandbox: Sandbox, problem: Problem, code: str, plan: CasePlan, limits: PhaseLimits) -> Verdict:
    """Build and run the sample with the case harness; compare its reported outputs outside the sandbox."""
    from assay.languages.base import ToolchainMissing, build_failure

    tests = problem.tests
    assert isinstance(tests, CaseTests) and tests.signature is not None
    if not plan.calls:  # every input left out for this language: nothing checks the sample, so it is not scored
        left = "; ".join(f"{reason} {n}" for reason, n in tests.left_out) or "none given"
        return Verdict(Status.SKIPPED, message=f"skipped: no case left to judge in {language.display} (left out: {left})"[:1000])
    try:
        toolchain = language.toolchain()
    except ToolchainMissing as exc:
        return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
    language.prepare(toolchain)
    files = language.case_files(problem, code, plan.calls)
    lazy = language.build_checks_only
    result = language.run_program(sandbox, problem, files, limits, toolchain, channel_bytes=CHANNEL_BYTES, only="run" if lazy else None)
    verdict, reported = _judge_run(language, plan, limits, result, tests.signature.returns)
    if lazy and verdict.status is not Status.PASSED and language.check_may_explain(result, reported):
        # The run failed before its harness reported anything (Bash: exited as at a syntax error): a syntax error, or the
        # sample's own code at load. The syntax check (the build a program skips) tells which, as it would have before the run.
        check = language.run_program(sandbox, problem, files, limits, toolchain, only="build")
        if check.error or not any(p.name == "build" and p.ok for p in check.phases):
            failure = build_failure(check, limits)
            if failure is not None:
                failure.duration_s = (failure.duration_s or 0.0) + (verdict.duration_s or 0.0)
                return failure
    return verdict


def _judge_run(language: Language, plan: CasePlan, limits: PhaseLimits, result: SandboxResult, returns: values.Type) -> tuple[Verdict, bool]:
    """The verdict of a case run, and whether its harness reported anything (a record, or data that poses as one)."""
    records = read_records(result.channel, len(plan.calls))
    verdict = _judge_records(language, plan, limits, result, returns, records)
    return verdict, verdict.status is Status.PASSED or bool(records.results or records.done or records.forged)


def _judge_records(language: Language, plan: CasePlan, limits: PhaseLimits, result: SandboxResult, returns: values.Type,
                   records: Records) -> Verdict:
    from assay.languages.base import build_failure, error_line, run_failure

    failure = build_failure(result, limits)
    if failure is not None:
        return failure
    output = result.stdout.decode("utf-8", "replace")
    duration = result.wall_seconds
    if records.forged:
        return Verdict(Status.FAILED, message=f"failed: the result channel holds data no harness wrote ({records.forged})",
                       duration_s=duration, stdout=output[-4000:])
    first: tuple[Status, str] | None = None
    details: list[TestDetail] = []
    passed: dict[str, int] = {}
    for i, (kind, payload) in enumerate(records.results):
        status, message = _judge_one(language, plan, i, kind, payload, returns)
        if status is Status.PASSED:
            passed[plan.suites[i]] = passed.get(plan.suites[i], 0) + 1
            continue
        first = first or (status, message)
        if len(details) < MAX_DETAILS:
            details.append(TestDetail(f"{plan.suites[i]}[{i}]", status, message))
    if first is None and not records.done:
        ended = run_failure(result, limits, output)
        if ended is not None:
            ended.tests = details + _suite_details(plan, passed)
            return ended
        run = next(p for p in result.phases if p.name == "run")
        at = len(records.results)
        if run.exit_code == 0:
            first = (Status.FAILED, f"exited with status 0 after {at} of {len(plan.calls)} cases")
        else:
            how = f"exit status {run.exit_code}" if run.exit_code is not None else f"signal {run.signal}"
            said = error_line(result.stderr.decode("utf-8", "replace"), output)
            first = (Status.RUNTIME_ERROR, f"runtime error ({how}) in case {at}: {_call(plan, at)}" + (f": {said}" if said else ""))
    if first is None:
        run = next(p for p in result.phases if p.name == "run")
        if not run.ok:
            how = f"exit status {run.exit_code}" if run.exit_code is not None else f"signal {run.signal}"
            said = error_line(result.stderr.decode("utf-8", "replace"), output)
            first = (Status.RUNTIME_ERROR, f"runtime error ({how}) after its last case" + (f": {said}" if said else ""))
    details += _suite_details(plan, passed)
    if first is None:
        return Verdict(Status.PASSED, message="passed", tests=details, duration_s=duration)
    status, message = first
    text = "timed out" if status is Status.TIMEOUT else f"failed: {message}"
    return Verdict(status, message=text, tests=details, duration_s=duration, stdout=output[-4000:])


def _judge_one(language: Language, plan: CasePlan, i: int, kind: str, payload: str, returns: values.Type) -> tuple[Status, str]:
    if kind == "e":
        return Status.RUNTIME_ERROR, f"{_call(plan, i)} raised: {payload[:300]}"
    try:
        actual = language.decode_result(payload, returns)
    except values.WireError as exc:
        return Status.FAILED, f"{_call(plan, i)}: the output does not decode as {returns} ({exc})"
    expected = plan.expected[i]
    if isinstance(expected, BigOutput):  # a huge float-free output, known by its canonical digest
        try:
            same = plaindata.canonical_digest(plaindata.encode(language.normalize(actual, returns))) == expected.digest
        except (plaindata.NotPlainData, RecursionError, ValueError):
            same = False
        if same:
            return Status.PASSED, ""
        return Status.FAILED, f"{_call(plan, i)}: the output differs from the expected one ({expected.size} bytes, compared by digest)"
    if plan.rule == "evalplus":
        ok = compare_output(language.normalize(actual, returns), language.normalize(expected, returns),
                            atol=plan.atols[i], oracle=plan.oracle, args=plan.args[i], rtol=FLOAT32_RTOL if language.float32 else 1e-7)
    else:
        ok = language.equal(actual, expected, returns, plan.hints[i])
    if ok:
        return Status.PASSED, ""
    return Status.FAILED, f"{_call(plan, i)}: expected {_short(expected)}, got {_short(actual)}"


def _suite_details(plan: CasePlan, passed: dict[str, int]) -> list[TestDetail]:
    return [
        TestDetail(f"suite:{suite}", Status.PASSED if passed.get(suite, 0) == size else Status.FAILED, f"{passed.get(suite, 0)}/{size} passed")
        for suite, size in plan.suite_sizes.items()
    ]


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 160


def _short(value: Any) -> str:
    try:
        return _REPR.repr(value)
    except ValueError:
        return f"<{type(value).__name__} too large to print>"


def _call(plan: CasePlan, i: int) -> str:
    call = plan.calls[i] if i < len(plan.calls) else "?"
    return call if len(call) <= 160 else call[:160] + "..."
