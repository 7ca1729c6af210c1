"""C++: g++ -std=c++17 builds the program (no optimisation, assertions on, as MultiPL-E runs it), then it runs.

MultiPL-E's C++ tests close the prompt's function, then `int main() { ... assert(...); }`. The test
section gets its own `assert` (a failed one exits with ASSERT_EXIT instead of abort()'s SIGABRT,
which would look like any other crash), and its `main` is renamed: a real `main` calls it and then
prints the completion marker.
"""

from __future__ import annotations

import re
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, BraceLanguage, RunLimits, _find_line, _last_line
from assay.problems import Problem

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

_MAIN = re.compile(r"\bint\s+main\s*\(\s*(?:void\s*)?\)")


class Cpp(BraceLanguage):
    """C++17 with GCC (Debian's g++)."""

    name = "cpp"
    aliases = ("c++",)
    display = "C++"
    source = "main.cpp"
    tools = ("g++",)
    version_args = ("--version",)
    install_hint = "apt-get install -y g++"
    build = "{gpp} -std=c++17 -o main main.cpp"
    run = "./main"
    stub = '    throw std::runtime_error("stub");\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=4 * GiB, processes=64)

    def as_completion(self, problem: Problem, code: str) -> str:
        """The base splice, keeping what a whole program puts before the function (includes, helpers)."""
        spliced = super().as_completion(problem, code)
        if spliced is code or code.startswith(problem.prompt):
            return spliced
        at = _find_line(code, _last_line(problem.prompt))
        if at is None:
            return spliced
        head = code[:at].splitlines(keepends=True)[:-1]  # up to the signature line
        return "".join(head) + "\n" + spliced if "".join(head).strip() else spliced

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

