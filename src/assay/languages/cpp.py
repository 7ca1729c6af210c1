"""C++: g++ -std=c++17 builds the program (no optimisation, assertions on, as MultiPL-E runs it), then it runs.

MultiPL-E's C++ tests close the prompt's function, then `int main() { ... assert(...); }`. The test
section gets its own `assert` (a failed one exits with ASSERT_EXIT instead of abort()'s SIGABRT,
which would look like any other crash), and its `main` is renamed: a real `main` calls it and then
prints the completion marker.

Every prompt includes <bits/stdc++.h>, which costs g++ about 3 s of CPU per program. A precompiled
header of <assert.h> + <bits/stdc++.h> (built on first use, once per g++ version, outside the
sandbox, from the system's headers only, into a support slot of the toolchain cache: see
assay.languages.support; shown to the sandbox read-only) is force-included and cuts that to about
0.5 s. GCC checks that it matches and falls back to the headers if not; ASSAY_CPP_PCH=0 turns it off.

Cases (assay.judging.cases): the sample is built as the test program has it (prompt + completion, or
a whole program spliced; then the `}` that closes its function), followed by a
`main` that evaluates each call (MultiPL-E's own, or rendered as its translator renders literals) in a
try block and writes the result to fd 3, encoded by the call's static C++ type (an exception is a
record of its own). The harness's declarations and templates are a case header, precompiled with
<bits/stdc++.h> and force-included before the sample; its functions (scalars, strings, std::any, the
channel) are compiled once into an object file beside it that each case build links. Compiled with every
sample instead, the harness cost g++ 0.05 s of CPU a program more than the test section did; now the two
cost the same. The sample's macros no longer reach the harness (only its main, which follows the
sample: `signed main` survives the commonest, `#define int long long`). With ASSAY_CPP_PCH=0, or where
the case header cannot be built, the whole harness follows the sample in its translation unit.
Results that are MultiPL-E's C++ unions are not cases: a C++ union
has no tag, so no harness can tell which member a sample returned (see test_calls).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, PhaseLimits, Toolchain, Unrepresentable
from assay.languages.braces import BraceLanguage, with_extras  # noqa: F401 - with_extras: re-exported
from assay.languages.cpp_support import (  # noqa: F401 - the constants and builds: re-exported
    CASE_DECLARATIONS,
    CASE_FUNCTIONS,
    CASE_HARNESS,
    CASES_ENV,
    CASES_HEADER,
    CASES_MARK,
    PCH_ENV,
    PCH_HEADER,
    PCH_TEXT,
    STD,
    build_case_header,
    build_pch,
    case_header,
    cases_dir,
    pch_dir,
)
from assay.languages.harness import NotSplittable, balanced
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type

TESTS_MAIN = "assay_tests_main"

# Only the test section sees this assert: the sample's own asserts (before it) still abort.
ASSERT_SHIM = f"""
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

# The case harness (see assay.judging.records): each case's result, encoded by its static C++ type, one
# record per line on fd 3. Two parts. CASE_DECLARATIONS: the encoder's templates and the declarations of
# its functions (every overload declared before the templates that call it: the arguments are std types,
# so lookup at instantiation would not find later ones). CASE_FUNCTIONS: those functions, which are no
# templates (scalars, strings, a std::any's contents, the channel, an exception's message). With the
# precompiled header, the declarations are in the case header (precompiled with <bits/stdc++.h>,
# force-included before the sample) and the functions in an object file built once beside it; without
# it, both follow the sample in its translation unit.
_MAIN = re.compile(r"\bint\s+main\s*\(\s*(?:void\s*)?\)")
_ANY_MAIN = re.compile(r"^[ \t]*(?:int|auto|void)\s+main\s*\([^)]*\)[^{;]*\{", re.MULTILINE)


class Cpp(BraceLanguage):
    """C++17 with GCC (Debian's g++)."""

    float32 = True  # MultiPL-E's floats are 32-bit here

    name = "cpp"
    aliases = ("c++",)
    display = "C++"
    multipl_e = "cpp"
    fence_tags = ("cc", "cxx")
    stops = ("\n}",)
    typed_declarations = True
    source = "main.cpp"
    tools = ("g++",)
    version_args = ("--version",)
    install_hint = "apt-get install -y g++"
    # Force-includes the precompiled header when there is one (-Winvalid-pch: says so when GCC must skip it).
    build = (f'if [ -r "${PCH_ENV}.gch" ]; then {{gpp}} {STD} -Winvalid-pch -include "${PCH_ENV}" -o main main.cpp; '
             f'else {{gpp}} {STD} -o main main.cpp; fi')
    run = "./main"
    stub = '    throw std::runtime_error("stub");\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=4 * GiB, processes=64)
    own_main: ClassVar[re.Pattern[str] | None] = _ANY_MAIN  # a whole program keeps its includes and helpers

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """g++, and the directories of the precompiled headers (built on first use) when it can have them:
        <bits/stdc++.h>'s, and the case header's (the same with the case harness's declarations, and an
        object file of its functions)."""
        found = super().toolchain()
        directory = pch_dir(found)
        if directory is None:
            return found
        binds, env = {*found.ro_binds, str(directory)}, {**found.env, PCH_ENV: str(directory / PCH_HEADER)}
        cases = cases_dir(found)
        if cases is not None:
            binds.add(str(cases))
            env[CASES_ENV] = str(cases / CASES_HEADER)
        return dataclasses.replace(found, ro_binds=tuple(sorted(binds)), env=env)

    def prepare(self, toolchain: Toolchain) -> None:
        """Build the precompiled headers and the harness's object file if they are due (once; any
        failure only costs speed)."""
        header = toolchain.env.get(PCH_ENV)
        if header:
            build_pch(toolchain.tools["g++"], Path(header))
        cases = toolchain.env.get(CASES_ENV)
        if cases:
            build_case_header(toolchain.tools["g++"], Path(cases))

    def build_command(self, problem: Problem) -> str | None:
        """A case build with the case header (case_files says so with the file CASES_MARK) force-includes
        it and links the harness's object file; any other build is the program's."""
        if not isinstance(problem.tests, CaseTests):
            return self.build
        # gold links where the probe found it works (ld.bfd took 50 of a case build's 400 ms; gold 12)
        return (f'if [ -e {CASES_MARK} ]; then if [ -e "${CASES_ENV}.gold" ]; then L=-fuse-ld=gold; else L=; fi; '
                f'{{gpp}} {STD} -Winvalid-pch -include "${CASES_ENV}" $L -o main main.cpp "${CASES_ENV}.o"; '
                f"else {self.build}; fi")

    def wrap_tests(self, tests: str, marker: str) -> str:
        """Close the function, then the assert shim, the tests' main renamed, and a main that prints the marker."""
        head, sep, rest = tests.partition("}\n")
        if not (tests.lstrip().startswith("}") and sep):
            head, sep, rest = "", "", tests
        # The tests' main never returns a value; a void function does not fall off the end of an int one.
        kind = "int" if re.search(r"\breturn\b", rest) else "void"
        rest = _MAIN.sub(f"{kind} {TESTS_MAIN}()", rest, count=1)
        main = f'\nint main() {{\n    {TESTS_MAIN}();\n    std::fflush(stdout);\n    std::puts("{marker}");\n    std::fflush(stdout);\n    return 0;\n}}\n'
        return head + sep + ASSERT_SHIM + rest + main

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The call of each `assert(candidate(...) == expected);`. None where the result is a union
        (MultiPL-E's C++ unions have no tag: no harness can read which member a sample returned), as the
        expected sides tell: a `Union_` type, or bare literals of more than one kind."""
        calls: list[str] = []
        kinds: set[str] = set()
        try:
            for line in tests.splitlines():
                stripped = line.strip()
                if not stripped.startswith("assert("):
                    continue
                at = stripped.find("candidate(")
                if at < 0:
                    return None
                end = balanced(stripped, at + len("candidate"), quotes='"')
                calls.append(stripped[at:end])
                rest = stripped[end:].strip()
                if not rest.startswith("=="):
                    return None
                expected = rest[2:].strip()
                if "Union_" in expected:
                    return None
                kinds.add(_bare_kind(expected))
        except NotSplittable:
            return None
        if len(kinds - {"", "none", "tuple"}) > 1:
            return None
        return [(call, "") for call in calls]

    def render_value(self, value: Any, t: Type) -> str:
        """The expected side of MultiPL-E's assert: the literal, coerced to the declared C++ type as its translator does."""
        return _coerce(_literal(value, _has_ellipsis(t)), cpp_type(t))

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`candidate(...)`, each argument as MultiPL-E's translator writes it for the parameter's C++ type."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        ellipsis = any(_has_ellipsis(t) for t in (*signature.param_types, signature.returns))
        rendered = [_coerce(_literal(a, ellipsis), cpp_type(t)) for a, t in zip(args, signature.param_types, strict=True)]
        return f"candidate({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample as the test program has it, the `}` that closes its function, then the harness and its main."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        tests = test_program(problem).code
        head, sep, _ = tests.partition("}\n")
        close = head + sep if tests.lstrip().startswith("}") and sep else ""
        found = re.search(r"\bauto\s+candidate\s*=\s*([A-Za-z_]\w*)\s*;", tests)
        entry = found.group(1) if found else problem.entry_point
        header = case_header(self.toolchain())
        harness = "" if header else CASE_HARNESS
        cases = "\n".join(f"    try {{ assay_v({i}, {call}); }} catch (...) {{ assay_e({i}); }}" for i, call in enumerate(calls))
        # `signed`, not `int`: a sample's `#define int long long` (competitive programmers' habit) leaves it alone.
        main = (f"signed main() {{\n    auto candidate = {entry};\n{cases}\n    assay_emit(\"done {len(calls)}\\n\");\n"
                "    std::cout.flush();\n    std::fflush(nullptr);\n    return 0;\n}\n")
        program = self.as_completion(problem, code) + "\n" + close + harness + main
        files = {self.source: program.encode()}
        if header:
            files[CASES_MARK] = b""
        return files

    def normalize(self, value: Any, t: Type) -> Any:
        """Floats at float32: MultiPL-E's C++ declares every Python float a `float`, and its asserts compare
        `candidate(...) == (0.1f)` in float, so 0.1 and float(0.1f) are equal there (and here)."""
        return _float32(value)


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
    if isinstance(value, (set, frozenset)):
        return {_float32(v) for v in value}
    if isinstance(value, dict):
        return {_float32(k): _float32(v) for k, v in value.items()}
    return value


def _bare_kind(expected: str) -> str:
    """What an assert's expected side is when MultiPL-E wrote it bare (it parenthesizes every other one)."""
    if expected.startswith("("):
        return ""
    for prefix, kind in (("std::nullopt", "none"), ("std::make_tuple", "tuple"), ('"', "str"), ("true", "bool"), ("false", "bool"),
                         ("std::vector", "list"), ("std::map", "dict"), ("std::optional", "optional")):
        if expected.startswith(prefix):
            return kind
    return "number" if re.match(r"-?[0-9.]", expected) else "other"


# ---------------------------------------------------------------- MultiPL-E's C++ literals
#
# Its translator (dataset_builder/humaneval_to_cpp.py) writes each literal bottom-up with the C++ type
# of the Python value (ints `long`, floats `float`, a list's elements cast to its first element's type,
# an empty list a std::vector<long>), then coerces the whole argument to the parameter's type: kept in
# parentheses where the types agree, bare for unions, optionals, tuples and nullopt, else its leading
# `Type(` replaced by the parameter's. These functions do the same, but for strings, which are escaped
# (MultiPL-E writes quotes and backslashes raw), and nan and infinities, which it cannot write.

INT64 = 2**63


def cpp_type(t: Type) -> str:
    """The C++ type MultiPL-E declares for a Python type."""
    k = t.kind
    scalars = {"str": "std::string", "int": "long", "float": "float", "bool": "bool", "none": "std::nullopt", "any": "std::any"}
    if k in scalars:
        return scalars[k]
    if k in ("list", "vtuple"):
        return f"std::vector<{cpp_type(t.args[0])}>"
    if k == "tuple":
        return f"std::tuple<{', '.join(cpp_type(a) for a in t.args)}>"
    if k == "dict":
        return f"std::map<{cpp_type(t.args[0])},{cpp_type(t.args[1])}>"
    if k == "optional":
        inner = t.args[0]
        if inner.kind == "union":  # Union[a, b, None]: one union of three
            return _union_name([*(cpp_type(a) for a in inner.args), "std::nullopt"])
        return f"std::optional<{cpp_type(inner)}>"
    if k == "union":
        return _union_name([cpp_type(a) for a in t.args])
    raise Unrepresentable(f"type: MultiPL-E's C++ has no {t}")


def _union_name(types: list[str]) -> str:
    return ("Union_" + "_".join(types)).replace("::", "_").replace("<", "_").replace(">", "_")


def _has_ellipsis(t: Type) -> bool:
    return t.kind == "vtuple" or any(_has_ellipsis(a) for a in t.args)


_NUMBERS = ("float", "long")


def _literal(value: Any, ellipsis: bool) -> tuple[str, str]:
    """(code, its C++ type), as MultiPL-E's gen_literal / gen_list / gen_tuple / gen_dict write a Python value."""
    if isinstance(value, bool):
        return ("true" if value else "false"), "bool"
    if isinstance(value, int):
        if not -INT64 <= value < INT64:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return (str(value) if value != -INT64 else "(-9223372036854775807L - 1)"), "long"
    if isinstance(value, float):
        if math.isnan(value):
            return "std::numeric_limits<float>::quiet_NaN()", "float"
        if math.isinf(value):
            return ("" if value > 0 else "-") + "std::numeric_limits<float>::infinity()", "float"
        return repr(value) + "f", "float"
    if isinstance(value, str):
        if "\0" in value:  # a C string would end at it
            return f"std::string({cpp_string(value)}, {len(value.encode())})", "std::string"
        return cpp_string(value), "std::string"
    if value is None:
        return "std::nullopt", "std::nullopt"
    if isinstance(value, tuple) and not ellipsis:
        items = [_literal(v, ellipsis) for v in value]
        if not items:
            return "std::make_tuple()", "std::tuple<long>"
        types = f"std::tuple<{', '.join(t for _, t in items)}>"
        if "std::nullopt" in ", ".join(c for c, _ in items):
            other = next((t for _, t in items if t != "std::nullopt"), "long")
            return f"std::make_tuple({', '.join(f'std::optional<{other}>({c})' for c, _ in items)})", types
        return f"std::make_tuple({', '.join(c for c, _ in items)})", types
    if isinstance(value, (list, tuple, set, frozenset)):
        if isinstance(value, (set, frozenset)):
            raise Unrepresentable(f"type: MultiPL-E's C++ has no sets: {value!r}"[:200])
        items = [_literal(v, ellipsis) for v in value]
        if not items:
            return "std::vector<long>()", "std::vector<long>"
        # MultiPL-E casts numbers to the first item's type; anything else mixed (a string first, then a
        # number: `(std::string)6` does not compile) makes a vector of std::any.
        element = _common_type(items, optional=False)  # in a list of Any, None stays a bare nullopt
        cast = (lambda c: c) if element == "std::any" else (lambda c: f"({element}){c}")
        return f"std::vector<{element}>({{{', '.join(cast(c) for c, _ in items)}}})", f"std::vector<{element}>"
    if isinstance(value, dict):
        if not value:
            return "std::map<long,long>()", "std::map<long,long>"
        keys = [_literal(k, ellipsis) for k in value]
        vals = [_literal(v, ellipsis) for v in value.values()]
        if not _one_kind(keys):
            raise Unrepresentable(f"type: a dict whose keys are of several types: {value!r}"[:200])
        # Values of several kinds (a string after a number) make a map to std::any, as a list does.
        value_type = _common_type(vals)
        map_type = f"std::map<{keys[0][1]},{value_type}>"
        pairs = ", ".join(f"{{{k}, {v}}}" for (k, _), (v, _) in zip(keys, vals, strict=True))
        return f"{map_type}({{{pairs}}})", map_type
    raise Unrepresentable(f"type: {type(value).__name__} values: {value!r}"[:200])


def _one_kind(items: list[tuple[str, str]]) -> bool:
    """Whether literals can share the first one's C++ type: the same type, or numbers (cast to the first's;
    MultiPL-E casts bools too, but `(long)true` is 1 where Python's filter_integers tells True from 1)."""
    first = items[0][1]
    return all(t == first or (t in _NUMBERS and first in _NUMBERS) for _, t in items)


def _common_type(items: list[tuple[str, str]], optional: bool = True) -> str:
    """The C++ type literals share: the first one's (numbers are cast to it), std::optional<T> for T and
    nullopts (where optional), else std::any."""
    kinds = {t for _, t in items}
    if optional and len(kinds) == 2 and "std::nullopt" in kinds:
        other = next(t for t in kinds if t != "std::nullopt")
        return f"std::optional<{other}>"
    if _one_kind(items) and items[0][1] != "std::nullopt":
        return items[0][1]
    return "std::any"


def _coerce(literal: tuple[str, str], expected: str) -> str:
    """MultiPL-E's update_type: a literal as an argument (or expected value) of the declared C++ type."""
    code, actual = literal
    if expected.startswith("Union_"):
        return code
    if actual == expected:
        return f"({code})"
    if code.startswith(("std::make_tuple", "std::nullopt")) or "std::optional" in expected:
        return code
    head = re.match(r".+?\(", code)
    coerced = f"{expected}({code})" if head is None else code.replace(head.group(0), expected + "(")
    return "(" + coerced.replace("(())", "()") + ")"


def cpp_string(text: str) -> str:
    """A C++ string literal (octal escapes: a hex escape would swallow the digits after it)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):03o}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            raise Unrepresentable(f"str: a lone surrogate in {text!r}"[:200])
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
