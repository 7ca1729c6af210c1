"""Floats at 32 bits: MultiPL-E declares Python's floats as `float` in C++, Java, C#, Scala, D and
Haskell. Rounding values to float32, and the literals of Java, C# and Scala (64-bit ints, float32
floats, bools, strings), one renderer with each language's spelling."""

from __future__ import annotations

import dataclasses
import math
import struct
from collections.abc import Callable
from typing import Any

from assay.languages.base import Unrepresentable
from assay.values import Type

FLOAT32_MAX = 3.4028234663852886e38


@dataclasses.dataclass(frozen=True)
class Float32Spelling:
    """How a JVM-family language (Java, C#, Scala) spells 64-bit ints and 32-bit floats."""

    long: str  # "{}l"
    float_of_long: str  # an int at a float: "(float){}l"
    nan: str
    inf: str
    neg_inf: str
    string: Callable[[str], str]


def float32_scalar(value: Any, k: str, spell: Float32Spelling, cast: str = "") -> str:
    """An int (64-bit), float (float32), bool or str literal; `cast` follows an int, float or bool (Scala's items)."""
    if k == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unrepresentable(f"{value!r} is not an int")
        if not -(2**63) <= value < 2**63:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return spell.long.format(value) + cast
    if k == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Unrepresentable(f"{value!r} is not a float")
        if isinstance(value, int):
            if -(2**63) <= value < 2**63:
                return spell.float_of_long.format(value)
            value = float(value)
        if math.isnan(value):
            return spell.nan
        if math.isinf(value):
            return spell.inf if value > 0 else spell.neg_inf
        if abs(value) > FLOAT32_MAX or (value != 0 and float32(value) == 0):
            raise Unrepresentable(f"float beyond float32: {value!r}")
        return f"{value!r}f{cast}"
    if k == "bool":
        if not isinstance(value, bool):
            raise Unrepresentable(f"{value!r} is not a bool")
        return ("true" if value else "false") + cast
    if not isinstance(value, str):
        raise Unrepresentable(f"{value!r} is not a str")
    return spell.string(value)


def float32(x: float) -> float:
    """x rounded to the nearest float32 (±inf beyond its range)."""
    try:
        return float(struct.unpack("f", struct.pack("f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def float32_values(value: Any, t: Type) -> Any:
    """A plain value with every float in it (at a float type, or under any) rounded to float32, and
    under `any` tuples read as lists (a result of type any comes back from the wire as lists: the
    declared type cannot tell a tuple, and MultiPL-E's `Object` results compare with .equals)."""
    k = t.kind
    if isinstance(value, float) and k in ("float", "any", "union", "optional"):
        return float32(value)
    if k in ("list", "vtuple", "set") and isinstance(value, (list, tuple, set, frozenset)):
        items = [float32_values(v, t.args[0]) for v in value]
        return items if isinstance(value, list) else tuple(items) if isinstance(value, tuple) else set(items)
    if k == "tuple" and isinstance(value, tuple):
        return tuple(float32_values(v, a) for v, a in zip(value, t.args, strict=False))
    if k == "dict" and isinstance(value, dict):
        return {float32_values(a, t.args[0]): float32_values(b, t.args[1]) for a, b in value.items()}
    if k == "optional":
        return None if value is None else float32_values(value, t.args[0])
    if k == "any" and isinstance(value, (list, tuple)):
        return [float32_values(v, t) for v in value]
    if k == "any" and isinstance(value, dict):
        return {a: float32_values(b, t) for a, b in value.items()}
    return value
