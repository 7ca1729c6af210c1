"""Report statistics against numbers known by hand: correlations, OLS, McNemar, paired bootstrap, ranks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from assay.report.stats import (
    correlation,
    interval_ranks,
    mcnemar_exact,
    ols,
    paired_bootstrap,
    score_ranks,
    sign_flip_p,
    solved,
    tied,
)

X = [1, 2, 3, 4, 5]
Y = [2, 4, 5, 4, 5]


def test_pearson_and_spearman_match_hand_computed_values() -> None:
    c = correlation(X, Y)
    assert c.n == 5
    assert c.pearson_r == pytest.approx(math.sqrt(0.6))  # cov 6 / sqrt(10 * 6)
    t = c.pearson_r * math.sqrt(3) / math.sqrt(1 - c.pearson_r**2)
    assert c.pearson_p == pytest.approx(2 * sps.t.sf(t, df=3))
    assert c.spearman_rho == pytest.approx(7 / math.sqrt(90))  # ranks of Y: 1, 2.5, 4.5, 2.5, 4.5
    assert 0 < c.spearman_p < 1


def test_perfect_monotone_but_curved_data_has_spearman_one() -> None:
    c = correlation([1, 2, 3, 4], [1, 10, 100, 1000])
    assert c.spearman_rho == pytest.approx(1.0) and c.pearson_r < 0.95


def test_correlation_is_undefined_for_too_few_points_or_a_constant() -> None:
    assert math.isnan(correlation([1, 2], [3, 4]).pearson_r)
    assert "at least 3" in correlation([1, 2], [3, 4]).notes[0]
    constant = correlation([1, 2, 3], [5, 5, 5])
    assert math.isnan(constant.spearman_rho) and "constant" in constant.notes[0]


def test_nan_pairs_are_left_out() -> None:
    assert correlation([1, 2, 3, 4, 5, math.nan], [*Y, 1.0]).n == 5


def test_ols_matches_the_closed_form() -> None:
    fit = ols(X, Y)
    assert (fit.slope, fit.intercept, fit.r_squared, fit.n) == pytest.approx((0.6, 2.2, 0.6, 5))
    assert fit.predict(10) == pytest.approx(8.2)
    assert math.isnan(ols([1], [2]).slope) and math.isnan(ols([3, 3], [1, 2]).slope)
    with pytest.raises(ValueError, match="differ in length"):
        ols([1, 2], [1])


def test_solved_means_at_least_half_of_the_samples_pass() -> None:
    assert solved([True]) and not solved([False])
    assert solved([True, False]) and not solved([True, False, False]) and solved([True, True, False])
    assert not solved([])


def test_mcnemar_exact_p_value_is_the_binomial_tail() -> None:
    # 8 problems only A solves, 2 only B solves, 5 both, 3 neither: p = 2 * P(X <= 2), X ~ Bin(10, 1/2) = 112/1024.
    a: dict[str, list[bool]] = {}
    b: dict[str, list[bool]] = {}
    for i, (sa, sb) in enumerate([(True, False)] * 8 + [(False, True)] * 2 + [(True, True)] * 5 + [(False, False)] * 3):
        a[f"p{i}"], b[f"p{i}"] = [sa], [sb]
    m = mcnemar_exact(a, b)
    assert (len(m.only_a), len(m.only_b), m.both, m.neither, m.n_discordant) == (8, 2, 5, 3, 10)
    assert m.p_value == pytest.approx(112 / 1024)
    assert mcnemar_exact(b, a).p_value == pytest.approx(112 / 1024)


def test_mcnemar_with_no_discordant_problem_has_p_one() -> None:
    flags = {"x": [True], "y": [False]}
    assert mcnemar_exact(flags, flags).p_value == 1.0


def test_mcnemar_uses_the_majority_rule_with_several_samples() -> None:
    a = {"x": [True, True, False], "y": [True, False, False]}
    b = {"x": [False, False, False], "y": [True, True, True]}
    m = mcnemar_exact(a, b)
    assert m.only_a == ["x"] and m.only_b == ["y"]


def test_paired_bootstrap_of_identical_runs_is_zero() -> None:
    flags = {f"p{i}": [i % 3 == 0, i % 2 == 0] for i in range(30)}
    d = paired_bootstrap(flags, flags)
    assert (d.difference, d.ci_low, d.ci_high, d.p_value, d.significant) == (0.0, 0.0, 0.0, 1.0, False)


def test_paired_bootstrap_finds_a_clear_difference_and_is_seeded() -> None:
    rng = np.random.default_rng(1)
    a = {f"p{i}": [bool(v) for v in rng.random(5) < 0.8] for i in range(60)}
    b = {f"p{i}": [bool(v) for v in rng.random(5) < 0.4] for i in range(60)}
    b["extra"] = [True]  # a problem only B has: not paired, left out
    d = paired_bootstrap(a, b, n_resamples=2000)
    assert d.n_problems == 60
    mean_a = np.mean([np.mean(v) for v in a.values()])
    mean_b = np.mean([np.mean(b[t]) for t in a])
    assert d.difference == pytest.approx(mean_a - mean_b)
    assert d.ci_low < d.difference < d.ci_high and d.ci_low > 0 and d.significant
    assert d.p_value < 0.01
    assert paired_bootstrap(a, b, n_resamples=2000) == d  # same seed, same interval


def test_paired_bootstrap_at_k_needs_k_samples() -> None:
    with pytest.raises(ValueError, match="at least 5 samples"):
        paired_bootstrap({"x": [True]}, {"x": [False]}, k=5)


def test_sign_flip_p_approaches_the_exact_value() -> None:
    # All 10 differences positive and equal: only the all-plus and all-minus sign patterns are as extreme, p = 2/1024.
    p = sign_flip_p(np.ones(10), n_resamples=20_000)
    assert 0.0005 < p < 0.004


def test_interval_ranks_count_the_models_wholly_above() -> None:
    intervals = [(0.80, 0.90), (0.70, 0.82), (0.60, 0.75), (0.10, 0.20), (math.nan, math.nan)]
    ranks = interval_ranks(intervals)
    # B overlaps A: tied first. C overlaps B but not A: rank 2. D is below all three: rank 4.
    assert ranks == [1, 1, 2, 4, None]
    assert tied(ranks) == [True, True, False, False, False]


def test_score_ranks_are_competition_ranks() -> None:
    assert score_ranks([0.9, 0.8, 0.8, 0.7, math.nan]) == [1, 2, 2, 4, None]
