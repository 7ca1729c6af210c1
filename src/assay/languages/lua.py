"""Lua: `luac5.4 -p` checks the syntax (a syntax error is a compile error), then `lua5.4 main.lua` runs it.

MultiPL-E's Lua tests are a LuaUnit test function of `lu.assertEquals(candidate(...), expected)`.
Judged as cases, the program is the sample (less a module-style final `return`) followed by a
harness that binds `candidate` as the tests do, runs each call in order under pcall and writes its
result, encoded at the declared result type, to fd 3 (assay.judging.records), which it opens anew as
/dev/fd/3 (plain Lua has no way to write to a file descriptor it did not open; the sandboxes let the
run open the channel for writing, and elsewhere it starts a `cat` that writes there). As under LuaUnit, an
`os.exit` during a call is that case's error, not the end of the run.

Equality: LuaUnit's assertEquals is Lua's `==` on scalars (1 == 1.0; a string is never a number,
a boolean never a number) and, on tables, the same keys with equal values: Python's == on the
decoded values, but for one thing: a table holds no nil, so a list's trailing Nones are not there
in Lua (`{1, nil}` is `{1}`); `normalize` drops them on both sides. A table with keys a list cannot
have (0, -1, "x") is refused at a list type (a record that decodes as nothing: a failed case).

The test-program path (a problem judged as a program) keeps LuaUnit: the tests' final
`os.exit(lu.LuaUnit.run())` is replaced by a runner that keeps LuaUnit's result: a failed assertion
exits with ASSERT_EXIT, an error with 1, and only a passing run prints the completion marker.
LuaUnit is Debian's lua-unit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, Language, PhaseLimits, Unrepresentable
from assay.languages.harness import NotSplittable, calls_after, descriptor_json, numbered
from assay.problems import CaseTests, Problem, test_program
from assay.values import Type

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

# The case harness: a `do` block after the sample. Each result is encoded under the declared type
# (a descriptor: "int", or {kind, args...}); what LuaUnit could never find equal to a value of that
# type is written as a JSON object naming its Lua type, which decodes as nothing (a failed case).
CASE_HARNESS = r"""
do
-- Lua cannot write to an inherited descriptor: it opens fd 3 anew (the sandbox lets the run's uid open the
-- channel for writing), or starts a cat that writes there where it cannot.
local assay_out = io.open("/dev/fd/3", "w") or assert(io.popen("exec cat >&3", "w"))
assay_out:setvbuf("no")
local assay_type = __TYPE__
local assay_exit, assay_type_of, assay_format, assay_tostring, assay_pcall = os.exit, type, string.format, tostring, pcall
local assay_next, assay_mtype, assay_huge, assay_concat = next, math.type, math.huge, table.concat
local function bad(v) return '{"unexpected": "' .. assay_type_of(v) .. '"}' end
local function kind(t) if assay_type_of(t) == "table" then return t[1] end return t end
local function str(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' elseif c == "\\" then return "\\\\" end
    return assay_format("\\u%04x", c:byte())
  end) .. '"'
end
local function num(v)
  if assay_mtype(v) == "integer" then return assay_format("%d", v) end
  if v ~= v then return "NaN" end
  if v == assay_huge then return "Infinity" end
  if v == -assay_huge then return "-Infinity" end
  return assay_format("%.17g", v)
end
local function maxn(v)  -- the length of a table whose keys are 1..n (holes allowed), or nil
  local n = 0
  for k in assay_next, v do
    if assay_mtype(k) ~= "integer" or k < 1 then return nil end
    if k > n then n = k end
  end
  return n
end
local enc
local function any(v)
  local ty = assay_type_of(v)
  if v == nil then return "null" end
  if ty == "boolean" then return v and "true" or "false" end
  if ty == "number" then return num(v) end
  if ty == "string" then return str(v) end
  if ty ~= "table" then return bad(v) end
  local n, parts = maxn(v), {}
  if n then
    for i = 1, n do parts[i] = any(v[i]) end
  else
    for a, b in assay_next, v do parts[#parts + 1] = "[" .. any(a) .. "," .. any(b) .. "]" end
  end
  return "[" .. assay_concat(parts, ",") .. "]"
end
local function alt(v, t)
  local ty = assay_type_of(v)
  for i = 2, #t do
    local k = kind(t[i])
    if (ty == "number" and (k == "int" or k == "float")) or (ty == "string" and k == "str") or (ty == "boolean" and k == "bool")
      or (ty == "table" and (k == "dict") == (maxn(v) == nil) and k ~= "int" and k ~= "float" and k ~= "str" and k ~= "bool" and k ~= "none") then
      return t[i]
    end
  end
  if ty == "table" then for i = 2, #t do if kind(t[i]) == "dict" then return t[i] end end end
  return "any"
end
enc = function(v, t)
  local k = kind(t)
  if v == nil then return "null" end
  if k == "optional" then return enc(v, t[2]) end
  if k == "union" then t = alt(v, t); k = kind(t) end
  local ty = assay_type_of(v)
  if k == "int" or k == "float" then return ty == "number" and num(v) or bad(v) end
  if k == "bool" then if ty == "boolean" then return v and "true" or "false" end return bad(v) end
  if k == "str" then return ty == "string" and str(v) or bad(v) end
  if k == "none" then return bad(v) end
  if k == "list" or k == "vtuple" or k == "set" or k == "tuple" then
    if ty ~= "table" then return bad(v) end
    local n = maxn(v)
    if n == nil then return bad(v) end
    if k == "tuple" then
      if n > #t - 1 then return bad(v) end
      n = #t - 1
    end
    local parts = {}
    for i = 1, n do parts[i] = enc(v[i], k == "tuple" and t[i + 1] or t[2]) end
    return "[" .. assay_concat(parts, ",") .. "]"
  end
  if k == "dict" then
    if ty ~= "table" then return bad(v) end
    local parts = {}
    for a, b in assay_next, v do parts[#parts + 1] = "[" .. enc(a, t[2]) .. "," .. enc(b, t[3]) .. "]" end
    return "[" .. assay_concat(parts, ",") .. "]"
  end
  return any(v)
end
local function exit_in_a_case() error("os.exit called during a test", 2) end
local function case(i, f)
  os.exit = exit_in_a_case
  local ok, r = assay_pcall(f)
  local line
  if ok then
    local eok, text = assay_pcall(enc, r, assay_type)
    line = i .. " v " .. (eok and text or bad(r))
  else
    local m = "error"
    assay_pcall(function() m = assay_tostring(r) end)
    line = i .. " e " .. m:gsub("[\r\n]+", " "):sub(1, 300)
  end
  os.exit = assay_exit
  assay_out:write(line .. "\n")
end
__BIND__
__CASES__
assay_out:write("done __COUNT__\n")
assay_out:close()
assay_exit(0)
end
"""

_BIND = re.compile(r"(?m)^[ \t]*local candidate = [A-Za-z_][\w.]*[ \t]*$")
MAX_INT = 2**63


class Lua(Language):
    """Lua 5.4 with LuaUnit (Debian's lua5.4 and lua-unit)."""

    name = "lua"
    display = "Lua"
    multipl_e = "lua"
    stops = ("\nlocal", "\nfunction", "\n--")
    source = "main.lua"
    tools = ("lua5.4", "luac5.4")
    version_args = ("-v",)
    install_hint = "apt-get install -y lua5.4 lua-unit"
    build = "{luac5_4} -p main.lua"
    # Lua compiles the whole chunk before it runs any of it, and each case runs under pcall: a run that reported a
    # case had no syntax error, so a case run skips the check and checks only a run that reported none.
    build_checks_only = True
    run = "{lua5_4} main.lua"
    stub = '    error("stub")\nend\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(processes=64)
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

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The `candidate(...)` of each `lu.assertEquals(candidate(...), expected)`."""
        try:
            return [(call, "") for call in calls_after(tests, "lu.assertEquals(")]
        except NotSplittable:
            return None

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's Lua literals: tables for lists, tuples and dicts (`{["k"] = v}`), nil for None."""
        return lua_literal(value)

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample (less a final module `return`), then the harness."""
        tests = problem.tests
        assert isinstance(tests, CaseTests) and tests.signature is not None
        found = _BIND.search(test_program(problem).code)
        bind = found.group(0).strip() if found else f"local candidate = {problem.entry_point}"
        cases = numbered(calls, lambda i, call: f"case({i}, function() return {call} end)")
        descriptor = descriptor_json(tests.signature.returns).replace("[", "{").replace("]", "}")
        harness = (CASE_HARNESS.replace("__TYPE__", descriptor).replace("__BIND__", bind)
                   .replace("__CASES__", cases).replace("__COUNT__", str(len(calls))))
        return {self.source: (without_final_return(code) + "\n" + harness).encode()}

    def normalize(self, value: Any, t: Type) -> Any:
        """Lists without trailing Nones: a Lua table holds no nil, so LuaUnit never sees them."""
        return _drop_trailing_nones(value)


def _drop_trailing_nones(value: Any) -> Any:
    if isinstance(value, list):
        items = [_drop_trailing_nones(v) for v in value]
        while items and items[-1] is None:
            items.pop()
        return items
    if isinstance(value, tuple):
        return tuple(_drop_trailing_nones(v) for v in value)
    if isinstance(value, dict):
        return {k: _drop_trailing_nones(v) for k, v in value.items()}
    return value


def without_final_return(code: str) -> str:
    """A whole program ending like a module (`return M` at its top level) keeps it only as a comment."""
    lines = code.rstrip().split("\n")
    last = lines[-1] if lines else ""
    if re.fullmatch(r"return\b[^\n]*", last) and "end" not in last:
        lines[-1] = "-- " + last
        return "\n".join(lines) + "\n"
    return code


def lua_string(s: str) -> str:
    """A Lua string literal as Python's repr writes it (MultiPL-E's), with escapes Lua reads the same."""
    quote = '"' if "'" in s and '"' not in s else "'"
    out = []
    for ch in s:
        if ch == "\\" or ch == quote:
            out.append("\\" + ch)
        elif ch in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{{{ord(ch):x}}}")
    return quote + "".join(out) + quote


def lua_literal(value: Any) -> str:
    """A Lua literal for a plain value (ints beyond Lua's 64-bit integers are refused)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -MAX_INT <= value < MAX_INT:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "(0/0)"
        if math.isinf(value):
            return "math.huge" if value > 0 else "-math.huge"
        return repr(value)
    if isinstance(value, str):
        return lua_string(value)
    if isinstance(value, (list, tuple)):
        return "{" + ", ".join(lua_literal(v) for v in value) + "}"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(lua_literal(v) for v in sorted(value, key=repr)) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"[{lua_literal(k)}] = {lua_literal(v)}" for k, v in value.items()) + "}"
    raise Unrepresentable(f"{type(value).__name__} values: {value!r}"[:200])
