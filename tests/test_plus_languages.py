"""HumanEval+ in every language with a case harness: `humaneval-plus/<lang>` loads, labels its inputs with the
Python reference, and the reference's own outputs, rendered in the language and returned through its harness,
decode to themselves (the round trip); a correct solution in the language passes, a wrong one fails."""

from __future__ import annotations

import importlib
import os
import struct
from functools import cache
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.benchmarks.plus_languages import benchmark_names
from assay.execution import Executor
from assay.judging.cases import judge_cases
from assay.languages import get_language
from assay.languages.base import Language, ToolchainMissing, Unrepresentable
from assay.problems import Benchmark, CaseTests, Status
from assay.sandbox import get_sandbox
from assay.sandbox.base import Sandbox
from tests.conftest import shared_data

# Results of every shape HumanEval+ has: bool, float, optional str, tuple of floats, tuple of ints, dict, list of tuples.
ROUND_TRIP = ("HumanEval_0_has_close_elements", "HumanEval_2_truncate_number", "HumanEval_12_longest",
              "HumanEval_20_find_closest_elements", "HumanEval_107_even_odd_palindrome", "HumanEval_111_histogram",
              "HumanEval_87_get_row")  # fmt: skip
PER_PROBLEM = 60  # labels per problem that make the round trip (the first ones: base inputs, then plus)
LANGUAGES = sorted({name.split("/")[1] for name in benchmark_names()})


@cache
def bench(short: str) -> Benchmark:
    data = shared_data()
    if not (data / "evalplus").is_dir():
        pytest.skip(f"needs the shared data directory ({data}), which is absent here")
    from assay.benchmarks._fetch import DataUnavailable

    try:
        return load_benchmark(f"humaneval-plus/{short}", data_dir=data, cache_dir=Path(os.environ["ASSAY_CACHE_DIR"]))
    except DataUnavailable as exc:
        pytest.skip(str(exc))


@cache
def sandbox_for(language: str) -> Sandbox:
    import atexit

    box = get_sandbox(ro_binds=get_language(language).toolchain().ro_binds)
    close = getattr(box, "close", None)
    if close:
        atexit.register(close)
    return box


def plugin(benchmark: Benchmark) -> Language:
    language = get_language(next(iter(benchmark.problems.values())).language)
    try:
        language.toolchain()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    return language


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("short", LANGUAGES)
def test_reference_outputs_make_the_round_trip(short: str) -> None:
    benchmark = bench(short)
    language = plugin(benchmark)
    executor = Executor(sandbox_for(language.name), benchmark, cache_dir=Path(os.environ["ASSAY_CACHE_DIR"]))
    checked = 0
    # Problems whose MultiPL-E prompt cannot build in this language (its own spec says why).
    skip = importlib.import_module(f"tests.languages.test_{language.name}").SPEC.round_trip_skip
    for pid in ROUND_TRIP:
        problem = benchmark.problems.get(pid)
        if problem is None or pid in skip:
            continue
        kept, plan = executor.language_plan(language, problem)
        assert isinstance(kept.tests, CaseTests) and kept.tests.signature is not None
        returns = kept.tests.signature.returns
        calls, expected = [], []
        for value in plan.expected[:PER_PROBLEM]:
            try:
                calls.append(language.render_value(language.normalize(value, returns), returns))
            except Unrepresentable:
                continue
            expected.append(value)
        plan.calls, plan.expected = calls, expected
        plan.args, plan.suites, plan.atols, plan.hints = plan.args[: len(calls)], plan.suites[: len(calls)], [0.0] * len(calls), [""] * len(calls)
        plan.rule, plan.oracle, plan.suite_sizes = "exact", None, {}
        trip = judge_cases(language, executor.sandbox, kept, kept.prompt + language.stub, plan, language.limits)
        assert trip.status is Status.PASSED, (pid, trip.message, calls[:2])
        checked += len(calls)
    assert checked > 100


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("short", LANGUAGES)
def test_inputs_left_out_are_counted(short: str) -> None:
    benchmark = bench(short)
    total_cases = sum(len(p.tests.cases) for p in benchmark.problems.values() if isinstance(p.tests, CaseTests))
    left = sum(n for p in benchmark.problems.values() if isinstance(p.tests, CaseTests) for _, n in p.tests.left_out)
    assert len(benchmark.problems) >= 150 and total_cases > 80_000, (len(benchmark.problems), total_cases)
    # HumanEval+ has ~120,000 inputs for these problems: what is not kept is left out with a reason, never lost.
    assert 110_000 < total_cases + left < 130_000, (total_cases, left)


@pytest.mark.shared_data
def test_whole_floats_are_left_out_where_a_language_has_one_number_type() -> None:
    """filter_integers([3.0, 'c']) is [] in Python; JavaScript's 3.0 is 3, so no JavaScript function can tell:
    such inputs are left out of JavaScript (and counted), kept in a language that tells 3.0 from 3."""
    js, lua = bench("js").problems["HumanEval_22_filter_integers"], bench("lua").problems["HumanEval_22_filter_integers"]
    assert isinstance(js.tests, CaseTests) and isinstance(lua.tests, CaseTests)
    reasons = dict(js.tests.left_out)
    whole = next(n for reason, n in reasons.items() if reason.startswith("a whole-number float"))
    assert whole > 50
    assert not any(isinstance(v, float) and v.is_integer() for c in js.tests.cases for v in c.args[0])
    assert any(isinstance(v, float) and v.is_integer() for c in lua.tests.cases for v in c.args[0])
    assert len(lua.tests.cases) >= len(js.tests.cases) + whole


@pytest.mark.shared_data
def test_a_whole_float_answered_otherwise_for_its_int_twin_is_left_out() -> None:
    """double_the_difference([1.0, 3.5, -4.6]) is 0 in Python (str(1.0) has a dot), [1, 5] is 26: at MultiPL-E's
    float parameter Rust sees 1.0 for both, so the whole-float cases go (counted); rescale_to_unit, whose
    answer does not depend on it, keeps every whole-float case."""
    benchmark = load_benchmark("humaneval-plus/rs", data_dir=shared_data(), cache_dir=Path(os.environ["ASSAY_CACHE_DIR"]))
    executor = Executor(sandbox_for("python"), benchmark, workers=1, cache_dir=Path(os.environ["ASSAY_CACHE_DIR"]))
    rust = get_language("rust")
    kept, _ = executor.language_plan(rust, benchmark.problems["HumanEval_151_double_the_difference"])
    assert isinstance(kept.tests, CaseTests)
    assert dict(kept.tests.left_out)["a whole-number float at a float parameter, answered otherwise for the int"] == 2
    assert executor.notes["HumanEval_151_double_the_difference"].startswith("2 of ")  # said in the run's notes
    assert not any(isinstance(v, float) and v.is_integer() for c in kept.tests.cases for v in c.args[0])
    full = benchmark.problems["HumanEval_21_rescale_to_unit"]
    kept, _ = executor.language_plan(rust, full)
    assert isinstance(kept.tests, CaseTests) and isinstance(full.tests, CaseTests)
    assert len(kept.tests.cases) == len(full.tests.cases)


@pytest.mark.shared_data
def test_an_int_float32_cannot_hold_is_left_out_at_a_float_parameter() -> None:
    """any_int(1, 1000000000, 1000000001) is True; Java's float parameters hold (1.0f, 1.0E9f, 1.0E9f), the
    same as for (1, 1000000000, 1000000000), which is False: such inputs are left out where floats are float32."""
    java, rust = bench("java").problems["HumanEval_92_any_int"], bench("rs").problems["HumanEval_92_any_int"]
    assert isinstance(java.tests, CaseTests) and isinstance(rust.tests, CaseTests)
    reason = "a number float32 cannot hold exactly (labelled on the exact value, the function sees another)"
    assert dict(java.tests.left_out)[reason] > 10 and reason not in dict(rust.tests.left_out)
    held = [struct.unpack("f", struct.pack("f", a))[0] == a for c in java.tests.cases for a in c.args if isinstance(a, int) and abs(a) < 2**100]
    assert held and all(held)


@pytest.mark.shared_data
def test_a_problem_with_every_case_left_out_passes_no_sample() -> None:
    """If every input of a problem is left out for a language, a wrong sample must not pass vacuously: skipped, not scored."""
    import dataclasses

    benchmark = bench("js")
    problem = benchmark.problems["HumanEval_23_strlen"]
    assert isinstance(problem.tests, CaseTests)
    empty = dataclasses.replace(problem, tests=dataclasses.replace(problem.tests, cases=(), left_out=(("int beyond 2**53", 3),)))
    executor = Executor(sandbox_for("javascript"), benchmark, workers=1, cache_dir=Path(os.environ["ASSAY_CACHE_DIR"]))
    verdict = executor.judge(empty, problem.prompt + "  return -1;\n}\n")
    assert verdict.status is Status.SKIPPED and "no case left" in verdict.message, verdict
