"""One evaluation: benchmark x samples -> verdicts in a run directory -> scores and result files."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import sha256_file
from assay.execution import Executor, JudgeSettings, hash_samples
from assay.languages import toolchains_record
from assay.metrics import PassAtK, failure_breakdown, score_pass_at_k, status_counts
from assay.problems import Benchmark, Status, judged_as
from assay.provenance import SCHEMA_VERSION, RunRecord, SamplesInfo, SandboxInfo, assay_info, benchmark_info
from assay.samples import RawSample, split_known, write_jsonl
from assay.sandbox.base import Sandbox
from assay.scoring import suite_flags
from assay.store import RunStore, VerdictCache


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


def evaluate(
    benchmark: Benchmark,
    samples: list[RawSample],
    samples_path: Path,
    run_dir: Path,
    sandbox: Sandbox,
    ks: list[int],
    settings: JudgeSettings = JudgeSettings(),
    workers: int | None = None,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    progress: Callable[[str, int, int, str], None] | None = None,
) -> Evaluation:
    """Evaluate samples on a benchmark, resumably, and score them."""
    known, unknown = split_known(samples, set(benchmark.problems))
    config = RunRecord(
        assay=assay_info(),
        benchmark=benchmark_info(benchmark),
        samples=SamplesInfo(path=str(samples_path), sha256=samples_digest(samples_path), n=len(samples)),
        settings=asdict(settings),
        sandbox=SandboxInfo(name=sandbox.name, isolation=sandbox.isolation),
        toolchain=toolchains_record({p.language for p in benchmark.problems.values()}),
        ks=ks,
    ).to_json()
    store = RunStore(run_dir)
    identity = {
        "benchmark": benchmark.name,
        "benchmark_hash": benchmark.content_hash,
        "samples": hash_samples(known),
        "settings": asdict(settings),
        "sandbox": sandbox.name,
    }
    store.claim(identity)
    store.set_meta("config", config)
    executor = Executor(sandbox, benchmark, settings, workers=workers, cache_dir=cache_dir)
    # Each program is hashed once, here: the store and the judge both take this hash.
    known = [replace(s, program_hash=executor.program_hash(benchmark.problems[s.task_id], _program(benchmark, s))) for s in known]
    store.add_samples([(s.task_id, s.index, s.program_hash or "", s.completion, s.solution, s.extra) for s in known])
    cache = VerdictCache(cache_dir / "verdicts.sqlite") if (use_cache and cache_dir) else None
    n_refs = len({s.task_id for s in known})
    refs_done = [0]
    judged = [0]

    def on_reference() -> None:
        refs_done[0] += 1
        if progress:
            progress("references", refs_done[0], n_refs, "")

    tally = PassTally()

    def on_verdict(count: int, passed: bool | None = None) -> None:
        judged[0] += count
        tally.add(count, passed)
        if progress:
            progress("samples", judged[0], len(known), tally.note())

    defects = executor.run(known, store, cache=cache, on_reference=on_reference, on_verdict=on_verdict)
    if cache:
        cache.close()
    evaluation = score_run(store, benchmark, ks, config, unknown, {k: v.message for k, v in defects.items()})
    evaluation.notes = dict(executor.notes)
    store.close()
    return evaluation


def samples_digest(path: Path) -> str:
    """The sha256 of a samples file; of a samples directory, that of its files' relative names and contents."""
    if not path.is_dir():
        return sha256_file(path)
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(path)).encode() + b"\0" + sha256_file(file).encode() + b"\n")
    return digest.hexdigest()


class PassTally:
    """The running pass rate shown with progress: of the verdicts judged in this run (thread-safe)."""

    def __init__(self) -> None:
        self.passed = 0
        self.known = 0
        self._lock = threading.Lock()

    def add(self, count: int, passed: bool | None) -> None:
        if passed is None:
            return
        with self._lock:
            self.known += count
            self.passed += count if passed else 0

    def note(self) -> str:
        """"7 of 20 passed (35%)", or "" before the first verdict of this run."""
        with self._lock:
            passed, known = self.passed, self.known
        return f"{passed} of {known} passed ({passed / known:.0%})" if known else ""


def _program(benchmark: Benchmark, sample: RawSample) -> str:
    from assay.execution import program_text

    return program_text(benchmark.problems[sample.task_id], sample)


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
    rows: list[dict[str, Any]] = []
    for task_id, idx, completion, solution, extra, verdict in store.results():
        if verdict is None or (only is not None and task_id not in only):
            continue  # not judged (cannot happen after a finished run), or not asked for this time
        flags = suite_flags(benchmark, task_id, verdict)
        if verdict.status is not Status.SKIPPED:  # no toolchain here: not a failure, not scored
            for label, ok in flags.items():
                (apart if task_id in defects else per_label).setdefault(label, {}).setdefault(task_id, []).append(ok)
        statuses.append(verdict.status.value)
        per_language.setdefault(benchmark.problems[task_id].language, []).append(verdict.status.value)
        row: dict[str, Any] = {"task_id": task_id, **extra}
        if solution is not None:
            row["solution"] = solution
        if completion is not None:
            row["completion"] = completion
        judged, why = judged_as(benchmark.problems[task_id])
        row.update(
            {
                "sample_index": idx,
                "judged": judged,
                **({"judged_why": why} if why else {}),
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
        rows.append(row)
    results_path = store.run_dir / "results.jsonl"
    write_jsonl(results_path, rows)
    scores: dict[str, dict[int, PassAtK]] = {}
    missing: dict[str, list[int]] = {}
    for label, results in per_label.items():
        scores[label] = score_pass_at_k(results, ks)
        missing[label] = [k for k, s in scores[label].items() if s.n_problems == 0]
    return Evaluation(
        config=config,
        scores=scores,
        counts=status_counts(statuses),
        n_samples=len(rows),
        unknown_tasks=unknown,
        defects=defects,
        results_path=results_path,
        missing_k=missing,
        by_language={lang: status_counts(st) for lang, st in sorted(per_language.items())},
        program_judged={pid: why for pid in sorted({r["task_id"] for r in rows}) for kind, why in [judged_as(benchmark.problems[pid])]
                        if kind == "program-judged"},
        defective_scores={label: score_pass_at_k(results, ks) for label, results in apart.items()},
        n_problems=len({t for results in per_label.values() for t in results}),
        n_problems_total=len(benchmark.problems),
    )
