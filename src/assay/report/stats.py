"""Statistics for reports: paired comparisons of two runs, correlations, trend lines and honest ranks.

Ranks follow one rule everywhere (the rule of LMSYS's Chatbot Arena leaderboard): a model's rank is
1 + the number of models whose whole confidence interval lies above its own, i.e. the models that are
better beyond doubt. Models with equal ranks are tied: their intervals cannot tell them apart. With
zero-width intervals (point scores) the rule is plain competition ranking ("1224"), which is how
SwiftEval's Table I ranks.

"Solved" in the exact McNemar test: with one sample per problem a problem is solved when that sample
passes; with several, when at least half of its samples pass (per-problem pass@1 >= 0.5, a majority
vote; `SOLVED_THRESHOLD`). The paired bootstrap uses all samples instead: its unit is each problem's
unbiased pass@k, so it is the test to trust when runs have many samples per problem.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from assay.metrics import bootstrap_mean_ci, per_problem_pass_at_k

SOLVED_THRESHOLD = 0.5  # a problem is "solved" when at least this share of its samples pass


@dataclass(frozen=True)
class PairedDifference:
    """Mean over shared problems of pass@k(A) - pass@k(B), with a paired bootstrap interval and a sign-flip p-value."""

    k: int
    mean_a: float
    mean_b: float
    difference: float  # mean_a - mean_b, in [−1, 1]
    ci_low: float
    ci_high: float
    p_value: float  # two-sided randomisation test: signs of per-problem differences flipped at random
    n_problems: int
    confidence: float = 0.95
    n_resamples: int = 10_000

    @property
    def significant(self) -> bool:
        """Whether the interval excludes zero."""
        return self.ci_low > 0 or self.ci_high < 0


def paired_bootstrap(
    a: Mapping[str, Sequence[bool]],
    b: Mapping[str, Sequence[bool]],
    k: int = 1,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PairedDifference:
    """Paired bootstrap over the problems both runs have (at least k samples each) of the difference in pass@k."""
    pa, pb = per_problem_pass_at_k(a, k), per_problem_pass_at_k(b, k)
    shared = [t for t in pa if t in pb]
    if not shared:
        raise ValueError(f"no problem has at least {k} samples in both runs; nothing to compare")
    va = np.array([pa[t] for t in shared])
    vb = np.array([pb[t] for t in shared])
    diff = va - vb
    low, high = bootstrap_mean_ci(diff, confidence, n_resamples, seed)
    return PairedDifference(
        k, float(va.mean()), float(vb.mean()), float(diff.mean()), low, high, sign_flip_p(diff, n_resamples, seed), len(shared), confidence, n_resamples
    )


def sign_flip_p(diff: np.ndarray, n_resamples: int = 10_000, seed: int = 0) -> float:
    """Two-sided p-value of a paired randomisation test: is the mean of `diff` farther from 0 than random signs make it?"""
    if diff.size == 0 or not np.any(diff):
        return 1.0
    rng = np.random.default_rng(seed)
    observed = abs(diff.mean())
    hits = 0
    for start in range(0, n_resamples, 1000):  # in blocks: bounded memory for large benchmarks
        size = min(1000, n_resamples - start)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(size, diff.size))
        hits += int(np.sum(np.abs((signs * diff).mean(axis=1)) >= observed - 1e-12))
    return (hits + 1) / (n_resamples + 1)


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test on problems one run solves and the other does not."""

    only_a: list[str]  # solved by A, not by B
    only_b: list[str]
    both: int
    neither: int
    p_value: float  # two-sided exact binomial test of len(only_a) among the discordant problems, p = 1/2
    solved_threshold: float = SOLVED_THRESHOLD

    @property
    def n_discordant(self) -> int:
        """Problems exactly one run solves."""
        return len(self.only_a) + len(self.only_b)


def solved(flags: Sequence[bool], threshold: float = SOLVED_THRESHOLD) -> bool:
    """Whether a problem counts as solved: at least `threshold` of its samples pass."""
    return bool(flags) and sum(bool(f) for f in flags) >= threshold * len(flags)


def mcnemar_exact(a: Mapping[str, Sequence[bool]], b: Mapping[str, Sequence[bool]], threshold: float = SOLVED_THRESHOLD) -> McNemarResult:
    """Exact (binomial) McNemar test over the problems both runs have."""
    shared = [t for t in a if t in b and a[t] and b[t]]
    only_a = [t for t in shared if solved(a[t], threshold) and not solved(b[t], threshold)]
    only_b = [t for t in shared if solved(b[t], threshold) and not solved(a[t], threshold)]
    both = sum(1 for t in shared if solved(a[t], threshold) and solved(b[t], threshold))
    n = len(only_a) + len(only_b)
    p = float(stats.binomtest(len(only_a), n, 0.5).pvalue) if n else 1.0
    return McNemarResult(only_a, only_b, both, len(shared) - both - n, min(1.0, p), threshold)


@dataclass(frozen=True)
class Correlation:
    """Pearson's r and Spearman's rho with their two-sided p-values (nan when undefined)."""

    n: int
    pearson_r: float
    pearson_p: float
    spearman_rho: float
    spearman_p: float
    notes: list[str] = field(default_factory=list)


def correlation(x: Sequence[float], y: Sequence[float]) -> Correlation:
    """Pearson and Spearman correlations of paired values; nan with a note for fewer than 3 points or a constant."""
    xa, ya = _pairs(x, y)
    nan = math.nan
    if xa.size < 3:
        return Correlation(int(xa.size), nan, nan, nan, nan, [f"{xa.size} points: a correlation needs at least 3"])
    if np.all(xa == xa[0]) or np.all(ya == ya[0]):
        return Correlation(int(xa.size), nan, nan, nan, nan, ["one of the variables is constant: no correlation is defined"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr = stats.pearsonr(xa, ya)
        sr = stats.spearmanr(xa, ya)
    return Correlation(int(xa.size), float(pr.statistic), float(pr.pvalue), float(sr.statistic), float(sr.pvalue))


@dataclass(frozen=True)
class OLSFit:
    """Ordinary least squares line y = intercept + slope * x."""

    slope: float
    intercept: float
    r_squared: float
    n: int
    slope_stderr: float = math.nan

    def predict(self, x: float) -> float:
        """The line's value at x."""
        return self.intercept + self.slope * x


def ols(x: Sequence[float], y: Sequence[float]) -> OLSFit:
    """Least-squares line through paired values; nan for fewer than 2 points or constant x."""
    xa, ya = _pairs(x, y)
    nan = math.nan
    if xa.size < 2 or np.all(xa == xa[0]):
        return OLSFit(nan, nan, nan, int(xa.size))
    fit = stats.linregress(xa, ya)
    r2 = float(fit.rvalue) ** 2 if math.isfinite(fit.rvalue) else nan
    return OLSFit(float(fit.slope), float(fit.intercept), r2, int(xa.size), float(fit.stderr) if xa.size > 2 else nan)


def _pairs(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length ({len(x)} and {len(y)})")
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(xa) & np.isfinite(ya)
    return xa[keep], ya[keep]


def interval_ranks(intervals: Sequence[tuple[float, float]]) -> list[int | None]:
    """Rank = 1 + number of others whose interval lies wholly above this one (strictly); None for a nan interval."""
    valid = [(lo, hi) for lo, hi in intervals if math.isfinite(lo) and math.isfinite(hi)]
    return [
        None if not (math.isfinite(lo) and math.isfinite(hi)) else 1 + sum(1 for other_lo, _ in valid if other_lo > hi)
        for lo, hi in intervals
    ]


def score_ranks(scores: Sequence[float]) -> list[int | None]:
    """Competition ranks of point scores (equal scores share a rank: 1, 2, 2, 4); None for nan."""
    return interval_ranks([(s, s) for s in scores])


def tied(ranks: Sequence[int | None]) -> list[bool]:
    """Whether each rank is shared with another model."""
    counts: dict[int, int] = {}
    for r in ranks:
        if r is not None:
            counts[r] = counts.get(r, 0) + 1
    return [r is not None and counts[r] > 1 for r in ranks]
