"""Scores: which scores a verdict counts in, and a run's scores and results file from its store. One
module for every command that scores (evaluate, run, canary) and for reports.

HumanEval+ and MBPP+ (and their translations) report two scores, as EvalPlus does: `base` (the
benchmark's original tests) and `plus` (base + plus tests). Every other benchmark has one score,
under its own name. A verdict counts in the base score when it passed, or when its `suite:base` test
passed; in the plus score when it passed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.metrics import PassAtK, failure_breakdown, score_pass_at_k, status_counts
from assay.problems import Benchmark, CaseTests, ProgramTests, Runner, Status, Verdict, judged_as
from assay.provenance import SCHEMA_VERSION
from assay.samples import write_jsonl

if TYPE_CHECKING:
    from assay.store import RunStore

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


def method_flags(benchmark: Benchmark, task_id: str, verdict: Verdict) -> dict[str, bool]:
    """ClassEval's method-level score (upstream's fun_success): each method's unittest class is a problem of its
    own (`<task>::<class>`), passed when its `class:<name>` test did; {} for a problem run otherwise. The
    method classes are the benchmark's `method_test_classes` (a class's own test classes, such as its
    `...TestMain`, count in the class-level score only)."""
    problem = benchmark.problems[task_id]
    tests = problem.tests
    if not isinstance(tests, ProgramTests) or tests.runner != Runner.UNITTEST or problem.extra.get("method_level") is False:
        return {}  # bigcodebench's one TestCases per task has no method-level score
    passed = {t.name for t in verdict.tests if t.status is Status.PASSED}
    methods = problem.extra.get("method_test_classes") or tests.test_classes
    return {f"{task_id}::{c}": f"class:{c}" in passed for c in methods}


def inferred_flags(verdict: Verdict, name: str, split: bool) -> dict[str, bool]:
    """Pass flags when the benchmark itself is not at hand (a report of a run from elsewhere): `split`
    says whether the run's verdicts carry base and plus suites."""
    return base_and_plus(verdict) if split else {name: verdict.passed}


@dataclass
class Evaluation:
    """Everything an evaluation produced, ready to print or write."""

    config: dict[str, Any]
    scores: dict[str, dict[int, PassAtK]]  # suite label -> k -> score
    counts: dict[str, int]
    n_samples: int
    unknown_tasks: dict[str, int]
    defects: dict[str, str]
    results_path: Path
    notes: dict[str, str] = field(default_factory=dict)
    missing_k: dict[str, list[int]] = field(default_factory=dict)
    by_language: dict[str, dict[str, int]] = field(default_factory=dict)  # language -> status counts
    program_judged: dict[str, str] = field(default_factory=dict)  # problem -> why its tests ran as a program, not as cases
    defective_scores: dict[str, dict[int, PassAtK]] = field(default_factory=dict)  # the defective problems' own, apart
    n_problems: int = 0  # problems with at least one judged sample (defective ones apart)
    n_problems_total: int = 0  # problems in the benchmark

    @property
    def partial(self) -> bool:
        """Whether the samples cover only some of the benchmark's problems (scores are over those only)."""
        return self.n_problems + len(self.defects) < self.n_problems_total

    def to_json(self) -> dict[str, Any]:
        """Machine-readable scores with the full run configuration."""
        return {
            "schema_version": SCHEMA_VERSION,
            "config": self.config,
            "scores": {
                label: {f"pass@{k}": _score_json(s) for k, s in by_k.items()} for label, by_k in self.scores.items()
            },
            "status_counts": self.counts,
            "by_language": {
                lang: {"status_counts": counts, "failure_shares": failure_breakdown(counts)} for lang, counts in self.by_language.items()
            },
            "n_samples": self.n_samples,
            "n_problems": self.n_problems,
            "n_problems_total": self.n_problems_total,
            "partial": self.partial,
            "program_judged": self.program_judged,
            "unknown_task_ids": self.unknown_tasks,
            "defective_problems": self.defects,
            "defective_scores": {
                label: {f"pass@{k}": _score_json(s) for k, s in by_k.items()} for label, by_k in self.defective_scores.items()
            },
            "problem_notes": self.notes,
            "results_file": str(self.results_path),
        }


def _score_json(score: PassAtK) -> dict[str, Any]:
    data = asdict(score)
    return {k: (None if isinstance(v, float) and v != v else v) for k, v in data.items()}


def score_run(
    store: RunStore, benchmark: Benchmark, ks: list[int], config: dict[str, Any], unknown: dict[str, int], defects: dict[str, str],
    only: Collection[str] | None = None,
) -> Evaluation:
    """Scores and the per-sample results file, from what the run store holds. Problems whose reference
    fails its own tests (defects) are scored apart: their samples are in the results, not in the scores."""
    store.set_meta("defects", defects)  # for reports, which score from the store
    per_label: dict[str, dict[str, list[bool]]] = {}
    apart: dict[str, dict[str, list[bool]]] = {}
    statuses: list[str] = []
    per_language: dict[str, list[str]] = {}
    seen_tasks: set[str] = set()
    written = write_jsonl(store.run_dir / "results.jsonl",
                          _result_rows(store, benchmark, only, defects, per_label, apart, statuses, per_language, seen_tasks))
    results_path = store.run_dir / "results.jsonl"
    scores: dict[str, dict[int, PassAtK]] = {}
    missing: dict[str, list[int]] = {}
    for label, results in per_label.items():
        scores[label] = score_pass_at_k(results, ks)
        missing[label] = [k for k, s in scores[label].items() if s.n_problems == 0]
    return Evaluation(
        config=config,
        scores=scores,
        counts=status_counts(statuses),
        n_samples=written,
        unknown_tasks=unknown,
        defects=defects,
        results_path=results_path,
        missing_k=missing,
        by_language={lang: status_counts(st) for lang, st in sorted(per_language.items())},
        program_judged={pid: why for pid in sorted(seen_tasks) for kind, why in [judged_as(benchmark.problems[pid])]
                        if kind == "program-judged"},
        defective_scores={label: score_pass_at_k(results, ks) for label, results in apart.items()},
        n_problems=len({t for label, results in per_label.items() if not label.endswith(" (methods)") for t in results}),
        n_problems_total=len(benchmark.problems),
    )


def _result_rows(store: RunStore, benchmark: Benchmark, only: Collection[str] | None, defects: dict[str, str],
                 per_label: dict[str, dict[str, list[bool]]], apart: dict[str, dict[str, list[bool]]], statuses: list[str],
                 per_language: dict[str, list[str]], seen_tasks: set[str]) -> Iterator[dict[str, Any]]:
    """The results file's rows, one a sample as the store yields them (never all in memory), tallying the scores' inputs."""
    for sample, verdict in store.results():
        task_id, idx, completion, solution, extra = sample.task_id, sample.index, sample.completion, sample.solution, sample.extra
        if verdict is None or (only is not None and task_id not in only):
            continue  # not judged (cannot happen after a finished run), or not asked for this time
        seen_tasks.add(task_id)
        flags = suite_flags(benchmark, task_id, verdict)
        if verdict.status is not Status.SKIPPED:  # no toolchain here: not a failure, not scored
            for label, ok in flags.items():
                (apart if task_id in defects else per_label).setdefault(label, {}).setdefault(task_id, []).append(ok)
            for key, ok in method_flags(benchmark, task_id, verdict).items():
                (apart if task_id in defects else per_label).setdefault(f"{benchmark.name} (methods)", {}).setdefault(key, []).append(ok)
        statuses.append(verdict.status.value)
        per_language.setdefault(benchmark.problems[task_id].language, []).append(verdict.status.value)
        row: dict[str, Any] = {"task_id": task_id, **extra}
        if solution is not None:
            row["solution"] = solution
        if completion is not None:
            row["completion"] = completion
        judged, why = judged_as(benchmark.problems[task_id])
        defect_tags = [t for t in benchmark.problems[task_id].tags if t.startswith("defect:")]  # the benchmark's known defects
        row.update(
            {
                "sample_index": idx,
                "judged": judged,
                **({"judged_why": why} if why else {}),
                **({"defect_tags": defect_tags} if defect_tags else {}),
                "passed": verdict.passed,
                "result": verdict.message,
                "status": verdict.status.value,
                "tests": [asdict(t) for t in verdict.tests],
                "duration_s": round(verdict.duration_s, 4),
                "schema_version": SCHEMA_VERSION,
            }
        )
        if set(flags) == {"base", "plus"} and verdict.status is not Status.SKIPPED:  # EvalPlus's per-sample fields
            row["base_status"] = "pass" if flags["base"] else "fail"
            row["plus_status"] = "pass" if flags["plus"] else "fail"
        if verdict.stderr and not verdict.passed:
            row["stderr"] = verdict.stderr[-2000:]
        yield row
