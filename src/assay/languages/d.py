"""D: gdc builds the program with its unittest blocks (as MultiPL-E runs `rdmd -unittest -main`), then it runs.

MultiPL-E's D tests are a `unittest { ... assert(...); }` block and an empty `void main(){}`. D's
`assert` cannot be shadowed, so the test section installs its own unit-test runner (a module
constructor sets `Runtime.extendedModuleUnitTester`): it runs every unittest block, exits with
ASSERT_EXIT when an AssertError comes from the test section (a `#line` directive names its file),
exits with status 1 on any other Throwable (the sample's own asserts, RangeError, exceptions), and
prints the completion marker after the last test, without running `main`.

Cases (assay.judging.cases): the sample, then the case harness in its place: the same kind of unit-test
runner (set from a `shared static this()` after the sample's), which runs no unittest block but the
cases: each call (MultiPL-E's own, or rendered as its translator writes literals) in a try block that
catches any Throwable (an exception, a RangeError, an AssertError of the sample's own), its result
encoded by its static D type and written to fd 3. `main` does not run, as before (an empty one is
added where the sample has none). The harness's functions are built once per machine into a module of
their own (assay_harness.o in a support directory, with its source to import for its one template, the
encoding by static type); the runner names it by `static import`, and a case build links its object
file, with gold where it links (ld.bfd took a third of a build). ASSAY_D_HARNESS=0, or a module that
cannot be built: the harness's items are in the program. What D's `==` makes of MultiPL-E's tests is kept:
its floats are `float` compared with double literals (0.1f != 0.1: only the exact float32 value
equals the expected one, which plain equality on the exact value gives), and an empty dict is a
null Nullable!(V[K]) (MultiPL-E's `___null_dict___`, tested with isNull): a null one is written as
the empty dict, a non-null empty one as something no dict equals.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, Language, PhaseLimits, Toolchain, Unrepresentable
from assay.languages.harness import NotSplittable, balanced
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type

TESTS_FILE = "assay-tests.d"  # the file name the test section's asserts report, via #line

_RUNNER = """
shared static this()
{{
    import core.runtime : Runtime;
    Runtime.extendedModuleUnitTester = &assay_unittests;
}}

auto assay_unittests()
{{
    import core.runtime : UnitTestResult;
    import core.exception : AssertError;
    import core.stdc.stdio : fflush, fprintf, puts, stderr, stdout;
    import core.stdc.stdlib : exit;
    UnitTestResult result;
    foreach (m; ModuleInfo)
    {{
        if (m is null || m.unitTest is null)
            continue;
        ++result.executed;
        try
            m.unitTest()();
        catch (Throwable e)
        {{
            fflush(stdout);
            auto kind = typeid(e).name;
            fprintf(stderr, "%.*s@%.*s(%d): %.*s\\n", cast(int) kind.length, kind.ptr, cast(int) e.file.length, e.file.ptr,
                    cast(int) e.line, cast(int) e.msg.length, e.msg.ptr);
            auto failed = cast(AssertError) e;
            exit(failed !is null && failed.file == "{file}" ? {code} : 1);
        }}
        ++result.passed;
    }}
    fflush(stdout);
    puts("{marker}");
    fflush(stdout);
    result.runMain = false;  // main is no test: a sample's own main must not run (or exit) after them
    return result;
}}
"""

# The case harness (see assay.judging.records): a unit-test runner that runs the cases, one record per case on fd 3.
# Its functions (HARNESS_ITEMS) are built once per machine into a module of their own (assay_harness.o,
# imported from a support directory, see D.toolchain), or, where that build is not possible, written
# into the program. Its one template (the encoding by static type, which the program instantiates)
# names no module: it needs no import of Phobos's std.traits or std.typecons of its own.
HARNESS_ITEMS = """
void assay_emit(const(char)[] line)
{
    import core.stdc.errno : EINTR, errno;
    import core.stdc.stdlib : exit;
    import core.sys.posix.unistd : write;
    while (line.length > 0)
    {
        auto n = write(3, line.ptr, line.length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            exit(125);  // the channel is gone: the records so far stand
        line = line[n .. $];
    }
}

void assay_string(ref char[] o, const(char)[] s)
{
    import core.stdc.stdio : snprintf;
    o ~= '"';
    foreach (char c; s)
    {
        if (c == '"' || c == '\\\\')
        {
            o ~= '\\\\';
            o ~= c;
        }
        else if (c < 0x20 || c == 0x7f)
        {
            char[8] e;
            auto n = snprintf(e.ptr, e.length, "\\\\u%04x", cast(int) c);
            o ~= e[0 .. n];
        }
        else
            o ~= c;
    }
    o ~= '"';
}

void assay_long(ref char[] o, long v)
{
    import core.stdc.stdio : snprintf;
    char[40] buffer;
    o ~= buffer[0 .. snprintf(buffer.ptr, buffer.length, "%lld", v)];
}

void assay_ulong(ref char[] o, ulong v)
{
    import core.stdc.stdio : snprintf;
    char[40] buffer;
    o ~= buffer[0 .. snprintf(buffer.ptr, buffer.length, "%llu", v)];
}

void assay_double(ref char[] o, double d)
{
    import core.stdc.stdio : snprintf;
    char[40] buffer;
    if (d != d)
        o ~= "NaN";
    else if (d == double.infinity)
        o ~= "Infinity";
    else if (d == -double.infinity)
        o ~= "-Infinity";
    else
        o ~= buffer[0 .. snprintf(buffer.ptr, buffer.length, "%.17g", d)];  // a float's value exactly: %.17g round-trips a double
}

char[] assay_number(size_t i, const(char)[] kind)
{
    import core.stdc.stdio : snprintf;
    char[24] buffer;
    return buffer[0 .. snprintf(buffer.ptr, buffer.length, "%zu", i)].dup ~ kind;
}

void assay_end(ref char[] line)
{
    line ~= '\\n';
    assay_emit(line);
}

void assay_e(size_t i, Throwable e)
{
    auto line = assay_number(i, " e ");
    const(char)[] message = "a Throwable";
    try
        message = e.msg;
    catch (Throwable)
    {
    }
    foreach (char c; message.length > 300 ? message[0 .. 300] : message)
        line ~= c == '\\n' || c == '\\r' ? ' ' : c;
    assay_end(line);
}

void assay_done(size_t n)
{
    import core.stdc.stdio : fflush, stdout;
    auto line = "done " ~ assay_number(n, "");
    assay_end(line);
    fflush(stdout);
}

// The encoding by static type: a template, instantiated by the program for its result type.
void assay_put(T)(ref char[] o, auto ref T v)
{
    alias U = typeof(cast() v);
    static if (is(U == bool))
        o ~= v ? "true" : "false";
    else static if (is(U == typeof(null)))
        o ~= "null";
    else static if (__traits(isIntegral, U) && !assay_is_char!U && !__traits(isUnsigned, U))
        assay_long(o, v);
    else static if (__traits(isIntegral, U) && !assay_is_char!U)
        assay_ulong(o, v);
    else static if (__traits(isFloating, U))
        assay_double(o, v);
    else static if (is(U == E[], E) && is(immutable E == immutable char))
        assay_string(o, v);
    else static if (is(U == S1!A1, alias S1, A1...) && __traits(identifier, S1) == "Nullable")
    {
        static if (__traits(isAssociativeArray, typeof(v.get)))
        {
            // MultiPL-E's empty dict is a null Nullable (___null_dict___, tested with isNull)
            if (v.isNull)
                o ~= "[]";
            else if (v.get.length == 0)
                o ~= `"a non-null empty associative array"`;
            else
                assay_put(o, v.get);
        }
        else if (v.isNull)
            o ~= "null";
        else
            assay_put(o, v.get);
    }
    else static if (is(U == S2!A2, alias S2, A2...) && __traits(identifier, S2) == "Tuple")
    {
        o ~= '[';
        foreach (i, x; v.expand)
        {
            static if (i > 0)
                o ~= ',';
            assay_put(o, x);
        }
        o ~= ']';
    }
    else static if (__traits(isAssociativeArray, U))
    {
        o ~= '[';
        bool first = true;
        foreach (key, value; v)
        {
            if (!first)
                o ~= ',';
            first = false;
            o ~= '[';
            assay_put(o, key);
            o ~= ',';
            assay_put(o, value);
            o ~= ']';
        }
        o ~= ']';
    }
    else static if (is(U == void[]))
        o ~= "[]";  // the type of the literal []
    else static if (is(U == E1[], E1) || is(U == E2[n], E2, size_t n))
    {
        o ~= '[';
        foreach (i, ref x; v)
        {
            if (i > 0)
                o ~= ',';
            assay_put(o, x);
        }
        o ~= ']';
    }
    else
        throw new Exception("a result of type " ~ U.stringof ~ " is not plain data");
}

void assay_v(T)(size_t i, auto ref T v)
{
    auto line = assay_number(i, " v ");
    assay_put(line, v);
    assay_end(line);
}

// A character type: no number, though __traits(isIntegral) says it is one.
enum assay_is_char(U) = is(U == char) || is(U == wchar) || is(U == dchar);
"""
HARNESS_MODULE = "/** Assay's case harness for D (assay.languages.d), compiled once. */\nmodule assay_harness;\n" + HARNESS_ITEMS

# The program's own part, after the sample: the runner that runs the cases (set from a `shared static
# this()` after the sample's); __H__ is how it names the harness (`assay_harness.`, or nothing inline).
_CASES = """
shared static this()
{
    import core.runtime : Runtime;
    Runtime.extendedModuleUnitTester = &assay_cases;
}

auto assay_cases()
{
    import core.runtime : UnitTestResult;
__IMPORT__    alias candidate = __ENTRY__;
__CASES__
    __H__assay_done(__COUNT__);
    UnitTestResult result;
    result.runMain = false;  // main is no case: a sample's own main must not run (or exit) after them
    return result;
}
"""

HARNESS_ENV = "ASSAY_D_HARNESS"  # 0: no module built once, the harness is compiled with each sample
CASE_BUILD = "{gdc} -funittest $ASSAY_D_CASE -o main main.d"
GOLD = "-fuse-ld=gold"  # gold links a D program in half the time of ld.bfd (where the probe finds it)


_MAIN = re.compile(r"^\s*(?:void|int)\s+main\s*\(", re.MULTILINE)
_TESTS_MAIN = re.compile(r"^void main\(\)\s*\{\s*\}\s*$", re.MULTILINE)


class D(Language):
    """D with GCC's front end (Debian's gdc)."""

    float32 = True  # MultiPL-E's floats are 32-bit here

    name = "d"
    display = "D"
    multipl_e = "d"
    stops = ("\n\n", "\nvoid", "\nbool", "\nint")
    typed_declarations = True
    source = "main.d"
    tools = ("gdc",)
    version_args = ("--version",)
    install_hint = "apt-get install -y gdc"
    build = "{gdc} -funittest -o main main.d"
    run = "./main"
    # The prompt ends with the function's signature; the completion writes its body.
    stub = '{\n    throw new Exception("stub");\n}\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=4 * GiB, processes=64)

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """gdc, plus the case harness's module built once (support directory d-<key>, named to case
        builds by $ASSAY_D_CASE): a case build then compiles the sample, its calls and the one template
        instance of its result type only. Off with ASSAY_D_HARNESS=0, or where it cannot be built: the
        harness goes into the program."""
        base = super().toolchain()
        gdc = base.tools["gdc"]
        if switched_off(HARNESS_ENV):
            return base
        real = os.path.realpath(gdc)
        key = digest(base.version, real, file_stamp(real), HARNESS_MODULE, GOLD)
        try:
            support = support_dir("d", key, lambda work: _build_harness_module(work, gdc))
        except (OSError, subprocess.SubprocessError):
            return base
        if not (support / "assay_harness.o").exists() or re.search(r"\s", str(support)):
            return base
        flags = f"-I {support} {support / 'assay_harness.o'}" + (f" {GOLD}" if (support / "gold").exists() else "")
        return dataclasses.replace(base, ro_binds=tuple(sorted({*base.ro_binds, str(support)})), env={**base.env, "ASSAY_D_CASE": flags})

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """code + tests; a whole program's own main replaces the tests' empty one (two would not build)."""
        tests = self.wrap_tests(test_program(problem).code, marker)
        if _MAIN.search(code):
            tests = _TESTS_MAIN.sub("", tests)
        return code + "\n" + tests

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The runner, then the tests under a #line directive that names their file for AssertError."""
        runner = _RUNNER.format(file=TESTS_FILE, code=ASSERT_EXIT, marker=marker)
        return runner + f'#line 1 "{TESTS_FILE}"\n' + tests

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The `candidate(...)` of each `assert(candidate(...) == expected);` and of each Nullable test's
        `auto result = candidate(...);` (its asserts on `result` are that one case's); a string may span lines."""
        calls: list[str] = []
        try:
            for found in re.finditer(r"^[ \t]*(?:assert\(|auto\s+result\s*=\s*)(?=candidate\()", tests, re.M):
                end = balanced(tests, found.end() + len("candidate"), quotes='"')
                calls.append(tests[found.end() : end])
        except NotSplittable:
            return None
        asserts = len(re.findall(r"^[ \t]*assert\(candidate\(", tests, re.M))
        if asserts + len(re.findall(r"^[ \t]*auto\s+result\s*=", tests, re.M)) != len(calls):
            return None
        return [(call, "") for call in calls]

    def render_value(self, value: Any, t: Type) -> str:
        """A D literal as MultiPL-E writes it for a value of type t: `5L`, `[1L, 2L]`, `tuple(..)`, `[k: v].nullable`."""
        return d_literal(value, t)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`candidate(...)`, each argument a literal of its parameter's type."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        return f"candidate({', '.join(d_literal(a, t) for a, t in zip(args, signature.param_types, strict=True))})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample, an empty main where it has none, then the runner of the cases: with the harness's
        module built once, imported (`static import`, in the runner's own scope), else the harness's
        items before it (MultiPL-E's unittest is not kept)."""
        assert isinstance(problem.tests, CaseTests)
        tests = test_program(problem).code
        found = re.search(r"\balias\s+candidate\s*=\s*([A-Za-z_]\w*)\s*;", tests)
        entry = found.group(1) if found else problem.entry_point
        prebuilt = D.has_support("ASSAY_D_CASE")
        h = "assay_harness." if prebuilt else ""
        cases = "\n".join(f"    try {h}assay_v({i}, {call}); catch (Throwable e) {h}assay_e({i}, e);" for i, call in enumerate(calls))
        runner = (_CASES.replace("__IMPORT__", "    static import assay_harness;\n" if prebuilt else "").replace("__ENTRY__", entry)
                  .replace("__CASES__", cases).replace("__H__", h).replace("__COUNT__", str(len(calls))))
        main = "" if _MAIN.search(code) else "void main(){}\n"
        return {self.source: (code + "\n" + main + ("" if prebuilt else HARNESS_ITEMS) + runner).encode()}

    def build_command(self, problem: Problem) -> str | None:
        """A case build with the harness's module built once imports it and links its object file (with
        gold, where it links here); any other build is the program's."""
        if isinstance(problem.tests, CaseTests) and D.has_support("ASSAY_D_CASE"):
            return CASE_BUILD
        return self.build



def _build_harness_module(work: Path, gdc: str) -> None:
    """assay_harness.o from HARNESS_MODULE, compiled as a sample's build compiles it, and its source
    (the import the case builds read: its template's body is needed); the file `gold` where a probe
    program links with gold and runs."""
    (work / "assay_harness.d").write_text(HARNESS_MODULE)
    run_host([gdc, "-funittest", "-c", "-o", "assay_harness.o", "assay_harness.d"], work)
    probe = work / "probe"
    probe.mkdir()
    try:
        (probe / "main.d").write_text("import core.stdc.stdio : puts;\nstatic import assay_harness;\n"
                                      "void main() { auto line = assay_harness.assay_number(7, \" v \"); assay_harness.assay_put(line, [1L, -2L]); "
                                      "line ~= '\\0'; puts(line.ptr); }\n")
        run_host([gdc, GOLD, "-I", str(work), "-o", "main", "main.d", str(work / "assay_harness.o")], probe)
        out = subprocess.run([str(probe / "main")], capture_output=True, text=True, timeout=60)
        if out.returncode == 0 and out.stdout == "7 v [1,-2]\n":
            (work / "gold").write_text("")
    except (OSError, subprocess.SubprocessError):
        pass
    finally:
        shutil.rmtree(probe, ignore_errors=True)

LONG = 2**63


def d_type(t: Type) -> str:
    """The D type MultiPL-E declares for a Python type (a dict is a Nullable associative array)."""
    k = t.kind
    scalars = {"int": "long", "float": "float", "str": "string", "bool": "bool"}
    if k in scalars:
        return scalars[k]
    if k in ("list", "vtuple"):
        return d_type(t.args[0]) + "[]"
    if k == "tuple":
        return f"Tuple!({', '.join(d_type(a) for a in t.args)})"
    if k == "dict":
        return f"Nullable!({d_type(t.args[1])}[{d_type(t.args[0])}])"
    if k == "optional":
        return f"Nullable!({d_type(t.args[0])})"
    raise Unrepresentable(f"type: MultiPL-E's D has no {t}")


def d_literal(value: Any, t: Type) -> str:
    """A D expression of type t for a plain value, as MultiPL-E's translator writes it where that compiles
    (ints with an L, even where a float is wanted; a non-empty dict `[k: v].nullable`, an empty one the null
    `Nullable!(V[K]).init`); where it would not (an empty dict inside a list, quotes and backslashes, which it
    escapes by halves) the literal of the type."""
    k = t.kind
    if k == "optional":
        return f"{d_type(t)}.init" if value is None else f"{d_type(t)}({d_literal(value, t.args[0])})"
    if value is None:
        raise Unrepresentable(f"None: where the type is {t}")
    if k == "bool" and isinstance(value, bool):
        return "true" if value else "false"
    if k in ("int", "float") and isinstance(value, int) and not isinstance(value, bool):
        if not -LONG <= value < LONG:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return f"{value}L" if value != -LONG else "long.min"
    if k == "float" and isinstance(value, float):
        if math.isnan(value):
            return "float.nan"
        if math.isinf(value):
            return "float.infinity" if value > 0 else "-float.infinity"
        return repr(value)
    if k == "str" and isinstance(value, str):
        return d_string(value)
    if k in ("list", "vtuple") and isinstance(value, (list, tuple)):
        return "[" + ", ".join(d_literal(v, t.args[0]) for v in value) + "]"
    if k == "tuple" and isinstance(value, (list, tuple)) and len(value) == len(t.args):
        return "tuple(" + ", ".join(d_literal(v, a) for v, a in zip(value, t.args, strict=True)) + ")"
    if k == "dict" and isinstance(value, dict):
        if not value:
            return f"{d_type(t)}.init"
        return "[" + ", ".join(f"{d_literal(a, t.args[0])}: {d_literal(b, t.args[1])}" for a, b in value.items()) + "].nullable"
    if k in ("any", "union", "set", "none"):
        raise Unrepresentable(f"type: MultiPL-E's D has no {t}")
    raise Unrepresentable(f"type: {value!r} is not a {t}"[:200])


def d_string(text: str) -> str:
    """A D string literal."""
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
