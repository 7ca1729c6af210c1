"""The language-neutral value and type model, and the plain-data codec every language's harness writes.

A `Type` is what a problem's signature says a parameter or result is: none, bool, int (arbitrary
precision), float (nan and ±inf included), str, list, tuple (fixed or variable length), dict, set,
optional and union, or `any` where the Python original has no annotation. Signatures come from
the typed Python prompts (HumanEval's and MBPP's, as MultiPL-E annotated them), read with `ast`.

The wire form a harness writes is JSON, read under the declared type, so the harness needs no
type tags: an array is a list, a tuple or a set as the type says; a dict is an array of
`[key, value]` pairs (keys may be ints); floats may be written as `NaN`, `Infinity`, `-Infinity`
or the strings "nan", "inf", "-inf"; a union is decoded as the first of its alternatives that fits.
Nothing from the sandbox is evaluated: `decode` builds plain Python values, and anything that does
not fit the type is a `WireError`.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["none", "bool", "int", "float", "str", "list", "tuple", "vtuple", "dict", "set", "optional", "union", "any"]
SCALARS = ("none", "bool", "int", "float", "str")


@dataclass(frozen=True)
class Type:
    """A value's type; `args` are the element / key and value / alternative types."""

    kind: Kind
    args: tuple[Type, ...] = ()

    def __str__(self) -> str:
        names = {"none": "None", "vtuple": "tuple"}
        name = names.get(self.kind, self.kind)
        if self.kind == "vtuple":
            return f"tuple[{self.args[0]}, ...]"
        if self.kind == "optional":
            return f"{self.args[0]} | None"
        if self.kind == "union":
            return " | ".join(str(a) for a in self.args)
        if self.args:
            return f"{name}[{', '.join(str(a) for a in self.args)}]"
        return name


NONE, BOOL, INT, FLOAT, STR, ANY = (Type(k) for k in ("none", "bool", "int", "float", "str", "any"))


def list_of(t: Type) -> Type:
    """list[t]"""
    return Type("list", (t,))


def dict_of(k: Type, v: Type) -> Type:
    """dict[k, v]"""
    return Type("dict", (k, v))


def tuple_of(*ts: Type) -> Type:
    """tuple[t1, ..., tn]"""
    return Type("tuple", tuple(ts))


def optional(t: Type) -> Type:
    """t | None (an optional optional is the optional)."""
    return t if t.kind in ("optional", "none", "any") else Type("optional", (t,))


def union(ts: Sequence[Type]) -> Type:
    """The union of types, flattened; None in it makes it optional; one alternative is itself."""
    flat: list[Type] = []
    for t in ts:
        for alt in (t.args if t.kind == "union" else (t,)):
            if alt not in flat:
                flat.append(alt)
    has_none = NONE in flat
    rest = [t for t in flat if t != NONE]
    if any(t.kind == "any" for t in rest):
        return ANY
    inner = rest[0] if len(rest) == 1 else Type("union", tuple(rest)) if rest else NONE
    return optional(inner) if has_none else inner


@dataclass(frozen=True)
class Signature:
    """A problem's entry point: parameter names and types, and the result type."""

    name: str
    params: tuple[tuple[str, Type], ...]
    returns: Type

    @property
    def param_types(self) -> tuple[Type, ...]:
        return tuple(t for _, t in self.params)


class UnsupportedType(ValueError):
    """An annotation outside the value model (a callable, a class, complex, ...)."""


_GENERIC: dict[str, Kind] = {"List": "list", "list": "list", "Dict": "dict", "dict": "dict", "Tuple": "tuple", "tuple": "tuple",
            "Set": "set", "set": "set", "FrozenSet": "set", "frozenset": "set", "Optional": "optional", "Union": "union"}  # fmt: skip
_PLAIN = {"int": INT, "float": FLOAT, "str": STR, "bool": BOOL, "None": NONE, "Any": ANY, "object": ANY,
          "list": list_of(ANY), "List": list_of(ANY), "dict": dict_of(ANY, ANY), "Dict": dict_of(ANY, ANY),
          "tuple": Type("vtuple", (ANY,)), "Tuple": Type("vtuple", (ANY,)), "set": Type("set", (ANY,)), "Set": Type("set", (ANY,))}  # fmt: skip


def parse_annotation(node: ast.expr | None) -> Type:
    """The Type of a Python annotation (typing's generics, builtin generics, `X | Y`); None: any."""
    if node is None:
        return ANY
    if isinstance(node, ast.Constant) and node.value is None:
        return NONE
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return parse_annotation(ast.parse(node.value, mode="eval").body)  # a string annotation
    if isinstance(node, ast.Attribute):  # typing.List
        return parse_annotation(ast.Name(id=node.attr))
    if isinstance(node, ast.Name):
        if node.id in _PLAIN:
            return _PLAIN[node.id]
        raise UnsupportedType(f"type {node.id} is outside the value model")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union([parse_annotation(node.left), parse_annotation(node.right)])
    if isinstance(node, ast.Subscript):
        base = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
        kind = _GENERIC.get(base or "")
        if kind is None:
            raise UnsupportedType(f"type {ast.unparse(node)} is outside the value model")
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if kind == "tuple":
            if len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis:
                return Type("vtuple", (parse_annotation(items[0]),))
            if len(items) == 1 and isinstance(items[0], ast.Tuple) and not items[0].elts:
                return Type("tuple", ())
            return Type("tuple", tuple(parse_annotation(i) for i in items))
        args = [parse_annotation(i) for i in items]
        if kind == "optional":
            return optional(args[0])
        if kind == "union":
            return union(args)
        if kind == "dict":
            if len(args) != 2:
                raise UnsupportedType(f"type {ast.unparse(node)} needs a key and a value type")
            return dict_of(args[0], args[1])
        return Type(kind, (args[0],))
    raise UnsupportedType(f"annotation {ast.unparse(node)} is outside the value model")


def signature_of(source: str, name: str) -> Signature:
    """The signature of function `name` in Python source (a prompt, with or without a body)."""
    text = source if source.rstrip().endswith(("pass", "...")) else source + "\n    pass\n"
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            params = tuple((a.arg, parse_annotation(a.annotation)) for a in node.args.args)
            return Signature(name, params, parse_annotation(node.returns))
    raise UnsupportedType(f"no function {name} in the prompt")


# ---------------------------------------------------------------- values against types


def type_of(value: Any) -> Type:
    """The most specific Type of a plain value (list element types unified; any where they differ)."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, str):
        return STR
    if isinstance(value, tuple):
        return tuple_of(*(type_of(v) for v in value))
    if isinstance(value, list):
        return list_of(_unify([type_of(v) for v in value]))
    if isinstance(value, (set, frozenset)):
        return Type("set", (_unify([type_of(v) for v in value]),))
    if isinstance(value, dict):
        return dict_of(_unify([type_of(k) for k in value]), _unify([type_of(v) for v in value.values()]))
    raise UnsupportedType(f"{type(value).__name__} values are outside the value model")


def _unify(types: list[Type]) -> Type:
    if not types:
        return ANY
    first = types[0]
    if all(t == first for t in types):
        return first
    if all(t.kind in ("int", "float") for t in types):
        return FLOAT
    return union(types) if len(set(types)) <= 3 else ANY


def fits(value: Any, t: Type) -> bool:
    """Whether a plain value is of type t (ints fit floats, as Python's typing has it)."""
    k = t.kind
    if k == "any":
        return True
    if k == "none":
        return value is None
    if k == "bool":
        return isinstance(value, bool)
    if k == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if k == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if k == "str":
        return isinstance(value, str)
    if k == "list":
        return isinstance(value, list) and all(fits(v, t.args[0]) for v in value)
    if k == "tuple":
        return isinstance(value, tuple) and len(value) == len(t.args) and all(fits(v, a) for v, a in zip(value, t.args, strict=True))
    if k == "vtuple":
        return isinstance(value, tuple) and all(fits(v, t.args[0]) for v in value)
    if k == "set":
        return isinstance(value, (set, frozenset)) and all(fits(v, t.args[0]) for v in value)
    if k == "dict":
        return isinstance(value, dict) and all(fits(a, t.args[0]) and fits(b, t.args[1]) for a, b in value.items())
    if k == "optional":
        return value is None or fits(value, t.args[0])
    if k == "union":
        return any(fits(value, a) for a in t.args)
    return False


def coerce(value: Any, t: Type) -> Any:
    """A value as the type says, the way MultiPL-E's translators read a Python literal at a type:
    ints become floats at float, tuples and lists become each other, lists become sets. Raises
    UnsupportedType where the value cannot be read at that type."""
    k = t.kind
    if k == "any":
        return value
    if k == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if k in SCALARS:
        if not fits(value, t):
            raise UnsupportedType(f"{_short(value)} is not a {t}")
        return value
    if k in ("list", "tuple", "vtuple", "set") and isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        if k == "tuple":
            if len(items) != len(t.args):
                raise UnsupportedType(f"{_short(value)} does not have the {len(t.args)} items of {t}")
            return tuple(coerce(v, a) for v, a in zip(items, t.args, strict=True))
        converted = [coerce(v, t.args[0]) for v in items]
        return converted if k == "list" else tuple(converted) if k == "vtuple" else set(converted)
    if k == "dict" and isinstance(value, dict):
        return {coerce(a, t.args[0]): coerce(b, t.args[1]) for a, b in value.items()}
    if k == "optional":
        return None if value is None else coerce(value, t.args[0])
    if k == "union":
        for alt in t.args:  # an exact fit first: 3 stays an int in int | float
            if fits(value, alt) and not (alt.kind == "float" and isinstance(value, int)):
                return coerce(value, alt)
        for alt in t.args:
            try:
                return coerce(value, alt)
            except UnsupportedType:
                continue
    raise UnsupportedType(f"{_short(value)} is not a {t}")


def as_wire(value: Any, t: Type) -> Any:
    """A value as the wire can tell it at type t: where the type is `any`, tuples are arrays, so lists."""
    k = t.kind
    if k == "any":
        return _any_view(value)
    if k in ("list", "vtuple", "set") and isinstance(value, (list, tuple, set, frozenset)):
        items = [as_wire(v, t.args[0]) for v in value]
        return items if isinstance(value, list) else tuple(items) if isinstance(value, tuple) else set(items)
    if k == "tuple" and isinstance(value, tuple) and len(value) == len(t.args):
        return tuple(as_wire(v, a) for v, a in zip(value, t.args, strict=True))
    if k == "dict" and isinstance(value, dict):
        return {a: as_wire(b, t.args[1]) for a, b in value.items()}
    if k == "optional" and value is not None:
        return as_wire(value, t.args[0])
    return value


def _any_view(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_any_view(v) for v in value]
    if isinstance(value, dict):
        return {k: _any_view(v) for k, v in value.items()}
    return value


def equal(a: Any, b: Any) -> bool:
    """Python's == on plain values (1 == 1.0, True == 1, nan != nan), never calling a sample's code."""
    return bool(a == b)


# ---------------------------------------------------------------- the wire form


class WireError(ValueError):
    """Data from the sandbox that does not decode at the declared type."""


_SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def parse_wire(text: str) -> Any:
    """Parse one wire value (JSON, plus NaN and ±Infinity); raises WireError."""
    try:
        return json.loads(text, parse_constant=lambda c: _SPECIAL_FLOATS[c])
    except (ValueError, RecursionError) as exc:
        raise WireError(f"not a value: {exc}") from None


def decode(data: Any, t: Type) -> Any:
    """The plain Python value that parsed wire data stands for at type t; raises WireError."""
    k = t.kind
    if k == "any":
        return _decode_any(data)
    if k == "none":
        if data is None:
            return None
    elif k == "bool":
        if isinstance(data, bool):
            return data
    elif k == "int":
        if isinstance(data, int) and not isinstance(data, bool):
            return data
        if isinstance(data, float) and data.is_integer() and abs(data) < 2**53:
            return int(data)  # "5.0" from a language that prints every number as a float
    elif k == "float":
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return float(data)
        if isinstance(data, str) and data in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[data]
    elif k == "str":
        if isinstance(data, str):
            return data
    elif k in ("list", "vtuple", "set"):
        if isinstance(data, list):
            items = [decode(v, t.args[0]) for v in data]
            if k == "list":
                return items
            if k == "vtuple":
                return tuple(items)
            try:
                return set(items)
            except TypeError:
                raise WireError(f"a set of unhashable items: {_short(data)}") from None
    elif k == "tuple":
        if isinstance(data, list) and len(data) == len(t.args):
            return tuple(decode(v, a) for v, a in zip(data, t.args, strict=True))
    elif k == "dict":
        if isinstance(data, list) and all(isinstance(p, list) and len(p) == 2 for p in data):
            out: dict[Any, Any] = {}
            for key, value in data:
                key = decode(key, t.args[0])
                try:
                    if key in out:
                        raise WireError(f"key {_short(key)} twice in one dict")
                    out[key] = decode(value, t.args[1])
                except TypeError:
                    raise WireError(f"an unhashable dict key: {_short(key)}") from None
            return out
    elif k == "optional":
        return None if data is None else decode(data, t.args[0])
    elif k == "union":
        for alt in _by_json_kind(t.args, data):
            try:
                return decode(data, alt)
            except WireError:
                continue
    raise WireError(f"{_short(data)} is not a {t}")


def _by_json_kind(alts: tuple[Type, ...], data: Any) -> list[Type]:
    """A union's alternatives, the ones JSON says the data already is first (5 is an int before a float)."""
    exact = {bool: "bool", int: "int", float: "float", str: "str", type(None): "none"}.get(type(data))
    return sorted(alts, key=lambda a: a.kind != exact)


def _decode_any(data: Any) -> Any:
    if isinstance(data, list):
        return [_decode_any(v) for v in data]
    if isinstance(data, dict):
        raise WireError("a JSON object is not a wire value (dicts are arrays of pairs)")
    return data


def encode(value: Any, t: Type) -> str:
    """The wire text of a value at type t (what a correct harness writes; used to test round trips)."""
    return json.dumps(_to_wire(coerce(value, t), t), allow_nan=True, ensure_ascii=False)


def _to_wire(value: Any, t: Type) -> Any:
    k = t.kind
    if k in ("list", "vtuple", "set"):
        items = sorted(value, key=repr) if k == "set" else value
        return [_to_wire(v, t.args[0]) for v in items]
    if k == "tuple":
        return [_to_wire(v, a) for v, a in zip(value, t.args, strict=True)]
    if k == "dict":
        return [[_to_wire(a, t.args[0]), _to_wire(b, t.args[1])] for a, b in value.items()]
    if k == "optional":
        return None if value is None else _to_wire(value, t.args[0])
    if k == "union":
        alt = next(a for a in t.args if fits(value, a))
        return _to_wire(value, alt)
    if k == "any":
        return _any_to_wire(value)
    return value


def _any_to_wire(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_any_to_wire(v) for v in value]
    if isinstance(value, dict):
        return [[_any_to_wire(a), _any_to_wire(b)] for a, b in value.items()]
    return value


def _short(value: Any, limit: int = 120) -> str:
    try:
        text = repr(value)
    except ValueError:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."
