"""D: gdc builds the program with its unittest blocks (as MultiPL-E runs `rdmd -unittest -main`), then it runs.

MultiPL-E's D tests are a `unittest { ... assert(...); }` block and an empty `void main(){}`. D's
`assert` cannot be shadowed, so the test section installs its own unit-test runner (a module
constructor sets `Runtime.extendedModuleUnitTester`): it runs every unittest block, exits with
ASSERT_EXIT when an AssertError comes from the test section (a `#line` directive names its file),
exits with status 1 on any other Throwable (the sample's own asserts, RangeError, exceptions), and
prints the completion marker after the last test, without running `main`.
"""

from __future__ import annotations

import re
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, Language, RunLimits
from assay.problems import Problem, test_program

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

_MAIN = re.compile(r"^\s*(?:void|int)\s+main\s*\(", re.MULTILINE)
_TESTS_MAIN = re.compile(r"^void main\(\)\s*\{\s*\}\s*$", re.MULTILINE)


class D(Language):
    """D with GCC's front end (Debian's gdc)."""

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
