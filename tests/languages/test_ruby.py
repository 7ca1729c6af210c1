"""Ruby on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-rb"

CORRECT = {
    "HumanEval_0_has_close_elements": "  numbers.combination(2).any? { |a, b| (a - b).abs < threshold }\nend\n",
    "HumanEval_13_greatest_common_divisor": "  a.gcd(b)\nend\n",
    "HumanEval_23_strlen": "  string.length\nend\n",
    "HumanEval_30_get_positive": "  l.select { |x| x > 0 }\nend\n",
}

WRONG = [
    ("HumanEval_23_strlen", "  string.length + 1\nend\n", Status.FAILED),  # wrong answer
    ("HumanEval_30_get_positive", "  l.select { |x| x >= 0 }\nend\n", Status.FAILED),
    ("HumanEval_23_strlen", "  string.length\n", Status.COMPILE_ERROR),  # missing `end`
    ("HumanEval_23_strlen", "  nil.length\nend\n", Status.RUNTIME_ERROR),  # NoMethodError on nil
    ("HumanEval_30_get_positive", "  l.fetch(l.length)\nend\n", Status.RUNTIME_ERROR),  # IndexError
    ("HumanEval_23_strlen", "  loop {}\nend\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '  puts "tests passed"\n  exit 0\nend\n', Status.FAILED),  # early exit with status 0
]


@pytest.fixture(scope="module")
def ruby():  # type: ignore[no-untyped-def]
    return language_or_skip("ruby")


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(ruby, pid: str) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(ruby, problem, problem.prompt + CORRECT[pid])
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(ruby, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(ruby, problem, problem.prompt + body, run_cpu=2, run_wall=10)
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(ruby) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    reply = "# Length of a string\ndef strlen(string)\n  string.length\nend\n\nif __FILE__ == $0\n  puts strlen('abc')\nend\n"
    assert judge(ruby, problem, reply).status is Status.PASSED


@pytest.mark.slow
def test_hostile_programs_are_contained(ruby, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    target = tmp_path / "escaped"
    writes = f'  File.write("{target}", "x") rescue nil\n  string.length\nend\n'
    judge(ruby, problem, problem.prompt + writes)
    assert not target.exists()
    flood = '  loop { puts "x" * 1000 }\nend\n'
    verdict = judge(ruby, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(ruby) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("ruby"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
