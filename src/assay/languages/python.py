"""Python: run samples through the in-sandbox driver and judge them on the trusted side."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import reprlib
import secrets
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay import values
from assay.languages import plaindata
from assay.languages.driver_files import bytecode_file as bytecode_file
from assay.languages.driver_files import driver_digest as driver_digest
from assay.languages.driver_files import driver_files as driver_files
from assay.languages.driver_files import driver_sources as driver_sources
from assay.languages.driver_files import site_paths as site_paths
from assay.languages.python_driver import _private_random_importer
from assay.languages.python_split import apply_mutation as _apply_mutation
from assay.oracles import compare_output
from assay.problems import CaseTests, Problem, Runner, Status, TestDetail, Verdict
from assay.sandbox.base import Sandbox, SandboxLimits, SandboxResult
from assay.values import Type

_HERE = Path(__file__).parent
MAX_DETAILS = 5  # failing tests kept per verdict; counts cover the rest


def python_version() -> str:
    """The version of the interpreter samples run on (recorded with results)."""
    return f"CPython {sys.version.split()[0]}"


@dataclass
class DriverRun:
    """The driver's authenticated events for one run; `report` is None if it never finished."""

    sandbox: SandboxResult
    report: dict[str, Any] | None
    outcomes: list[Any] = field(default_factory=list)  # each [kind, payload, ..., cpu]: a list, or a DeferredOutcome
    calls: list[dict[str, Any]] = field(default_factory=list)
    problem: str = ""  # why no final report was accepted


def run_driver(sandbox: Sandbox, job: dict[str, Any], limits: SandboxLimits) -> DriverRun:
    """Run the driver on one job in a fresh sandbox and keep only the events that carry the nonce. A split program
    job's test goes on stdin after the nonce, not in job.json: the zygote hands stdin on without reading it."""
    nonce = secrets.token_hex(16).encode()
    job = {**job, "sys_path": site_paths()}
    secret = b""
    if job.get("split"):
        secret = job.pop("test").encode()
    files = {**driver_files(), "job.json": json.dumps(job, allow_nan=False).encode()}
    argv = [sys.executable, "-I", "-S", "-X", "faulthandler", "driver.py"]
    result = sandbox.run(argv, files, limits, stdin=nonce + b"\n" + secret)
    return parse_channel(result, nonce)


DEFERRED_LINE = 1 << 20  # an outcome line longer than this is parsed when it is read, not with the channel


class DeferredOutcome:
    """An outcome too big to hold parsed beside the others (HumanEval/130's are lists of a million numbers,
    ten of them): kept as its place in the channel and parsed when read, so judging holds one parsed at a
    time. Read as the list it stands for: outcome[0] (kind), outcome[1] (payload), outcome[-1] (CPU)."""

    __slots__ = ("_channel", "_end", "_head", "_start")

    def __init__(self, channel: bytes, start: int, end: int) -> None:
        self._channel, self._start, self._end = channel, start, end
        self._head: tuple[Any, Any, int] | None = None  # kind, CPU and length, which are small: parsed once

    def _value(self) -> list[Any]:
        try:
            kind, value = json.loads(self._channel[self._start : self._end])
        except ValueError:
            kind, value = None, None
        if kind != "outcome" or not isinstance(value, list) or len(value) < 2:
            return ["driver_error", "an outcome line of the channel that does not parse", 0.0]
        return value

    def __getitem__(self, index: int) -> Any:
        if self._head is None or index not in (0, -1):
            value = self._value()
            self._head = (value[0], value[-1], len(value))
            return value[index]
        return self._head[0] if index == 0 else self._head[1]

    def __len__(self) -> int:
        if self._head is None:
            self[0]
        assert self._head is not None
        return self._head[2]


def parse_channel(result: SandboxResult, nonce: bytes) -> DriverRun:
    """Split the result channel into authenticated events; anything without the nonce is ignored."""
    run = DriverRun(result, None)
    prefix = nonce + b" "
    channel, start = result.channel, 0
    while start < len(channel):  # a line at a time: a channel of huge outputs is not copied whole by a split
        end = channel.find(b"\n", start)
        end = len(channel) if end < 0 else end
        line_start, start = start, end + 1
        if not channel.startswith(prefix, line_start):
            continue
        if end - line_start > DEFERRED_LINE and channel.startswith(b'["outcome",', line_start + len(prefix)):
            run.outcomes.append(DeferredOutcome(channel, line_start + len(prefix), end))
            continue
        try:
            kind, value = json.loads(channel[line_start + len(prefix) : end])
        except ValueError:
            continue
        if kind == "outcome":
            run.outcomes.append(value)
        elif kind == "call":
            run.calls.append(value)
        elif kind == "final" and isinstance(value, dict):
            run.report = value
    if run.report is None:
        run.problem = "no result from the test driver (the program exited or was killed before its tests finished)"
    return run


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _early_end(run: DriverRun) -> tuple[Status, str]:
    """Status when the sandbox ended without an accepted report."""
    res = run.sandbox
    if res.error:
        return Status.SANDBOX_ERROR, f"sandbox error: {res.error}"
    if res.timed_out:
        return Status.TIMEOUT, "timed out"
    if res.output_truncated and res.signal:
        return Status.RUNTIME_ERROR, f"output limit of {len(res.stdout) + len(res.stderr)} bytes exceeded; killed"
    if b"MemoryError" in res.stderr[-4000:]:
        return Status.MEMORY_EXCEEDED, "memory limit exceeded"
    how = f"killed by signal {res.signal}" if res.signal else f"exit status {res.exit_code}"
    return Status.RUNTIME_ERROR, f"{run.problem} ({how})"


def _load_failure(report: dict[str, Any]) -> tuple[Status, str] | None:
    stage = report.get("stage")
    if stage == "compile":
        return Status.COMPILE_ERROR, report.get("error", "does not compile")
    if stage == "load":
        return _KIND_STATUS.get(report.get("kind", "raise"), Status.RUNTIME_ERROR), report.get("error", "")
    if "driver_error" in report:
        return Status.RUNTIME_ERROR, report["driver_error"]
    return None


_KIND_STATUS = {
    "raise": Status.RUNTIME_ERROR,
    "timeout": Status.TIMEOUT,
    "memory": Status.MEMORY_EXCEEDED,
    "unplain": Status.FAILED,
    "assert": Status.FAILED,
}


def _finish(status: Status, message: str, run: DriverRun, tests: list[TestDetail]) -> Verdict:
    if status is Status.PASSED:
        text = "passed"
    elif status is Status.TIMEOUT:
        text = "timed out"
    else:
        text = f"failed: {message}" if message else "failed"
    return Verdict(
        status=status,
        message=text,
        tests=tests,
        duration_s=run.sandbox.wall_seconds,
        stdout=_text(run.sandbox.stdout),
        stderr=_text(run.sandbox.stderr),
    )


# ---------------------------------------------------------------- cases


@dataclass
class CaseJudging:
    """What the trusted side needs to judge case outputs (expected values never enter the sandbox)."""

    args: list[tuple[Any, ...]]
    expected: list[Any]
    suites: list[str]
    atols: list[float]  # per case: EvalPlus's 1e-6 float default carries forward within a suite
    oracle: str | None
    suite_sizes: dict[str, int] = field(default_factory=dict)
    exact: bool = False  # compare with == (the benchmark's own asserts), not EvalPlus's rules


BIG_OUTPUT = 1 << 16  # float-free outputs larger than this (encoded) cross the boundary as a digest
CASES_CHANNEL_BYTES = 1 << 30  # all outputs of one run (HumanEval/130's floats alone are 114 MB)


@dataclass(frozen=True)
class BigOutput:
    """A huge float-free output, known by its canonical digest (plaindata.canonical_digest)."""

    digest: str
    size: int


def cases_job(
    code: str,
    entry_point: str,
    args: list[tuple[Any, ...]],
    time_limits: list[float],
    run_all: bool,
    not_none: bool = False,
    big_output: int | None = BIG_OUTPUT,
) -> dict[str, Any]:
    """The driver job that calls the entry point on each input."""
    return {
        "mode": "cases",
        "code": code,
        "entry_point": entry_point,
        "cases": [plaindata.encode(list(a)) for a in args],
        "time_limits": time_limits,
        "run_all": run_all,
        "not_none": not_none,
        "big_output": big_output,
        "load_limit": 10.0,
    }


def judge_cases(run: DriverRun, judging: CaseJudging) -> Verdict:
    """Compare the sample's outputs with the expected ones, case by case, outside the sandbox."""
    failure = _early_end(run) if run.report is None else _load_failure(run.report)
    if failure and not run.outcomes:
        return _finish(failure[0], failure[1], run, [])
    outcomes = run.outcomes
    details: list[TestDetail] = []
    first: tuple[Status, str] | None = None
    passed_per_suite: dict[str, int] = {}
    for i, outcome in enumerate(outcomes[: len(judging.expected)]):
        kind, payload, cpu = outcome[0], outcome[1], outcome[-1]
        name = f"{judging.suites[i]}[{i}]"
        expected = judging.expected[i]
        if kind in ("ok", "big") and (kind == "big" or isinstance(expected, BigOutput)):
            if _same_big(kind, payload, outcome, expected):
                passed_per_suite[judging.suites[i]] = passed_per_suite.get(judging.suites[i], 0) + 1
                continue
            status = Status.FAILED
            message = f"input {_short(judging.args[i])}: the output differs from the expected one ({_describe_big(expected)})"
        elif kind == "ok":
            try:
                out = plaindata.decode(payload)
            except (ValueError, TypeError, KeyError) as exc:
                status, message = Status.FAILED, f"undecodable output ({exc})"
            else:
                same = (values.equal(out, judging.expected[i]) if judging.exact
                        else compare_output(out, judging.expected[i], atol=judging.atols[i], oracle=judging.oracle, args=judging.args[i]))
                if same:
                    passed_per_suite[judging.suites[i]] = passed_per_suite.get(judging.suites[i], 0) + 1
                    continue
                status = Status.FAILED
                message = f"input {_short(judging.args[i])}: expected {_short(judging.expected[i])}, got {_short(out)}"
        else:
            status = _KIND_STATUS.get(kind, Status.RUNTIME_ERROR)
            message = f"input {_short(judging.args[i])}: " + ("timed out" if kind == "timeout" else str(payload))
        if first is None:
            first = (status, message)
        if len(details) < MAX_DETAILS:
            details.append(TestDetail(name=name, status=status, message=message, duration_s=cpu))
    if failure and first is None:
        first = failure  # killed part-way (e.g. stuck in C code past the CPU limit)
    if first is None and len(outcomes) < len(judging.expected):
        # The driver finished without running every case: only tampering gets here.
        first = (Status.RUNTIME_ERROR, "the program stopped before all tests ran")
    for suite, size in judging.suite_sizes.items():
        got = passed_per_suite.get(suite, 0)
        details.append(
            TestDetail(name=f"suite:{suite}", status=Status.PASSED if got == size else Status.FAILED, message=f"{got}/{size} passed")
        )
    if first is None:
        return _finish(Status.PASSED, "", run, details)
    return _finish(first[0], first[1], run, details)


def _same_big(kind: str, payload: Any, outcome: list[Any], expected: Any) -> bool:
    """Equality when either side is a huge output known only by its digest."""
    if not isinstance(expected, BigOutput):
        return False  # a huge output can't equal a small expected one
    if kind == "big":
        return bool(payload == expected.digest)
    if kind == "ok":
        return plaindata.canonical_digest(payload) == expected.digest
    return False


def _describe_big(expected: Any) -> str:
    if isinstance(expected, BigOutput):
        return f"expected {expected.size} bytes of output, compared by digest"
    return f"expected {_short(expected)}"


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 200


def _short(value: Any, limit: int = 200) -> str:
    """A bounded repr for messages: cheap on huge values, never raises (ints past 4300 digits do)."""
    try:
        text = _REPR.repr(value)
    except ValueError:
        text = f"<{type(value).__name__} too large to print>"
    return text if len(text) <= limit else text[:limit] + "..."


GIVEN_CASE_LIMIT = 10.0  # CPU seconds per case whose expected output the benchmark gives (MultiPL-E's Python)


def judge_given_cases(sandbox: Sandbox, problem: Problem, code: str, per_case: float, base: SandboxLimits) -> Verdict:
    """Cases with the benchmark's own expected outputs (MultiPL-E's Python asserts), compared with ==."""
    tests = problem.tests
    assert isinstance(tests, CaseTests) and tests.signature is not None
    expected = [values.coerce(c.expected, tests.signature.returns) for c in tests.cases]
    suites = [c.suite for c in tests.cases]
    judging = CaseJudging(args=[c.args for c in tests.cases], expected=expected, suites=suites, atols=[0.0] * len(suites),
                          oracle=None, suite_sizes={s: suites.count(s) for s in dict.fromkeys(suites)}, exact=True)
    job = cases_job(code, problem.entry_point, judging.args, [per_case] * len(suites), run_all=True, big_output=None)
    cpu = min(60.0, per_case * len(suites)) + 10
    limits = dataclasses.replace(base, cpu_seconds=cpu, wall_seconds=2 * cpu + 10, channel_bytes=CASES_CHANNEL_BYTES)
    return judge_cases(run_driver(sandbox, job, limits), judging)


# ---------------------------------------------------------------- test programs


def program_job(code: str, test: str, entry_point: str, helpers: str, timeout: float, seed: int = 0,
                sees_sample: bool = False, split: bool = False) -> dict[str, Any]:
    """The driver job that runs a test program's check(candidate) with a recording candidate
    (`sees_sample`: the test program's globals are the sample's, not the prompt's helpers; `split`: the test
    in another process than the sample, which never holds the test's text: python_split.py)."""
    return {
        "split": split and not sees_sample,
        "sees_sample": sees_sample,
        "mode": "program",
        "code": code,
        "test": test,
        "entry_point": entry_point,
        "helpers": helpers,
        "check_limit": timeout,
        "load_limit": timeout,
        "seed": seed,
    }


class _ReplayMiss(Exception):
    pass


class _SampleRaised(Exception):
    pass


class _NotPlain(Exception):
    pass


class _Opaque:
    """A result that is not plain data, replayed as its recorded truth only (MBPP's `assert f(x)` on a
    re.Match): it equals nothing, and any other use of it fails the sample."""

    __slots__ = ("_truth", "_what")

    def __init__(self, truth: bool, what: str) -> None:
        object.__setattr__(self, "_truth", truth)
        object.__setattr__(self, "_what", what)

    def __bool__(self) -> bool:
        return bool(object.__getattribute__(self, "_truth"))

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]

    def __getattribute__(self, name: str) -> Any:
        raise _NotPlain(f"returned an object that is not plain data ({object.__getattribute__(self, '_what')}), then used it")

    def __repr__(self) -> str:
        return f"<not plain data: {object.__getattribute__(self, '_what')}>"


def replay_check(helpers: str, test: str, entry_point: str, calls: list[dict[str, Any]], seed: int = 0,
                 opaque_truth: bool = False) -> tuple[Status, str]:
    """Re-run the trusted test program against the recorded calls; decides pass or fail.

    Runs in the trusted process with pristine builtins; the sample contributes only plain data
    (`opaque_truth`: and, for a result that is not plain data, its recorded truth).
    """
    pending: dict[str, list[dict[str, Any]]] = {}
    for call in calls:
        pending.setdefault(json.dumps(call.get("args"), sort_keys=True), []).append(call)

    def candidate(*args: Any, **kwargs: Any) -> Any:
        try:
            key = json.dumps(plaindata.encode([list(args), kwargs]), sort_keys=True)
        except (plaindata.NotPlainData, RecursionError):
            key = json.dumps(None)  # the sandbox recorded such calls without arguments too
        queue = pending.get(key)
        if not queue:
            raise _ReplayMiss(f"the sample was never called with {_short(args)}")
        call = queue.pop(0)
        after = call.get("args_after")
        if after is not None:
            _apply_mutation(args, plaindata.decode(after)[0])
        kind, payload = call["outcome"][0], call["outcome"][1]
        if kind == "ok":
            return plaindata.decode(payload)
        if kind == "unplain" and opaque_truth and isinstance(call.get("truth"), bool):
            return _Opaque(call["truth"], str(payload))
        if kind == "unplain":
            raise _NotPlain(f"returned an object that is not plain data ({payload})")
        raise _SampleRaised(payload)

    namespace: dict[str, Any] = {"__builtins__": {**vars(__import__("builtins")), "__import__": _private_random_importer(seed)}}
    try:
        exec(_compiled(helpers, "<prompt>"), namespace)
        namespace[entry_point] = candidate  # as in the sandbox: calls by name are the sample's too
        exec(_compiled(test, "<test>"), namespace)
        namespace["check"](candidate)
    except AssertionError as exc:
        return Status.FAILED, f"AssertionError{': ' + str(exc) if str(exc) else ''}"
    except _SampleRaised as exc:
        return Status.RUNTIME_ERROR, str(exc)
    except _NotPlain as exc:
        return Status.FAILED, str(exc)
    except _ReplayMiss as exc:
        return Status.FAILED, str(exc)
    except Exception as exc:
        return Status.FAILED, f"{type(exc).__name__}: {exc}"
    return Status.PASSED, ""


@functools.lru_cache(maxsize=512)
def _compiled(source: str, name: str) -> Any:
    """Trusted benchmark code, compiled once per problem rather than once per sample (MBPP's regexes in plain
    strings warn about their escapes: nothing to tell the user per sample)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return compile(source, name, "exec")




def judge_program(run: DriverRun, helpers: str, test: str, entry_point: str, seed: int = 0, opaque_truth: bool = False) -> Verdict:
    """Verdict for a test-program run: the sandbox must finish cleanly and the trusted replay must pass."""
    if run.report is None:
        status, message = _early_end(run)
        return _finish(status, message, run, [])
    failure = _load_failure(run.report)
    if failure:
        return _finish(failure[0], failure[1], run, [])
    calls = run.calls
    check = run.report.get("check", ["raise", "the test program did not finish"])
    kind, message = check[0], check[1]
    if kind != "ok":
        # Did the failure come from inside the sample? Then it is the sample's runtime error.
        last = calls[-1]["outcome"][0] if calls else None
        if kind in ("raise", "memory", "timeout") and last in ("raise", "memory", "timeout"):
            status = _KIND_STATUS[last]
        elif kind in ("timeout", "memory"):
            status = _KIND_STATUS[kind]
        else:
            status = Status.FAILED
        return _finish(status, message, run, [TestDetail(name="check", status=status, message=message)])
    status, message = replay_check(helpers, test, entry_point, calls, seed, opaque_truth)
    cpu = run.report.get("cpu")
    return _finish(status, message, run, [TestDetail(name="check", status=status, message=message, duration_s=cpu)])


# ---------------------------------------------------------------- MultiPL-E-style scripts

from assay.languages.base import ASSERT_EXIT as _ASSERT_EXIT  # noqa: E402
from assay.languages.base import Language as _Language  # noqa: E402
from assay.languages.base import PhaseLimits as _RunLimits  # noqa: E402

_ASSERT_HOOK = f"""
import sys as _assay_sys, os as _assay_os
def _assay_excepthook(kind, value, tb, _previous=_assay_sys.excepthook):
    _previous(kind, value, tb)
    if issubclass(kind, AssertionError):
        _assay_sys.stdout.flush()
        _assay_os._exit({_ASSERT_EXIT})
_assay_sys.excepthook = _assay_excepthook
"""


class Python(_Language):
    """Python programs run as scripts (MultiPL-E's Python); HumanEval's check() has its own driver above."""

    name = "python"
    aliases = ("py",)
    display = "Python"
    multipl_e = "py"
    fence_tags = ("python3",)
    # bigcode-evaluation-harness tasks/humaneval.py stop_words (the Codex paper's "\nclass", "\ndef",
    # "\n#", "\nif", "\nprint" plus "\n@" and "\n```"), with EvalPlus's direct-completion extras
    # (evalplus/provider/utility.py: "\nassert", "\nimport ", "\nfrom ", '\n"""'). Each is a column-0
    # statement, which can only come after the function body has ended.
    stops = ("\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif", "\n```", "\nassert", "\nimport ", "\nfrom ", '\n"""')
    source = "main.py"
    tools = ("python3",)
    install_hint = "apt-get install -y python3"
    build = "{python3} -I -c \"import ast; ast.parse(open('main.py').read(), 'main.py')\""  # syntax errors are compile errors
    run = "{python3} -I main.py"
    stub = "    raise RuntimeError('assay canary stub')\n"

    def defines(self, code: str, name: str) -> bool:
        """A top-level def, class or assignment of `name`, parsed rather than matched."""
        from assay.extract import python_defined

        return name in python_defined(code)

    @classmethod
    def find_tool(cls, tool: str) -> str | None:
        """The interpreter Assay runs under (the sandbox already shows it)."""
        return os.path.realpath(sys.executable) if tool == "python3" else super().find_tool(tool)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """Failed asserts exit with ASSERT_EXIT; the marker is printed after the last test."""
        return _ASSERT_HOOK + tests + f"\nprint({marker!r})\n"

    def judge(self, sandbox: Sandbox, problem: Problem, code: str, limits: _RunLimits | None = None) -> Verdict:
        """MultiPL-E's Python: its asserts as cases, through the driver (outputs compared outside the sandbox)."""
        if isinstance(problem.tests, CaseTests):
            per_case = (limits or self.limits).run_cpu
            return judge_given_cases(sandbox, problem, code, per_case, SandboxLimits(memory_bytes=4 * 1024**3, processes=64))
        if problem.tests.runner == Runner.POLYGLOT:
            from assay.judging.polyglot import judge_polyglot

            return judge_polyglot(self, sandbox, problem, code, limits or self.limits)
        if problem.tests.runner == Runner.UNITTEST:
            from assay.languages.python_unittest import judge_unittest_program

            return judge_unittest_program(sandbox, problem, code, limits or self.limits)
        return super().judge(sandbox, problem, code, limits)

    def render_value(self, value: Any, t: Type) -> str:
        """Python's own literal."""
        return repr(value)
