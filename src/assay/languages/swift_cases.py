"""Swift cases: MultiPL-E's Swift literals for plain values, and the case harness with one typed encoder per case.

MultiPL-E (dataset_builder/humaneval_to_swift.py) maps Python's types to Swift's: int -> Int, float ->
Double, str -> String, bool -> Bool, list and tuple[T, ...] -> [T], tuple -> a Swift tuple (one of one
element is the element), dict -> [K : V], T | None -> T?, a union of two -> Result<A, B> (MultiPL-E makes
the second type an Error), of three or more simple types -> its generated `enum Value` (`.intValue(..)`,
`.doubleValue(..)`, `.stringValue(..)`, `.boolValue(..)`), None -> (), Any -> AnyHashable. Its literals:
`[] as [T]` and `[:] as [K : V]` for empty collections, `nil`, `.success(x)` / `.failure(x)` for the
alternative x fits without an int -> float conversion (else the first that fits with one).

The harness encodes each result under the declared type with a function generated for that type
(Swift's type checker then knows every type; nothing is inferred from the value at run time but
what `AnyHashable` holds), and writes the records unbuffered with write(2) on fd 3.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from typing import Any

from assay.languages.base import Unrepresentable
from assay.languages.harness import numbered
from assay.values import Signature, Type

INT64 = 2**63
_SIMPLE = {"int": "Int", "float": "Double", "str": "String", "bool": "Bool"}
_VALUE_CASE = {"int": "intValue", "float": "doubleValue", "str": "stringValue", "bool": "boolValue"}


def swift_type(t: Type) -> str:
    """The Swift type MultiPL-E's translator writes for a Python type."""
    k = t.kind
    if k in _SIMPLE:
        return _SIMPLE[k]
    if k == "none":
        return "()"
    if k == "any":
        return "AnyHashable"
    if k in ("list", "vtuple"):
        return f"[{swift_type(t.args[0])}]"
    if k == "set":  # mxeval's Set<T> (MultiPL-E writes none)
        return f"Set<{swift_type(t.args[0])}>"
    if k == "tuple":
        if len(t.args) == 1:
            return swift_type(t.args[0])
        return "(" + ", ".join(swift_type(a) for a in t.args) + ")"
    if k == "dict":
        return f"[{swift_type(t.args[0])} : {swift_type(t.args[1])}]"
    if k == "optional":
        return swift_type(t.args[0]) + "?"
    if k == "union":
        if len(t.args) == 2:
            return f"Result<{swift_type(t.args[0])}, {swift_type(t.args[1])}>"
        if all(a.kind in _SIMPLE for a in t.args):
            return "Value"
        raise Unrepresentable(f"a union of non-scalar types: {t}")
    raise Unrepresentable(f"type {t} has no Swift translation in MultiPL-E")


# ---------------------------------------------------------------- literals


def swift_string(s: str) -> str:
    """A Swift string literal: MultiPL-E escapes \\, ", newline and tab; other control characters are escaped too."""
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\0":
            out.append("\\0")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def render(value: Any, t: Type) -> str:
    """A Swift literal of a plain value at type t, as MultiPL-E writes it; raises Unrepresentable."""
    return _render(value, t)[0]


def _render(value: Any, t: Type) -> tuple[str, bool]:
    """(literal, whether an int was written at a Double) - MultiPL-E's choice between union alternatives needs the second."""
    k = t.kind
    if k == "optional":
        return ("nil", False) if value is None else _render(value, t.args[0])
    if k == "union":
        choices: list[tuple[int, int, str]] = []
        for i, alt in enumerate(t.args):
            try:
                text, up = _render(value, alt)
            except Unrepresentable:
                continue
            choices.append((int(up), i, text))
        if not choices:
            raise Unrepresentable(f"{_short(value)} fits no alternative of {t}")
        converted, i, text = min(choices)
        if len(t.args) == 2:
            return (".success" if i == 0 else ".failure") + f"({text})", bool(converted)
        swift_type(t)  # a union MultiPL-E can write
        return f".{_VALUE_CASE[t.args[i].kind]}({text})", bool(converted)
    untyped = k == "any"
    if value is None:
        if k == "none":
            return "()", False
        raise Unrepresentable(f"None where {t} is not optional")
    if isinstance(value, bool):
        if k == "bool" or untyped:
            return ("true" if value else "false"), False
    elif isinstance(value, int):
        if k in ("int", "float") or untyped:
            if abs(value) >= INT64:
                if k != "float":
                    raise Unrepresentable(f"int beyond Int64: {value}")
                return _double(float(value)), True
            return str(value), k == "float"
    elif isinstance(value, float):
        if k == "float" or untyped:
            return _double(value), False
    elif isinstance(value, str):
        if k == "str" or untyped:
            return swift_string(value), False
    elif isinstance(value, list):
        if k in ("list", "vtuple") or untyped:
            return _items(value, t.args[0] if not untyped else t, "[", "]")
        if k == "tuple":  # a list where Python's typing says tuple (JSON-born inputs): Swift needs a tuple
            return _tuple(tuple(value), t)
    elif isinstance(value, tuple):
        if k == "tuple":
            return _tuple(value, t)
        if k in ("list", "vtuple"):
            text, _ = _items(list(value), t.args[0], "[", "]")
            return text, True  # MultiPL-E counts a tuple written as an array as a conversion
        if untyped:
            return _items(list(value), t, "(", ")")
    elif isinstance(value, dict):
        if k == "dict" or untyped:
            kt, vt = (t, t) if untyped else t.args
            if not value:
                return f"[:] as [{swift_type(kt)} : {swift_type(vt)}]", False
            parts, up = [], False
            for key, item in value.items():
                (ks, ku), (vs, vu) = _render(key, kt), _render(item, vt)
                parts.append(f"{ks} : {vs}")
                up = up or ku or vu
            return "[" + ", ".join(parts) + "]", up
    elif isinstance(value, (set, frozenset)):
        raise Unrepresentable(f"sets have no Swift translation in MultiPL-E: {_short(value)}")
    else:
        raise Unrepresentable(f"{type(value).__name__} values: {_short(value)}")
    raise Unrepresentable(f"{_short(value)} is not a {t}")


def _items(items: list[Any], element: Type, open_: str, close: str) -> tuple[str, bool]:
    if not items and open_ == "[":
        return f"[] as [{swift_type(element)}]", False
    rendered = [_render(v, element) for v in items]
    return open_ + ", ".join(r[0] for r in rendered) + close, any(r[1] for r in rendered)


def _tuple(value: tuple[Any, ...], t: Type) -> tuple[str, bool]:
    if len(value) != len(t.args):
        raise Unrepresentable(f"{_short(value)} does not have the {len(t.args)} items of {t}")
    if len(t.args) == 1:
        return _render(value[0], t.args[0])  # MultiPL-E's one-tuple is its element
    rendered = [_render(v, a) for v, a in zip(value, t.args, strict=True)]
    return "(" + ", ".join(r[0] for r in rendered) + ")", any(r[1] for r in rendered)


def _double(v: float) -> str:
    if math.isnan(v):
        return "Double.nan"
    if math.isinf(v):
        return "Double.infinity" if v > 0 else "-Double.infinity"
    return str(v)  # Python's shortest repr: 0.1, 1e-05, 1e+16 are Swift literals too


def swift_equal(a: Any, b: Any) -> bool:
    """Swift's `==` on plain values: numbers by value (AnyHashable(1) == AnyHashable(1.0), as Swift 5.x/6
    answers), a Bool equal only to a Bool, strings by canonical equivalence, NaN equal to nothing."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b or unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(swift_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(swift_equal(a[key], b[key]) for key in a)
    if isinstance(a, (set, frozenset)) and isinstance(b, (set, frozenset)):
        return len(a) == len(b) and all(any(swift_equal(x, y) for y in b) for x in a)
    return type(a) is type(b) and bool(a == b)


def render_call(signature: Signature, args: tuple[Any, ...]) -> str:
    """`f(a: 1, b: [2])`: MultiPL-E's Swift calls carry the Python parameter names as argument labels."""
    if len(args) != len(signature.params):
        raise Unrepresentable(f"{len(args)} arguments for {len(signature.params)} parameters")
    parts = [f"{name}: {render(a, t)}" for a, (name, t) in zip(args, signature.params, strict=True)]
    return f"{signature.name}({', '.join(parts)})"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "..."


# ---------------------------------------------------------------- the case harness

# Written after MultiPL-E's test-section prefix (which closes the prompt's function): helpers, the
# generated encoders, one `assayCase` line per case, then `done <n>`. Top-level code of main.swift.
# The helpers (HELPERS: the channel and the scalar encoders) are the same for every program: where the
# module AssayHarness is built (once per machine, with the module cache: see swift.py), the program
# imports them from it (HARNESS_MODULE) instead of type-checking them with every sample.
IMPORTS = r"""
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

"""

HELPERS = r"""
func assayWrite(_ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(10)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { buffer -> Int in write(3, buffer.baseAddress! + offset, buffer.count - offset) }
        if n <= 0 { _exit(70) }
        offset += n
    }
}
func assayCase(_ i: Int, _ wire: String) { assayWrite(String(i) + " v " + wire) }
func assayInt(_ v: Int) -> String { return String(v) }
func assayBool(_ v: Bool) -> String { return v ? "true" : "false" }
func assayVoid(_ v: ()) -> String { return "null" }
func assayDouble(_ v: Double) -> String {
    if v.isNaN { return "NaN" }
    if v.isInfinite { return v < 0 ? "-Infinity" : "Infinity" }
    return v.description
}
func assayString(_ v: String) -> String {
    var s = "\""
    for u in v.unicodeScalars {
        switch u {
        case "\"": s += "\\\""
        case "\\": s += "\\\\"
        case "\n": s += "\\n"
        case "\r": s += "\\r"
        case "\t": s += "\\t"
        default:
            if u.value < 0x20 {
                let hex = String(u.value, radix: 16)
                s += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                s.unicodeScalars.append(u)
            }
        }
    }
    return s + "\""
}
func assayAny(_ v: AnyHashable) -> String {
    let b = v.base
    if let x = b as? Bool { return assayBool(x) }
    if let x = b as? Int { return assayInt(x) }
    if let x = b as? Double { return assayDouble(x) }
    if let x = b as? String { return assayString(x) }
    if let x = b as? [AnyHashable] {
        var s = "["
        for (i, e) in x.enumerated() { if i > 0 { s += "," }; s += assayAny(e) }
        return s + "]"
    }
    if let x = b as? [AnyHashable: AnyHashable] {
        var s = "["
        for (i, e) in x.enumerated() { if i > 0 { s += "," }; s += "[" + assayAny(e.key) + "," + assayAny(e.value) + "]" }
        return s + "]"
    }
    return "<not plain data: " + String(describing: type(of: b)) + ">"
}
func assayFinish(_ n: Int) -> Never {
    assayWrite("done " + String(n))
    exit(0)
}
"""

# The module: the helpers, public.
HARNESS_MODULE = IMPORTS + HELPERS.replace("\nfunc ", "\npublic func ")
CASE_HARNESS = r"""
__HELPERS__
__ENCODERS__
__CASES__
assayFinish(__COUNT__)
"""

CASES_PER_FUNCTION = 50
_SCALAR_ENCODERS = {"int": "assayInt", "float": "assayDouble", "str": "assayString", "bool": "assayBool", "none": "assayVoid", "any": "assayAny"}


class Encoders:
    """Swift functions `(T) -> String` that write a value of a declared type as wire JSON, one per distinct type."""

    def __init__(self) -> None:
        self.defs: list[str] = []
        self.names: dict[Type, str] = {}

    def of(self, t: Type) -> str:
        """The name of the encoder of type t (generated with those of its parts)."""
        if t.kind in _SCALAR_ENCODERS:
            return _SCALAR_ENCODERS[t.kind]
        if t in self.names:
            return self.names[t]
        k, st = t.kind, swift_type(t)
        parts = [self.of(a) for a in t.args]
        name = self.names[t] = f"assayEncode{len(self.names)}"
        head = f"func {name}(_ v: {st}) -> String {{"
        if k in ("list", "vtuple", "set"):
            body = ['var s = "["', "var first = true",
                    f'for x in v {{ if first {{ first = false }} else {{ s += "," }}; s += {parts[0]}(x) }}', 'return s + "]"']
        elif k == "tuple":
            if len(t.args) == 1:
                body = [f'return "[" + {parts[0]}(v) + "]"']
            else:
                body = ['var s = "["']
                for i, enc in enumerate(parts):
                    body.append(("" if i == 0 else 's += ","; ') + f"s += {enc}(v.{i})")
                body.append('return s + "]"')
        elif k == "dict":
            body = ['var s = "["', "var first = true",
                    f'for (a, b) in v {{ if first {{ first = false }} else {{ s += "," }}; s += "["; s += {parts[0]}(a); s += ","; s += {parts[1]}(b); s += "]" }}',
                    'return s + "]"']
        elif k == "optional":
            body = [f"if let x = v {{ return {parts[0]}(x) }}", 'return "null"']
        elif k == "union" and len(t.args) == 2:
            body = [f"switch v {{ case .success(let x): return {parts[0]}(x); case .failure(let x): return {parts[1]}(x) }}"]
        elif k == "union":
            cases = "; ".join(f"case .{_VALUE_CASE[a.kind]}(let x): return {enc}(x)" for a, enc in zip(t.args, parts, strict=True))
            body = [f"switch v {{ {cases} }}"]
        else:
            raise Unrepresentable(f"no Swift encoder for {t}")
        self.defs.append(head + "\n" + "\n".join("    " + line for line in body) + "\n}")
        return name


def case_harness(returns: Type, calls: Sequence[str], module: bool = False) -> str:
    """The harness text for these calls: each result through the encoder of the declared result type;
    module: the helpers come from the module AssayHarness, imported, instead of the text."""
    encoders = Encoders()
    top = encoders.of(returns)
    lines = numbered(calls, lambda i, call: f"    assayCase({i}, {top}({call}))").split("\n") if calls else []
    # In groups of CASES_PER_FUNCTION: one huge top-level function is slow to build (SILGen), one function a case too.
    groups = [lines[k : k + CASES_PER_FUNCTION] for k in range(0, len(lines), CASES_PER_FUNCTION)]
    functions = "\n".join(f"func assayCases{g}() {{\n" + "\n".join(group) + "\n}" for g, group in enumerate(groups))
    run = "\n".join(f"assayCases{g}()" for g in range(len(groups)))
    # Glibc stays imported in the program: a sample may call exit() or sqrt() without importing it, as the test section let it.
    helpers = IMPORTS + ("import AssayHarness\n" if module else HELPERS)
    return (CASE_HARNESS.replace("__HELPERS__", helpers).replace("__ENCODERS__", "\n".join(encoders.defs) + "\n" + functions)
            .replace("__CASES__", run).replace("__COUNT__", str(len(calls))))
