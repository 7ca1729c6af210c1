"""PHP: `php -l` checks the syntax (a parse error is a compile error), then `php main.php` runs it, as MultiPL-E does.

MultiPL-E's PHP tests define `candidate(...$args)` (the entry point under another name), then
`if (candidate(...) !== expected) { throw new Exception("Test failed!"); }` lines inside `test()`.
Judged as cases, the program is the sample in PHP mode, the tests' definition of `candidate`, and a
harness that runs each call in order and writes its result, encoded at the declared result type,
to fd 3 (assay.judging.records); a Throwable the call raises is that case's error record.

Equality is PHP's `!==` (identity), MultiPL-E's own, stricter than Python's ==:

- an int is never a float: 3 !== 3.0. The harness writes a float where an int is declared, and an
  int where a float is declared, wrapped (`{"float": 3.0}`, `{"int": 3}`). Where the result type is
  float, MultiPL-E's expected literal is usually a float (8.0) but sometimes an int (the Python test
  said `== 3`): the test's literal is kept as the case's hint, and `decode_result` unwraps the ints
  so that `equal` can require the literal's own kind, as `!==` does. (Without a `decode_result` hook
  in the trusted side's decoding the wrapped int decodes as nothing: a failed case.)
- arrays are equal with the same keys in the same order: a list's keys must be 0..n-1 (the harness
  refuses an array that is not a list where a list is declared) and a dict's order counts.
- true is not 1, "1" is not 1, null is not false: the decoder already refuses those.

Under EvalPlus's rule (HumanEval+ inputs, no MultiPL-E literal) ints and floats are written plainly
and compared as Python compares them.

Debian's CLI configuration (/etc/php: its conf.d loads ctype, iconv, tokenizer...) is shown to the
sandbox, so programs see the same extensions as `php` outside it. The test-program path (a problem
judged as a program) routes the tests' exact throw to a function that exits with ASSERT_EXIT.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from assay import values
from assay.languages.base import ASSERT_EXIT, Language, PhaseLimits, Unrepresentable
from assay.languages.harness import NotSplittable, balanced, descriptor_json, numbered
from assay.problems import CaseTests, Problem, test_program
from assay.values import FLOAT, INT, Type

TEST_FAILED = 'throw new Exception("Test failed!");'
FAIL_CALL = "assay_test_failed(__LINE__);"
FAIL_SHIM = f"""
function assay_test_failed(int $line): void {{
    fwrite(STDERR, "assertion failed: test on line $line\\n");
    exit({ASSERT_EXIT});
}}
"""

# The case harness. Results are encoded under the declared type (a descriptor, decoded from JSON:
# "int", or [kind, ...args]); what `!==` could never find identical to a value of that type is
# written as a JSON object naming its PHP type, which decodes as nothing (a failed case).
CASE_HARNESS = r"""
final class AssayCases {
    public static $out;
    public static $type;
    public static $strict;
    static function kind($t) { return is_array($t) ? $t[0] : $t; }
    static function bad($v) { return '{"unexpected": ' . json_encode(get_debug_type($v)) . '}'; }
    static function str($s) { return json_encode($s, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE); }
    static function flt($v) {
        if (is_nan($v)) { return "NaN"; }
        if (is_infinite($v)) { return $v > 0 ? "Infinity" : "-Infinity"; }
        return json_encode($v, JSON_PRESERVE_ZERO_FRACTION);
    }
    static function num($v, $k) {
        if (is_int($v)) { return self::$strict && $k === "float" ? '{"int": ' . $v . '}' : (string) $v; }
        if (is_float($v)) { return self::$strict && $k === "int" ? '{"float": ' . self::flt($v) . '}' : self::flt($v); }
        return self::bad($v);
    }
    static function alt($v, $t) {
        if (is_array($v)) { $want = array_is_list($v) ? ["list", "tuple", "vtuple", "set", "dict"] : ["dict"]; }
        elseif (is_int($v)) { $want = ["int", "float"]; }
        elseif (is_float($v)) { $want = ["float", "int"]; }
        elseif (is_string($v)) { $want = ["str"]; }
        elseif (is_bool($v)) { $want = ["bool"]; }
        else { $want = []; }
        foreach ($want as $w) { foreach (array_slice($t, 1) as $a) { if (self::kind($a) === $w) { return $a; } } }
        return "any";
    }
    static function key($a, $t) {
        $k = self::kind($t);
        if ($k === "str") { return self::str((string) $a); }
        if ($k === "int" || $k === "float" || $k === "any") { return is_int($a) ? (string) $a : self::str($a); }
        return self::bad($a);
    }
    static function enc($v, $t) {
        $k = self::kind($t);
        if ($v === null) { return "null"; }
        if ($k === "optional") { return self::enc($v, $t[1]); }
        if ($k === "union") { $t = self::alt($v, $t); $k = self::kind($t); }
        switch ($k) {
            case "int": case "float": return self::num($v, $k);
            case "bool": return is_bool($v) ? ($v ? "true" : "false") : self::bad($v);
            case "str": return is_string($v) ? self::str($v) : self::bad($v);
            case "none": return self::bad($v);
            case "list": case "vtuple": case "set": case "tuple":
                if (!is_array($v) || (self::$strict && !array_is_list($v))) { return self::bad($v); }
                $parts = [];
                $i = 0;
                foreach ($v as $x) { $parts[] = self::enc($x, $k === "tuple" ? ($t[$i + 1] ?? "any") : $t[1]); $i++; }
                return "[" . implode(",", $parts) . "]";
            case "dict":
                if (!is_array($v)) { return self::bad($v); }
                $parts = [];
                foreach ($v as $a => $b) { $parts[] = "[" . self::key($a, $t[1]) . "," . self::enc($b, $t[2]) . "]"; }
                return "[" . implode(",", $parts) . "]";
        }
        return self::any($v);
    }
    static function any($v) {
        if ($v === null) { return "null"; }
        if (is_bool($v)) { return $v ? "true" : "false"; }
        if (is_int($v)) { return (string) $v; }
        if (is_float($v)) { return self::flt($v); }
        if (is_string($v)) { return self::str($v); }
        if (!is_array($v)) { return self::bad($v); }
        $parts = [];
        if (array_is_list($v)) { foreach ($v as $x) { $parts[] = self::any($x); } }
        else { foreach ($v as $a => $b) { $parts[] = "[" . self::any($a) . "," . self::any($b) . "]"; } }
        return "[" . implode(",", $parts) . "]";
    }
    static function run($i, $f) {
        try {
            $line = $i . " v " . self::enc($f(), self::$type);
        } catch (\Throwable $e) {
            $line = $i . " e " . substr(preg_replace('/[\r\n]+/', " ", get_class($e) . ": " . $e->getMessage()), 0, 300);
        }
        fwrite(self::$out, $line . "\n");
        fflush(self::$out);
    }
}
AssayCases::$out = fopen("php://fd/3", "w");
AssayCases::$type = json_decode('__TYPE__');
AssayCases::$strict = __STRICT__;
__CASES__
fwrite(AssayCases::$out, "done __COUNT__\n");
fflush(AssayCases::$out);
exit(0);
"""

_ASSERT = re.compile(r"(?m)^[ \t]*if \(")
_CANDIDATE = re.compile(r"function candidate\(\.\.\.\$args\) \{\n.*?\n\}\n", re.S)
MAX_INT = 2**63
HINT = "php-literal "  # the hint of a case: MultiPL-E's expected literal, read as a Python value


class Php(Language):
    """PHP 8 CLI (Debian's php-cli)."""

    name = "php"
    display = "PHP"
    multipl_e = "php"
    stops = ("\nfunction", "\n?>", "\n//", "\n#")
    source = "main.php"
    tools = ("php",)
    version_args = ("--version",)
    install_hint = "apt-get install -y php-cli"
    build = "{php} -l main.php"
    build_checks_only = True  # a syntax check: case runs skip it unless they fail before any case
    run = "{php} main.php"
    stub = '    throw new Exception("stub");\n}\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(processes=64)
    config_dirs = ("/etc/php",)  # Debian's php.ini and the conf.d that loads its shared extensions

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The sample in PHP mode (a whole program may close its `<?php` block with `?>`), then the tests."""
        return php_mode(code) + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests' failed-test throw exits with ASSERT_EXIT; the marker is printed after `test();`."""
        return FAIL_SHIM + tests.replace(TEST_FAILED, FAIL_CALL) + f'\necho PHP_EOL, "{marker}", PHP_EOL;\n'

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """Each `if (candidate(...) !== expected)`: the call, and the expected literal as the hint."""
        calls: list[tuple[str, str]] = []
        try:
            for match in _ASSERT.finditer(tests):
                close = balanced(tests, match.end() - 1)
                at = match.end()
                if not tests.startswith("candidate(", at):
                    raise NotSplittable(f"no call at {at}")
                end = balanced(tests, at + len("candidate"))
                rest = tests[end : close - 1].strip()
                hint = ""
                if rest.startswith("!=="):
                    try:
                        hint = HINT + repr(PhpLiteral(rest[3:]).parse())
                    except (ValueError, IndexError, TypeError):
                        hint = ""  # not a literal this reader knows: the kinds of its numbers are not known
                calls.append((tests[at:end], hint))
        except NotSplittable:
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's PHP literals: array(...) for lists, tuples and dicts (`"k" => v`), null for None."""
        return php_literal(value)

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample in PHP mode, the tests' `candidate`, then the harness."""
        tests = problem.tests
        assert isinstance(tests, CaseTests) and tests.signature is not None
        found = _CANDIDATE.search(test_program(problem).code)
        candidate = found.group(0) if found else f"function candidate(...$args) {{\n    return {problem.entry_point}(...$args);\n}}\n"
        cases = numbered(calls, lambda i, call: f"AssayCases::run({i}, fn() => {call});")
        harness = (CASE_HARNESS.replace("__TYPE__", descriptor_json(tests.signature.returns))
                   .replace("__STRICT__", "true" if tests.rule == "exact" else "false")
                   .replace("__CASES__", cases).replace("__COUNT__", str(len(calls))))
        return {self.source: (php_mode(code) + "\n" + candidate + harness).encode()}

    def decode_result(self, payload: str, t: Type) -> Any:
        """The wire value; ints the harness wrapped where a float is declared stay ints (see the module's doc)."""
        data = values.parse_wire(payload)
        if not _has_wrapped_int(data):
            return values.decode(data, t)
        return values.decode(_unwrap_ints(data), _ints_kept(t))

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """PHP's `===`: kinds and order count (see the module's doc); MultiPL-E's literal says int or float."""
        literal: Any = None
        if hint.startswith(HINT):
            try:
                literal = ast.literal_eval(hint[len(HINT) :])
            except (ValueError, SyntaxError):
                literal = None
        return php_identical(actual, expected, literal, keeps_ints="decode_result" in Language.__dict__)


def php_identical(a: Any, e: Any, literal: Any, keeps_ints: bool = True) -> bool:
    """Whether a decoded result is identical (`===`) to the expected value, the literal giving the
    kind (int or float) of each number as MultiPL-E wrote it; None: not known (any kind)."""
    if isinstance(e, float):
        if isinstance(a, bool) or not isinstance(a, (int, float)):
            return False
        literal_int = isinstance(literal, int) and not isinstance(literal, bool)
        if isinstance(a, int):
            return (literal is None or literal_int) and a == e
        return (literal is None or not literal_int or not keeps_ints) and a == e
    if isinstance(e, (list, tuple)):
        if not isinstance(a, (list, tuple)) or len(a) != len(e):
            return False
        lits = literal if isinstance(literal, (list, tuple)) and len(literal) == len(e) else [None] * len(e)
        return all(php_identical(x, y, z, keeps_ints) for x, y, z in zip(a, e, lits, strict=False))
    if isinstance(e, dict):
        if not isinstance(a, dict) or list(a) != list(e):
            return False
        lits = list(literal.values()) if isinstance(literal, dict) and len(literal) == len(e) else [None] * len(e)
        return all(php_identical(a[k], e[k], z, keeps_ints) for k, z in zip(e, lits, strict=False))
    if isinstance(e, (set, frozenset)):
        return bool(a == e)
    return type(a) is type(e) and bool(a == e)


def _has_wrapped_int(data: Any) -> bool:
    if isinstance(data, dict):
        return set(data) == {"int"}
    if isinstance(data, list):
        return any(_has_wrapped_int(v) for v in data)
    return False


def _unwrap_ints(data: Any) -> Any:
    if isinstance(data, dict) and set(data) == {"int"} and type(data["int"]) is int:
        return data["int"]
    if isinstance(data, list):
        return [_unwrap_ints(v) for v in data]
    return data


def _ints_kept(t: Type) -> Type:
    """The type with each float an int-or-float: JSON's own kind (3 or 3.0) decides which."""
    if t.kind == "float":
        return Type("union", (INT, FLOAT))
    return Type(t.kind, tuple(_ints_kept(a) for a in t.args)) if t.args else t


_OPEN = re.compile(r"<\?php\b", re.IGNORECASE)


def php_mode(code: str) -> str:
    """The code, ending in PHP mode: an opening tag if it has none, a final `?>` dropped (tests follow it)."""
    if not _OPEN.search(code):
        code = "<?php\n" + code
    stripped = code.rstrip()
    return stripped[:-2] if stripped.endswith("?>") else code


def php_string(s: str) -> str:
    """A double-quoted PHP string: MultiPL-E escapes `"` and newlines; a backslash that would start an
    escape and a `$` that would interpolate are escaped too (MultiPL-E leaves them, a bug)."""
    out = []
    for i, ch in enumerate(s):
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if ch == "\\":
            out.append("\\\\" if nxt == "" or nxt in 'ntrvef\\$"01234567xu\n' else "\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "$" and (nxt == "{" or nxt.isalpha() or nxt == "_" or nxt > "\x7f"):
            out.append("\\$")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def php_literal(value: Any) -> str:
    """A PHP literal for a plain value (ints beyond PHP's 64-bit int would be floats: refused)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -MAX_INT <= value < MAX_INT:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NAN"
        if math.isinf(value):
            return "INF" if value > 0 else "-INF"
        return repr(value)
    if isinstance(value, str):
        return php_string(value)
    if isinstance(value, (list, tuple)):
        return "array(" + ", ".join(php_literal(v) for v in value) + ")"
    if isinstance(value, (set, frozenset)):
        return "array(" + ", ".join(php_literal(v) for v in sorted(value, key=repr)) + ")"
    if isinstance(value, dict):
        if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in value):
            raise Unrepresentable(f"a dict key other than a string or an int: {value!r}"[:200])
        return "array(" + ", ".join(f"{php_literal(k)} => {php_literal(v)}" for k, v in value.items()) + ")"
    raise Unrepresentable(f"{type(value).__name__} values: {value!r}"[:200])


class PhpLiteral:
    """A reader of the PHP literals MultiPL-E writes (array(...), "...", numbers, true/false/null), as
    plain Python values with PHP's kinds: ints stay ints, floats floats; raises ValueError."""

    _NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0

    def parse(self) -> Any:
        value = self._value()
        self._space()
        if self.i != len(self.text):
            raise ValueError(f"trailing text: {self.text[self.i:][:40]!r}")
        return value

    def _space(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def _value(self) -> Any:
        self._space()
        text, i = self.text, self.i
        if text.startswith("array(", i):
            self.i += len("array(")
            return self._array()
        if text[i] == '"':
            return self._string()
        for word, value in (("true", True), ("false", False), ("null", None), ("NAN", math.nan), ("INF", math.inf), ("-INF", -math.inf)):
            if text.startswith(word, i):
                self.i += len(word)
                return value
        match = self._NUMBER.match(text, i)
        if not match:
            raise ValueError(f"not a literal: {text[i:][:40]!r}")
        self.i = match.end()
        token = match.group(0)
        return float(token) if any(c in token for c in ".eE") else int(token)

    def _array(self) -> Any:
        items: list[Any] = []
        pairs: list[tuple[Any, Any]] = []
        while True:
            self._space()
            if self.text[self.i] == ")":
                self.i += 1
                break
            first = self._value()
            self._space()
            if self.text.startswith("=>", self.i):
                self.i += 2
                pairs.append((first, self._value()))
            else:
                items.append(first)
            self._space()
            if self.text[self.i] == ",":
                self.i += 1
        if pairs and items:
            raise ValueError("an array of both items and pairs")
        return dict(pairs) if pairs else items

    def _string(self) -> str:
        out, i, text = [], self.i + 1, self.text
        escapes = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "e": "\x1b", "f": "\f", "\\": "\\", "$": "$", '"': '"'}
        while text[i] != '"':
            if text[i] == "\\" and text[i + 1] in escapes:
                out.append(escapes[text[i + 1]])
                i += 2
            else:
                out.append(text[i])
                i += 1
        self.i = i + 1
        return "".join(out)
