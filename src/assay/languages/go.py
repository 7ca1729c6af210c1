"""Go: `go test -c` builds the test binary (vet's checks included, as MultiPL-E's `go test` runs them), then it runs.

MultiPL-E's Go program is one `_test.go` file: the prompt (package clause, imports of fmt and
testing, the function) + completion + a `func TestX(t *testing.T)` that reports with t.Errorf. A
second file of the same package holds a TestMain: a failed test (m.Run() != 0) exits with
ASSERT_EXIT; after every test passed it prints the completion marker. A panic kills the test binary
with Go's exit status 2 before m.Run returns, so it stays a runtime error; os.Exit(0) in a test
(the binary runs without -test.paniconexit0) exits before the marker. The test section itself is
unchanged.

`go test` vets the package first (MultiPL-E's runner counts a vet finding as a build failure, so
Assay keeps vet on); on a cold GOCACHE vet must first analyse the standard packages the program
imports, about 3 s of CPU of the 3.5 s a build takes. A seed cache (built on first use, once per Go
version, outside the sandbox, from a trusted template importing the usual standard packages, into a
support slot of the toolchain cache: see assay.languages.support; shown to the sandbox read-only) is
copied into the run's own /tmp/go-cache before the build: nothing written in one run reaches
another. ASSAY_GO_SEED=0 turns it off.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from pathlib import Path
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, Language, RunLimits, Toolchain
from assay.languages.support import build_once, digest, run_host, support_slot, switched_off
from assay.problems import Problem, test_program

MAIN_FILE = "main_test.go"
HARNESS_FILE = "assay_main_test.go"

_HARNESS = """package {package}

import (
\tassay_os "os"
\tassay_testing "testing"
)

func TestMain(m *assay_testing.M) {{
\tif m.Run() != 0 {{
\t\tassay_os.Exit({code})
\t}}
\tassay_os.Stdout.WriteString("\\n{marker}\\n")
\tassay_os.Exit(0)
}}
"""

SEED_ENV = "ASSAY_GO_SEED"  # in the sandbox: the seed cache to copy; on the host: "0" turns it off

# The seed: a test package importing the standard packages models reach for, built with the harness.
_SEED_IMPORTS = ("bufio", "bytes", "container/heap", "container/list", "crypto/md5", "encoding/hex", "errors", "fmt", "math",
                 "math/big", "math/bits", "os", "reflect", "regexp", "sort", "strconv", "strings", "testing", "time",
                 "unicode", "unicode/utf8")  # fmt: skip
_SEED_USES = ("bufio.NewReader", "bytes.NewBuffer", "heap.Init", "list.New", "md5.Sum", "hex.EncodeToString", "errors.New",
              "fmt.Sprintf", "math.Abs", "big.NewInt", "bits.OnesCount", "os.Exit", "reflect.DeepEqual", "regexp.MustCompile",
              "sort.Ints", "strconv.Itoa", "strings.Split", "time.Now", "unicode.IsUpper", "utf8.RuneLen")  # fmt: skip
_SEED_PROGRAM = (
    "package assay_seed_test\n\nimport (\n" + "".join(f'\t"{p}"\n' for p in _SEED_IMPORTS) + ")\n\n"
    "var _ = []interface{}{" + ", ".join(_SEED_USES) + "}\n\nfunc TestSeed(t *testing.T) {}\n"
)

_PACKAGE = re.compile(r"^package\s+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?://[^\n]*)?$", re.MULTILINE)
_IMPORT_BLOCK = re.compile(r"^import\s*\((.*?)\)", re.MULTILINE | re.DOTALL)
_IMPORT_LINE = re.compile(r'^import\s+(?:([A-Za-z_.][A-Za-z0-9_]*)\s+)?"([^"]+)"', re.MULTILINE)
_SPEC = re.compile(r'^\s*(?:([A-Za-z_.][A-Za-z0-9_]*)\s+)?"([^"]+)"', re.MULTILINE)


class Go(Language):
    """Go (Debian's golang-go); test binaries built with `go test -c`."""

    name = "go"
    display = "Go"
    source = MAIN_FILE
    tools = ("go",)
    version_args = ("version",)
    install_hint = "apt-get install -y golang-go"
    build = (f'if [ -d "${SEED_ENV}" ]; then cp -R "${SEED_ENV}" /tmp/go-cache; fi; '
             f"{{go}} test -c -o main.test {MAIN_FILE} {HARNESS_FILE}")
    run = "./main.test"
    env: ClassVar[dict[str, str]] = {
        "GOCACHE": "/tmp/go-cache",
        "GOPATH": "/tmp/go",
        "GOPROXY": "off",
        "GO111MODULE": "on",
        "GOTOOLCHAIN": "local",
        "GOTELEMETRY": "off",
        "GOENV": "off",
        "CGO_ENABLED": "0",
    }
    stub = '    panic("stub")\n}\n'  # Go's completions close the function (the tests start with func TestX)
    # The go command, compile, vet and link each run several threads (RLIMIT_NPROC counts threads).
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=8 * GiB, processes=512)

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """go, and the directory of the seed cache (built on first use) when it can have one."""
        found = super().toolchain()
        directory = seed_dir(found)
        if directory is None:
            return found
        return dataclasses.replace(found, ro_binds=tuple(sorted({*found.ro_binds, str(directory)})),
                                   env={**found.env, SEED_ENV: str(directory / "cache")})

    def prepare(self, toolchain: Toolchain) -> None:
        """Build the seed cache if it is due (once; any failure only costs speed)."""
        seed = toolchain.env.get(SEED_ENV)
        if seed:
            build_seed(toolchain, Path(seed))

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """code + tests, as MultiPL-E runs it; a whole program gets the package clause and imports the tests need."""
        tests = self.wrap_tests(test_program(problem).code, marker)
        return fix_header(code, problem.prompt) + "\n" + tests

    def files(self, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """The program, and the TestMain of the same package."""
        program = self.program(problem, code, marker)
        match = _PACKAGE.search(program)
        package = match.group(1) if match else "main"
        harness = _HARNESS.format(package=package, code=ASSERT_EXIT, marker=marker)
        return {MAIN_FILE: program.encode(), HARNESS_FILE: harness.encode()}

    def wrap_tests(self, tests: str, marker: str) -> str:
        """Unchanged: TestMain (another file) maps a failed test to ASSERT_EXIT and prints the marker."""
        return tests


def imported(code: str) -> dict[str, str | None]:
    """Import paths of a Go file -> their local names (None: the package's own name)."""
    found: dict[str, str | None] = {}
    for block in _IMPORT_BLOCK.finditer(code):
        for spec in _SPEC.finditer(block.group(1)):
            found[spec.group(2)] = spec.group(1)
    for line in _IMPORT_LINE.finditer(code):
        found[line.group(2)] = line.group(1)
    return found


def fix_header(code: str, prompt: str) -> str:
    """A chat model's whole program may lack the prompt's package clause, or the imports the tests use
    (fmt, testing): add them after the package clause. A continued prompt is left alone."""
    if code.startswith(prompt):
        return code
    match = _PACKAGE.search(code)
    if match is None:
        header = _PACKAGE.search(prompt)
        clause = header.group(0) if header else "package main"
        code = clause + "\n\n" + code
        match = _PACKAGE.search(code)
        assert match is not None
    have = imported(code)
    missing = [path for path in ("fmt", "testing") if path not in have]
    if not missing:
        return code
    at = match.end()
    lines = "".join(f'\nimport "{path}"' for path in missing)
    return code[:at] + "\n" + lines + "\n" + code[at:]


def seed_dir(toolchain: Toolchain) -> Path | None:
    """The support slot go-seed-<go and env>, created (empty) now; None when turned off or not creatable."""
    if switched_off(SEED_ENV):
        return None
    return support_slot("go-seed", digest(os.path.realpath(toolchain.tools["go"]), toolchain.version, sorted(Go.env.items()), _SEED_PROGRAM))


def build_seed(toolchain: Toolchain, seed: Path) -> bool:
    """Build the trusted seed program with the sandbox's settings into a fresh GOCACHE, then move it in place."""
    def build(cache: Path) -> None:
        work = cache.parent
        files = {MAIN_FILE: _SEED_PROGRAM, HARNESS_FILE: _HARNESS.format(package="assay_seed_test", code=ASSERT_EXIT, marker="seed")}
        for name, text in files.items():
            (work / name).write_text(text)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work), **Go.env, "GOCACHE": str(cache), "GOPATH": f"{work}/gopath"}
        run_host([toolchain.tools["go"], "test", "-c", "-o", "main.test", MAIN_FILE, HARNESS_FILE], work, timeout=600, env=env)
        if not cache.is_dir():
            raise OSError(f"go left no build cache in {cache}")

    return build_once(seed, build)
