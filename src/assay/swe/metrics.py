"""Repository-task metrics over n runs per task, as the seeds report them, each with a bootstrap interval:

- resolved rate: the share of graded (run, task) pairs that are RESOLVED_FULL;
- pass@1 and pass@k (k = 1, 3): the unbiased estimator over each task's n runs, averaged over tasks
  (pass@1 equals the resolved rate when every task has the same number of runs);
- precision: resolved among the patches that were not empty and applied (Multilingual SWE-bench);
- F1: the harmonic mean of precision and pass@1.
Infrastructure errors are left out of every figure and counted apart. Figures are given overall, per
language and per repository.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from assay.metrics import bootstrap_mean_ci, score_pass_at_k


@dataclass
class Figure:
    value: float
    low: float
    high: float

    def text(self) -> str:
        if math.isnan(self.value):
            return "n/a"
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


@dataclass
class RepoMetrics:
    tasks: int
    runs: int  # graded (task, run) pairs
    errors: int
    resolved: int
    resolved_rate: Figure
    pass_at: dict[int, Figure]
    precision: Figure
    f1: float
    empty_or_unapplied: int

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["pass_at"] = {f"pass@{k}": asdict(v) for k, v in self.pass_at.items()}
        return out


def _figure(values: list[float], seed: int) -> Figure:
    if not values:
        return Figure(math.nan, math.nan, math.nan)
    array = np.asarray(values, dtype=float)
    low, high = bootstrap_mean_ci(array, n_resamples=2000, seed=seed)
    return Figure(float(array.mean()), low, high)


def compute(rows: Iterable[Mapping[str, Any]], ks: tuple[int, ...] = (1, 3), seed: int = 0) -> RepoMetrics:
    """The metrics of result rows (TaskResult.to_json())."""
    rows = list(rows)
    graded = [r for r in rows if r["resolution"] != "error"]
    outcomes: dict[str, list[bool]] = {}
    for r in graded:
        outcomes.setdefault(str(r["instance_id"]), []).append(r["resolution"] == "RESOLVED_FULL")
    scores = score_pass_at_k(outcomes, ks, n_resamples=2000, seed=seed) if outcomes else {}
    pass_at = {k: Figure(s.value, s.ci_low, s.ci_high) for k, s in scores.items()}
    applied = [r for r in graded if r.get("applied_by") and not r.get("empty_patch")]
    precision = _figure([1.0 if r["resolution"] == "RESOLVED_FULL" else 0.0 for r in applied], seed)
    p1 = pass_at.get(1, Figure(math.nan, math.nan, math.nan)).value
    p = precision.value
    f1 = math.nan if math.isnan(p) or math.isnan(p1) else 0.0 if p + p1 == 0 else 2 * p * p1 / (p + p1)
    return RepoMetrics(tasks=len({r["instance_id"] for r in rows}), runs=len(graded), errors=len(rows) - len(graded),
                       resolved=sum(1 for r in graded if r["resolution"] == "RESOLVED_FULL"),
                       resolved_rate=_figure([1.0 if r["resolution"] == "RESOLVED_FULL" else 0.0 for r in graded], seed),
                       pass_at=pass_at, precision=precision, f1=f1, empty_or_unapplied=len(graded) - len(applied))


def grouped(rows: Sequence[Mapping[str, Any]], key: str) -> dict[str, RepoMetrics]:
    """The metrics per value of a row key ("repo", "language")."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        groups.setdefault(str(r.get(key) or "?"), []).append(r)
    return {name: compute(group) for name, group in sorted(groups.items())}
