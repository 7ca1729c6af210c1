"""Judging one program as a job, and the scheduler seam that runs jobs.

A `JudgeJob` holds everything the trusted side decided before the program runs: the problem as
judged (a language's kept cases), the program, and a plan: the expected outputs and their
tolerances, the calibrated per-case and per-run limits. It is plain, picklable data, so a worker
anywhere (a thread here, a process, a cluster node with the same toolchains) turns it into a verdict
with `run_job(job, sandbox)` and nothing else: no reference run, no cache, no store. Deduplication,
caching and store writes stay with the driver (`assay.execution.Executor`).

A `Scheduler` runs jobs and yields verdicts as futures; `LocalScheduler` (a thread pool over one
sandbox) is the one here. Driver-side work that runs sandboxed programs too (reference checks and
labelling inputs, which make the plans) goes through `Scheduler.call`, on the driver's machine.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, TypeVar

from assay.judging.cases import CasePlan, judge_cases
from assay.languages import UnknownLanguage, get_language
from assay.languages import python as py
from assay.languages.base import PhaseLimits
from assay.oracles import NOT_NONE
from assay.problems import CaseTests, Problem, ProgramTests, Status, Verdict
from assay.sandbox.base import Sandbox, SandboxLimits

T = TypeVar("T")


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
class Skip:
    """Nothing to run here (no plugin for the language): the verdict is `skipped`."""

    message: str


Plan = PythonProgram | PythonCases | PythonGivenCases | LanguageCases | LanguageProgram | Skip


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
        driver_job = py.program_job(code, problem.tests.code, problem.entry_point, problem.prompt, plan.timeout)
        run = py.run_driver(sandbox, driver_job, plan.limits)
        return py.judge_program(run, problem.prompt + problem.reference, problem.tests.code, problem.entry_point)
    if isinstance(plan, PythonCases):
        tests = problem.tests
        assert isinstance(tests, CaseTests)
        big = None if tests.oracle else py.BIG_OUTPUT
        driver_job = py.cases_job(code, problem.entry_point, plan.judging.args, list(plan.case_limits), run_all=False,
                                  not_none=tests.oracle == NOT_NONE, big_output=big)
        return py.judge_cases(py.run_driver(sandbox, driver_job, plan.limits), plan.judging)
    if isinstance(plan, PythonGivenCases):
        return py.judge_given_cases(sandbox, problem, code, plan.timeout, plan.limits)
    try:
        language = get_language(problem.language)
    except UnknownLanguage as exc:
        return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
    if isinstance(plan, LanguageCases):
        return judge_cases(language, sandbox, problem, code, plan.plan, plan.limits)
    return language.judge(sandbox, problem, code, plan.limits)


class Scheduler(Protocol):
    """Runs judge jobs and driver-side calls; the pipeline never sees more of how or where."""

    workers: int

    def submit(self, job: JudgeJob) -> Future[Verdict]:
        """Judge one program; the future's result is its verdict."""
        ...

    def call(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Run driver-side work (a reference check, labelling a problem's inputs) alongside the jobs."""
        ...

    def stop(self) -> None:
        """Ctrl-C: drop what is queued and kill what runs; verdicts of killed runs are not to be kept."""
        ...

    def close(self) -> None:
        """Wait for what was submitted, then release the workers."""
        ...


class LocalScheduler:
    """Jobs on a pool of threads here, each running its program in the given sandbox."""

    def __init__(self, sandbox: Sandbox, workers: int) -> None:
        self.sandbox = sandbox
        self.workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="assay")

    def submit(self, job: JudgeJob) -> Future[Verdict]:
        return self._pool.submit(run_job, job, self.sandbox)

    def call(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        return self._pool.submit(fn, *args)

    def stop(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        close = getattr(self.sandbox, "close", None)
        if close is not None:
            close()

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def __enter__(self) -> LocalScheduler:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()  # as a thread pool's own exit: after stop(), what still runs has been killed
