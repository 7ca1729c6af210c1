"""Scala on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

scalac takes about 4 s of CPU per program, so this file judges one program per kind of verdict, all
up front and two at a time, and its canary samples 4 problems."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-scala"
ESCAPED = "/var/tmp/assay-scala-test-escaped"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "        numbers.indices.exists(i => numbers.indices.exists(j => i != j && abs(numbers(i) - numbers(j)) < threshold))\n"
    ),
    "HumanEval_8_sum_product": "        (numbers.sum, numbers.product)\n",
    "HumanEval_13_greatest_common_divisor": "        if (b == 0) a else greatestCommonDivisor(b, a % b)\n",
    "HumanEval_23_strlen": "        string.length\n",
}

WRONG = [
    ("HumanEval_23_strlen", "        string.length + 1\n", Status.FAILED),  # wrong answer
    ("HumanEval_23_strlen", "        string.lenght\n", Status.COMPILE_ERROR),  # no such member
    ("HumanEval_8_sum_product", "        (numbers(numbers.length), 1l)\n", Status.RUNTIME_ERROR),  # index out of range
    ("HumanEval_23_strlen", "        while (true) {}\n        0l\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '        println("tests passed")\n        sys.exit(0)\n', Status.FAILED),  # early exit 0
]

CHAT_REPLY = """import scala.collection.mutable.ListBuffer

case class Counter(n: Long)

object Main {
  // counts characters; '{' and "}" must not confuse the splice
  private def count(s: String): Long = s.foldLeft(Counter(0))((c, ch) => if (ch != '{' || "}".nonEmpty) Counter(c.n + 1) else c).n

  def strlen(string: String): Long = count(string)

  def main(args: Array[String]): Unit = println(strlen("abc"))
}
"""

HOSTILE = {
    "writes": (f'        try {{ java.nio.file.Files.write(java.nio.file.Paths.get("{ESCAPED}"), "x".getBytes) }} catch {{ case _ : Throwable => }}\n'
               "        string.length\n"),
    "floods": '        while (true) println("x" * 1000)\n        0l\n',
}


@pytest.fixture(scope="module")
def scala():  # type: ignore[no-untyped-def]
    # Support files (scalac's CDS archive) are built once per machine, not per test session.
    os.environ.setdefault("ASSAY_TOOLCHAIN_CACHE", f"/var/tmp/assay-test-toolchains-{os.getuid()}")
    return language_or_skip("scala")


@pytest.fixture(scope="module")
def verdicts(scala):  # type: ignore[no-untyped-def]
    """Every program of this file but the canary's, judged two at a time."""
    problems = benchmark(BENCH).problems
    strlen = problems["HumanEval_23_strlen"]
    tight = {"run_cpu": 2, "run_wall": 10}
    jobs = {("correct", pid): (problems[pid], problems[pid].prompt + body, {}) for pid, body in CORRECT.items()}
    jobs |= {("wrong", pid, body): (problems[pid], problems[pid].prompt + body, tight) for pid, body, _ in WRONG}
    jobs |= {("chat",): (strlen, CHAT_REPLY, {})}
    jobs |= {("hostile", kind): (strlen, strlen.prompt + body, tight) for kind, body in HOSTILE.items()}
    if os.path.exists(ESCAPED):
        os.unlink(ESCAPED)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(judge, scala, problem, code, **limits) for key, (problem, code, limits) in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(verdicts, pid: str) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts[("correct", pid)]
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(verdicts, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts[("wrong", pid, body)]
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_is_spliced(verdicts) -> None:  # type: ignore[no-untyped-def]
    assert verdicts[("chat",)].status is Status.PASSED, verdicts[("chat",)]


def test_the_splice_keeps_helpers_and_drops_the_demo_main(scala) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    program = scala.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith("import scala.collection.mutable.ListBuffer\n" + problem.prompt.split("object Problem")[0])
    assert "private def count(s: String)" in program and "def strlen(string: String): Long = count(string)" in program
    assert "case class Counter(n: Long)" in program.split("object AssayTestMain")[1]
    assert 'println(strlen("abc"))' not in program and "object Main" not in program
    assert program.count("def main(args: Array[String])") == 2  # the tests' and the runner's


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts) -> None:  # type: ignore[no-untyped-def]
    assert verdicts[("hostile", "writes")].status is Status.PASSED and not os.path.exists(ESCAPED)
    verdict = verdicts[("hostile", "floods")]
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(scala) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:4]
    result = run_canary(bench, sandbox_for("scala"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
