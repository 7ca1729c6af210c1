"""Haskell: ghc compiles prompt + completion + tests (module Main) with a small driver module, then it runs.

MultiPL-E runs `runghc prog.hs`; its tests are a `main` whose failed checks call
`error "assertion failed"`, which exits 1 like any other uncaught exception. Assay compiles the same
program (unoptimised, -O0, like runghc's interpreter: no optimisation changes what a program means)
with a driver module made the entry point by `-main-is`: it runs the tests' `main`, turns that one
ErrorCall into ASSERT_EXIT, lets every other exception through, and prints the marker at the end.

Cases: Main is the sample alone, with a header `module Main where` (it exports everything), and the
driver module is the harness: it binds `candidate` to `Main.<entry point>`, evaluates each case's call
(MultiPL-E's own text) and forces its encoding, under Control.Exception's `try`, and writes each
record to fd 3. Haskell has no overloading without a class, so the encoder is put together from the
declared Type out of the harness's combinators (String is [Char]: a class would need overlapping
instances). Living in its own module, the harness cannot be touched by the sample's definitions
(`import Prelude hiding ((==))`, its own `show`...). Its definitions are built once per machine into a
package of their own (module AssayHarness, unit assay-harness-0, in a package database of a support
directory), which the driver imports: a case build compiles the sample and its calls only, and links
dynamically where that package has a shared library too (GHC's static link of base was half of a
build). ASSAY_HASKELL_HARNESS=0, or a package that cannot be built: the definitions are in the driver.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay import values
from assay.languages.base import ASSERT_EXIT, Language, Toolchain, Unrepresentable
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type

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

# The case harness (see assay.judging.records): an encoder is `a -> ShowS`; each case's encoding is
# forced to its last character inside `try`, so an exception anywhere in the result is that case's.
# An ExitCode exception (the sample's exitWith) is thrown on: the program exits as it asked.
# Its definitions are built once per machine into a package of their own (module AssayHarness, see
# Haskell.toolchain), or, where that build is not possible, written into the driver module.
HARNESS_IMPORTS = """
import qualified Control.Exception as AssayE
import qualified Data.Char as AssayC
import qualified Data.List as AssayL
import qualified GHC.IO.Handle.FD as AssayFD
import qualified System.Exit as AssayX
import qualified System.IO as AssayIO
"""

HARNESS_DEFS = r"""
assayInt :: Int -> ShowS
assayInt = shows

assayFloat :: Float -> ShowS
assayFloat = shows  -- the shortest digits that read back as the same Float; NaN, Infinity, -Infinity

assayBool :: Bool -> ShowS
assayBool b = showString (if b then "true" else "false")

assayStr :: String -> ShowS
assayStr s = showChar '"' . foldr (\c k -> assayChar c . k) id s . showChar '"'

assayChar :: Char -> ShowS
assayChar c
  | c == '"' = showString "\\\""
  | c == '\\' = showString "\\\\"
  | c == '\n' = showString "\\n"
  | n < 0x20 || n == 0x7f || (n >= 0xd800 && n < 0xe000) = showString "\\u" . showString (pad (showHex4 n))
  | otherwise = showChar c
  where
    n = AssayC.ord c
    pad h = replicate (4 - length h) '0' ++ h
    showHex4 0 = "0"
    showHex4 m = go m ""
    go 0 acc = acc
    go m acc = go (m `div` 16) (AssayC.intToDigit (m `mod` 16) : acc)

assayList :: (a -> ShowS) -> [a] -> ShowS
assayList _ [] = showString "[]"
assayList e (x : xs) = showChar '[' . e x . foldr (\y k -> showChar ',' . e y . k) id xs . showChar ']'

assayItems :: [ShowS] -> ShowS
assayItems [] = showString "[]"
assayItems (x : xs) = showChar '[' . x . foldr (\y k -> showChar ',' . y . k) id xs . showChar ']'

assayMaybe :: (a -> ShowS) -> Maybe a -> ShowS
assayMaybe _ Nothing = showString "null"
assayMaybe e (Just x) = e x

assayForce :: String -> Int
assayForce = AssayL.foldl' (\n c -> c `seq` n + 1) 0

assayMessage :: AssayE.SomeException -> IO String
assayMessage e = do
  shown <- AssayE.try (AssayE.evaluate (let m = take 300 (show e) in assayForce m `seq` m))
  pure (map (\c -> if c == '\n' || c == '\r' then ' ' else c) (either (\(_ :: AssayE.SomeException) -> "exception") id shown))

assayOpen :: IO AssayIO.Handle
assayOpen = do
  h <- AssayFD.fdToHandle 3
  AssayIO.hSetEncoding h AssayIO.utf8
  pure h

assayCase :: AssayIO.Handle -> (a -> ShowS) -> Int -> a -> IO ()
assayCase h enc i x = do
  outcome <- AssayE.try (AssayE.evaluate (let s = enc x "" in assayForce s `seq` s))
  line <- case outcome of
    Right s -> pure (show i ++ " v " ++ s)
    Left e -> case AssayE.fromException e of
      Just code -> AssayE.throwIO (code :: AssayX.ExitCode)
      Nothing -> do
        m <- assayMessage e
        pure (show i ++ " e " ++ m)
  AssayIO.hPutStr h (line ++ "\n")
  AssayIO.hFlush h

assayDone :: AssayIO.Handle -> Int -> IO ()
assayDone h n = do
  AssayIO.hPutStr h ("done " ++ show n ++ "\n")
  AssayIO.hFlush h
  AssayX.exitSuccess
"""

HARNESS_EXPORTS = "assayInt, assayFloat, assayBool, assayStr, assayList, assayItems, assayMaybe, assayOpen, assayCase, assayDone"
HARNESS_MODULE = f"{{-# LANGUAGE ScopedTypeVariables #-}}\nmodule AssayHarness ({HARNESS_EXPORTS}) where\n" + HARNESS_IMPORTS + HARNESS_DEFS

# The driver's own part: the entry point, the encoder of its declared type, one assayCase a case.
CASE_MAIN = """
candidate = Main.@ENTRY@

main :: IO ()
main = do
  h <- assayOpen
  let enc = @ENCODER@
@CASES@
  assayDone h @COUNT@
"""
# The driver with the harness package built once, and the one with the harness's definitions in it.
CASE_DRIVER_PREBUILT = "module AssayMain (main) where\n\nimport AssayHarness\nimport qualified Main\n" + CASE_MAIN
CASE_DRIVER = "{-# LANGUAGE ScopedTypeVariables #-}\nmodule AssayMain (main) where\n" + HARNESS_IMPORTS + "import qualified Main\n" + HARNESS_DEFS + CASE_MAIN

HARNESS_ENV = "ASSAY_HASKELL_HARNESS"  # 0: no package built once, the harness is compiled with each sample
HARNESS_UNIT = "assay-harness-0"  # the package's unit id (its symbols' prefix); distinct from any of GHC's own
CASE_BUILD = "{ghc} -O0 -v0 -j1 -main-is AssayMain $ASSAY_HASKELL_CASE -outputdir build -o main Main.hs AssayMain.hs"

MAX_INT = 2**63 - 1  # Haskell's Int (GHC, 64-bit)
MIN_INT = -(2**63)
_ASSERT = re.compile(r"^[ \t]*if (?=candidate\b)", re.M)
_LINE_COMMENT = re.compile(r"--+(?:[ \t]|$)", re.M)  # `--|` would be an operator, not a comment
_LEADING_PRAGMAS = re.compile(r"\A(?:\s+|--[^\n]*|\{-#.*?#-\}|\{-(?!#).*?-\})*", re.S)

MODULE_HEADER = re.compile(r"^module\s+[A-Z][\w.']*(?:\s|\().*?\bwhere\b", re.M | re.S)
TOP_LEVEL_MAIN = re.compile(r"^main\s*(?:::|=)", re.M)


class Haskell(Language):
    """GHC (Debian's ghc: 9.0)."""

    float32 = True  # MultiPL-E's floats are 32-bit here

    name = "haskell"
    aliases = ("hs",)
    display = "Haskell"
    multipl_e = "hs"
    stops = ("\n\n", "\n{-", "\n-- |", "\n--", "\ntype", "\ndata", "\nnewtype")
    definition = r"^{name}\s*::"
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
        """ghc; the sandbox must also show its package database (Debian links it to /var/lib/ghc). Plus the
        case harness built once into a package of its own (support directory haskell-<key>, named to case
        builds by $ASSAY_HASKELL_CASE): a case build then compiles the sample and its calls only. Off with
        ASSAY_HASKELL_HARNESS=0, or where it cannot be built: the harness goes into the driver module."""
        found = super().toolchain()
        ghc = found.tools["ghc"]
        databases = package_db_dirs(ghc)
        binds = set(found.ro_binds) | set(databases)
        found = dataclasses.replace(found, ro_binds=tuple(sorted(binds)))
        if switched_off(HARNESS_ENV):
            return found
        real = os.path.realpath(ghc)
        key = digest(found.version, real, file_stamp(real), *(file_stamp(os.path.join(d, "package.conf.d", "package.cache")) for d in databases),
                     HARNESS_MODULE, HARNESS_UNIT)
        try:
            support = support_dir("haskell", key, lambda work: _build_harness_package(work, ghc))
        except (OSError, subprocess.SubprocessError):
            return found
        if not (support / "db" / "package.cache").exists() or re.search(r"\s", str(support)):
            return found
        flags = f"-package-db {support / 'db'}" + (" -dynamic" if (support / "dynamic").exists() else "")
        return dataclasses.replace(found, ro_binds=tuple(sorted({*found.ro_binds, str(support)})), env={**found.env, "ASSAY_HASKELL_CASE": flags})

    def build_command(self, problem: Problem) -> str | None:
        """A case build with the harness package built once names it (and links dynamically where the
        package has a shared library: GHC's static link of base is most of a build); any other build is
        the program's."""
        if isinstance(problem.tests, CaseTests) and Haskell.has_support("ASSAY_HASKELL_CASE"):
            return CASE_BUILD
        return self.build

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

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `if candidate a b == expected then pure () else error "assertion failed"` lines:
        `candidate a b`, up to the `==` outside brackets and strings."""
        calls: list[tuple[str, str]] = []
        for found in _ASSERT.finditer(tests):  # over the whole text: a string literal may hold a newline
            end = _top_level_eq(tests, found.end())
            if end is None:
                return None
            calls.append((tests[found.end() : end].strip(), ""))
        if len(calls) != sum(1 for line in tests.splitlines() if line.strip().startswith("if candidate")):
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's Haskell literals: `[a,b]` lists, `(a, b)` tuples, `[(k, v)]` association lists for
        dicts, `Just (x)`/`Nothing`, negative ints in parentheses, Floats for Python's floats."""
        return _literal(value, t, top=True)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`candidate a b`."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        rendered = [_literal(_coerce(a, t), t, top=True) for a, t in zip(args, signature.param_types, strict=True)]
        return " ".join(["candidate", *rendered])

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """Main.hs: the sample as the program path has it, with a header that exports everything; the
        driver module: the calls, with the harness package built once, else with the harness in it."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        encoder = haskell_encoder(problem.tests.signature.returns)
        cases = "\n".join(f"  assayCase h enc {i} ({_indented(call)})" for i, call in enumerate(calls))
        driver = ((CASE_DRIVER_PREBUILT if Haskell.has_support("ASSAY_HASKELL_CASE") else CASE_DRIVER).replace("@ENTRY@", problem.entry_point)
                  .replace("@ENCODER@", encoder).replace("@CASES@", cases).replace("@COUNT@", str(len(calls))))
        return {self.source: with_header(self.code(problem, code)).encode(), "AssayMain.hs": driver.encode()}

    def normalize(self, value: Any, t: Type) -> Any:
        """Floats at float32: MultiPL-E's Haskell declares every Python float a `Float`, and its asserts
        compare in Float, so 0.1 and the Float nearest 0.1 are equal there (and here)."""
        return _float32(value)

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """Haskell's `==` on MultiPL-E's types: Floats (see normalize), and a dict is an association list
        `[(k, v)]` there, so its pairs compare in order (Python's dicts do not)."""
        return _ordered_equal(self.normalize(actual, t), self.normalize(expected, t), t)



def _build_harness_package(work: Path, ghc: str) -> None:
    """A package database (db/) holding one package, HARNESS_UNIT: module AssayHarness compiled as a
    sample's build compiles (-O0), as a static library, and as a shared one where this GHC can build
    and run a dynamically linked program with it (then the file `dynamic`); the source is not kept."""
    lib = work / "lib"
    lib.mkdir()
    (work / "AssayHarness.hs").write_text(HARNESS_MODULE)
    compile_ = [ghc, "-O0", "-v0", "-this-unit-id", HARNESS_UNIT, "-odir", "lib", "-hidir", "lib", "-c", "AssayHarness.hs"]
    try:
        run_host([*compile_, "-dynamic-too"], work)
        dynamic = True
    except subprocess.SubprocessError:
        run_host(compile_, work)
        dynamic = False
    run_host(["ar", "rcs", f"lib/libHS{HARNESS_UNIT}.a", "lib/AssayHarness.o"], work)
    if dynamic:
        version = subprocess.run([ghc, "--numeric-version"], capture_output=True, text=True, timeout=60).stdout.strip()
        try:
            run_host([ghc, "-v0", "-shared", "-dynamic", "-this-unit-id", HARNESS_UNIT, "-o", f"lib/libHS{HARNESS_UNIT}-ghc{version}.so",
                      "lib/AssayHarness.dyn_o"], work)
        except subprocess.SubprocessError:
            dynamic = False
    for built in (*lib.glob("*.o"), *lib.glob("*.dyn_o"), work / "AssayHarness.hs"):
        built.unlink()
    base = subprocess.run([ghc_pkg(ghc), "field", "base", "id", "--simple-output"], capture_output=True, text=True, timeout=60).stdout.split()
    if len(base) != 1:
        raise subprocess.SubprocessError(f"ghc-pkg: no single base package ({base})")
    (work / "assay-harness.conf").write_text(
        f"name: assay-harness\nversion: 0\nid: {HARNESS_UNIT}\nkey: {HARNESS_UNIT}\nexposed: True\nexposed-modules: AssayHarness\n"
        "import-dirs: ${pkgroot}/lib\nlibrary-dirs: ${pkgroot}/lib\ndynamic-library-dirs: ${pkgroot}/lib\n"
        f"hs-libraries: HS{HARNESS_UNIT}\ndepends: {base[0]}\n")
    run_host([ghc_pkg(ghc), "init", "db"], work)
    run_host([ghc_pkg(ghc), "-v0", "--package-db", "db", "register", "assay-harness.conf"], work)
    (work / "assay-harness.conf").unlink()
    (work / "db" / "package.cache.lock").unlink(missing_ok=True)
    if dynamic and _runs_dynamically(work, ghc):
        (work / "dynamic").write_text("")


def _runs_dynamically(work: Path, ghc: str) -> bool:
    """Whether a program built -dynamic with the package runs here (and writes what the harness writes)."""
    probe = work / "probe"
    probe.mkdir()
    try:
        (probe / "Main.hs").write_text("import AssayHarness\nmain :: IO ()\nmain = putStrLn (assayList assayInt [1, -2] \"\")\n")
        run_host([ghc, "-O0", "-v0", "-dynamic", "-package-db", str(work / "db"), "-outputdir", "build", "-o", "main", "Main.hs"], probe)
        out = subprocess.run([str(probe / "main")], capture_output=True, text=True, timeout=60)
        return out.returncode == 0 and out.stdout == "[1,-2]\n"
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def ghc_pkg(ghc: str) -> str:
    """The ghc-pkg beside this ghc (ghc-pkg-<version> links are Debian's), else the one on PATH."""
    beside = os.path.join(os.path.dirname(ghc), "ghc-pkg")
    return beside if os.access(beside, os.X_OK) else shutil.which("ghc-pkg") or "ghc-pkg"


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


def with_header(code: str) -> str:
    """The code with `module Main where` (export everything: the driver imports the entry point) after
    its leading pragmas, which must come first. Where a line comment follows (MultiPL-E's prompts begin
    with one), the header goes before it on the same line, and every line keeps its number; else it is
    a line of its own, and a LINE pragma keeps the line numbers of messages."""
    lead = _LEADING_PRAGMAS.match(code)
    at = 0
    if lead:  # after the last pragma of the leading block (comments before the header are fine)
        pragmas = list(re.finditer(r"\{-#.*?#-\}", lead.group(0), re.S))
        at = pragmas[-1].end() if pragmas else 0
    rest = code[at:]
    if rest.startswith("\n") and _LINE_COMMENT.match(rest, 1):
        return code[: at + 1] + "module Main where " + rest[1:]
    if _LINE_COMMENT.match(rest):
        return code[:at] + "module Main where " + rest
    line = code.count("\n", 0, at) + 1
    return code[:at] + f"\nmodule Main where\n{{-# LINE {line} \"Main.hs\" #-}}\n" + rest


def _indented(call: str) -> str:
    """A call in the driver's do block: its continuation lines (a string with a newline) indented."""
    return call.replace("\n", "\n    ")


def _top_level_eq(text: str, start: int) -> int | None:
    """Index of the first `==` after start outside brackets and string literals (None: not on that line)."""
    depth, i, n = 0, start, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith("==", i) and text[i - 1] == " ":
            return i
        elif depth == 0 and ch == "\n" and text.startswith("  if ", i + 1):
            return None
        i += 1
    return None


def _coerce(value: Any, t: Type) -> Any:
    try:
        return values.coerce(value, t)
    except values.UnsupportedType as exc:
        raise Unrepresentable(f"type: {exc}") from None


def _literal(value: Any, t: Type, top: bool = False) -> str:
    k = t.kind
    if k == "optional":
        return "Nothing" if value is None else f"Just ({_literal(value, t.args[0])})"
    if value is None:
        raise Unrepresentable(f"None: where the type is {t}")
    if k == "bool" and isinstance(value, bool):
        return "True" if value else "False"
    if k == "int" and isinstance(value, int) and not isinstance(value, bool):
        if not MIN_INT <= value <= MAX_INT:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return f"({value})" if value < 0 else str(value)
    if k == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        x = float(value)
        if math.isnan(x):
            return "(0/0)"
        if math.isinf(x):
            return "(1/0)" if x > 0 else "(-1/0)"
        text = repr(x)
        return f"({text})" if text.startswith("-") and top else text
    if k == "str" and isinstance(value, str):
        return haskell_string(value)
    if k == "list" and isinstance(value, list):
        return "[" + ",".join(_literal(v, t.args[0]) for v in value) + "]"
    if k == "tuple" and isinstance(value, tuple) and len(value) == len(t.args):
        return "(" + ", ".join(_literal(v, a) for v, a in zip(value, t.args, strict=True)) + ")"
    if k == "dict" and isinstance(value, dict):
        return "[" + ", ".join(f"({_literal(a, t.args[0])}, {_literal(b, t.args[1])})" for a, b in value.items()) + "]"
    if k in ("set", "vtuple", "union", "any", "none"):
        raise Unrepresentable(f"type: Haskell has no {t} (MultiPL-E translates none)")
    raise Unrepresentable(f"type: {values._short(value)} is not a {t}")


def haskell_string(text: str) -> str:
    """A Haskell string literal: quotes, backslashes and control characters escaped (`\\&` ends a
    numeric escape before a digit)."""
    out = []
    for i, ch in enumerate(text):
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F or 0xD800 <= ord(ch) < 0xE000:
            out.append(f"\\{ord(ch)}" + ("\\&" if i + 1 < len(text) and text[i + 1].isdigit() else ""))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def haskell_encoder(t: Type, depth: int = 0) -> str:
    """The harness's encoder for a value of type t, out of the driver's combinators."""
    k = t.kind
    simple = {"int": "assayInt", "float": "assayFloat", "bool": "assayBool", "str": "assayStr"}
    if k in simple:
        return simple[k]
    if k == "none":
        return '(\\_ -> showString "null")'
    if k == "list":
        return f"(assayList {haskell_encoder(t.args[0], depth)})"
    if k == "optional":
        return f"(assayMaybe {haskell_encoder(t.args[0], depth)})"
    if k == "tuple" and len(t.args) == 1:  # MultiPL-E's ` (Int)` is the Int itself
        return f"(\\x{depth} -> assayItems [{haskell_encoder(t.args[0], depth + 1)} x{depth}])"
    if k == "tuple" and len(t.args) >= 2:
        names = [f"x{depth}_{i}" for i in range(len(t.args))]
        parts = ", ".join(f"{haskell_encoder(a, depth + 1)} {n}" for a, n in zip(t.args, names, strict=True))
        return f"(\\({', '.join(names)}) -> assayItems [{parts}])"
    if k == "dict":
        return haskell_encoder(values.list_of(values.tuple_of(t.args[0], t.args[1])), depth)
    raise Unrepresentable(f"type: Haskell has no {t}")


def _float32(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return value
        try:
            return float(struct.unpack("f", struct.pack("f", value))[0])
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, list):
        return [_float32(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_float32(v) for v in value)
    if isinstance(value, dict):
        return {_float32(k): _float32(v) for k, v in value.items()}
    return value


def _ordered_equal(a: Any, b: Any, t: Type) -> bool:
    k = t.kind
    if k == "dict" and isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(
            _ordered_equal(ka, kb, t.args[0]) and _ordered_equal(va, vb, t.args[1])
            for (ka, va), (kb, vb) in zip(a.items(), b.items(), strict=True)
        )
    if k == "list" and isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_ordered_equal(x, y, t.args[0]) for x, y in zip(a, b, strict=True))
    if k == "tuple" and isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_ordered_equal(x, y, s) for x, y, s in zip(a, b, t.args, strict=True))
    if k == "optional" and a is not None and b is not None:
        return _ordered_equal(a, b, t.args[0])
    return values.equal(a, b)
