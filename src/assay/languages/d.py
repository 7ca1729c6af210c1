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
encoded by its static D type (std.traits) and written to fd 3. `main` does not run, as before (an
empty one is added where the sample has none). What D's `==` makes of MultiPL-E's tests is kept:
its floats are `float` compared with double literals (0.1f != 0.1: only the exact float32 value
equals the expected one, which plain equality on the exact value gives), and an empty dict is a
null Nullable!(V[K]) (MultiPL-E's `___null_dict___`, tested with isNull): a null one is written as
the empty dict, a non-null empty one as something no dict equals.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, Language, RunLimits, Unrepresentable
from assay.languages.harness import NotSplittable, balanced
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
_CASE_HARNESS = """
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

void assay_put(T)(ref char[] o, auto ref T v)
{
    import core.stdc.stdio : snprintf;
    import std.traits : isArray, isAssociativeArray, isFloatingPoint, isIntegral, isSigned, isSomeString, Unqual;
    import std.typecons : isTuple, Nullable;
    alias U = Unqual!T;
    char[40] buffer;
    static if (is(U == bool))
        o ~= v ? "true" : "false";
    else static if (is(U == typeof(null)))
        o ~= "null";
    else static if (isIntegral!U && isSigned!U)
        o ~= buffer[0 .. snprintf(buffer.ptr, buffer.length, "%lld", cast(long) v)];
    else static if (isIntegral!U)
        o ~= buffer[0 .. snprintf(buffer.ptr, buffer.length, "%llu", cast(ulong) v)];
    else static if (isFloatingPoint!U)
    {
        double d = v;  // a float's value exactly: %.17g round-trips a double
        if (d != d)
            o ~= "NaN";
        else if (d == double.infinity)
            o ~= "Infinity";
        else if (d == -double.infinity)
            o ~= "-Infinity";
        else
            o ~= buffer[0 .. snprintf(buffer.ptr, buffer.length, "%.17g", d)];
    }
    else static if (isSomeString!U && is(typeof(v[0]) : const(char)))
        assay_string(o, v);
    else static if (is(U == Nullable!X, X))
    {
        static if (isAssociativeArray!X)
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
    else static if (isTuple!U)
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
    else static if (isAssociativeArray!U)
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
    else static if (isArray!U)
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

char[] assay_number(size_t i, const(char)[] kind)
{
    import core.stdc.stdio : snprintf;
    char[24] buffer;
    return buffer[0 .. snprintf(buffer.ptr, buffer.length, "%zu", i)].dup ~ kind;
}

void assay_v(T)(size_t i, auto ref T v)
{
    auto line = assay_number(i, " v ");
    assay_put(line, v);
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
    line ~= '\\n';
    assay_emit(line);
}

shared static this()
{
    import core.runtime : Runtime;
    Runtime.extendedModuleUnitTester = &assay_cases;
}

auto assay_cases()
{
    import core.runtime : UnitTestResult;
    import core.stdc.stdio : fflush, stdout;
    alias candidate = __ENTRY__;
__CASES__
    assay_emit("done __COUNT__\\n");
    fflush(stdout);
    UnitTestResult result;
    result.runMain = false;  // main is no case: a sample's own main must not run (or exit) after them
    return result;
}
"""

_MAIN = re.compile(r"^\s*(?:void|int)\s+main\s*\(", re.MULTILINE)
_TESTS_MAIN = re.compile(r"^void main\(\)\s*\{\s*\}\s*$", re.MULTILINE)


class D(Language):
    """D with GCC's front end (Debian's gdc)."""

    float32 = True  # MultiPL-E's floats are 32-bit here

    name = "d"
    display = "D"
    source = "main.d"
    tools = ("gdc",)
    version_args = ("--version",)
    install_hint = "apt-get install -y gdc"
    build = "{gdc} -funittest -o main main.d"
    run = "./main"
    # The prompt ends with the function's signature; the completion writes its body.
    stub = '{\n    throw new Exception("stub");\n}\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=4 * GiB, processes=64)

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
        """The sample, an empty main where it has none, then the case harness (MultiPL-E's unittest is not kept)."""
        assert isinstance(problem.tests, CaseTests)
        tests = test_program(problem).code
        found = re.search(r"\balias\s+candidate\s*=\s*([A-Za-z_]\w*)\s*;", tests)
        entry = found.group(1) if found else problem.entry_point
        cases = "\n".join(f"    try assay_v({i}, {call}); catch (Throwable e) assay_e({i}, e);" for i, call in enumerate(calls))
        harness = _CASE_HARNESS.replace("__ENTRY__", entry).replace("__CASES__", cases).replace("__COUNT__", str(len(calls)))
        main = "" if _MAIN.search(code) else "void main(){}\n"
        return {self.source: (code + "\n" + main + harness).encode()}


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
