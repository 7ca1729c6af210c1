"""EvalPlus 0.3.1's output comparison and special oracles, rule by rule."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from assay import oracles
from assay.oracles import (
    ACCEPT_ANY,
    DIGIT_DISTANCE,
    EXACT_OR_ZERO,
    NOT_NONE,
    POLY_ROOT,
    PYRAMID_SURFACE_AREA,
    SET_EQUAL,
    compare_output,
    evalplus_oracle,
    expected_for,
    reduce_not_none_output,
    suite_atols,
)


def check(out: Any, exp: Any, atol: float = 0.0, oracle: str | None = None, args: tuple[Any, ...] = ()) -> bool:
    return compare_output(out, exp, atol=atol, oracle=oracle, args=args)


# --- the general rule -------------------------------------------------------------------------


def test_exact_match_uses_python_equality() -> None:
    assert check(3, 3)
    assert not check(3, 4)
    assert check("abc", "abc")
    assert check(None, None)
    assert check({"a": [1, (2, 3)]}, {"a": [1, (2, 3)]})
    assert check({1, 2}, {2, 1})
    # Python's == is what EvalPlus uses, so numeric tower equalities pass...
    assert check(1.0, 1)
    assert check(True, 1)
    # ...but a list is not a tuple, and a str key is not an int key.
    assert not check([1, 2], (1, 2))
    assert not check({"5": "x"}, {5: "x"})


def test_float_outputs_get_the_1e6_default_when_atol_is_zero() -> None:
    assert check(1.0 + 5e-7, 1.0)
    assert not check(1.0 + 5e-6, 1.0)
    assert check([1.0000005, 2.0], [1.0, 2.0])
    assert check((0.1 + 0.2,), (0.3,))
    # rtol=1e-7 scales with the magnitude: 1e8 ± 5 is within 1e-6 + 1e-7 * 1e8.
    assert check(1e8 + 5, 1e8)
    assert not check(1e8 + 50, 1e8)


def test_float_default_needs_all_floats_in_the_expected_list() -> None:
    # is_floats([1.0, 2]) is False, so no tolerance: only exact equality counts.
    assert not check([1.0000001, 2], [1.0, 2])
    assert check([1.0, 2], [1.0, 2])
    # An empty list is not "floats" either.
    assert oracles.is_floats([]) is False


def test_record_atol_applies_to_any_numeric_output() -> None:
    assert check(0.50005, 0.5, atol=1e-4)
    assert not check(0.5002, 0.5, atol=1e-4)
    # With a non-zero atol, ints go through np.allclose too (EvalPlus does not restrict it to floats).
    assert check(10**18 + 1, 10**18, atol=1e-6)
    assert not check(10**18 + 1, 10**18, atol=0.0)


def test_type_mismatch_fails_under_tolerance() -> None:
    assert not check([1.0, 2.0], (1.0, 2.0))  # list for a tuple
    assert not check(2, 2.0000001)  # int for a float that is not exactly equal
    assert not check(np.float64(1.0) + 1e-9, 1.0)  # a numpy float is not a float
    assert check(2, 2.0)  # exactly equal: the type check is never reached


def test_length_mismatch_fails_even_where_numpy_would_broadcast() -> None:
    assert bool(np.allclose([1.0], [1.0, 1.0]))  # what the length check protects against
    assert not check([1.0], [1.0, 1.0])


def test_nan_never_matches_as_in_numpy() -> None:
    assert not check(float("nan"), float("nan"))
    assert not check([1.0, float("nan")], [1.0, float("nan")])
    assert not check(float("nan"), 1.0)
    assert not check(1.0, float("nan"))
    assert check(math.inf, math.inf)
    assert not check(-math.inf, math.inf)


def test_non_numeric_values_under_tolerance_fail_without_raising() -> None:
    assert not check(["b"], ["a"], atol=1e-4)
    assert not check({"a": 1.0}, {"a": 1.0000001}, atol=1e-4)
    assert not check([[1.0], [2.0, 3.0]], [[1.0], [2.0, 3.1]], atol=1e-4)  # ragged
    assert not check(None, 1.0)
    assert not check(10**400, 1.0, atol=1e-4)  # overflow inside numpy


def test_unknown_oracle_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown oracle"):
        check(1, 1, oracle="nope")


# --- suite-level tolerance ------------------------------------------------------------------


def test_suite_atols_make_the_float_default_sticky_within_a_suite() -> None:
    exps = [1, 2.5, 3, [1, 2], "x", 4]
    suites = ["base", "base", "base", "base", "plus", "plus"]
    assert suite_atols(exps, suites, 0.0) == [0.0, 1e-6, 1e-6, 1e-6, 0.0, 0.0]
    assert suite_atols(exps, suites, 1e-4) == [1e-4] * 6
    with pytest.raises(ValueError):
        suite_atols([1], [], 0.0)


def test_sticky_tolerance_accepts_near_integers_after_a_float_case() -> None:
    # Mbpp/441-style: once a float was expected, a large int within rtol passes in EvalPlus.
    exps = [1.5, 6_000_000_000_000_000_000]
    outs = [1.5, 6_000_000_000_000_000_001]
    atols = suite_atols(exps, ["plus", "plus"], 0.0)
    assert [check(o, e, atol=a) for o, e, a in zip(outs, exps, atols, strict=True)] == [True, True]
    assert not check(outs[1], exps[1])  # the same case judged alone


# --- special oracles --------------------------------------------------------------------------


def test_accept_any() -> None:
    assert check("whatever", 1, oracle=ACCEPT_ANY)
    assert check(None, [1, 2], oracle=ACCEPT_ANY)


def test_exact_or_zero() -> None:
    assert check(0, 7, oracle=EXACT_OR_ZERO)
    assert check(7, 7, oracle=EXACT_OR_ZERO)
    assert not check(6, 7, oracle=EXACT_OR_ZERO)


def test_pyramid_surface_area() -> None:
    value = oracles._surface_area(3, 4)
    assert value == round(9 + 4 * (3 * math.sqrt(1.5**2 + 16)) / 2)
    assert check(value, 999, oracle=PYRAMID_SURFACE_AREA, args=(3, 4))
    assert check(999, 999, oracle=PYRAMID_SURFACE_AREA, args=(3, 4))
    assert not check(value + 1, 999, oracle=PYRAMID_SURFACE_AREA, args=(3, 4))
    assert check(value + 0.5, 999, atol=1.0, oracle=PYRAMID_SURFACE_AREA, args=(3, 4))
    assert not check("x", 999, oracle=PYRAMID_SURFACE_AREA, args=(3, 4))


def test_digit_distance() -> None:
    assert oracles._digit_distance(123, 256) == 1 + 3 + 3
    assert oracles._digit_distance(1, 999) == 8 + 9 + 9  # zero-padded to "001"
    assert check(7, 100, oracle=DIGIT_DISTANCE, args=(123, 256))
    assert not check(8, 100, oracle=DIGIT_DISTANCE, args=(123, 256))
    # A negative number breaks the oracle; EvalPlus then only accepts the exact value.
    assert check(5, 5, oracle=DIGIT_DISTANCE, args=(-1, 2))
    assert not check(4, 5, oracle=DIGIT_DISTANCE, args=(-1, 2))


def test_set_equal() -> None:
    assert check((5, 4), (4, 5), oracle=SET_EQUAL)
    assert check([4, 5, 5], (4, 5), oracle=SET_EQUAL)
    assert not check([4], (4, 5), oracle=SET_EQUAL)
    assert not check(5, (5,), oracle=SET_EQUAL)  # not iterable
    assert not check([[1]], [[1]], oracle=SET_EQUAL)  # unhashable: EvalPlus fails it too


def test_not_none_compares_bools_as_bools_and_the_rest_by_is_not_none() -> None:
    assert check(True, True, oracle=NOT_NONE)
    assert not check(False, True, oracle=NOT_NONE)
    assert check("<re.Match>", True, oracle=NOT_NONE)
    assert not check(None, True, oracle=NOT_NONE)
    assert check(None, False, oracle=NOT_NONE)
    assert not check(0, False, oracle=NOT_NONE)


def test_not_none_reduction_preserves_evalplus_verdicts() -> None:
    class Match:  # stands in for re.Match, which cannot leave the sandbox
        pass

    values: list[Any] = [None, False, True, 0, "", Match()]
    for ref, out in itertools.product(values, values):
        evalplus_exp = ref is not None
        evalplus = out == evalplus_exp if isinstance(out, bool) else evalplus_exp == (out is not None)
        exp = expected_for(NOT_NONE, reduce_not_none_output(ref))
        assert check(reduce_not_none_output(out), exp, oracle=NOT_NONE) == evalplus, (ref, out)
    assert expected_for(None, [1]) == [1]


# HumanEval/32, base input 2, and the canonical solution's output for it.
XS = [-3, -6, -7, 7]
CANONICAL_ROOT = 1.6679422344071086


def test_poly_root_accepts_a_real_find_zero_root() -> None:
    assert abs(oracles._poly(XS, CANONICAL_ROOT)) <= 1e-4
    assert check(CANONICAL_ROOT, CANONICAL_ROOT, atol=1e-4, oracle=POLY_ROOT, args=(XS,))
    # Any root passes, not only the reference's: (x-1)(x-2)(x-3) has three.
    cubic = [-6, 11, -6, 1]
    for root in (1.0, 2.0, 3.0, 3.00000001):
        assert check(root, 1.0, atol=1e-4, oracle=POLY_ROOT, args=(cubic,))
    assert not check(2.5, 1.0, atol=1e-4, oracle=POLY_ROOT, args=(cubic,))
    assert not check(CANONICAL_ROOT + 1e-3, CANONICAL_ROOT, atol=1e-4, oracle=POLY_ROOT, args=(XS,))
    assert not check("1.0", 1.0, atol=1e-4, oracle=POLY_ROOT, args=(cubic,))
    assert not check(1e308, 1.0, atol=1e-4, oracle=POLY_ROOT, args=(cubic,))  # overflow
    assert not check(float("nan"), 1.0, atol=1e-4, oracle=POLY_ROOT, args=(cubic,))


def test_evalplus_oracle_selection() -> None:
    assert evalplus_oracle("humaneval", "find_zero") == POLY_ROOT
    assert evalplus_oracle("humaneval", "similar_elements") is None
    assert evalplus_oracle("mbpp", "similar_elements") == SET_EQUAL
    assert evalplus_oracle("mbpp", "check_str") == NOT_NONE
    assert evalplus_oracle("mbpp", "are_equivalent") == ACCEPT_ANY
    assert evalplus_oracle("mbpp", "sum_div") == EXACT_OR_ZERO
    assert evalplus_oracle("mbpp", "surface_Area") == PYRAMID_SURFACE_AREA
    assert evalplus_oracle("mbpp", "digit_distance_nums") == DIGIT_DISTANCE
    assert evalplus_oracle("mbpp", "find_zero") is None
    with pytest.raises(ValueError):
        evalplus_oracle("apps", "x")


# --- differential check against EvalPlus's own loop ------------------------------------------


def _evalplus_suite(
    dataset: str, entry_point: str, outs: list[Any], inputs: list[Any], expected: list[Any], atol: float
) -> bool:
    """The comparison part of evalplus 0.3.1 `unsafe_execute`, transcribed, with fast_check: does the suite pass?"""
    from assay.oracles import (
        MBPP_OUTPUT_NOT_NONE_TASKS,
        MBPP_OUTPUT_SET_EQ_TASKS,
        _digit_distance,
        _poly,
        _surface_area,
    )

    details = []
    for i, inp in enumerate(inputs):
        try:
            out = outs[i]
            exp = expected[i]
            exact_match = out == exp
            if dataset == "mbpp":
                if entry_point == "are_equivalent":
                    exact_match = exact_match or True
                elif entry_point == "sum_div":
                    exact_match = exact_match or out == 0
                elif entry_point == "surface_Area":
                    exact_match = exact_match or abs(out - _surface_area(*inp)) <= atol
                elif entry_point == "digit_distance_nums":
                    exact_match = exact_match or out == _digit_distance(*inp)
                elif entry_point in MBPP_OUTPUT_SET_EQ_TASKS:
                    exact_match = set(out) == set(exp)
                elif entry_point in MBPP_OUTPUT_NOT_NONE_TASKS:
                    if isinstance(out, bool):  # noqa: SIM108 - transcribed as is
                        exact_match = out == exp
                    else:
                        exact_match = exp == (out is not None)
            if dataset == "humaneval":  # noqa: SIM102 - transcribed as is
                if entry_point == "find_zero":
                    assert abs(_poly(*inp, out)) <= atol
                    continue  # the 0.3.1 bug: the case is never recorded as passed
            if atol == 0 and oracles.is_floats(exp):
                atol = 1e-6
            if not exact_match and atol != 0:
                assert type(out) == type(exp)  # noqa: E721 - transcribed as is
                if isinstance(exp, (list, tuple)):
                    assert len(out) == len(exp)
                assert np.allclose(out, exp, rtol=1e-07, atol=atol)
            else:
                assert exact_match
        except BaseException:
            return False  # fast_check stops at the first failure
        details.append(True)
    return len(details) == len(inputs)


def _assay_suite(
    dataset: str, entry_point: str, outs: list[Any], inputs: list[Any], expected: list[Any], atol: float
) -> bool:
    oracle = evalplus_oracle(dataset, entry_point)
    atols = suite_atols(expected, ["plus"] * len(expected), atol)
    return all(
        compare_output(o, e, atol=a, oracle=oracle, args=tuple(inp))
        for o, e, a, inp in zip(outs, expected, atols, inputs, strict=False)
    )


VALUES: list[Any] = [
    0,
    1,
    7,
    -3,
    10**18,
    10**18 + 1,
    True,
    False,
    None,
    0.0,
    1.0,
    1.0000005,
    1.00001,
    2.5,
    float("nan"),
    math.inf,
    "a",
    "",
    [1, 2],
    [1.0, 2.0],
    [1.0000005, 2.0],
    [1.0],
    (1, 2),
    (1.0, 2.0),
    [2, 1],
    {1, 2},
    {"a": 1},
    [[1, 2]],
    3 + 0j,
    # numpy values arrive rebuilt from tagged plain data (assay.languages.plaindata)
    np.float64(1.0),
    np.float64(1.0000005),
    np.int64(7),
    np.array([1.0, 2.0]),
    np.array([1]),
]


@pytest.mark.parametrize(
    ("dataset", "entry_point", "atol", "inputs"),
    [
        ("humaneval", "f", 0.0, [(1,)]),
        ("humaneval", "f", 1e-6, [(1,)]),
        ("mbpp", "f", 1e-4, [(1,)]),
        ("mbpp", "similar_elements", 0.0, [(1,)]),
        ("mbpp", "check_str", 0.0, [(1,)]),
        ("mbpp", "are_equivalent", 0.0, [(1,)]),
        ("mbpp", "sum_div", 0.0, [(1,)]),
        ("mbpp", "surface_Area", 0.0, [(3, 4)]),
        ("mbpp", "digit_distance_nums", 0.0, [(123, 256)]),
    ],
)
def test_single_case_verdicts_agree_with_evalplus(
    dataset: str, entry_point: str, atol: float, inputs: list[Any]
) -> None:
    extra = [oracles._surface_area(3, 4)] if entry_point == "surface_Area" else []
    extra += [7] if entry_point == "digit_distance_nums" else []
    values = VALUES + extra
    for out, exp in itertools.product(values, values):
        want = _evalplus_suite(dataset, entry_point, [out], inputs, [exp], atol)
        got = _assay_suite(dataset, entry_point, [out], inputs, [exp], atol)
        assert got == want, (out, exp)


def test_two_case_suites_agree_with_evalplus_including_sticky_atol() -> None:
    pairs = list(itertools.product(VALUES[:16], repeat=2))
    for (o1, e1), (o2, e2) in itertools.product(pairs[::7], pairs[::5]):
        outs, exps = [o1, o2], [e1, e2]
        want = _evalplus_suite("mbpp", "f", outs, [(1,), (2,)], exps, 0.0)
        assert _assay_suite("mbpp", "f", outs, [(1,), (2,)], exps, 0.0) == want, (outs, exps)


def test_find_zero_is_the_one_deliberate_difference() -> None:
    xs = [-6, 11, -6, 1]
    # EvalPlus 0.3.1 fails even the exact canonical root; Assay accepts it.
    assert _evalplus_suite("humaneval", "find_zero", [1.0], [(xs,)], [1.0], 1e-4) is False
    assert _assay_suite("humaneval", "find_zero", [1.0], [(xs,)], [1.0], 1e-4) is True
