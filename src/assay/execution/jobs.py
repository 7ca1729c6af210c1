"""Judging one program as a job, and the scheduler seam that runs jobs.

A `JudgeJob` holds everything the trusted side decided before the program runs: the problem as
judged (a language's kept cases), the program, and a plan: the expected outputs and their
tolerances, the calibrated per-case and per-run limits. It is plain, picklable data, so a worker
anywhere (a thread here, a process, a cluster node with the same toolchains) turns it into a verdict
with `run_job(job, sandbox)` and nothing else: no reference run, no cache, no store. Deduplication,
caching and store writes stay with the driver (`assay.execution.executor.Executor`); schedulers,
which run jobs, are in `assay.execution.schedulers`.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.judging.cases import CasePlan, judge_cases
from assay.judging.cruxeval import judge_prediction
from assay.languages import UnknownLanguage, get_language
from assay.languages import python as py
from assay.languages.base import PhaseLimits
from assay.oracles import NOT_NONE
from assay.problems import CaseTests, Problem, ProgramTests, Status, Verdict
from assay.sandbox.base import Sandbox, SandboxLimits


@dataclass(frozen=True)
class PythonProgram:
    """HumanEval's check() replayed through the Python driver, under a CPU budget."""

    timeout: float
    limits: SandboxLimits


@dataclass(frozen=True)
class PythonCases:
    """Python cases through the driver: inputs and per-case limits go in, outputs come back to compare."""

    judging: py.CaseJudging
    case_limits: tuple[float, ...]
    limits: SandboxLimits


@dataclass(frozen=True)
class PythonGivenCases:
    """Python cases with the benchmark's own expected outputs (MultiPL-E's asserts), compared with ==."""

    timeout: float
    limits: SandboxLimits


@dataclass(frozen=True)
class LanguageCases:
    """Cases in another language: its harness reports each output, the plan's expected outputs judge them."""

    plan: CasePlan
    limits: PhaseLimits


@dataclass(frozen=True)
class LanguageProgram:
    """A test program built and run by its language's plugin (MultiPL-E's program path, hand-written suites)."""

    limits: PhaseLimits


@dataclass(frozen=True)
class PythonIO:
    """Stdin/stdout or call cases (LiveCodeBench's): the program's output comes back, the trusted side compares."""

    timeout: float  # CPU seconds per test
    limits: SandboxLimits


@dataclass(frozen=True)
class PythonPrediction:
    """A CRUXEval prediction: its value from the sandbox, compared with the output on the trusted side."""

    timeout: float
    limits: SandboxLimits


@dataclass(frozen=True)
class Skip:
    """Nothing to run here (no plugin for the language): the verdict is `skipped`."""

    message: str


Plan = PythonProgram | PythonCases | PythonGivenCases | PythonIO | PythonPrediction | LanguageCases | LanguageProgram | Skip


@dataclass(frozen=True)
class JudgeJob:
    """One program to judge, with the trusted side's plan for it: picklable, self-contained."""

    program_hash: str
    problem: Problem  # as judged: for a language's cases, the cases it kept
    code: str
    plan: Plan


def run_job(job: JudgeJob, sandbox: Sandbox) -> Verdict:
    """Run one job in the sandbox and decide its verdict on the trusted side (what any worker does)."""
    plan, problem, code = job.plan, job.problem, job.code
    if isinstance(plan, Skip):
        return Verdict(Status.SKIPPED, message=plan.message)
    if isinstance(plan, PythonProgram):
        assert isinstance(problem.tests, ProgramTests)
        sees_sample = problem.tests.sees_sample
        driver_job = py.program_job(code, problem.tests.code, problem.entry_point, "" if sees_sample else problem.prompt,
                                    plan.timeout, sees_sample=sees_sample, split=True)
        run = py.run_driver(sandbox, driver_job, plan.limits)
        if run.report is not None and run.report.get("unsplittable"):  # the test's own doing, never the sample's
            run = py.run_driver(sandbox, {**driver_job, "split": False}, plan.limits)
        return py.judge_program(run, problem.reference_program(), problem.tests.code, problem.entry_point, opaque_truth=sees_sample)
    if isinstance(plan, PythonCases):
        tests = problem.tests
        assert isinstance(tests, CaseTests)
        big = None if tests.oracle else py.BIG_OUTPUT
        driver_job = py.cases_job(code, problem.entry_point, plan.judging.args, list(plan.case_limits), run_all=False,
                                  not_none=tests.oracle == NOT_NONE, big_output=big)
        return py.judge_cases(py.run_driver(sandbox, driver_job, plan.limits), plan.judging)
    if isinstance(plan, PythonGivenCases):
        return py.judge_given_cases(sandbox, problem, code, plan.timeout, plan.limits)
    if isinstance(plan, PythonIO):
        from assay.judging.stdio import judge_io

        return judge_io(sandbox, problem, code, plan.timeout, plan.limits)
    if isinstance(plan, PythonPrediction):
        return judge_prediction(sandbox, problem, code, plan.timeout, plan.limits)
    try:
        language = get_language(problem.language)
    except UnknownLanguage as exc:
        return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
    if isinstance(plan, LanguageCases):
        return judge_cases(language, sandbox, problem, code, plan.plan, plan.limits)
    return language.judge(sandbox, problem, code, plan.limits)
