"""Haskell on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program is a ghc build: they are all judged up front, two at a time, and each test looks at
its verdict.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, Verdicts

# Haskell's IO needs imports, which only a whole program (starting with them) can have.
EARLY_EXIT = (
    "import System.Exit (ExitCode (ExitSuccess), exitWith)\nimport System.IO.Unsafe (unsafePerformIO)\n\n"
    "strlen :: String -> Int\nstrlen _ = unsafePerformIO (putStrLn \"tests passed\" >> exitWith ExitSuccess)\n"
)
UNSAFE_IO = "import Control.Exception (SomeException, try)\nimport System.IO.Unsafe (unsafePerformIO)\n\nstrlen :: String -> Int\n"


def writes_to(target: Path) -> str:  # the write fails (caught); the tests run
    return UNSAFE_IO + f'strlen s = unsafePerformIO (try (writeFile "{target}" "x") :: IO (Either SomeException ())) `seq` length s\n'


SPEC = LanguageSpec(
    language="haskell",
    bench="multipl-e/humaneval-hs",
    correct={
        "HumanEval_0_has_close_elements": (
            " or [abs (a - b) < threshold | (i, a) <- zip [0 :: Int ..] numbers, (j, b) <- zip [0 ..] numbers, i /= j]\n"
        ),
        "HumanEval_13_greatest_common_divisor": " if b == 0 then a else greatestCommonDivisor b (a `mod` b)\n",
        STRLEN: " length string\n",
        "HumanEval_30_get_positive": " filter (> 0) l\n",
    },
    wrong=[
        (STRLEN, " length string + 1\n", Status.FAILED),  # wrong answer
        (STRLEN, " length string ++ 1\n", Status.COMPILE_ERROR),  # type error
        (STRLEN, " length (string\n", Status.COMPILE_ERROR),  # syntax error
        ("HumanEval_30_get_positive", " [head (filter (> 100) l)]\n", Status.RUNTIME_ERROR),  # head of an empty list
        (STRLEN, " length [1 :: Integer ..]\n", Status.TIMEOUT),
        (STRLEN, EARLY_EXIT, Status.FAILED),  # early exit with status 0
    ],
    # Its module header and main are dropped.
    chat_reply=(
        "module Main (main, strlen) where\n\nimport Data.List (foldl')\n\n-- | Length of a string\nstrlen :: String -> Int\n"
        "strlen = foldl' (\\n _ -> n + 1) 0\n\nmain :: IO ()\nmain = do\n  print (strlen \"abc\")\n  print (strlen \"\")\n"
    ),
    hostile_write=writes_to,
    floods=(UNSAFE_IO + "strlen s = unsafePerformIO (mapM_ putStrLn (repeat (replicate 1000 'x'))) `seq` length s\n",),
    # A completion (it starts with its imports) stands alone: a whole program.
    whole_prefix="import ",
    # After the prompt: the body, then a demo main.
    extra={"echoed": (STRLEN, ' length string\n\nmain :: IO ()\nmain = print (strlen "abc")\n', False)},
    prejudge=True,
)


@pytest.mark.slow
def test_a_completion_with_its_own_demo_main_passes(verdicts: Verdicts) -> None:
    assert verdicts["echoed"].status is Status.PASSED, verdicts["echoed"]
