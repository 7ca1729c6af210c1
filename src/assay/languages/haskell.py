"""Haskell: ghc compiles prompt + completion + tests (module Main) with a small driver module, then it runs.

MultiPL-E runs `runghc prog.hs`; its tests are a `main` whose failed checks call
`error "assertion failed"`, which exits 1 like any other uncaught exception. Assay compiles the same
program (unoptimised, -O0, like runghc's interpreter: no optimisation changes what a program means)
with a driver module made the entry point by `-main-is`: it runs the tests' `main`, turns that one
ErrorCall into ASSERT_EXIT, lets every other exception through, and prints the marker at the end.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import subprocess
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language, Toolchain
from assay.problems import Problem, test_program

DRIVER = f"""module AssayMain (main) where

import qualified Control.Exception as E
import qualified Main
import qualified System.Exit as X
import qualified System.IO as IO

-- The tests' `main`; their failed checks call `error "assertion failed"`.
main :: IO ()
main = do
  outcome <- E.try Main.main
  case outcome of
    Left (E.ErrorCall message) | message == "assertion failed" -> do
      IO.hPutStrLn IO.stderr "assertion failed"
      X.exitWith (X.ExitFailure {ASSERT_EXIT})
    Left other -> E.throwIO other
    Right () -> do
      putStrLn ""
      putStrLn "@MARKER@"
      IO.hFlush IO.stdout
"""

MODULE_HEADER = re.compile(r"^module\s+[A-Z][\w.']*(?:\s|\().*?\bwhere\b", re.M | re.S)
TOP_LEVEL_MAIN = re.compile(r"^main\s*(?:::|=)", re.M)


class Haskell(Language):
    """GHC (Debian's ghc: 9.0)."""

    name = "haskell"
    aliases = ("hs",)
    display = "Haskell"
    source = "Main.hs"
    tools = ("ghc",)
    version_args = ("--version",)
    install_hint = "apt-get install -y ghc"
    build = "{ghc} -O0 -v0 -j1 -main-is AssayMain -outputdir build -o main Main.hs AssayMain.hs"
    run = "./main"
    env: ClassVar[dict[str, str]] = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    stub = ' error "stub"\n'

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """ghc; the sandbox must also show its package database (Debian links it to /var/lib/ghc)."""
        found = super().toolchain()
        binds = set(found.ro_binds) | set(package_db_dirs(found.tools["ghc"]))
        return dataclasses.replace(found, ro_binds=tuple(sorted(binds)))

    def code(self, problem: Problem, code: str) -> str:
        """A whole program from a chat model loses its module header and its own `main` (the tests
        bring theirs); MultiPL-E's prompts have neither, so a plain completion is unchanged."""
        code = MODULE_HEADER.sub("", code, count=1)  # the implicit `module Main (main) where` exports what the driver needs
        return strip_main(code)

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """prompt + completion + tests, as MultiPL-E runs it."""
        return self.code(problem, code) + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def files(self, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """Main.hs (the program) and the driver module."""
        return {self.source: self.program(problem, code, marker).encode(), "AssayMain.hs": DRIVER.replace("@MARKER@", marker).encode()}

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests, unchanged: the driver module maps their failed checks to ASSERT_EXIT and prints the marker."""
        return tests


def strip_main(code: str) -> str:
    """The code without a top-level `main` (its signature and its equations, up to the next top-level line)."""
    lines = code.splitlines(keepends=True)
    out: list[str] = []
    skipping = False
    for line in lines:
        top_level = bool(line.strip()) and not line[0].isspace()
        if top_level:
            skipping = bool(TOP_LEVEL_MAIN.match(line))
        if not skipping:
            out.append(line)
    return "".join(out)


def package_db_dirs(ghc: str) -> list[str]:
    """Where ghc's global package database really is, when that is outside /usr (Debian: /var/lib/ghc)."""
    try:
        libdir = subprocess.run([ghc, "--print-libdir"], capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return []
    if not libdir:
        return []
    db = os.path.realpath(os.path.join(libdir, "package.conf.d"))
    if db.startswith("/usr/") or not os.path.isdir(db):
        return []
    return [os.path.dirname(db)]
