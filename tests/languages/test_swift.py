"""Swift on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-swift"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "    for i in 0..<numbers.count {\n        for j in 0..<numbers.count where i != j {\n"
        "            if abs(numbers[i] - numbers[j]) < threshold { return true }\n        }\n    }\n    return false\n"
    ),
    "HumanEval_13_greatest_common_divisor": "    var (a, b) = (a, b)\n    while b != 0 { (a, b) = (b, a % b) }\n    return a\n",
    "HumanEval_23_strlen": "    return string.count\n",
    "HumanEval_30_get_positive": "    return l.filter { $0 > 0 }\n",
}

WRONG = [
    ("HumanEval_23_strlen", "    return string.count + 1\n", Status.FAILED),  # wrong answer
    ("HumanEval_30_get_positive", "    return l.filter { $0 >= 0 }\n", Status.FAILED),
    ("HumanEval_23_strlen", "    return string.length\n", Status.COMPILE_ERROR),  # no such member
    ("HumanEval_13_greatest_common_divisor", "    let x: Int? = nil\n    return x! + a\n", Status.RUNTIME_ERROR),  # nil unwrap traps
    ("HumanEval_30_get_positive", "    return [l[l.count]]\n", Status.RUNTIME_ERROR),  # index out of range
    ("HumanEval_23_strlen", "    while true {}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '    print("tests passed")\n    exit(0)\n', Status.FAILED),  # early exit with status 0
]


@pytest.fixture(scope="module")
def swift():  # type: ignore[no-untyped-def]
    return language_or_skip("swift")


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(swift, pid: str) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(swift, problem, problem.prompt + CORRECT[pid])
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(swift, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(swift, problem, problem.prompt + body, run_cpu=2, run_wall=10)
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_is_spliced(swift) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    reply = 'import Foundation\n\n/// Length\nfunc strlen(string: String) -> Int {\n    return string.count\n}\n\nprint(strlen(string: "abc"))\n'
    assert judge(swift, problem, reply).status is Status.PASSED


@pytest.mark.slow
def test_hostile_programs_are_contained(swift, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    target = tmp_path / "escaped"
    writes = f'    _ = try? "x".write(toFile: "{target}", atomically: false, encoding: .utf8)\n    return string.count\n'
    verdict = judge(swift, problem, "import Foundation\n" + problem.prompt + writes)
    assert not target.exists()
    flood = '    while true { print(String(repeating: "x", count: 1000)) }\n'
    verdict = judge(swift, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(swift) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("swift"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
