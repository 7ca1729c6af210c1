"""Output comparison for case tests: EvalPlus 0.3.1's rules and special oracles, run on the trusted side.

`out` is always plain data decoded from the sandbox (int, float, str, bool, None, complex, bytes, list,
tuple, dict, set, frozenset, nested; numpy scalars/arrays rebuilt from tagged data, compared as EvalPlus
compares them). Nothing here calls code that came from a sample: the special
oracles call only the fixed helpers below, on the (trusted) test inputs and the decoded output.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

# Names of the special comparison rules, stored in CaseTests.oracle.
ACCEPT_ANY = "accept_any"  # Mbpp/164 are_equivalent: every output passes
EXACT_OR_ZERO = "exact_or_zero"  # Mbpp/295 sum_div: the expected value, or 0
PYRAMID_SURFACE_AREA = "pyramid_surface_area"  # Mbpp/581 surface_Area: |out - _surface_area(*args)| <= atol
DIGIT_DISTANCE = "digit_distance"  # Mbpp/558 digit_distance_nums: the expected value, or _digit_distance(*args)
SET_EQUAL = "set_equal"  # MBPP tasks whose output order is free: set(out) == set(exp)
NOT_NONE = "not_none"  # MBPP tasks whose output is a re.Match: only "is it not None" is compared
POLY_ROOT = "poly_root"  # HumanEval/32 find_zero: |poly(xs, out)| <= atol

ORACLES = frozenset({ACCEPT_ANY, EXACT_OR_ZERO, PYRAMID_SURFACE_AREA, DIGIT_DISTANCE, SET_EQUAL, NOT_NONE, POLY_ROOT})

# evalplus/eval/_special_oracle.py (0.3.1) selects MBPP oracles by entry-point name.
MBPP_OUTPUT_NOT_NONE_TASKS = ("check_str", "text_match_three", "text_starta_endb")
MBPP_OUTPUT_SET_EQ_TASKS = (
    "similar_elements",  # Mbpp/2
    "find_char_long",  # Mbpp/7
    "common_in_nested_lists",  # Mbpp/111
    "extract_singly",  # Mbpp/140
    "larg_nnum",  # Mbpp/232
    "intersection_array",  # Mbpp/249
    "find_dissimilar",  # Mbpp/579
    "Diff",  # Mbpp/769
)
_MBPP_BY_ENTRY_POINT = {
    "are_equivalent": ACCEPT_ANY,
    "sum_div": EXACT_OR_ZERO,
    "surface_Area": PYRAMID_SURFACE_AREA,
    "digit_distance_nums": DIGIT_DISTANCE,
    **{name: SET_EQUAL for name in MBPP_OUTPUT_SET_EQ_TASKS},
    **{name: NOT_NONE for name in MBPP_OUTPUT_NOT_NONE_TASKS},
}
_HUMANEVAL_BY_ENTRY_POINT = {"find_zero": POLY_ROOT}

DEFAULT_FLOAT_ATOL = 1e-6  # EvalPlus enforces this when a task's atol is 0 and the output is float
_RTOL = 1e-07  # EvalPlus passes this explicitly to match np.testing.assert_allclose


def evalplus_oracle(dataset: str, entry_point: str) -> str | None:
    """The special oracle EvalPlus 0.3.1 applies to a task of `dataset` ("humaneval" or "mbpp"), if any."""
    if dataset == "mbpp":
        return _MBPP_BY_ENTRY_POINT.get(entry_point)
    if dataset == "humaneval":
        return _HUMANEVAL_BY_ENTRY_POINT.get(entry_point)
    raise ValueError(f"unknown EvalPlus dataset {dataset!r}; use 'humaneval' or 'mbpp'")


def is_floats(x: Any) -> bool:
    """EvalPlus's test for float-valued outputs: a float, or a non-empty list/tuple of floats."""
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    if isinstance(x, np.ndarray):
        return bool(x.dtype == np.float64 or x.dtype == np.float32)
    return False


def reduce_not_none_output(out: Any) -> Any:
    """What a harness sends back for a NOT_NONE task: bools and None as they are, anything else True.

    The real outputs (re.Match objects) are not plain data. This reduction keeps exactly what
    EvalPlus compares: a bool output is compared as a bool, anything else only by `is not None`.
    Apply it to the reference's output too, then `expected_for` gives EvalPlus's expected value.
    """
    return out if out is None or isinstance(out, bool) else True


def expected_for(oracle: str | None, ref_out: Any) -> Any:
    """The expected value EvalPlus stores for a reference output (`ref_out is not None` for NOT_NONE)."""
    if oracle == NOT_NONE:
        return ref_out is not None
    return ref_out


def suite_atols(expected: Sequence[Any], suites: Sequence[str], atol: float) -> list[float]:
    """The atol EvalPlus 0.3.1 effectively uses for each case, given the expected outputs in order.

    In `unsafe_execute` the 1e-6 default is assigned to the loop variable `atol`, so once a float
    expected output has been seen, every later case of the same suite run ("base" and "plus" are
    separate runs) is compared under 1e-6 too. With fast_check (EvalPlus's default) a suite stops at
    its first failure, so the state at case i depends only on expected[:i+1]. Passing these values
    to `compare_output` reproduces EvalPlus's suite verdicts exactly.
    """
    if len(expected) != len(suites):
        raise ValueError("expected and suites must have the same length")
    result: list[float] = []
    current: dict[str, float] = {}
    for exp, suite in zip(expected, suites, strict=True):
        value = current.get(suite, atol)
        if value == 0 and is_floats(exp):
            value = DEFAULT_FLOAT_ATOL
        current[suite] = value
        result.append(value)
    return result


def compare_output(out: Any, exp: Any, *, atol: float, oracle: str | None, args: tuple[Any, ...], rtol: float = 1e-07) -> bool:
    """Whether output `out` is accepted for expected `exp` on inputs `args`, as EvalPlus 0.3.1 judges.

    Order of rules, as in evalplus/eval/__init__.py `unsafe_execute`:
    exact `out == exp`; then the special oracle; then, if `atol == 0` and `exp` is float-valued,
    atol = 1e-6; if not yet accepted and atol != 0: same type, same length for list/tuple, and
    `np.allclose(out, exp, rtol=1e-07, atol=atol)`. Any exception means "not accepted". `rtol` is
    Assay's, for outputs of a language that computes in float32 (one float32 step is ~1.2e-7 relative).

    POLY_ROOT differs from EvalPlus on purpose: EvalPlus 0.3.1 asserts |poly(xs, out)| <= atol and
    then `continue`s without recording the case as passed, so every HumanEval/32 sample fails there.
    Assay accepts `out` exactly when |poly(xs, out)| <= atol.

    Note on NaN: it never equals anything, as in numpy (allclose uses equal_nan=False) — except that
    Python's `==` on containers treats the *same* NaN object as equal to itself, so a decoder must not
    share one NaN object between an output and its expected value.
    """
    if oracle is not None and oracle not in ORACLES:
        raise ValueError(f"unknown oracle {oracle!r}; known: {', '.join(sorted(ORACLES))}")
    try:
        if oracle == POLY_ROOT:
            (xs,) = args  # EvalPlus calls _poly(*inp, out); any other arity raises there too
            return bool(abs(_poly(xs, out)) <= atol)

        # `exact` stays whatever `==` returned (a numpy array, for numpy outputs) until EvalPlus
        # would take its truth value, so the same comparisons raise in the same places.
        exact: Any = out == exp
        if oracle == ACCEPT_ANY:
            exact = exact or True
        elif oracle == EXACT_OR_ZERO:
            exact = exact or out == 0
        elif oracle == PYRAMID_SURFACE_AREA:
            exact = exact or abs(out - _surface_area(*args)) <= atol
        elif oracle == DIGIT_DISTANCE:
            exact = exact or out == _digit_distance(*args)
        elif oracle == SET_EQUAL:
            exact = set(out) == set(exp)
        elif oracle == NOT_NONE:
            exact = out == exp if isinstance(out, bool) else exp == (out is not None)

        if atol == 0 and is_floats(exp):
            atol = DEFAULT_FLOAT_ATOL
        if exact or atol == 0:
            return bool(exact)
        if type(out) is not type(exp):
            return False
        if isinstance(exp, (list, tuple)) and len(out) != len(exp):
            return False
        # errstate only silences overflow/invalid warnings; it does not change allclose's result.
        with np.errstate(all="ignore"):
            return bool(np.allclose(out, exp, rtol=max(rtol, _RTOL), atol=atol))
    except Exception:  # EvalPlus counts any exception during comparison as a failed case
        return False


def _surface_area(base_edge: float, height: float) -> float:
    """Oracle for Mbpp/581: total surface area of a square pyramid whose `height` is perpendicular."""
    slant_height = math.sqrt((base_edge / 2) ** 2 + height**2)
    base_area = base_edge**2
    lateral_area = 4 * (base_edge * slant_height) / 2
    return round(base_area + lateral_area)


def _digit_distance(num1: int, num2: int) -> int:
    """Oracle for Mbpp/558: sum of per-digit differences after zero-padding to the same length."""
    str_num1, str_num2 = str(num1), str(num2)
    width = max(len(str_num1), len(str_num2))
    str_num1, str_num2 = str_num1.zfill(width), str_num2.zfill(width)
    return sum(abs(int(a) - int(b)) for a, b in zip(str_num1, str_num2, strict=False))


def _poly(xs: list[float], x: float) -> float:
    """Oracle for HumanEval/32: the polynomial with coefficients `xs` at `x` (HumanEval's own `poly`)."""
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])
