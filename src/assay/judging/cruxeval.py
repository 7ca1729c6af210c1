"""CRUXEval's predictions, judged on the trusted side: `assert <output> == <prediction>` without running the assert.

A problem's tests are CRUXEval's own check program, `<code of f>` then `assert <output> == ??` (built and
read back by `check_program` and `split_check`); the sample is a prediction, one Python expression:
- input mode (`Runner.PREDICT_INPUT`, CRUXEval-I): a call of f, `f(<arguments>)`. The sandbox evaluates
  the arguments (with the benchmark's code loaded, as upstream's exec has it), then calls a fresh copy of
  the benchmark's f, loaded with builtins taken before any of the prediction ran, on them;
- output mode (`Runner.PREDICT_OUTPUT`, CRUXEval-O): a value that does not call f. The sandbox evaluates
  it with f not defined at all.

Either way the sandbox returns the value as plain data (exact types; an object of the sample's own class
is refused), and the trusted side compares it with the output literal, parsed here, using Python's `==`
as upstream's assert does (1 == 1.0 == True). CRUXEval's rules are checked on the parsed prediction
before anything runs: input mode must be a call of f, output mode must not call f (upstream checks
`"f(" in g` and `f(<input>) in g` as text; a parsed check is stricter, and the same on every upstream
sample of Code Llama 7B). The verdict is the trusted side's: exiting early, printing a forged result,
an `__eq__` that is always true or patched builtins decide nothing.

Residual, by design: an input may be any Python object (the benchmark's own inputs include lambdas and a
`range`), so an object of the sample's own class whose methods steer f's result is an input like any other,
as upstream would accept it; f's result must still be plain data equal to the output. Modules are shared
between the prediction and f (no CRUXEval f imports one).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import reprlib
from pathlib import Path
from typing import Any

from assay.languages import plaindata
from assay.languages import python as py
from assay.problems import Problem, ProgramTests, Runner, Status, TestDetail, Verdict
from assay.sandbox.base import Sandbox, SandboxLimits

PREDICTION_RUNNERS = (Runner.PREDICT_INPUT, Runner.PREDICT_OUTPUT)
TIMEOUT = 3.0  # seconds for one prediction (upstream: 3 s of wall time; here CPU time)
CHECK_LINE = "assert {output} == ??"
ANSWER, END_ANSWER = "[ANSWER]", "[/ANSWER]"

# The program the sandbox runs (the driver's "cases" mode calls `__assay_predict__()`). Nothing of the
# prediction runs before the builtins are copied; the copy, and the fresh f, live in locals the
# prediction cannot reach (the driver's audit hook blocks frame introspection).
_INPUT_WRAPPER = '''\
def __assay_predict__(_builtins=__import__("builtins"), _dict=dict, _exec=exec, _eval=eval, _compile=compile):
    pristine = _dict(vars(_builtins))
    scope = {{"__builtins__": _dict(pristine), "__name__": "__main__"}}
    _exec(_compile({code!r}, "<benchmark>", "exec"), scope)
    _exec("def __assay_arguments__(*args, **kwargs):\\n    return args, kwargs\\n", scope)
    args, kwargs = _eval(_compile({arguments!r}, "<prediction>", "eval"), scope)
    fresh = {{"__builtins__": _dict(pristine), "__name__": "__main__"}}
    _exec(_compile({code!r}, "<benchmark>", "exec"), fresh)
    return fresh["f"](*args, **kwargs)
'''
_OUTPUT_WRAPPER = '''\
def __assay_predict__(_eval=eval, _compile=compile):
    return _eval(_compile({expression!r}, "<prediction>", "eval"), {{"__name__": "__main__"}})
'''
ENTRY = "__assay_predict__"


class PredictionRefused(ValueError):
    """A prediction that breaks CRUXEval's rules for its mode (the message says which)."""


def check_program(code: str, output: str) -> str:
    """CRUXEval's check, `<code>` then `assert <output> == ??`: the tests of a prediction problem."""
    return code.rstrip("\n") + "\n" + CHECK_LINE.format(output=output) + "\n"


def split_check(program: str) -> tuple[str, str]:
    """(code of f, output literal) of a check program made by `check_program`."""
    code, _, last = program.rstrip("\n").rpartition("\n")
    head, tail = "assert ", " == ??"
    if not (last.startswith(head) and last.endswith(tail)):
        raise ValueError("not a CRUXEval check program (its last line is not `assert <output> == ??`)")
    return code + "\n", last[len(head) : -len(tail)]


@functools.cache
def judge_digest() -> str:
    """Hash of this judge's code (the sandbox program included): part of every prediction's cache key."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def is_prediction(problem: Problem) -> bool:
    """Whether a problem's sample is a CRUXEval prediction rather than a program."""
    return isinstance(problem.tests, ProgramTests) and problem.tests.runner in PREDICTION_RUNNERS


def prediction_of(text: str, runner: Runner) -> str:
    """The prediction in a model's reply, as upstream's postprocess_generation takes it (cut at `[/ANSWER]`,
    the stop word; after `[ANSWER]` if the reply has one, as CoT replies do; input mode: before `==`, from
    `assert f`; output mode: after the first `==`)."""
    text = text.split(END_ANSWER)[0]
    if ANSWER in text:
        text = text.split(ANSWER)[1].strip()
    if runner == Runner.PREDICT_INPUT:
        if "==" in text:
            text = text.split("==")[0].strip()
        if "assert f" in text:
            text = "f" + text.split("assert f")[1].strip()
    elif "==" in text:
        text = text.split("==")[1].strip()
    return text.strip()


def _calls_f(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "f" for n in ast.walk(node))


def sandbox_program(code: str, prediction: str, runner: Runner) -> str:
    """The program the sandbox runs for a prediction, after CRUXEval's rules (PredictionRefused, SyntaxError)."""
    tree = ast.parse(prediction.strip(), "<prediction>", mode="eval")
    if runner == Runner.PREDICT_INPUT:
        call = tree.body
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "f"):
            raise PredictionRefused("CRUXEval-I: the prediction must be a call of f, `f(<input>)`")
        arguments = ast.Expression(ast.Call(ast.Name("__assay_arguments__", ast.Load()), call.args, call.keywords))
        return _INPUT_WRAPPER.format(code=code, arguments=ast.unparse(ast.fix_missing_locations(arguments)))
    if _calls_f(tree):
        raise PredictionRefused("CRUXEval-O: the prediction must not call f")
    return _OUTPUT_WRAPPER.format(expression=prediction.strip())


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 200


def _short(value: Any) -> str:
    try:
        return _REPR.repr(value)
    except ValueError:
        return f"<{type(value).__name__} too large to print>"


def _same(expected: Any, got: Any) -> bool:
    """Upstream's `assert <output> == <prediction>`, on plain data only (a numpy array's == is no answer)."""
    try:
        same = expected == got
    except Exception:
        return False
    return type(same) is bool and same


def judge_prediction(sandbox: Sandbox, problem: Problem, prediction: str, timeout: float, limits: SandboxLimits) -> Verdict:
    """The verdict of one prediction: CRUXEval's rules here, its value from the sandbox, the comparison here."""
    tests = problem.tests
    assert isinstance(tests, ProgramTests) and tests.runner in PREDICTION_RUNNERS
    code, output = split_check(tests.code)
    try:
        program = sandbox_program(code, prediction, tests.runner)
    except SyntaxError as exc:
        return _verdict(Status.COMPILE_ERROR, f"the prediction is not a Python expression: {exc.msg}")
    except (PredictionRefused, ValueError, RecursionError, MemoryError) as exc:
        return _verdict(Status.FAILED, str(exc) or type(exc).__name__)
    expected = ast.literal_eval(output)  # the benchmark's own literal (800 of 800 are literals)
    job = py.cases_job(program, ENTRY, [()], [timeout], run_all=False, big_output=None)
    run = py.run_driver(sandbox, job, dataclasses.replace(limits, channel_bytes=py.CASES_CHANNEL_BYTES))
    return _judge_run(run, expected)


def _judge_run(run: py.DriverRun, expected: Any) -> Verdict:
    status, message, cpu = _outcome_of(run, expected)
    res = run.sandbox
    text = "passed" if status is Status.PASSED else "timed out" if status is Status.TIMEOUT else f"failed: {message}"
    return Verdict(status=status, message=text, tests=[TestDetail(name="prediction", status=status, message=message, duration_s=cpu)],
                   duration_s=res.wall_seconds, stdout=res.stdout.decode("utf-8", "replace"), stderr=res.stderr.decode("utf-8", "replace"))


def _outcome_of(run: py.DriverRun, expected: Any) -> tuple[Status, str, float | None]:
    """(status, message, CPU seconds) of a run: its one reported value compared here, else how it ended."""
    res = run.sandbox
    if run.outcomes:
        outcome = run.outcomes[0]
        kind, payload, cpu = outcome[0], outcome[1], outcome[-1]
        if kind == "ok":
            try:
                got = plaindata.decode(payload)
            except (ValueError, TypeError, KeyError) as exc:
                return Status.FAILED, f"undecodable value ({exc})", cpu
            if _same(expected, got):
                return Status.PASSED, "", cpu
            return Status.FAILED, f"expected {_short(expected)}, got {_short(got)}", cpu
        status = {"unplain": Status.FAILED, "timeout": Status.TIMEOUT, "memory": Status.MEMORY_EXCEEDED}.get(kind, Status.RUNTIME_ERROR)
        message = "timed out" if kind == "timeout" else ("the value is not plain data: " if kind == "unplain" else "") + str(payload)
        return status, message, cpu
    if res.error:
        return Status.SANDBOX_ERROR, f"sandbox error: {res.error}", None
    if res.timed_out:
        return Status.TIMEOUT, "timed out", None
    if b"MemoryError" in res.stderr[-4000:]:
        return Status.MEMORY_EXCEEDED, "memory limit exceeded", None
    report = run.report or {}
    if "error" in report or "driver_error" in report:
        return Status.RUNTIME_ERROR, str(report.get("error") or report.get("driver_error")), None
    how = f"killed by signal {res.signal}" if res.signal else f"exit status {res.exit_code}"
    return Status.RUNTIME_ERROR, f"no value from the prediction (the program ended before it was evaluated; {how})", None


def _verdict(status: Status, message: str) -> Verdict:
    """A verdict decided before anything ran (CRUXEval's rules, a prediction that does not parse)."""
    return Verdict(status=status, message=f"failed: {message}", tests=[TestDetail(name="prediction", status=status, message=message)])
