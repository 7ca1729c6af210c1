"""Clojure on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program starts two JVMs (the build check, then the run): they are all judged up front, two
at a time, and each test looks at its verdict.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.canary import run_canary
from assay.problems import Status, Verdict
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-clj"
TRUNCATE = "HumanEval_2_truncate_number"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "(let [n (count numbers)]\n    (boolean (some true? (for [i (range n) j (range n) :when (not= i j)]\n"
        "                           (< (Math/abs (- (nth numbers i) (nth numbers j))) threshold))))))\n"
    ),
    "HumanEval_13_greatest_common_divisor": "(if (zero? b) a (recur b (mod a b))))\n",
    TRUNCATE: "(- number (Math/floor number)))\n",
    "HumanEval_30_get_positive": "(vec (filter pos? l)))\n",
}

WRONG = [
    (TRUNCATE, "(Math/floor number))\n", Status.FAILED),  # wrong answer
    (TRUNCATE, "(- number (Math/floor number))\n", Status.COMPILE_ERROR),  # unbalanced parentheses
    (TRUNCATE, "(- number (floor number)))\n", Status.COMPILE_ERROR),  # unresolved symbol
    ("HumanEval_30_get_positive", "(nth l (count l)))\n", Status.RUNTIME_ERROR),  # index out of range
    (TRUNCATE, "(loop [] (recur)))\n", Status.TIMEOUT),
    (TRUNCATE, '(println "tests passed")\n  (System/exit 0))\n', Status.FAILED),  # early exit with status 0
]

CHAT_REPLY = (
    '(ns solution\n  (:require [clojure.string :as str]))\n\n(defn truncate_number\n  "The decimal part of a number"\n'
    "  [number]\n  (- number (Math/floor number)))\n\n(println (truncate_number 3.5))\n"
)
FLOOD = '(let [line (apply str (repeat 100000 "x"))] (loop [] (println line) (recur))))\n'


def writes_to(target: Path) -> str:
    return f'(try (spit "{target}" "x") (catch Exception _ nil))\n  (- number (Math/floor number)))\n'


@pytest.fixture(scope="module")
def clojure():  # type: ignore[no-untyped-def]
    return language_or_skip("clojure")


@pytest.fixture(scope="module")
def escape_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("clojure-hostile") / "escaped"


@pytest.fixture(scope="module")
def verdicts(clojure, escape_target: Path) -> dict[object, Verdict]:  # type: ignore[no-untyped-def]
    """Every program of this file but the canary's, judged two at a time."""
    problems = benchmark(BENCH).problems
    tight = {"run_cpu": 2, "run_wall": 10}
    jobs: dict[object, tuple[str, str, dict[str, float]]] = {("correct", pid): (pid, problems[pid].prompt + body, {}) for pid, body in CORRECT.items()}
    jobs |= {("wrong", i): (pid, problems[pid].prompt + body, tight) for i, (pid, body, _) in enumerate(WRONG)}
    jobs["chat"] = (TRUNCATE, CHAT_REPLY, {})
    jobs["writes"] = (TRUNCATE, problems[TRUNCATE].prompt + writes_to(escape_target), {})
    jobs["flood"] = (TRUNCATE, problems[TRUNCATE].prompt + FLOOD, tight)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(judge, clojure, problems[pid], code, **lim) for key, (pid, code, lim) in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(verdicts, pid: str) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts["correct", pid]
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(WRONG)), ids=[f"{pid}-{status.value}" for pid, _, status in WRONG])
def test_wrong_completions_fail_with_the_right_status(verdicts, case: int) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts["wrong", case]
    assert verdict.status is WRONG[case][2], verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(verdicts) -> None:  # type: ignore[no-untyped-def]
    assert verdicts["chat"].status is Status.PASSED, verdicts["chat"]


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts, escape_target: Path) -> None:  # type: ignore[no-untyped-def]
    assert verdicts["writes"].status is Status.PASSED, verdicts["writes"]  # the write failed quietly; the tests ran
    assert not escape_target.exists()
    flood = verdicts["flood"]
    assert flood.status is Status.RUNTIME_ERROR and "output limit" in flood.message and len(flood.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(clojure) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("clojure"), workers=2, task_ids=ids)
    # MultiPL-E's Clojure prompts do not escape quotes inside docstrings: 72 of 558 cannot compile
    # for any completion (problem 1's docstring quotes "( ) (( ))"); the canary must report them.
    assert set(result.broken) == {"HumanEval_1_separate_paren_groups"}, {k: v.message for k, v in result.broken.items()}
    assert "Parameter declaration" in result.broken["HumanEval_1_separate_paren_groups"].stdout
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for pid, v in result.verdicts.items() if pid not in result.broken)
