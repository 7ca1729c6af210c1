"""A benchmark's own test programs in each language's native shape (runner "native": HumanEval-X's).

HumanEval-X ships, per language, the test program its harness runs: a C++ `main` with `assert`s, Go
`func TestX(t *testing.T)` with testify, a Java `public class Main` that throws AssertionError, a
JavaScript test function of `console.assert`s and its call, a Rust `#[cfg(test)] mod tests`. Each is
run here as it is written, in the sample's process, and a pass needs exit status 0 *and* the run's
completion marker, which Assay's own code prints only after every test of the program ran to its end
(`assay.languages.base.classify`, as for MultiPL-E's programs). Upstream's harness bugs are closed by
construction:

- JavaScript: upstream passes when node prints nothing. Here `console.assert` is Assay's (a failure
  exits with ASSERT_EXIT and is remembered), the test function is called by Assay (the tests' own call
  is dropped, so a test that never calls its function still runs) and must return, and at least one
  assertion must have run. The tests see `console`, `JSON` and `Math` as copies taken before the
  sample ran, and `toJSON` is pinned undefined on the built-in prototypes, so a sample that patches
  `JSON.stringify`, `Math.abs` or `Array.prototype.toJSON` changes nothing the tests compare.
- Java: upstream's run line is commented out; here the tests' `Main.main` runs under a runner that maps
  AssertionError to ASSERT_EXIT. The tests are a file of their own whose single-type imports name
  java.util's and java.lang's classes, so a sample's own `class Arrays` or `class Math` (which would
  shadow the on-demand imports) is not what the tests call.
- Go: TestMain resets the test flags after parsing (a sample's `init` that adds `-test.run=^$` or
  `-test.list` to os.Args would skip every test and still exit 0), and each TestX is wrapped: the
  marker needs every one of them to have returned without failing.
- C++: the tests' `main` is renamed and called by Assay's; the tests' `assert` is Assay's; the macros
  the sample defined are undefined before the tests (`#define abs(x) 0` reaches no test), and the tests
  sit in a namespace that declares comparison operators of its own, so a sample's global
  `operator==` for std types is hidden from them (std's are found by argument-dependent lookup).
- Rust: the `#[test]` functions are made plain and called one by one by Assay's `main` under
  assertion macros that exit with ASSERT_EXIT; the crates HumanEval-X's declarations `use` (rand,
  regex, md5) are built once from Debian's sources (librust-*-dev) and linked with --extern.

What remains (docs/verdicts.md): the marker is in the program, so a sample written against this
harness can read it from its own source or binary and print it; and whatever the tests compare with
the sample's own types or functions, the sample decides.
"""

from __future__ import annotations

import abc
import os
import re
import secrets
import shlex
import subprocess
from pathlib import Path

from assay.languages.base import (
    ASSERT_EXIT,
    Language,
    PhaseLimits,
    Toolchain,
    ToolchainMissing,
    _path_for,
    classify,
    phase_argv,
)
from assay.languages.support import build_once, digest, run_host, support_dir, support_slot
from assay.problems import Problem, Status, Verdict, test_program
from assay.sandbox.base import Phase, Sandbox, SandboxLimits


def judge_native(language: Language, sandbox: Sandbox, problem: Problem, code: str, limits: PhaseLimits) -> Verdict:
    """Build and run the problem's own test program with the sample; the verdict is decided here."""
    shape = SHAPES.get(language.name)
    if shape is None:
        return Verdict(Status.SKIPPED, message=f"skipped: no native test shape for {language.display}")
    try:
        toolchain = language.toolchain()
        extra_env = shape.prepare(language, toolchain)
    except ToolchainMissing as exc:
        return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
    language.prepare(toolchain)
    marker = "ASSAY-DONE-" + secrets.token_hex(16)
    files = shape.files(language, problem, code, marker)
    env = {**toolchain.env, **extra_env}
    tools = {name.replace("-", "_").replace("+", "p").replace(".", "_"): shlex.quote(path) for name, path in toolchain.tools.items()}
    phases = [Phase("build", phase_argv(shape.build.format(**tools), env), limits.build_cpu, limits.build_wall,
                    memory_bytes=limits.memory_bytes, output="stderr"),
              Phase("run", phase_argv(shape.run.format(**tools), env), limits.run_cpu, limits.run_wall,
                    memory_bytes=limits.run_memory_bytes, channel=True, stdin=True, output="merged")]
    box = SandboxLimits(cpu_seconds=max(limits.build_cpu, limits.run_cpu), wall_seconds=limits.build_wall + limits.run_wall,
                        memory_bytes=max(limits.memory_bytes, limits.run_memory_bytes or 0), processes=limits.processes,
                        disk_bytes=limits.disk_bytes, output_bytes=limits.output_bytes)
    result = sandbox.run_phases(phases, files, box, env={"PATH": _path_for(toolchain), "HOME": "/tmp", **env})
    return classify(result, marker, limits)


class Shape(abc.ABC):
    """How one language's native test program is laid out, built and run."""

    build: str = ""
    run: str = ""

    def prepare(self, language: Language, toolchain: Toolchain) -> dict[str, str]:
        """Support files built once on the host; the environment the phases need for them."""
        return {}

    @abc.abstractmethod
    def files(self, language: Language, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """The work dir's files."""


def _whole(problem: Problem, code: str) -> bool:
    """Whether the sample is a whole program (a chat model's), not a continuation of the prompt."""
    return not code.startswith(problem.prompt)


# ------------------------------------------------------------------ C++

# Headers upstream's harness adds when the program lacks them (codegeex/benchmark/utils.py IMPORT_HELPER["cpp"]).
CPP_HEADERS = ("#include<stdlib.h>", "#include<algorithm>", "#include<math.h>", "#include<stdio.h>", "#include<vector>",
               "#include<string>", "#include<climits>", "#include<cstring>", "#include<iostream>")
_CPP_DEFINE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
_CPP_TEST_MAIN = re.compile(r"\bint\s+main\s*\(\s*(?:void\s*)?\)")
CPP_ASSERT = f"""
#include <cstdio>
#include <cstdlib>
#undef assert
#define assert(...) ((__VA_ARGS__) ? (void)0 : assay_assert_failed(#__VA_ARGS__, __LINE__))
[[noreturn]] static void assay_assert_failed(const char* what, int line) {{
    std::fflush(stdout);
    std::fprintf(stderr, "assertion failed (line %d): %s\\n", line, what);
    std::fflush(stderr);
    std::_Exit({ASSERT_EXIT});
}}
"""
# Declared in the tests' namespace: unqualified lookup of these operators stops there, so a global
# overload the sample declares for std types is never a candidate (std's come by argument-dependent lookup).
CPP_HIDE = "struct assay_hidden {};\n" + "".join(
    f"bool operator{op}(assay_hidden, assay_hidden);\n" for op in ("==", "!=", "<", ">", "<=", ">="))


def cpp_macros(code: str) -> list[str]:
    """Names the code #defines (line continuations joined, `%:` digraphs too)."""
    joined = re.sub(r"\\\r?\n", "", code)
    return list(dict.fromkeys(_CPP_DEFINE.findall(joined)))


class CppShape(Shape):
    """prompt + completion + tests, with upstream's missing headers first and -lcrypto (CPP/162's md5)."""

    build = "{gpp} -std=c++11 -o main main.cpp -lcrypto"
    run = "./main"

    def files(self, language: Language, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        program = code  # a continued prompt, or a whole program: its own main is renamed below
        headers = [h for h in CPP_HEADERS if h not in program]
        undefs = "".join(f"#undef {name}\n" for name in cpp_macros(program))
        tests = test_program(problem).code
        tests = "\n".join(line for line in tests.splitlines() if not re.match(r"\s*#\s*(include|undef\s+NDEBUG)", line))
        kind = "int" if re.search(r"\breturn\b", tests) else "void"
        tests = _CPP_TEST_MAIN.sub(f"{kind} assay_tests_main()", tests, count=1)
        space = "assay_tests_" + secrets.token_hex(4)
        text = ("#include <cstdio>\n" + "\n".join(headers) + "\nusing namespace std;\n#define main assay_sample_main\n" + program + "\n#undef main\n" + undefs
                + "#undef NDEBUG\n#include <assert.h>\n" + CPP_ASSERT + f"namespace {space} {{\n" + CPP_HIDE + tests + "\n}\n"
                + f'int main() {{\n    {space}::assay_tests_main();\n    std::fflush(stdout);\n    std::puts("{marker}");\n'
                + "    std::fflush(stdout);\n    return 0;\n}\n")
        return {"main.cpp": text.encode()}


# ------------------------------------------------------------------ Java

# The classes HumanEval-X's Java tests name, imported one by one so that a sample's class of the same
# name in the package does not shadow them.
JAVA_CLASSES = {
    **{n: "java.util" for n in ("List", "Arrays", "ArrayList", "Objects", "Random", "Map", "HashMap", "Optional", "HashSet", "Set", "Collections")},
    **{n: "java.lang" for n in ("String", "Boolean", "Math", "StringBuilder", "Object", "Integer", "Double", "Long", "Character",
                               "AssertionError", "System", "Float")},
    "NoSuchAlgorithmException": "java.security",
}
JAVA_RUNNER = """public class AssayRun {
    public static void main(String[] args) throws java.lang.Throwable {
        try {
            Main.main(args);
        } catch (java.lang.AssertionError e) {
            java.lang.System.out.flush();
            java.lang.System.err.println(e);
            java.lang.Runtime.getRuntime().halt(@EXIT@);
        }
        java.lang.System.out.println();
        java.lang.System.out.println("@MARKER@");
        java.lang.System.out.flush();
        java.lang.Runtime.getRuntime().halt(0);
    }
}
"""
_JAVA_MAIN_CLASS = re.compile(r"\b(?:public\s+)?(?:final\s+)?class\s+Main\b")


class JavaShape(Shape):
    """Solution.java (prompt + completion), Main.java (the tests, with their imports), and the runner."""

    build = ('{javac} -J-Xmx768m -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -proc:none -encoding UTF8 -nowarn -d classes '
             "Solution.java Main.java AssayRun.java")
    run = "{java} -ea -Xmx1g -XX:+UseSerialGC -XX:-UsePerfData -cp classes AssayRun"

    def files(self, language: Language, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        program = code
        if _whole(problem, code):  # a whole program: the prompt's imports in front (a repeated import is allowed)
            program = "".join(line + "\n" for line in problem.prompt.splitlines() if line.startswith("import ")) + program
        program = _JAVA_MAIN_CLASS.sub("class AssaySampleMain", program)  # a whole program's own Main: not the tests'
        tests = test_program(problem).code
        names = set(re.findall(r"\b([A-Z]\w*)\b", re.sub(r'"(?:\\.|[^"\\])*"', '""', tests)))
        imports = "".join(f"import {JAVA_CLASSES[n]}.{n};\n" for n in sorted(names) if n in JAVA_CLASSES)
        head = "import java.util.*;\nimport java.util.stream.*;\nimport java.lang.*;\nimport java.security.*;\nimport java.math.*;\n"
        runner = JAVA_RUNNER.replace("@MARKER@", marker).replace("@EXIT@", str(ASSERT_EXIT))
        return {"Solution.java": program.encode(), "Main.java": (head + imports + "\n" + tests).encode(), "AssayRun.java": runner.encode()}


# ------------------------------------------------------------------ JavaScript

JS_PRELUDE = r"""const __ASSAY__ = (() => {
  const fs = require("fs");
  const reallyExit = (process.reallyExit || process.exit).bind(process);
  const write = (fd, s) => { try { fs.writeSync(fd, s); } catch (_) {} };
  const freeze = Object.freeze, names = Object.getOwnPropertyNames;
  for (const proto of [Object.prototype, Array.prototype, String.prototype, Number.prototype, Boolean.prototype]) {
    Object.defineProperty(proto, "toJSON", { value: undefined, writable: false, configurable: false, enumerable: false });
  }
  const copy = (o) => { const c = {}; for (const n of names(o)) { try { c[n] = o[n]; } catch (_) {} } return freeze(c); };
  const JSONcopy = freeze({ stringify: JSON.stringify, parse: JSON.parse });
  const MathCopy = copy(Math);
  const log = console.log.bind(console), error = console.error.bind(console);
  let asserts = 0, failed = false, finished = false;
  const fail = (what) => { failed = true; write(2, "assertion failed: " + what + "\n"); reallyExit(__EXIT__); };
  const consoleCopy = freeze({ ...copy(console), log, error,
    assert: (cond, ...rest) => { asserts++; if (!cond) { fail(rest.length ? String(rest[0]) : "console.assert"); } } });
  return freeze({
    console: consoleCopy, JSON: JSONcopy, Math: MathCopy,
    run: (test) => { test(); finished = true; },
    finish: () => {
      if (failed || !finished || asserts === 0) { write(2, "the tests did not run to their end\n"); reallyExit(__EXIT__); }
      write(1, "\n__MARKER__\n");
      reallyExit(0);
    },
  });
})();
"""
_JS_EXPORT = re.compile(r"^export\s+(?:default\s+)?(?=(?:async\s+)?function\b|const\b|let\b|var\b|class\b)", re.M)
_JS_TEST_FN = re.compile(r"^const\s+(test\w*)\s*=", re.M)


class JavaScriptShape(Shape):
    """Assay's prelude, prompt + completion, then the test function run by Assay with the prelude's copies."""

    build = "{node} --check main.js"
    run = "{node} main.js"

    def files(self, language: Language, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        name = "__assay_" + secrets.token_hex(6)
        prelude = JS_PRELUDE.replace("__ASSAY__", name).replace("__EXIT__", str(ASSERT_EXIT)).replace("__MARKER__", marker)
        program = _JS_EXPORT.sub("", code)
        tests = test_program(problem).code
        functions = _JS_TEST_FN.findall(tests)
        # The tests' own top-level calls of their test function are dropped: Assay calls it, once.
        body = "\n".join(line for line in tests.splitlines() if not any(re.fullmatch(rf"\s*{f}\s*\(\s*\)\s*;?\s*", line) for f in functions))
        runs = "".join(f"  {name}.run({f});\n" for f in functions)
        wrapped = f"\n;((console, JSON, Math) => {{\n{body}\n{runs}}})({name}.console, {name}.JSON, {name}.Math);\n{name}.finish();\n"
        return {"main.js": (prelude + program + "\n" + wrapped).encode()}


# ------------------------------------------------------------------ Go

# The standard packages upstream's harness imports when the code names them (IMPORT_HELPER["go"]).
GO_PACKAGES = ("math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort", "math/rand", "crypto/md5")
GO_PATH = "/usr/share/gocode"  # Debian's golang-github-stretchr-testify-dev (and its dependencies)
_GO_TEST = re.compile(r"^func\s+(Test\w*)\s*\(\s*(\w+)\s+\*testing\.T\s*\)", re.M)
_GO_IMPORT_BLOCK = re.compile(r"^import\s*\(([^)]*)\)", re.M)
_GO_IMPORT_LINE = re.compile(r'^import\s+(\w+\s+)?"([^"]+)"', re.M)
_GO_PACKAGE = re.compile(r"^package\s+\w+\s*$", re.M)
# The start of Assay's TestMain for Go tests (flags reset, wrappers in), shared with assay.judging.polyglot.
GO_TESTMAIN_HEAD = """import (
\tassay_flag "flag"
\tassay_os "os"
\tassay_testing "testing"
)

var assay_done_{tag} = map[string]bool{{}}

{wrappers}

func TestMain(m *assay_testing.M) {{
\tassay_flag.Parse()
\tfor name, value := range map[string]string{{"test.run": "", "test.skip": "", "test.list": "", "test.count": "1", "test.shuffle": "off",
\t\t"test.failfast": "false", "test.bench": "", "test.fuzz": "", "test.short": "false"}} {{
\t\t_ = assay_flag.Set(name, value) // a flag this Go version lacks stays unset
\t}}
"""
GO_HARNESS = "package main\n\n" + GO_TESTMAIN_HEAD + """\tif m.Run() != 0 {{
\t\tassay_os.Exit({code})
\t}}
\tfor _, name := range []string{{{names}}} {{
\t\tif !assay_done_{tag}[name] {{
\t\t\tassay_os.Stderr.WriteString("test " + name + " did not run to its end\\n")
\t\t\tassay_os.Exit({code})
\t\t}}
\t}}
\tassay_os.Stdout.WriteString("\\n{marker}\\n")
\tassay_os.Exit(0)
}}
"""
GO_SEED = """package main

import (
\t"bytes"
\t"crypto/md5"
\t"fmt"
\t"math"
\t"math/rand"
\t"regexp"
\t"sort"
\t"strconv"
\t"strings"
\t"testing"
\t"time"

\t"github.com/stretchr/testify/assert"
)

func Seed() string {
\treturn fmt.Sprint(bytes.ToUpper(nil), md5.Sum(nil), math.Abs(-1), rand.Intn(2), regexp.MustCompile("a"), sort.IntsAreSorted(nil),
\t\tstrconv.Itoa(1), strings.ToUpper("a"), time.Now().Year())
}

func TestSeed(t *testing.T) {
\tassert := assert.New(t)
\tassert.Equal(true, Seed() != "")
}
"""
SEED_ENV = "ASSAY_HUMANEVAL_X_GO_SEED"


def go_imports(code: str) -> list[tuple[str, str]]:
    """(local name or "", path) of the import specs in Go code."""
    found: list[tuple[str, str]] = []
    for block in _GO_IMPORT_BLOCK.finditer(code):
        found += [(m.group(1) or "", m.group(2)) for m in re.finditer(r'(?:(\w+)\s+)?"([^"]+)"', block.group(1))]
    found += [((m.group(1) or "").strip(), m.group(2)) for m in _GO_IMPORT_LINE.finditer(code)]
    return found


def _strip_go_comments(code: str) -> str:
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    code = re.sub(r'"(?:\\.|[^"\\\n])*"|`[^`]*`', '""', code)
    return re.sub(r"//[^\n]*", "", code)


def go_seed_slot(toolchain: Toolchain) -> Path | None:
    """The support slot of the seed build cache (testify and the standard packages upstream imports), created empty now."""
    return support_slot("humaneval-x-go-seed", digest(toolchain.version, os.path.realpath(toolchain.tools["go"]), GO_SEED, GO_PATH))


class GoShape(Shape):
    """One _test.go file as upstream's (package main, testing and testify, the standard packages the code
    names, prompt less its imports, completion, tests with each TestX renamed) and Assay's TestMain beside it."""

    build = (f'if [ -d "${SEED_ENV}" ]; then cp -R "${SEED_ENV}" /tmp/go-cache; fi; '
             "GO111MODULE=off GOPATH=" + GO_PATH + " GOFLAGS= {go} test -c -o main.test main_test.go assay_main_test.go")
    run = "./main.test"

    def prepare(self, language: Language, toolchain: Toolchain) -> dict[str, str]:
        if not os.path.isdir(f"{GO_PATH}/src/github.com/stretchr/testify/assert"):
            raise ToolchainMissing("Go: testify is missing; install with: apt-get install -y golang-github-stretchr-testify-dev")
        slot = go_seed_slot(toolchain)
        if slot is None:
            return {}
        seed = slot / "cache"

        def build(cache: Path) -> None:
            work = cache.parent
            (work / "seed_test.go").write_text(GO_SEED)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work), **toolchain.env, "GOCACHE": str(cache),
                   "GO111MODULE": "off", "GOPATH": GO_PATH, "GOFLAGS": ""}
            run_host([toolchain.tools["go"], "test", "-c", "-o", "seed.test", "seed_test.go"], work, timeout=600, env=env)
            if not cache.is_dir():
                raise OSError(f"go left no build cache in {cache}")

        return {SEED_ENV: str(seed)} if build_once(seed, build) else {}

    def files(self, language: Language, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        prompt_imports = str(problem.extra.get("import") or "")
        program = code.replace(prompt_imports, "", 1) if prompt_imports and code.startswith(problem.prompt) else code
        own = [spec for spec in go_imports(program) if spec[1] not in ("testing", "github.com/stretchr/testify/assert")]
        program = _GO_IMPORT_LINE.sub("", _GO_IMPORT_BLOCK.sub("", _GO_PACKAGE.sub("", program)))
        names = _strip_go_comments(program + "\n" + test_program(problem).code)  # Go/32's tests use math/rand
        have = {path for _, path in own}
        extra = [("", p) for p in GO_PACKAGES if p not in have and re.search(rf"\b{re.escape(p.split('/')[-1])}\.", names)]
        specs = [("", "testing"), ("", "github.com/stretchr/testify/assert"), *own, *extra]
        header = "package main\n\nimport (\n" + "".join(f'    {alias + " " if alias else ""}"{path}"\n' for alias, path in specs) + ")\n"
        tag = secrets.token_hex(4)
        tests = test_program(problem).code
        found = _GO_TEST.findall(tests)
        tests = _GO_TEST.sub(lambda m: f"func assay_{tag}_{m.group(1)}({m.group(2)} *testing.T)", tests)
        wrappers = "\n".join(f"func {name}(t *assay_testing.T) {{\n\tassay_{tag}_{name}(t)\n\tif !t.Failed() && !t.Skipped() {{\n"
                             f'\t\tassay_done_{tag}["{name}"] = true\n\t}}\n}}' for name, _ in found)
        harness = GO_HARNESS.format(tag=tag, wrappers=wrappers, code=ASSERT_EXIT, marker=marker,
                                    names=", ".join(f'"{name}"' for name, _ in found))
        return {"main_test.go": (header + "\n" + program + "\n" + tests).encode(), "assay_main_test.go": harness.encode()}


# ------------------------------------------------------------------ Rust

CRATES_DIR_ENV = "ASSAY_HUMANEVAL_X_CRATES_DIR"
RUST_CRATES = {"rand": "0.8", "regex": "1", "md5": "0.7"}  # upstream's Cargo.toml: rand 0.4, regex 1, md5 0.7.0
CARGO_REGISTRY = "/usr/share/cargo/registry"  # Debian's librust-*-dev sources
_RUST_TEST = re.compile(r"#\[test\]\s*(?://[^\n]*\n\s*)*(?:pub\s+)?fn\s+(\w+)")  # Rust/50: a comment between


def _build_crates(work: Path, rustc: str) -> None:
    """The crates' rlibs, built by cargo offline from Debian's sources with the sandbox's rustc (a debug build)."""
    crate = work / "crate"
    (crate / "src").mkdir(parents=True)
    (crate / "src" / "lib.rs").write_text("")
    deps = "".join(f'{name} = "{version}"\n' for name, version in RUST_CRATES.items())
    (crate / "Cargo.toml").write_text(f'[package]\nname = "assay_crates"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n{deps}')
    home = work / "cargo-home"
    home.mkdir()
    (home / "config.toml").write_text(f'[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "{CARGO_REGISTRY}"\n')
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work), "CARGO_HOME": str(home), "RUSTC": rustc,
           "CARGO_TARGET_DIR": str(work / "target")}
    cargo = Path(rustc).with_name("cargo")  # the toolchain's own cargo, not rustup's proxy
    run_host([str(cargo) if cargo.exists() else "cargo", "build", "--offline", "-q"], crate, timeout=900, env=env)
    (work / "deps").mkdir()
    for rlib in (work / "target" / "debug" / "deps").glob("*.rlib"):
        rlib.rename(work / "deps" / rlib.name)
    for path in sorted((work / "target").rglob("*"), reverse=True):
        path.unlink() if path.is_file() or path.is_symlink() else path.rmdir()
    (work / "target").rmdir()


class RustShape(Shape):
    """prompt + completion, Assay's assertion macros, the tests with their #[test] functions made plain,
    and a main that calls each of them, then prints the marker; the crates linked with --extern."""

    build = "{rustc} --edition 2021 -C codegen-units=2 -A warnings $ASSAY_HUMANEVAL_X_CRATES -o main main.rs"
    run = "./main"

    def prepare(self, language: Language, toolchain: Toolchain) -> dict[str, str]:
        if not all(any(Path(CARGO_REGISTRY).glob(f"{name}-{version}*")) for name, version in RUST_CRATES.items()):
            raise ToolchainMissing("Rust: HumanEval-X's crates are missing; install with: apt-get install -y librust-rand-dev librust-regex-dev librust-md5-dev")
        rustc = toolchain.tools["rustc"]
        key = digest(toolchain.version, os.path.realpath(rustc), sorted(RUST_CRATES.items()),
                     sorted(p.name for p in Path(CARGO_REGISTRY).iterdir()))
        try:
            support = support_dir("humaneval-x-crates", key, lambda work: _build_crates(work, rustc))
        except (OSError, subprocess.SubprocessError) as exc:
            raise ToolchainMissing(f"Rust: could not build HumanEval-X's crates ({exc}); install cargo and librust-*-dev") from None
        externs = [f"-L dependency={support / 'deps'}"]
        for name in RUST_CRATES:
            rlibs = sorted((support / "deps").glob(f"lib{name}-*.rlib"))
            if rlibs:
                externs.append(f"--extern {name}={rlibs[0]}")
        return {"ASSAY_HUMANEVAL_X_CRATES": " ".join(externs), CRATES_DIR_ENV: str(support)}

    def files(self, language: Language, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        from assay.languages.rust import ASSERT_SHIM

        program = re.sub(r"^([ \t]*(?:pub\s+)?fn\s+)main(\s*\()", r"\1assay_sample_main\2", code, flags=re.M)
        if _whole(problem, code):  # the declaration's `use` lines the tests rely on (rand::Rng), where the program lacks them
            uses = [line for line in problem.prompt.splitlines() if line.startswith("use ") and line not in program.splitlines()]
            program = "\n".join(uses) + "\n" + program
        tests = test_program(problem).code
        names = _RUST_TEST.findall(re.sub(r"/\*.*?\*/", "", tests, flags=re.S))  # Rust/32's tests are all in a comment
        tests = tests.replace("#[cfg(test)]", "")
        # rand 0.4's gen_range(low, high), as upstream pinned it, is rand 0.8's gen_range(low..high) (Rust/50)
        tests = re.sub(r"\bgen_range\(([^,()]+),\s*([^()]+?)\)", r"gen_range(\1..\2)", tests)
        tests = _RUST_TEST.sub(lambda m: f"#[allow(dead_code)]\npub fn {m.group(1)}", tests)
        calls = "".join(f"    tests::{name}();\n" for name in names)
        main = ("\nfn main() {\n" + calls + "    use std::io::Write as _;\n    let _ = std::io::stdout().flush();\n"
                + f'    println!("\\n{marker}");\n    let _ = std::io::stdout().flush();\n    std::process::exit(0);\n}}\n')
        if not names:  # no test at all: nothing may pass
            main = f"\nfn main() {{\n    eprintln!(\"no tests\");\n    std::process::exit({ASSERT_EXIT});\n}}\n"
        return {"main.rs": (program + "\n" + ASSERT_SHIM + "\n" + tests + "\n" + main).encode()}


def support_binds(language: Language) -> list[str]:
    """The support directories a language's native shape needs the sandbox to show (built or slotted now)."""
    try:
        toolchain = language.toolchain()
        if language.name == "go":
            slot = go_seed_slot(toolchain)
            return [str(slot)] if slot is not None else []
        if language.name == "rust":
            return [RustShape().prepare(language, toolchain)[CRATES_DIR_ENV]]
    except (ToolchainMissing, KeyError):
        return []
    return []


SHAPES: dict[str, Shape] = {"cpp": CppShape(), "java": JavaShape(), "javascript": JavaScriptShape(), "go": GoShape(), "rust": RustShape()}
