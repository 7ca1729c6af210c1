"""Haskell on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program is a ghc build: they are all judged up front, two at a time, and each test looks at
its verdict.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, Verdicts, benchmark, language_or_skip

# Haskell's IO needs imports, which only a whole program (starting with them) can have.
EARLY_EXIT = (
    "import System.Exit (ExitCode (ExitSuccess), exitWith)\nimport System.IO.Unsafe (unsafePerformIO)\n\n"
    "strlen :: String -> Int\nstrlen _ = unsafePerformIO (putStrLn \"tests passed\" >> exitWith ExitSuccess)\n"
)
UNSAFE_IO = "import Control.Exception (SomeException, try)\nimport System.IO.Unsafe (unsafePerformIO)\n\nstrlen :: String -> Int\n"


FD3 = "import qualified GHC.IO.Handle.FD as FD\nimport System.IO\n"
# Every MultiPL-E result guessed as 3, then the harness's done line.
FORGED = '"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n"'
HOSTILE = {
    # exit 0 before the harness reports a case
    "early exit": "import System.Exit (exitSuccess)\nimport System.IO.Unsafe (unsafePerformIO)\n\nstrlen :: String -> Int\nstrlen _ = unsafePerformIO exitSuccess\n",
    # records of its own on fd 3, then exit 0
    "forged records": (FD3 + "import System.Exit (exitSuccess)\nimport System.IO.Unsafe (unsafePerformIO)\n\nstrlen :: String -> Int\n"
                       f"strlen _ = unsafePerformIO $ do\n  h <- FD.fdToHandle 3\n  hPutStr h {FORGED}\n  hFlush h\n  exitSuccess\n"),
    # MultiPL-E's `==` replaced: every check passes
    "Prelude hiding ((==))": ("import Prelude hiding ((==), (/=))\n\n(==) :: a -> a -> Bool\n_ == _ = True\n\n(/=) :: a -> a -> Bool\n_ /= _ = False\n\n"
                              "strlen :: String -> Int\nstrlen s = length s + 1\n"),
    # its own main, made the entry point by a pragma
    "main redirected": ('{-# OPTIONS_GHC -main-is Main.hijack #-}\n' + FD3 + "\nstrlen :: String -> Int\nstrlen s = length s + 1\n\n"
                        f"hijack :: IO ()\nhijack = do\n  h <- FD.fdToHandle 3\n  hPutStr h {FORGED}\n  hFlush h\n"),
    # build-time code (Template Haskell): records on fd 3 (closed in the build), and the harness's module rewritten
    "Template Haskell at build time": (
        "{-# LANGUAGE TemplateHaskell #-}\nimport Control.Exception (SomeException, try)\nimport Language.Haskell.TH (runIO)\n" + FD3
        + "\nstrlen :: String -> Int\nstrlen s = length s + 1\n\n"
        f"$(runIO (do\n    _ <- try (FD.fdToHandle 3 >>= \\h -> hPutStr h {FORGED} >> hFlush h) :: IO (Either SomeException ())\n"
        '    writeFile "AssayMain.hs" "module AssayMain (main) where\\nimport qualified GHC.IO.Handle.FD as FD\\nimport System.IO\\n'
        'main :: IO ()\\nmain = FD.fdToHandle 3 >>= \\\\h -> hPutStr h \\"0 v 3\\\\n1 v 3\\\\n2 v 3\\\\ndone 3\\\\n\\" >> hFlush h\\n"\n'
        "  ) >> return [])\n"),
    # the old marker: whatever looks like one in the sources, printed, then exit 0
    "marker from source": ("import Data.List (isInfixOf)\nimport System.Exit (exitSuccess)\nimport System.IO.Unsafe (unsafePerformIO)\n\n"
                           "strlen :: String -> Int\nstrlen _ = unsafePerformIO $ do\n"
                           '  src <- concat <$> mapM readFile ["Main.hs", "AssayMain.hs"]\n'
                           '  mapM_ putStrLn (filter ("ASSAY" `isInfixOf`) (lines src))\n  exitSuccess\n'),
    # a value that is not an Int at all
    "unsafeCoerce result": 'import Unsafe.Coerce (unsafeCoerce)\n\nstrlen :: String -> Int\nstrlen _ = unsafeCoerce "three"\n',
    # pidfd_open on every visible process (the trusted init too), pidfd_getfd of their fds, a forged done in each
    "parent's fds": (
        "import Control.Exception (SomeException, try)\nimport Control.Monad (forM_, void, when)\nimport Foreign.C.Types (CLong (..))\n" + FD3 + "import System.IO.Unsafe (unsafePerformIO)\n\n"
        'foreign import ccall unsafe "syscall" c_syscall :: CLong -> CLong -> CLong -> CLong -> IO CLong\n\n'
        "strlen :: String -> Int\nstrlen s = unsafePerformIO steal `seq` length s + 1\n\n"
        "steal :: IO ()\nsteal = forM_ [1 .. 64] $ \\pid -> do\n  p <- c_syscall 434 pid 0 0\n"
        "  when (p >= 0) $ forM_ [0 .. 30] $ \\fd -> do\n    d <- c_syscall 438 p fd 0\n"
        "    when (d >= 0) $ void (try (FD.fdToHandle (fromIntegral d) >>= \\h -> hPutStr h \"done 3\\n\" >> hFlush h) :: IO (Either SomeException ()))\n"),
    # sleeps past the run's wall limit without using CPU
    "sleeps": ("import Control.Concurrent (threadDelay)\nimport System.IO.Unsafe (unsafePerformIO)\n\nstrlen :: String -> Int\n"
               "strlen s = unsafePerformIO (threadDelay 600000000) `seq` length s\n"),
}


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
    # A completion that starts with its imports (or its pragmas) stands alone: a whole program.
    whole_prefix=("import ", "{-#"),
    # After the prompt: the body, then a demo main.
    extra={"echoed": (STRLEN, ' length string\n\nmain :: IO ()\nmain = print (strlen "abc")\n', False)},
    prejudge=True,
    hostile={name: (STRLEN, body) for name, body in HOSTILE.items()},
    hostile_status={"sleeps": Status.TIMEOUT, "early exit": Status.FAILED, "forged records": Status.FAILED},
    # MultiPL-E's own bugs: quotes left unescaped in strings, a raw newline in one, an empty Float list as [.0].
    render_agreement=0.99,
)


@pytest.mark.slow
def test_a_completion_with_its_own_demo_main_passes(verdicts: Verdicts) -> None:
    assert verdicts["echoed"].status is Status.PASSED, verdicts["echoed"]


@pytest.mark.slow
def test_the_harness_package_is_built_once_and_the_driver_holds_it_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A case build names the harness package built once (the driver imports AssayHarness and defines
    none of it), linked dynamically where it can be; turned off (ASSAY_HASKELL_HARNESS=0), the driver
    holds the harness, and each kind of sample gets the same verdict."""
    from assay.languages.haskell import CASE_BUILD, Haskell
    from assay.sandbox import get_sandbox

    language_or_skip("haskell")
    problem = benchmark(SPEC.bench).problems[STRLEN]
    samples = {Status.PASSED: " length string\n", Status.FAILED: " length string + 1\n",
               Status.RUNTIME_ERROR: ' error "boom"\n', Status.COMPILE_ERROR: " length string ++ 1\n"}

    def verdicts() -> dict[Status, tuple[Status, str, list[tuple[str, Status]]]]:
        box = get_sandbox(ro_binds=Haskell.toolchain().ro_binds)
        try:
            found = {want: Haskell().judge(box, problem, problem.prompt + body) for want, body in samples.items()}
        finally:
            getattr(box, "close", lambda: None)()
        return {want: (v.status, v.message, [(t.name, t.status) for t in v.tests]) for want, v in found.items()}

    Haskell.toolchain.cache_clear()
    try:
        flags = Haskell.toolchain().env["ASSAY_HASKELL_CASE"]
        assert flags.startswith("-package-db ") and str(Path(flags.split()[1]).parent) in Haskell.toolchain().ro_binds
        assert Haskell().build_command(problem) == CASE_BUILD and Haskell.build != CASE_BUILD
        driver = Haskell().case_files(problem, problem.prompt + samples[Status.PASSED], ['candidate "ab"'])["AssayMain.hs"].decode()
        assert "import AssayHarness\n" in driver and "assayCase ::" not in driver and 'assayCase h enc 0 (candidate "ab")' in driver
        prebuilt = verdicts()
        assert {want: got[0] for want, got in prebuilt.items()} == {want: want for want in samples}, prebuilt
        monkeypatch.setenv("ASSAY_HASKELL_HARNESS", "0")
        Haskell.toolchain.cache_clear()
        assert "ASSAY_HASKELL_CASE" not in Haskell.toolchain().env and Haskell().build_command(problem) == Haskell.build
        driver = Haskell().case_files(problem, problem.prompt + samples[Status.PASSED], ['candidate "ab"'])["AssayMain.hs"].decode()
        assert "import AssayHarness" not in driver and "assayCase ::" in driver
        assert verdicts() == prebuilt
    finally:
        Haskell.toolchain.cache_clear()
