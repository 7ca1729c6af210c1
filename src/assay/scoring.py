"""Which scores a verdict counts in: one module for `assay evaluate`'s scores and for reports.

HumanEval+ and MBPP+ (and their translations) report two scores, as EvalPlus does: `base` (the
benchmark's original tests) and `plus` (base + plus tests). Every other benchmark has one score,
under its own name. A verdict counts in the base score when it passed, or when its `suite:base` test
passed; in the plus score when it passed.
"""

from __future__ import annotations

from assay.problems import Benchmark, CaseTests, Status, Verdict

_PLUS_BENCHMARKS: dict[tuple[str, str], bool] = {}


def has_plus_suite(benchmark: Benchmark) -> bool:
    """Whether any problem of the benchmark has plus cases (HumanEval+, MBPP+ and their translations)."""
    key = (benchmark.name, benchmark.content_hash)
    if key not in _PLUS_BENCHMARKS:
        _PLUS_BENCHMARKS[key] = any(isinstance(p.tests, CaseTests) and any(c.suite == "plus" for c in p.tests.cases)
                                    for p in benchmark.problems.values())
    return _PLUS_BENCHMARKS[key]


def base_and_plus(verdict: Verdict) -> dict[str, bool]:
    """A verdict's flags in the two scores of a benchmark with plus tests."""
    base = next((t for t in verdict.tests if t.name == "suite:base"), None)
    return {"base": verdict.passed or (base is not None and base.status is Status.PASSED), "plus": verdict.passed}


def suite_flags(benchmark: Benchmark, task_id: str, verdict: Verdict) -> dict[str, bool]:
    """Pass flags per score label. A problem of a benchmark with plus tests that has no plus inputs
    itself (MBPP+'s Mbpp/793) counts in both, with its base tests as its whole suite."""
    problem = benchmark.problems[task_id]
    if isinstance(problem.tests, CaseTests) and has_plus_suite(benchmark):
        return base_and_plus(verdict)
    return {benchmark.name: verdict.passed}


def inferred_flags(verdict: Verdict, name: str, split: bool) -> dict[str, bool]:
    """Pass flags when the benchmark itself is not at hand (a report of a run from elsewhere): `split`
    says whether the run's verdicts carry base and plus suites."""
    return base_and_plus(verdict) if split else {name: verdict.passed}
