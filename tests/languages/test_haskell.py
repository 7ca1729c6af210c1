"""Haskell on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program is a ghc build: they are all judged up front, two at a time, and each test looks at
its verdict.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.canary import run_canary
from assay.problems import Problem, Status, Verdict
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-hs"
STRLEN = "HumanEval_23_strlen"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        " or [abs (a - b) < threshold | (i, a) <- zip [0 :: Int ..] numbers, (j, b) <- zip [0 ..] numbers, i /= j]\n"
    ),
    "HumanEval_13_greatest_common_divisor": " if b == 0 then a else greatestCommonDivisor b (a `mod` b)\n",
    "HumanEval_23_strlen": " length string\n",
    "HumanEval_30_get_positive": " filter (> 0) l\n",
}

# Haskell's IO needs imports, which only a whole program (starting with them) can have.
EARLY_EXIT = (
    "import System.Exit (ExitCode (ExitSuccess), exitWith)\nimport System.IO.Unsafe (unsafePerformIO)\n\n"
    "strlen :: String -> Int\nstrlen _ = unsafePerformIO (putStrLn \"tests passed\" >> exitWith ExitSuccess)\n"
)

WRONG = [
    ("HumanEval_23_strlen", " length string + 1\n", Status.FAILED),  # wrong answer
    ("HumanEval_23_strlen", " length string ++ 1\n", Status.COMPILE_ERROR),  # type error
    ("HumanEval_23_strlen", " length (string\n", Status.COMPILE_ERROR),  # syntax error
    ("HumanEval_30_get_positive", " [head (filter (> 100) l)]\n", Status.RUNTIME_ERROR),  # head of an empty list
    ("HumanEval_23_strlen", " length [1 :: Integer ..]\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", EARLY_EXIT, Status.FAILED),  # early exit with status 0
]


def code_for(problem: Problem, body: str) -> str:
    """A completion follows the prompt; a whole program (it starts with its imports) stands alone."""
    return body if body.startswith("import ") else problem.prompt + body


CHAT_REPLY = (
    "module Main (main, strlen) where\n\nimport Data.List (foldl')\n\n-- | Length of a string\nstrlen :: String -> Int\n"
    "strlen = foldl' (\\n _ -> n + 1) 0\n\nmain :: IO ()\nmain = do\n  print (strlen \"abc\")\n  print (strlen \"\")\n"
)
ECHOED = ' length string\n\nmain :: IO ()\nmain = print (strlen "abc")\n'  # after the prompt: the body, then a demo main
UNSAFE_IO = "import Control.Exception (SomeException, try)\nimport System.IO.Unsafe (unsafePerformIO)\n\nstrlen :: String -> Int\n"
FLOOD = UNSAFE_IO + "strlen s = unsafePerformIO (mapM_ putStrLn (repeat (replicate 1000 'x'))) `seq` length s\n"


def writes_to(target: Path) -> str:
    return UNSAFE_IO + f'strlen s = unsafePerformIO (try (writeFile "{target}" "x") :: IO (Either SomeException ())) `seq` length s\n'


@pytest.fixture(scope="module")
def haskell():  # type: ignore[no-untyped-def]
    return language_or_skip("haskell")


@pytest.fixture(scope="module")
def escape_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("haskell-hostile") / "escaped"


@pytest.fixture(scope="module")
def verdicts(haskell, escape_target: Path) -> dict[object, Verdict]:  # type: ignore[no-untyped-def]
    """Every program of this file but the canary's, judged two at a time (each one is a ghc build)."""
    problems = benchmark(BENCH).problems
    tight = {"run_cpu": 2, "run_wall": 10}
    jobs: dict[object, tuple[str, str, dict[str, float]]] = {("correct", pid): (pid, problems[pid].prompt + body, {}) for pid, body in CORRECT.items()}
    jobs |= {("wrong", i): (pid, code_for(problems[pid], body), tight) for i, (pid, body, _) in enumerate(WRONG)}
    jobs["chat"] = (STRLEN, CHAT_REPLY, {})
    jobs["echoed"] = (STRLEN, problems[STRLEN].prompt + ECHOED, {})
    jobs["writes"] = (STRLEN, writes_to(escape_target), {})
    jobs["flood"] = (STRLEN, FLOOD, tight)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(judge, haskell, problems[pid], code, **lim) for key, (pid, code, lim) in jobs.items()}
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
    assert verdicts["chat"].status is Status.PASSED, verdicts["chat"]  # its module header and main are dropped
    assert verdicts["echoed"].status is Status.PASSED, verdicts["echoed"]


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts, escape_target: Path) -> None:  # type: ignore[no-untyped-def]
    assert verdicts["writes"].status is Status.PASSED, verdicts["writes"]  # the write failed (caught); the tests ran
    assert not escape_target.exists()
    flood = verdicts["flood"]
    assert flood.status is Status.RUNTIME_ERROR and "output limit" in flood.message and len(flood.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(haskell) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("haskell"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
