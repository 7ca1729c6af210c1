"""`assay reduce`: set cover over coverage arcs, mutants and wrong samples; the reduced suite still
catches every wrong sample and mutant the full one catches, loads like any benchmark, and the
leave-one-run-out pass@1 is reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.augment.reduce import greedy_cover, instrumented, reduce_problem
from assay.benchmarks import load_benchmark
from assay.benchmarks._fetch import DataUnavailable
from assay.execution import Executor
from assay.execution.pipeline import evaluate
from assay.problems import Benchmark, Case, CaseTests, Problem
from assay.samples import Sample
from assay.sandbox import get_sandbox
from tests.conftest import shared_data


def test_greedy_cover_meets_every_requirement_with_few_cases() -> None:
    requirements = {"a": {0, 1}, "b": {1}, "c": {2, 3}, "d": {3}, "never": set()}
    chosen = greedy_cover(requirements)
    assert chosen == {1, 3}
    assert all(cases & chosen for cases in requirements.values() if cases)
    assert greedy_cover({}) == set()


PROMPT = "def sign(x: int) -> str:\n"
BODY = "    if x > 0:\n        return 'positive'\n    if x < 0:\n        return 'negative'\n    return 'zero'\n"


def _problem() -> Problem:
    cases = tuple(Case((x,), "base" if i < 2 else "plus") for i, x in enumerate([5, 7, 9, 11, -3, -8, 0, 13]))
    return Problem(id="T/0", language="python", prompt=PROMPT, entry_point="sign", reference=BODY, tests=CaseTests(cases=cases))


def test_each_kind_of_requirement_is_met_by_the_reduced_cases() -> None:
    problem = _problem()
    assert "_assay_hit(2)" in instrumented(problem) and "_assay_hit(1)" not in instrumented(problem)  # the prompt's line is not counted
    bench = Benchmark("t", "1", "h", "test", {"T/0": problem})
    executor = Executor(get_sandbox(), bench)
    wrong = PROMPT + "    return 'positive' if x > 0 else 'negative'\n"  # wrong at 0 only
    result = reduce_problem(executor, problem, {"run-a": [PROMPT + BODY, wrong]}, max_mutants=None)
    assert result.kept == list(range(8))
    # Coverage: the three returns are three different arcs, so one positive, one negative and the zero case.
    covered = result.by_kind["coverage"]
    xs = {problem.tests.cases[i].args[0] for i in covered}  # type: ignore[union-attr]
    assert len(covered) == 3 and 0 in xs and any(x > 0 for x in xs) and any(x < 0 for x in xs)
    assert result.samples["run-a"] == [set(), {6}]  # the right one fails nothing; the wrong one, only x = 0
    assert result.by_kind["samples"] == {6}
    chosen = result.chosen()
    for kind in ("mutants", "samples"):
        for cases in result.requirements[kind].values():
            assert not cases or cases & chosen  # every mutant and wrong sample the full suite catches, the reduced one catches
    assert len(chosen) < len(result.kept)


def test_reduce_from_the_command_line_with_runs_left_out_one_at_a_time(tmp_path: Path) -> None:
    try:
        plus = load_benchmark("humaneval-plus", data_dir=shared_data())
    except DataUnavailable as exc:
        pytest.skip(str(exc))
    ids = ["HumanEval/0", "HumanEval/2"]
    right = {pid: plus.problems[pid].reference for pid in ids}
    wrong = {"HumanEval/0": "    return len(numbers) > 1 and threshold > 0.5\n", "HumanEval/2": "    return number - int(number) if number < 100 else 0.0\n"}
    runs = []
    for name, completions in (("model-a", [right, wrong]), ("model-b", [wrong, wrong])):
        samples = [Sample(pid, i, c[pid], None, 1) for i, c in enumerate(completions) for pid in ids]
        path = tmp_path / f"{name}.jsonl"
        path.write_text("")
        full = evaluate(plus, samples, path, tmp_path / name, get_sandbox(), [1], workers=2)
        runs.append((name, full.scores["plus"][1].value))
    out = tmp_path / "mini"
    result = CliRunner().invoke(cli.app, ["reduce", "humaneval-plus", "--out", str(out), "--task-ids", ",".join(ids), "--max-mutants", "10",
                                          "--runs", str(tmp_path / "model-a"), "--runs", str(tmp_path / "model-b")],
                                env={"ASSAY_DATA_DIR": str(shared_data())})
    assert result.exit_code == 0, result.output
    provenance = json.loads((out / "augment.json").read_text())
    reduction = provenance["reduction"]
    assert reduction["cases_after"] < reduction["cases_before"]
    for name, full_score in runs:
        scores = reduction["leave_one_run_out_pass_at_1"][name]
        assert scores["full"] == pytest.approx(full_score)  # the same pass@1 as evaluating on the full suite
        assert scores["reduced"] >= scores["full"]  # a smaller suite never fails more
    mini = load_benchmark(str(out))
    assert set(mini.problems) == set(ids)
    references = [Sample(pid, 0, plus.problems[pid].reference, None, 1) for pid in ids]
    path = tmp_path / "refs.jsonl"
    path.write_text("")
    assert evaluate(mini, references, path, tmp_path / "refs", get_sandbox(), [1], workers=2).counts.get("passed") == 2
    # The wrong samples of both runs are still caught by the reduced suite.
    caught = evaluate(mini, [Sample(pid, 0, wrong[pid], None, 1) for pid in ids], path, tmp_path / "wrong", get_sandbox(), [1], workers=2)
    assert caught.counts.get("passed", 0) == 0
