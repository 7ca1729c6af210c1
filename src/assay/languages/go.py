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

Cases (assay.judging.cases): the sample's file is the test program's less MultiPL-E's TestX (a test
that uses the prompt's fmt and testing imports stands in for it, so they stay used: where MultiPL-E's
own literals do not compile, the calls rendered for HumanEval+ still build). The second file's
TestMain never calls m.Run: it evaluates each call under recover and writes each result to fd 3,
encoded by walking its dynamic type with reflect. No flag is read (a sample's `func init()` appending
`-test.run=^$` to os.Args selects nothing), and the harness names its packages by aliases of its own
file. MultiPL-E compares fmt.Sprintf("%v") texts, which agree with Python's == on the values its
tests hold (floats print shortest, maps sorted), but for lists of strings with spaces (["a b"] and
["a", "b"] print alike) and -0.0: those Assay tells apart, as Python does.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, Language, PhaseLimits, Toolchain, Unrepresentable
from assay.languages.harness import NotSplittable, calls_after
from assay.languages.support import build_once, digest, run_host, support_slot, switched_off
from assay.problems import CaseTests, Problem, test_program
from assay.values import Type

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

# The case harness (see assay.judging.records): a TestMain that never calls m.Run. Each result is walked
# with reflect by its dynamic type (a tuple is a []interface{}), one record per case on fd 3.
_CASE_HARNESS = """package {package}

import (
\tassay_fmt "fmt"
\tassay_math "math"
\tassay_os "os"
\tassay_reflect "reflect"
\tassay_strconv "strconv"
\tassay_testing "testing"
)

var assay_channel = assay_os.NewFile(3, "assay-channel")

func assay_emit(line []byte) {{
\tif _, err := assay_channel.Write(line); err != nil {{
\t\tassay_os.Exit(125) // the channel is gone: the records so far stand
\t}}
}}

func assay_nan() float64 {{ return assay_math.NaN() }}

func assay_inf(sign int) float64 {{ return assay_math.Inf(sign) }}

func assay_string(b []byte, s string) []byte {{
\tb = append(b, '"')
\tfor i := 0; i < len(s); i++ {{
\t\tc := s[i]
\t\tswitch {{
\t\tcase c == '"' || c == '\\\\':
\t\t\tb = append(b, '\\\\', c)
\t\tcase c < 0x20 || c == 0x7f:
\t\t\tb = append(b, assay_fmt.Sprintf("\\\\u%04x", c)...)
\t\tdefault:
\t\t\tb = append(b, c)
\t\t}}
\t}}
\treturn append(b, '"')
}}

func assay_encode(b []byte, v assay_reflect.Value) []byte {{
\tif !v.IsValid() {{
\t\treturn append(b, "null"...)
\t}}
\tswitch v.Kind() {{
\tcase assay_reflect.Bool:
\t\treturn assay_strconv.AppendBool(b, v.Bool())
\tcase assay_reflect.Int, assay_reflect.Int8, assay_reflect.Int16, assay_reflect.Int32, assay_reflect.Int64:
\t\treturn assay_strconv.AppendInt(b, v.Int(), 10)
\tcase assay_reflect.Uint, assay_reflect.Uint8, assay_reflect.Uint16, assay_reflect.Uint32, assay_reflect.Uint64, assay_reflect.Uintptr:
\t\treturn assay_strconv.AppendUint(b, v.Uint(), 10)
\tcase assay_reflect.Float32, assay_reflect.Float64:
\t\tf := v.Float()
\t\tswitch {{
\t\tcase f != f:
\t\t\treturn append(b, "NaN"...)
\t\tcase f > assay_math.MaxFloat64:
\t\t\treturn append(b, "Infinity"...)
\t\tcase f < -assay_math.MaxFloat64:
\t\t\treturn append(b, "-Infinity"...)
\t\t}}
\t\treturn assay_strconv.AppendFloat(b, f, 'g', -1, 64) // the shortest text that reads back as the same float64
\tcase assay_reflect.String:
\t\treturn assay_string(b, v.String())
\tcase assay_reflect.Slice, assay_reflect.Array:
\t\tb = append(b, '[')
\t\tfor i := 0; i < v.Len(); i++ {{
\t\t\tif i > 0 {{
\t\t\t\tb = append(b, ',')
\t\t\t}}
\t\t\tb = assay_encode(b, v.Index(i))
\t\t}}
\t\treturn append(b, ']')
\tcase assay_reflect.Map:
\t\tb = append(b, '[')
\t\tfor i, it := 0, v.MapRange(); it.Next(); i++ {{
\t\t\tif i > 0 {{
\t\t\t\tb = append(b, ',')
\t\t\t}}
\t\t\tb = append(assay_encode(append(assay_encode(append(b, '['), it.Key()), ','), it.Value()), ']')
\t\t}}
\t\treturn append(b, ']')
\tcase assay_reflect.Interface, assay_reflect.Pointer:
\t\tif v.IsNil() {{
\t\t\treturn append(b, "null"...)
\t\t}}
\t\treturn assay_encode(b, v.Elem())
\t}}
\tpanic("a result of type " + v.Type().String() + " is not plain data")
}}

func assay_run(i int, f func() interface{{}}) (line []byte) {{
\tdone := false
\tdefer func() {{
\t\tif !done {{
\t\t\tr := recover()
\t\t\tmessage := []byte(assay_fmt.Sprint(r))
\t\t\tfor j, c := range message {{
\t\t\t\tif c == '\\n' || c == '\\r' {{
\t\t\t\t\tmessage[j] = ' '
\t\t\t\t}}
\t\t\t}}
\t\t\tif len(message) > 300 {{
\t\t\t\tmessage = message[:300]
\t\t\t}}
\t\t\tline = append(append(assay_strconv.AppendInt(nil, int64(i), 10), " e "...), message...)
\t\t\tline = append(line, '\\n')
\t\t}}
\t}}()
\tline = assay_encode(append(assay_strconv.AppendInt(nil, int64(i), 10), " v "...), assay_reflect.ValueOf(f()))
\tline = append(line, '\\n')
\tdone = true
\treturn line
}}

func TestMain(m *assay_testing.M) {{
\tcandidate := {entry}
\t_ = candidate
{cases}
\tassay_emit([]byte("done {count}\\n"))
\t_ = assay_os.Stdout.Sync()
\tassay_os.Exit(0)
}}
"""

# In a case run, what MultiPL-E's TestX was to the sample's file: the user of its fmt and testing imports.
# (Its table is not kept: where MultiPL-E's literals do not compile, the calls rendered for HumanEval+ would not build either.)
_IMPORTS_USED = "func TestAssayCases(t *testing.T) {\n\t_ = fmt.Sprint\n}\n"

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
    multipl_e = "go"
    fence_tags = ("golang",)
    stops = ("\nfunc", "struct", "\n// ")  # MultiPL-E's bare "struct" kept: scores compare only under the same cut
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
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=8 * GiB, processes=512)

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

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The `candidate(...)` of each `{ actual: candidate(...), expected: ... },` of MultiPL-E's test table."""
        try:
            return [(call, "") for call in calls_after(tests, "{ actual:", quotes='"')]
        except NotSplittable:
            return None

    def render_value(self, value: Any, t: Type) -> str:
        """A Go literal as MultiPL-E writes it for a value of type t (tuples as []interface{})."""
        return go_literal(value, t)

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample's file as the test program has it, MultiPL-E's TestX replaced by a test that uses fmt and
        testing as it did (else they would be imported and not used); a TestMain of the same package runs the cases."""
        assert isinstance(problem.tests, CaseTests)
        program = fix_header(code, problem.prompt) + "\n" + _IMPORTS_USED
        match = _PACKAGE.search(program)
        package = match.group(1) if match else "main"
        tests = test_program(problem).code
        found = re.search(r"\bcandidate\s*:=\s*([A-Za-z_]\w*)", tests)
        entry = found.group(1) if found else problem.entry_point
        cases = "\n".join(f"\tassay_emit(assay_run({i}, func() interface{{}} {{ return {call} }}))" for i, call in enumerate(calls))
        harness = _CASE_HARNESS.format(package=package, entry=entry, cases=cases, count=len(calls))
        return {MAIN_FILE: program.encode(), HARNESS_FILE: harness.encode()}


def go_type(t: Type) -> str:
    """The Go type MultiPL-E declares for a Python type (tuples are []interface{})."""
    k = t.kind
    scalars = {"int": "int", "float": "float64", "str": "string", "bool": "bool", "any": "interface{}"}
    if k in scalars:
        return scalars[k]
    if k in ("list", "vtuple"):
        return "[]" + go_type(t.args[0])
    if k == "tuple":
        return "[]interface{}"
    if k == "dict":
        return f"map[{go_type(t.args[0])}]{go_type(t.args[1])}"
    raise Unrepresentable(f"type: MultiPL-E's Go has no {t}")


def go_literal(value: Any, t: Type, boxed: bool = False) -> str:
    """A Go expression of type t for a plain value, as MultiPL-E's translator writes it where that compiles:
    `[]int{1, 2}`, `map[string]int{"a": 1}`, a tuple as `[]interface{}{1, "a"}`, an int as itself where a
    float is wanted (a constant). Where MultiPL-E's would not (it types a non-empty list by its elements,
    so [1, 2] at List[Any] is a []int; it writes quotes and backslashes in strings raw) the literal of the type.
    `boxed`: the value is an item of an []interface{} (a tuple), where an optional's None is nil."""
    k = t.kind
    if k == "any":
        return _dynamic(value)
    if k == "optional" and boxed:  # in a tuple's []interface{}
        return "nil" if value is None else go_literal(value, t.args[0], boxed)
    if value is None:
        raise Unrepresentable(f"None: where the type is {t}")
    if k == "bool" and isinstance(value, bool):
        return "true" if value else "false"
    if k in ("int", "float") and isinstance(value, int) and not isinstance(value, bool):
        if not -INT64 <= value < INT64:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return str(value)
    if k == "float" and isinstance(value, float):
        return _float(value)
    if k == "str" and isinstance(value, str):
        return go_string(value)
    if k in ("list", "vtuple") and isinstance(value, (list, tuple)):
        return go_type(t) + "{" + ", ".join(go_literal(v, t.args[0]) for v in value) + "}"
    if k == "tuple" and isinstance(value, (list, tuple)) and len(value) == len(t.args):
        return "[]interface{}{" + ", ".join(go_literal(v, a, boxed=True) for v, a in zip(value, t.args, strict=True)) + "}"
    if k == "dict" and isinstance(value, dict):
        pairs = ", ".join(f"{go_literal(a, t.args[0])}: {go_literal(b, t.args[1])}" for a, b in value.items())
        return go_type(t) + "{" + pairs + "}"
    if k in ("optional", "union", "set", "none"):
        raise Unrepresentable(f"type: MultiPL-E's Go has no {t}")
    raise Unrepresentable(f"type: {value!r} is not a {t}"[:200])


INT64 = 2**63
_GO_COMPOSITE = re.compile(r"^((?:\[\]|map\[[^\]]*\])+(?:interface\{\}|\w+))\{")


def _float(value: float) -> str:
    if math.isnan(value):
        return "assay_nan()"
    if math.isinf(value):
        return "assay_inf(1)" if value > 0 else "assay_inf(-1)"
    return repr(value)


def _dynamic(value: Any) -> str:
    """A value where the type is interface{}: MultiPL-E's literal, typed by its elements as its translator guesses
    (a list of ints and floats is a []float64, of mixed kinds an []interface{}; empty ones are interface{} ones)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -INT64 <= value < INT64:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return go_string(value)
    if isinstance(value, tuple):
        return "[]interface{}{" + ", ".join(_dynamic(v) for v in value) + "}"
    if isinstance(value, list):
        if not value:
            return "[]interface{}{}"
        items = [_dynamic(v) for v in value]
        return f"[]{_guess(items)}{{{', '.join(items)}}}"
    if isinstance(value, dict):
        if not value:
            return "map[interface{}]interface{}{}"
        keys = [_dynamic(k) for k in value]
        vals = [_dynamic(v) for v in value.values()]
        return f"map[{_guess(keys)}]{_guess(vals)}{{{', '.join(f'{k}: {v}' for k, v in zip(keys, vals, strict=True))}}}"
    raise Unrepresentable(f"type: {type(value).__name__} values: {value!r}"[:200])


def _kind(code: str) -> str:
    """MultiPL-E's pytype_to_gotype: the Go type of a literal's text (a Python literal, or a Go slice literal)."""
    try:
        kind = type(ast.literal_eval(code))
    except (ValueError, SyntaxError):
        kind = type(None)
    found = {int: "int", bool: "bool", str: "string", float: "float64"}.get(kind)
    if found:
        return found
    # A Go composite literal's own type (MultiPL-E says []int for any of them, which need not compile).
    composite = _GO_COMPOSITE.match(code)
    return composite.group(1) if composite else "interface{}"


def _guess(items: list[str]) -> str:
    """MultiPL-E's get_type_pylist where it type-checks: one kind for all items, float64 where all of them
    are numbers, else interface{} (MultiPL-E types a list by its first item and guesses float64 when only
    the rest are numbers, so `[]float64{"5", 6}`, which does not compile)."""
    kinds = [_kind(c) for c in items]
    if all(k == kinds[0] for k in kinds):
        return kinds[0]
    return "float64" if all(k in ("int", "float64") for k in kinds) else "interface{}"


def go_string(text: str) -> str:
    """A Go string literal."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            raise Unrepresentable(f"str: a lone surrogate in {text!r}"[:200])
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


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
