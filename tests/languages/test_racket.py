"""Racket on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Racket starts slowly (about 2 s of CPU for `raco make` and the run of one program), so every program
but the canary's is judged by one fixture, two at a time, and each test checks its verdict.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-rkt"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "  (for*/or ([(a i) (in-indexed numbers)] [(b j) (in-indexed numbers)])\n"
        "    (and (not (= i j)) (< (abs (- a b)) threshold))))\n"
    ),
    "HumanEval_13_greatest_common_divisor": "  (gcd a b))\n",
    "HumanEval_23_strlen": "  (string-length string))\n",
    "HumanEval_30_get_positive": "  (filter positive? l))\n",
}

WRONG = [
    ("HumanEval_23_strlen", "  (+ 1 (string-length string)))\n", Status.FAILED),  # wrong answer
    ("HumanEval_23_strlen", "  (string-length string)\n", Status.COMPILE_ERROR),  # unbalanced parentheses
    ("HumanEval_23_strlen", "  (string-lenght string))\n", Status.COMPILE_ERROR),  # unbound identifier: found by expansion
    ("HumanEval_30_get_positive", "  (list (car (filter positive? '()))))\n", Status.RUNTIME_ERROR),  # car of '()
    ("HumanEval_23_strlen", "  (let loop () (loop)))\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '  (displayln "tests passed")\n  (exit 0))\n', Status.FAILED),  # early exit with status 0
]


@pytest.fixture(scope="module")
def racket():  # type: ignore[no-untyped-def]
    return language_or_skip("racket")


WHOLE = ";; Length of a string\n(define (strlen string)\n  (string-length string))\n\n(displayln (strlen \"abc\"))\n"  # no #lang line
FLOOD = "  (let loop () (displayln (make-string 1000 #\\x)) (loop)))\n"


def escape_attempt(target: object) -> str:
    return f'  (with-handlers ([void void]) (with-output-to-file "{target}" (lambda () (display "x"))))\n  (string-length string))\n'


@pytest.fixture(scope="module")
def escape_target(tmp_path_factory):  # type: ignore[no-untyped-def]
    return tmp_path_factory.mktemp("racket-hostile") / "escaped"


@pytest.fixture(scope="module")
def verdicts(racket, escape_target):  # type: ignore[no-untyped-def]
    """The verdict of every program below, keyed by (pid, code), judged two at a time."""
    problems = benchmark(BENCH).problems
    tight = {"run_cpu": 2, "run_wall": 10}
    jobs = [(pid, problems[pid].prompt + body, {}) for pid, body in CORRECT.items()]
    jobs += [(pid, problems[pid].prompt + body, tight) for pid, body, _ in WRONG]
    strlen = problems["HumanEval_23_strlen"]
    jobs += [(strlen.id, WHOLE, {}), (strlen.id, strlen.prompt + escape_attempt(escape_target), {}), (strlen.id, strlen.prompt + FLOOD, tight)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = pool.map(lambda job: judge(racket, problems[job[0]], job[1], **job[2]), jobs)
        return {(pid, code): verdict for (pid, code, _), verdict in zip(jobs, done)}


def verdict_of(verdicts, pid: str, body: str):  # type: ignore[no-untyped-def]
    return verdicts[pid, benchmark(BENCH).problems[pid].prompt + body]


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(verdicts, pid: str) -> None:  # type: ignore[no-untyped-def]
    verdict = verdict_of(verdicts, pid, CORRECT[pid])
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(verdicts, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    verdict = verdict_of(verdicts, pid, body)
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(verdicts) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts["HumanEval_23_strlen", WHOLE]  # it gets `#lang racket`
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts, escape_target) -> None:  # type: ignore[no-untyped-def]
    assert verdict_of(verdicts, "HumanEval_23_strlen", escape_attempt(escape_target)).status is Status.PASSED
    assert not escape_target.exists()
    verdict = verdict_of(verdicts, "HumanEval_23_strlen", FLOOD)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(racket) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("racket"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
