"""JavaScript on Node.js: `node --check` is the build (syntax errors are compile errors), then node runs it.

MultiPL-E's JavaScript tests declare `const assert = require('node:assert')` and a `test()`
function, then call it. The test section runs inside a try block: a failed node:assert assertion
(code ERR_ASSERTION) exits with ASSERT_EXIT, any other exception with status 1, and the marker is
printed after test() returns. The block also keeps the tests' `assert` and `test` from clashing
with the same names in a chat model's whole program.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from assay.languages.base import ASSERT_EXIT, Language, Unrepresentable
from assay.languages.harness import NotSplittable, calls_after, descriptor_json, numbered
from assay.problems import CaseTests, Problem, test_program
from assay.values import Type

# A chat model's `export function f` / `export { f };` is not valid in a CommonJS script: dropped.
_EXPORT = re.compile(r"^export\s+(?:default\s+)?(?=(?:async\s+)?function\b|const\b|let\b|var\b|class\b)", re.M)
_EXPORT_LIST = re.compile(r"^export\s*\{[^}]*\}\s*;?[ \t]*$", re.M)


def guarded_tests(body: str, marker: str, catch_param: str = "e", process: str = "process") -> str:
    """The test text in a try block: assertion failures -> ASSERT_EXIT, other errors -> 1, then the marker."""
    return (
        "try {\n"
        + body
        + f"\n}} catch ({catch_param}) {{\n"
        + "  try { console.error(e); } catch (_) {}\n"
        + f"  {process}.exit(e && e.code === 'ERR_ASSERTION' ? {ASSERT_EXIT} : 1);\n"
        + "}\n"
        + f"{process}.stdout.write('\\n' + {marker!r} + '\\n');\n"
    )


class JavaScript(Language):
    """JavaScript (Node.js 18+), run as a CommonJS script."""

    whole_floats_are_ints = True  # one number type: 3.0 is 3

    name = "javascript"
    aliases = ("js",)
    display = "JavaScript"
    multipl_e = "js"
    fence_tags = ("node",)
    stops = ("\nfunction ", "\n/*", "\n//", "\nconsole.log")
    source = "main.js"
    tools = ("node",)
    version_args = ("--version",)
    install_hint = "apt-get install -y nodejs"
    build = "{node} --check main.js"
    build_checks_only = True  # a syntax check: case runs skip it unless they fail before any case
    run = "{node} main.js"
    stub = '  throw new Error("stub");\n}\n'

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """code + tests, as MultiPL-E runs it; `export` keywords of a whole program are dropped."""
        return _EXPORT_LIST.sub("", _EXPORT.sub("", code)) + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests unchanged, inside a try block that maps node:assert failures to ASSERT_EXIT."""
        return guarded_tests(tests, marker)

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `assert.deepEqual(candidate(...), expected);` lines."""
        try:
            return [(call, "") for call in calls_after(tests, "assert.deepEqual(")]
        except NotSplittable:
            return None

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's JavaScript literals: arrays for lists and tuples, objects for dicts, undefined for None."""
        return js_literal(value)

    def normalize(self, value: Any, t: Type) -> Any:
        """JavaScript numbers are doubles: an int literal past 2**53 is the double nearest to it, in the
        test's expected value as in the sample's output (MultiPL-E's deepEqual compares those)."""
        return js_numbers(value)

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample (`export`s dropped), then the case harness."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        program = _EXPORT_LIST.sub("", _EXPORT.sub("", code))
        harness = case_harness(problem.entry_point, problem.tests.signature.returns, calls)
        return {self.source: (program + "\n" + harness).encode()}


# The case harness (see assay.judging.records): each case's result, encoded under its declared type,
# one record per line on fd 3, written synchronously. Without annotations it is TypeScript too
# (tsc without --strict: parameters are `any`), but for `process`, which TypeScript reaches through globalThis.
CASE_HARNESS = r"""
;(() => {
const assayFs = require("fs");
const assayType = __TYPE__;
const candidate = __ENTRY__;
function assayKind(t) { return Array.isArray(t) ? t[0] : t; }
function assayAlt(v, t) {
  const want = Array.isArray(v) || v instanceof Set ? ["list", "tuple", "vtuple", "set"]
    : typeof v === "object" ? ["dict"] : typeof v === "number" ? ["int", "float"] : typeof v === "string" ? ["str"] : ["bool"];
  for (const alt of t.slice(1)) { if (want.indexOf(assayKind(alt)) >= 0) { return alt; } }
  return "any";
}
function assayEnc(v, t) {
  let k = assayKind(t);
  if (v === null || v === undefined) { return "null"; }
  if (k === "optional") { return assayEnc(v, t[1]); }
  if (k === "union") { t = assayAlt(v, t); k = assayKind(t); }
  if (typeof v === "number") {
    if (Number.isNaN(v)) { return "NaN"; }
    if (!Number.isFinite(v)) { return v > 0 ? "Infinity" : "-Infinity"; }
    return Number.isInteger(v) && Math.abs(v) < 1e21 ? v.toFixed(0) : String(v);
  }
  if (typeof v === "bigint") { return v.toString(); }
  if (typeof v === "boolean") { return v ? "true" : "false"; }
  if (typeof v === "string") { return JSON.stringify(v); }
  if (Array.isArray(v) || v instanceof Set) {
    const items = Array.from(v);
    return "[" + items.map((x, i) => assayEnc(x, k === "tuple" ? t[i + 1] : Array.isArray(t) ? t[1] : "any")).join(",") + "]";
  }
  if (typeof v === "object") {
    const pairs = v instanceof Map ? Array.from(v.entries()) : Object.entries(v);
    const kt = k === "dict" ? t[1] : "any", vt = k === "dict" ? t[2] : "any";
    const numeric = kt === "int" || kt === "float";
    return "[" + pairs.map((p) => "[" + assayEnc(numeric && typeof p[0] === "string" ? Number(p[0]) : p[0], kt) + "," + assayEnc(p[1], vt) + "]").join(",") + "]";
  }
  throw new Error("the result is a " + typeof v + ", which is not plain data");
}
function assayCase(i, f) {
  let line;
  try {
    line = i + " v " + assayEnc(f(), assayType);
  } catch (e) {
    let m = "exception";
    try { m = String(e && e.message !== undefined ? e.message : e); } catch (_) {}
    line = i + " e " + m.replace(/[\r\n]+/g, " ").slice(0, 300);
  }
  assayFs.writeSync(3, line + "\n");
}
__CASES__
assayFs.writeSync(3, "done __COUNT__\n");
process.exit(0);
})();
"""


MAX_SAFE_INT = 2**53


def js_literal(value: Any) -> str:
    """A JavaScript literal for a plain value (ints beyond 2**53 lose precision as Numbers: refused)."""
    if value is None:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INT:
            raise Unrepresentable(f"int beyond 2**53: {value}")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(js_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in value):
            raise Unrepresentable(f"a dict key other than a string or an int: {value!r}"[:200])
        return "{" + ", ".join(f"{js_literal(k)}: {js_literal(v)}" for k, v in value.items()) + "}"
    raise Unrepresentable(f"{type(value).__name__} values: {value!r}"[:200])


def js_numbers(value: Any) -> Any:
    """A plain value with every int as JavaScript holds it (past 2**53, the nearest double)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        if abs(value) <= MAX_SAFE_INT:
            return value
        try:
            return int(float(value))
        except OverflowError:
            raise Unrepresentable(f"int beyond a double: {value.bit_length()} bits") from None
    if isinstance(value, list):
        return [js_numbers(v) for v in value]
    if isinstance(value, tuple):
        return tuple(js_numbers(v) for v in value)
    if isinstance(value, dict):
        return {js_numbers(k): js_numbers(v) for k, v in value.items()}
    return value


def case_harness(entry_point: str, returns: Type, calls: Sequence[str], process: str = "process") -> str:
    """The harness text for these calls."""
    cases = numbered(calls, lambda i, call: f"assayCase({i}, () => ({call}));")
    return (CASE_HARNESS.replace("__TYPE__", descriptor_json(returns)).replace("__ENTRY__", entry_point)
            .replace("__CASES__", cases).replace("__COUNT__", str(len(calls))).replace("process.exit(0)", f"{process}.exit(0)"))
