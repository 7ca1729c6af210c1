"""Reading a hand-written Swift suite for `assay augment` (assay.augment.units): the entry point's
signature in the value model, and the literal calls of it in tests.swift that seed the mutation.

- `swift_function`: a top-level function's parameters (argument label and type) and result, or why it
  cannot be augmented (class-level, generic, a method, async, a type outside the value model; a result
  of another type is kept as `opaque`, labelled by its description);
- `literal`: a small reader of Swift literals (numbers, one-line and multi-line strings with their
  escapes, true/false/nil, arrays, dictionaries, `[T]()`);
- `seeds_of`: the entry point's calls whose arguments are all literals, or names bound once to a
  literal in the same test function.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.augment.generate import CannotAugment
from assay.values import BOOL, FLOAT, INT, STR, Type, UnsupportedType, coerce, dict_of, fits, list_of, optional, tuple_of

_SCALARS = {"Int": INT, "Double": FLOAT, "String": STR, "Bool": BOOL}


@dataclass(frozen=True)
class SwiftFunction:
    """A top-level Swift function in the value model: name, (label, type) per parameter (label "_": none), result, throws."""

    name: str
    params: tuple[tuple[str, Type], ...]
    returns: Type
    throws: bool
    opaque: str = ""  # a result type outside the value model (an enum or struct of the context): labelled by its description

    @property
    def types(self) -> list[Type]:
        return [t for _, t in self.params]

    def call(self, args: Sequence[Any]) -> str:
        """The call with Swift literals (MultiPL-E's renderer), prefixed by `try` when it throws."""
        from assay.languages.swift_cases import render

        parts = [render(a, t) if label == "_" else f"{label}: {render(a, t)}" for a, (label, t) in zip(args, self.params, strict=True)]
        return ("try " if self.throws else "") + f"{self.name}({', '.join(parts)})"


# ---------------------------------------------------------------- signatures and types


def _split_top(text: str, sep: str = ",") -> list[str]:
    """`text` split at `sep` outside brackets, parentheses, angle brackets and string literals."""
    out, depth, start, i, quote = [], 0, 0, 0, False
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c in "([<":
            depth += 1
        elif c in ")]>":
            depth -= 1
        elif c == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
        i += 1
    out.append(text[start:])
    return [part.strip() for part in out]


def swift_type(text: str) -> Type:
    """The value-model Type of a Swift type (raises UnsupportedType for anything else)."""
    t = text.strip()
    if t.endswith("?"):
        return optional(swift_type(t[:-1]))
    if t in _SCALARS:
        return _SCALARS[t]
    if t.startswith("[") and t.endswith("]"):
        inner = _split_top(t[1:-1], ":")
        if len(inner) == 2:
            return dict_of(swift_type(inner[0]), swift_type(inner[1]))
        return list_of(swift_type(t[1:-1]))
    for generic in ("Array<", "Dictionary<"):
        if t.startswith(generic) and t.endswith(">"):
            args = [swift_type(p) for p in _split_top(t[len(generic) : -1])]
            return list_of(args[0]) if generic == "Array<" else dict_of(args[0], args[1])
    if t.startswith("(") and t.endswith(")"):
        parts = [p.split(":", 1)[-1] if re.match(r"^\w+\s*:", p) else p for p in _split_top(t[1:-1])]
        return swift_type(parts[0]) if len(parts) == 1 else tuple_of(*(swift_type(p) for p in parts))
    raise UnsupportedType(f"Swift type {t!r} is outside the value model")


def swift_function(signature: str, name: str) -> SwiftFunction:
    """The top-level function `name` declared in signature.swift, in the value model; raises CannotAugment."""
    from assay.languages.swift_units import code_only

    code = code_only(signature)
    head = re.search(rf"^(?:(?:public|internal)\s+)?func\s+{re.escape(name)}\s*([<(])", code, re.M)
    if head is None:
        if re.search(rf"\bfunc\s+{re.escape(name)}\b", code):
            raise CannotAugment(f"{name} is a method, not a top-level function")
        raise CannotAugment(f"no top-level function {name} (a class-level problem)")
    if head.group(1) == "<":
        raise CannotAugment(f"{name} is generic: no concrete types to generate inputs of")
    start = head.end() - 1
    depth, end = 0, start
    for end in range(start, len(code)):
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        if depth == 0:
            break
    params_text = signature[start + 1 : end]
    rest = code[end + 1 : code.find("{", end)]
    if re.search(r"\basync\b", rest):
        raise CannotAugment(f"{name} is async")
    if re.search(r"\bwhere\b|\bsome\b|\bany\b", rest):
        raise CannotAugment(f"{name}'s result type is generic or existential")
    arrow = rest.split("->", 1)
    try:
        if len(arrow) != 2 or arrow[1].strip() in ("Void", "()"):
            raise CannotAugment(f"{name} returns nothing: no output to label")
        opaque = ""
        try:
            returns = swift_type(arrow[1])
        except UnsupportedType:
            if not re.fullmatch(r"[A-Za-z_][\w.]*\??", arrow[1].strip()):
                raise
            opaque, returns = arrow[1].strip(), STR
        params: list[tuple[str, Type]] = []
        for part in _split_top(params_text) if params_text.strip() else []:
            declared, _, kind = part.partition(":")
            kind = kind.split("=", 1)[0]
            if "@" in kind or "->" in kind or "inout" in kind or "..." in kind:
                raise CannotAugment(f"{name} takes a closure, inout or variadic parameter")
            words = declared.split()
            params.append((words[0], swift_type(kind)))
    except UnsupportedType as exc:
        raise CannotAugment(f"{name}: {exc}") from None
    if _holds_float(returns, top=True):
        raise CannotAugment(f"{name} returns Doubles inside a container: no tolerance to compare them with")
    return SwiftFunction(name, tuple(params), returns, throws=bool(re.search(r"\b(re)?throws\b", arrow[0])), opaque=opaque)


def _holds_float(t: Type, top: bool = False) -> bool:
    if t.kind == "float":
        return not top
    if t.kind == "optional":
        return _holds_float(t.args[0], top)
    return any(_holds_float(a) for a in t.args)


# ---------------------------------------------------------------- seeds: literal calls in tests.swift


class NotLiteral(ValueError):
    """An argument that is not a literal this reader knows."""


class _Literal:
    """A reader of Swift literals: numbers, strings (one-line and multi-line, no interpolation), true,
    false, nil, arrays, dictionaries, and empty `[T]()` / `[K: V]()`."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0

    def read(self) -> Any:
        value = self.value()
        self.space()
        if self.i != len(self.text):
            raise NotLiteral(self.text[self.i : self.i + 20])
        return value

    def space(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t\r\n":
            self.i += 1

    def value(self) -> Any:
        self.space()
        text, i = self.text, self.i
        if text.startswith('"""', i):
            return self.multiline()
        if text.startswith('"', i):
            return self.string()
        if text.startswith("[", i):
            return self.collection()
        number = re.compile(r"-?(?:0x[0-9a-fA-F_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)").match(text, i)
        if number:
            self.i = number.end()
            raw = number.group().replace("_", "")
            return int(raw, 16) if "0x" in raw else float(raw) if any(c in raw for c in ".eE") else int(raw)
        word = re.compile(r"[A-Za-z_]\w*").match(text, i)
        if word and word.group() in ("true", "false", "nil"):
            self.i = word.end()
            return {"true": True, "false": False, "nil": None}[word.group()]
        raise NotLiteral(text[i : i + 20])

    def string(self) -> str:
        close = self.i + 1
        while close < len(self.text) and self.text[close] not in '"\n':
            close += 2 if self.text[close] == "\\" else 1
        if close >= len(self.text) or self.text[close] != '"':
            raise NotLiteral("an unterminated string")
        raw, self.i = self.text[self.i + 1 : close], close + 1
        return _unescape(raw)

    def multiline(self) -> str:
        opened = self.i + 3
        close = self.text.find('"""', opened)
        if close < 0 or self.text[opened : opened + 1] != "\n":
            raise NotLiteral("a multi-line string")
        lines = self.text[opened + 1 : close].split("\n")
        indent = lines[-1]
        if indent.strip() or any(line.strip() and not line.startswith(indent) for line in lines[:-1]):
            raise NotLiteral("a multi-line string with uneven indentation")
        self.i = close + 3
        return _unescape("\n".join(line[len(indent) :] for line in lines[:-1]))

    def collection(self) -> Any:
        depth, close = 0, self.i
        for close in range(self.i, len(self.text)):
            depth += {"[": 1, "]": -1}.get(self.text[close], 0)
            if depth == 0:
                break
        if self.text.startswith("()", close + 1) and re.fullmatch(r"[\w\s:\[\]?<>,.]+", self.text[self.i + 1 : close]):
            inner = self.text[self.i + 1 : close]
            self.i = close + 3
            return {} if len(_split_top(inner, ":")) == 2 else []
        self.i += 1
        self.space()
        if self.text.startswith(":", self.i):
            self.i += 1
            self.space()
            self.expect("]")
            return {}
        items: list[Any] = []
        pairs: dict[Any, Any] = {}
        is_dict: bool | None = None
        while True:
            self.space()
            if self.text.startswith("]", self.i):
                self.i += 1
                return pairs if is_dict else items
            first = self.value()
            self.space()
            if self.text.startswith(":", self.i):
                if is_dict is False:
                    raise NotLiteral("a mixed collection")
                is_dict = True
                self.i += 1
                pairs[_hashable(first)] = self.value()
            else:
                if is_dict:
                    raise NotLiteral("a mixed collection")
                is_dict = False
                items.append(first)
            self.space()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("]", self.i):
                raise NotLiteral(self.text[self.i : self.i + 20])

    def expect(self, token: str) -> None:
        if not self.text.startswith(token, self.i):
            raise NotLiteral(self.text[self.i : self.i + 20])
        self.i += len(token)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "'": "'", "\\": "\\"}


def _unescape(raw: str) -> str:
    """A string literal's body with its escapes read (`\\u{..}` included); raises NotLiteral on an interpolation."""
    out, i = [], 0
    while i < len(raw):
        c = raw[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = raw[i + 1 : i + 2]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        scalar = re.compile(r"\\u\{([0-9a-fA-F]{1,8})\}").match(raw, i)
        if scalar is None:
            raise NotLiteral("an interpolated or unknown escape")
        out.append(chr(int(scalar.group(1), 16)))
        i = scalar.end()
    return "".join(out)


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        raise NotLiteral("a collection as a dictionary key")
    return value


def literal(text: str) -> Any:
    """A Swift literal's plain value; raises NotLiteral."""
    return _Literal(text).read()


def _literal_bindings(tests: str) -> list[tuple[int, str, Any]]:
    """Every `let name = <literal>` in the tests: (offset, name, value, or NotLiteral where it is not a literal)."""
    found: list[tuple[int, str, Any]] = []
    for match in re.finditer(r"^[ \t]*let[ \t]+(\w+)[ \t]*=[ \t]*", tests, re.M):
        end = _expression_end(tests, match.end())
        try:
            found.append((match.start(), match.group(1), literal(tests[match.end() : end])))
        except NotLiteral:
            found.append((match.start(), match.group(1), NotLiteral))
    return found


def _bound(bindings: list[tuple[int, str, Any]], name: str, at: int, scope: int) -> Any:
    """The literal `name` is bound to at offset `at`: the last `let` of it in the same test function."""
    for offset, bound, value in reversed(bindings):
        if scope <= offset < at and bound == name:
            if value is NotLiteral:
                raise NotLiteral(name)
            return value
    raise NotLiteral(name)


def _expression_end(text: str, start: int) -> int:
    """Where the expression starting at `start` ends: the end of its line, past brackets and strings that go on."""
    depth, i = 0, start
    while i < len(text):
        if text.startswith('"""', i):
            close = text.find('"""', i + 3)
            i = close + 3 if close >= 0 else len(text)
            continue
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "\n" and depth <= 0:
            return i
        i += 1
    return i


def seeds_of(tests: str, fn: SwiftFunction) -> list[tuple[Any, ...]]:
    """The argument tuples of the entry point's calls in tests.swift whose every argument is a literal
    (or a name bound once to one), in the signature's types, deduplicated in source order."""
    from assay.augment.mutate import canonical
    from assay.languages.swift_units import TEST_FUNC, code_only

    bindings = _literal_bindings(tests)
    heads = [m.start() for m in TEST_FUNC.finditer(tests)]
    code = code_only(tests)  # comments and string contents blanked, offsets kept: calls are found in code only
    out: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    for match in re.finditer(rf"(?<![\w.]){re.escape(fn.name)}\(", code):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(code)):
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            if depth == 0:
                break
        args = _split_top(tests[match.end() : end]) if tests[match.end() : end].strip() else []
        if len(args) != len(fn.params):
            continue
        values: list[Any] = []
        scope = max((h for h in heads if h < match.start()), default=0)
        try:
            for arg, (label, t) in zip(args, fn.params, strict=True):
                if label != "_":
                    if not arg.startswith(f"{label}:"):
                        raise NotLiteral(arg)
                    arg = arg[len(label) + 1 :].strip()
                value = _bound(bindings, arg, match.start(), scope) if re.fullmatch(r"[A-Za-z_]\w*", arg) and arg not in ("true", "false", "nil") else literal(arg)
                if not fits(value, t):
                    raise NotLiteral(arg)
                values.append(coerce(value, t))
        except NotLiteral:
            continue
        key = canonical(tuple(values))
        if key not in seen:
            seen.add(key)
            out.append(tuple(values))
    return out
