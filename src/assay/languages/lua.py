"""Lua: `luac5.4 -p` checks the syntax (a syntax error is a compile error), then `lua5.4 main.lua` runs it.

MultiPL-E's Lua tests are a LuaUnit test function of `lu.assertEquals`, ended by
`os.exit(lu.LuaUnit.run())`, which exits with the number of failures and errors alike. That last line
is replaced by a runner that keeps LuaUnit's result: a failed assertion exits with ASSERT_EXIT, an
error (the program raised one; LuaUnit also turns an `os.exit` during the tests into one) with 1,
and only a passing run prints the completion marker. LuaUnit is Debian's lua-unit package.
"""

from __future__ import annotations

import re
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language, RunLimits
from assay.problems import Problem, test_program

RUN_LINE = "os.exit(lu.LuaUnit.run())"
RUNNER = """
local assay_runner = lu.LuaUnit.new()
assay_runner:runSuite()
local assay_result = assay_runner.result
io.stdout:flush()
if assay_result.errorCount > 0 then lu.oldOsExit(1) end
if assay_result.failureCount > 0 then lu.oldOsExit({assert_exit}) end
if assay_result.runCount == 0 then lu.oldOsExit(1) end
io.stdout:write("\\n{marker}\\n")
io.stdout:flush()
lu.oldOsExit(0)
"""


class Lua(Language):
    """Lua 5.4 with LuaUnit (Debian's lua5.4 and lua-unit)."""

    name = "lua"
    display = "Lua"
    source = "main.lua"
    tools = ("lua5.4", "luac5.4")
    version_args = ("-v",)
    install_hint = "apt-get install -y lua5.4 lua-unit"
    build = "{luac5_4} -p main.lua"
    run = "{lua5_4} main.lua"
    stub = '    error("stub")\nend\n'
    limits: ClassVar[RunLimits] = RunLimits(processes=64)
    library_probe = ("lua5.4", ("-e", "require('luaunit')"), "the luaunit module")  # every MultiPL-E test `require`s it

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The sample, less a module-style final `return` (nothing may follow it in a chunk), then the tests."""
        return without_final_return(code) + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests, with LuaUnit's run line replaced by one that maps failures to ASSERT_EXIT and prints the marker."""
        runner = RUNNER.replace("{assert_exit}", str(ASSERT_EXIT)).replace("{marker}", marker)
        head, sep, tail = tests.rpartition(RUN_LINE)
        if not sep:
            return tests + "\n" + runner
        return head + runner + tail


def without_final_return(code: str) -> str:
    """A whole program ending like a module (`return M` at its top level) keeps it only as a comment."""
    lines = code.rstrip().split("\n")
    last = lines[-1] if lines else ""
    if re.fullmatch(r"return\b[^\n]*", last) and "end" not in last:
        lines[-1] = "-- " + last
        return "\n".join(lines) + "\n"
    return code
