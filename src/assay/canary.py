"""The canary: build every problem's prompt + a stub + its tests, to find problems that cannot compile
before any model is blamed for them (MultiPL-E has no reference solutions outside Python)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assay.languages import UnknownLanguage, get_language
from assay.problems import Benchmark, Status, Verdict
from assay.sandbox.base import Sandbox


@dataclass
class CanaryResult:
    """Per problem: did prompt + stub + tests build, and what happened when it ran."""

    verdicts: dict[str, Verdict]

    @property
    def broken(self) -> dict[str, Verdict]:
        """Problems whose tests cannot even be built around a stub: benchmark defects."""
        return {pid: v for pid, v in self.verdicts.items() if v.status in (Status.COMPILE_ERROR, Status.SANDBOX_ERROR)}

    @property
    def stub_passes(self) -> dict[str, Verdict]:
        """Problems a do-nothing stub passes: tests that check nothing."""
        return {pid: v for pid, v in self.verdicts.items() if v.status is Status.PASSED}


def run_canary(benchmark: Benchmark, sandbox: Sandbox, workers: int = 2, task_ids: list[str] | None = None,
               progress: Callable[[int, int], None] | None = None) -> CanaryResult:
    """Build and run prompt + stub + tests for each problem; the stub must build and must not pass.

    The stub is judged as any sample is (the executor's judge: HumanEval's check program, cases, a
    language's harness), not by a path of the canary's own."""
    from assay.execution import Executor
    from assay.execution.schedulers import LocalScheduler

    ids = task_ids or list(benchmark.problems)
    verdicts: dict[str, Verdict] = {}
    executor = Executor(sandbox, benchmark, workers=workers)

    def one(pid: str) -> tuple[str, Verdict]:
        problem = benchmark.problems[pid]
        try:
            language = get_language(problem.language)
        except UnknownLanguage as exc:
            return pid, Verdict(Status.SKIPPED, message=f"skipped: {exc}")
        return pid, executor.judge(problem, problem.prompt + language.stub)

    with LocalScheduler(sandbox, workers) as scheduler:
        futures = [scheduler.call(one, pid) for pid in ids]
        for i, future in enumerate(futures, 1):
            pid, verdict = future.result()
            verdicts[pid] = verdict
            if progress:
                progress(i, len(ids))
    return CanaryResult({pid: verdicts[pid] for pid in ids})
