"""`assay augment`: more inputs, labelled by the reference in the sandbox, written as a benchmark that
`assay evaluate` loads; a sample that only fits the original tests fails the augmented ones, in
Python and in a translation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.augment.generate import Budget, augment, labelling_problem
from assay.benchmarks import load_benchmark
from assay.benchmarks._fetch import DataUnavailable
from assay.benchmarks.pytypes import literal_calls
from assay.execution.pipeline import evaluate
from assay.problems import Benchmark, Case, CaseTests, Problem, ProgramTests
from assay.samples import Sample
from assay.sandbox import get_sandbox
from assay.values import signature_of
from tests.conftest import shared_data


def _invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli.app, list(args), env={"ASSAY_DATA_DIR": str(shared_data())})


def _load(name: str) -> Benchmark:
    try:
        return load_benchmark(name, data_dir=shared_data())
    except DataUnavailable as exc:
        pytest.skip(str(exc))


def _memorizing(problem: Problem) -> str:
    """A completion that answers the original tests' inputs from a table (computed here by the reference)
    and anything else wrongly: it passes HumanEval's own tests and nothing more."""
    assert isinstance(problem.tests, ProgramTests)
    namespace: dict[str, object] = {}
    exec(problem.prompt + problem.reference, namespace)  # the trusted reference, in the test process
    reference = namespace[problem.entry_point]
    table = {repr(args): reference(*args) for args in literal_calls(problem.tests.code)[0]}  # type: ignore[operator]
    params = ", ".join(name for name, _ in signature_of(problem.prompt, problem.entry_point).params)
    return f"    table = {table!r}\n    return table.get(repr(({params},)), None)\n"


@pytest.fixture(scope="module")
def augmented_humaneval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _load("humaneval")
    out = tmp_path_factory.mktemp("aug") / "he-aug"
    result = _invoke("augment", "humaneval", "--out", str(out), "--task-ids", "HumanEval/0,HumanEval/2,HumanEval/13", "--per-problem", "120",
                     "--workers", "2")
    assert result.exit_code == 0, result.output
    assert "augmented benchmark:" in result.output
    return out


def test_an_augmented_benchmark_loads_with_the_seeds_as_base_and_new_inputs_as_plus(augmented_humaneval: Path) -> None:
    humaneval = _load("humaneval")
    bench = load_benchmark(str(augmented_humaneval))
    assert bench.name == "humaneval-aug" and set(bench.problems) == {"HumanEval/0", "HumanEval/2", "HumanEval/13"}
    provenance = json.loads((augmented_humaneval / "augment.json").read_text())
    assert provenance["source"]["benchmark"] == "humaneval" and provenance["generator"]["per_problem"] == 120
    for pid, problem in bench.problems.items():
        assert isinstance(problem.tests, CaseTests)
        base = [c.args for c in problem.tests.cases if c.suite == "base"]
        plus = [c.args for c in problem.tests.cases if c.suite == "plus"]
        original = humaneval.problems[pid].tests
        assert isinstance(original, ProgramTests)
        assert base == literal_calls(original.code)[0]  # the seeds: HumanEval's own inputs
        assert 50 <= len(plus) <= 120 and len({repr(a) for a in plus}) == len(plus)  # new and distinct
        assert not {repr(a) for a in plus} & {repr(a) for a in base}
        assert provenance["problems"][pid]["kept"] == len(plus)
    # HumanEval+'s contract for truncate_number: a positive float. No kept input breaks it.
    truncate = bench.problems["HumanEval/2"].tests
    assert isinstance(truncate, CaseTests)
    assert all(isinstance(c.args[0], float) and c.args[0] > 0 for c in truncate.cases if c.suite == "plus")
    dropped = provenance["problems"]["HumanEval/2"]["dropped"]
    assert dropped.get("the reference or its contract rejects it", 0) > 0


def test_a_sample_that_fits_only_the_original_tests_fails_the_augmented_ones(augmented_humaneval: Path, tmp_path: Path) -> None:
    humaneval = _load("humaneval")
    bench = load_benchmark(str(augmented_humaneval))
    samples = []
    for i, pid in enumerate(sorted(bench.problems)):
        samples.append(Sample(pid, 0, _memorizing(humaneval.problems[pid]), None, i + 1))
        samples.append(Sample(pid, 1, humaneval.problems[pid].reference, None, i + 1))
    path = tmp_path / "samples.jsonl"
    path.write_text("")
    sandbox = get_sandbox()
    # On HumanEval's own tests the memorizing samples pass ...
    own = evaluate(humaneval, samples, path, tmp_path / "own", sandbox, [1], workers=2)
    assert own.counts.get("passed") == 2 * len(bench.problems), own.counts
    # ... on the augmented suite they pass the base tests only; the references pass everything.
    result = evaluate(bench, samples, path, tmp_path / "aug", sandbox, [1], workers=2)
    assert result.scores["base"][1].value == 1.0
    assert result.scores["plus"][1].value == 0.5
    rows = [json.loads(line) for line in result.results_path.read_text().splitlines()]
    assert {(r["sample_index"], r["plus_status"]) for r in rows} == {(0, "fail"), (1, "pass")}


def _synthetic(reference: str, seeds: list[tuple[int, ...]]) -> tuple[Benchmark, Problem]:
    problem = Problem(id="T/0", language="python", prompt="def f(x: int) -> int:\n", entry_point="f", reference=reference,
                      tests=CaseTests(cases=tuple(Case(s) for s in seeds)))
    return Benchmark("t", "1", "h", "test", {"T/0": problem}), labelling_problem(problem)


@pytest.mark.parametrize("reference, reason", [
    ("    if x < 0:\n        raise ValueError(x)\n    return x\n", "the reference or its contract rejects it"),
    ("    import time\n    return x + time.perf_counter_ns()\n", "the reference is not deterministic on it"),
    ("    while x > 6:\n        pass\n    return x\n", "not labelled: the reference is too slow on inputs this large"),
])
def test_inputs_the_reference_cannot_label_are_dropped_and_counted(reference: str, reason: str) -> None:
    bench, problem = _synthetic(reference, [(5,), (6,)])
    (result,) = augment(bench, {"T/0": problem}, get_sandbox(), Budget(per_problem=150), workers=1, per_case=0.5)
    assert result.dropped.get(reason, 0) > 0, result.dropped
    kept = [c.args[0] for c in result.problem.tests.cases if c.suite == "plus"]  # type: ignore[union-attr]
    assert len(kept) == result.kept
    if "rejects" in reason:
        assert kept and min(kept) >= 0  # the negatives were generated and dropped
    if "deterministic" in reason:
        assert kept == []
    if "slow" in reason:
        assert kept and max(kept) <= 6 and result.dropped.get("the reference hit a limit (timeout)", 0) >= 3


def test_the_same_seed_gives_the_same_suite(tmp_path: Path) -> None:
    _load("humaneval")
    texts = []
    for run in ("a", "b"):
        result = _invoke("augment", "humaneval", "--out", str(tmp_path / run), "--task-ids", "HumanEval/0", "--per-problem", "40", "--seed", "7")
        assert result.exit_code == 0, result.output
        texts.append((tmp_path / run / "problems.jsonl").read_text())
    assert texts[0] == texts[1]
    other = _invoke("augment", "humaneval", "--out", str(tmp_path / "c"), "--task-ids", "HumanEval/0", "--per-problem", "40", "--seed", "8")
    assert other.exit_code == 0 and (tmp_path / "c" / "problems.jsonl").read_text() != texts[0]


def test_a_translation_is_augmented_with_its_python_original_labelling(tmp_path: Path) -> None:
    js = _load("multipl-e/humaneval-js")
    out = tmp_path / "js-aug"
    result = _invoke("augment", "multipl-e/humaneval-js", "--out", str(out), "--task-ids", "HumanEval_2_truncate_number", "--per-problem", "60")
    assert result.exit_code == 0, result.output
    bench = load_benchmark(str(out), data_dir=shared_data())
    (problem,) = bench.problems.values()
    assert problem.language == "javascript" and isinstance(problem.tests, CaseTests)
    original = js.problems["HumanEval_2_truncate_number"].tests
    assert isinstance(original, CaseTests)
    assert len(problem.tests.cases) > 3 * len(original.cases)
    table = "{3.5: 0.5, 1.25: 0.25, 123.0: 0.0}"  # MultiPL-E's three tests, answered from a table
    samples = [Sample(problem.id, 0, "    return number % 1.0;\n}\n", None, 1),
               Sample(problem.id, 1, f"    const t = new Map(Object.entries({table}));\n    return t.has(String(number)) ? t.get(String(number)) : 0.5;\n}}\n", None, 2)]
    path = tmp_path / "samples.jsonl"
    path.write_text("")
    on_original = evaluate(js, samples, path, tmp_path / "own", get_sandbox(), [1], workers=2)
    assert on_original.counts.get("passed") == 2, on_original.counts
    augmented = evaluate(bench, samples, path, tmp_path / "aug", get_sandbox(), [1], workers=2)
    rows = {r["sample_index"]: r["status"] for r in map(json.loads, augmented.results_path.read_text().splitlines())}
    assert rows == {0: "passed", 1: "failed"}


def test_what_cannot_be_augmented_is_one_line(tmp_path: Path) -> None:
    # A hand-written suite is augmented by its own reference (tests/augment/test_units.py), but has no Python reference to ask a model about.
    result = _invoke("augment", "swift-suite", "--out", str(tmp_path / "x"), "--seeds-from-model", "openai/m")
    assert result.exit_code == 2 and "only for benchmarks with a Python reference" in result.output
    result = _invoke("augment", "humaneval", "--out", str(tmp_path / "x"), "--budget", "soon")
    assert result.exit_code == 2 and "--budget soon" in result.output
