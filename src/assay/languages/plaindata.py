"""Exact, code-free encoding of Python values as JSON, for data that crosses the sandbox boundary.

This file is copied into the sandbox and imported there by the driver, so it uses the standard
library only. Values keep their exact types (tuple vs list, set, complex, bytes, int dict keys,
nan/inf, -0.0, huge ints); anything else is refused, so a sample can never hand the trusted side an
object whose `__eq__` or `__bool__` it controls. numpy scalars and arrays are carried as tagged data
and rebuilt as numpy objects on the trusted side, so comparisons behave as they would in the peers.
"""

from __future__ import annotations

import collections
import json
import math
from collections import deque
from typing import Any

TAG = "$t"
MAX_DEPTH = 200
_EXACT = (str, bool, type(None))
_COLLECTIONS = ("Counter", "OrderedDict", "defaultdict", "deque")


class NotPlainData(TypeError):
    """The value holds an object that is not plain data (e.g. an instance of a class the sample made)."""


# A class's names as type itself keeps them: a metaclass's own `__module__` (a property that raises, or an
# object whose `__eq__` says yes) is never asked, and a class made without one (type() in globals that lack
# `__name__`) is refused as not plain data, not a crash of the encoder (which the driver would report as the
# sample's runtime error).
_TYPE_NAMES = tuple(type.__dict__[name] for name in ("__module__", "__qualname__", "__name__"))


def _names(cls: type) -> tuple[str, str, str]:
    """(module, qualified name, name) of a class, each a str, or NotPlainData."""
    try:
        names = tuple(descriptor.__get__(cls, type) for descriptor in _TYPE_NAMES)
    except MemoryError:
        raise
    except Exception:  # whatever reading them raises, the value is not plain data
        raise NotPlainData("a class whose names cannot be read") from None
    if any(type(name) is not str for name in names):
        raise NotPlainData("a class whose names are not strings")
    return names


def _numpy_tag(value: Any, module: str, kind: str) -> Any:
    """Encode numpy scalars/arrays without importing numpy (it may be absent in the sandbox)."""
    if module != "numpy":
        return None
    if kind == "ndarray":
        dtype = str(value.dtype)
        if value.dtype.kind not in "biufcUS":
            raise NotPlainData(f"numpy array of dtype {dtype}")
        return {TAG: "ndarray", "dtype": dtype, "v": encode(value.tolist())}
    item = getattr(value, "item", None)
    if item is None or getattr(value, "ndim", None) != 0:
        return None
    return {TAG: "npscalar", "dtype": str(value.dtype), "v": encode(item())}


def encode(value: Any, _depth: int = 0) -> Any:
    """Turn a value into JSON-able data that `decode` restores exactly; refuse anything else."""
    if _depth > MAX_DEPTH:
        raise NotPlainData("value nested too deeply")
    cls = type(value)
    if cls in _EXACT:
        return value
    if cls is int:
        # json refuses ints past sys.get_int_max_str_digits(); hex has no such limit.
        if -(10**15) < value < 10**15:
            return value
        return {TAG: "int", "v": hex(value)}
    if cls is float:
        if math.isfinite(value):
            return value
        return {TAG: "float", "v": repr(value)}
    if cls is list:
        return [encode(v, _depth + 1) for v in value]
    if cls is tuple:
        return {TAG: "tuple", "v": [encode(v, _depth + 1) for v in value]}
    if cls is dict:
        return {TAG: "dict", "v": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in value.items()]}
    if cls is set or cls is frozenset:
        # Sorted by encoding, so equal sets encode (and hash) the same whatever their history.
        items = sorted((encode(v, _depth + 1) for v in value), key=_sort_key)
        return {TAG: cls.__name__, "v": items}
    if cls is complex:
        return {TAG: "complex", "v": [encode(value.real), encode(value.imag)]}
    if cls is bytes or cls is bytearray:
        return {TAG: cls.__name__, "v": bytes(value).hex()}
    module, qualname, name = _names(cls)
    if module == "collections" and qualname in _COLLECTIONS:
        # Read through the base type's own methods: the class could be a look-alike with overrides.
        base = deque if qualname == "deque" else dict
        try:
            items = list(deque.__iter__(value)) if base is deque else list(dict.items(value))
        except TypeError:  # a class that only names itself so: not a deque or dict underneath
            raise NotPlainData(f"{module}.{qualname} is not plain data") from None
        if base is deque:
            return {TAG: "deque", "v": [encode(v, _depth + 1) for v in items]}
        return {TAG: qualname, "v": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in items]}
    try:
        tagged = _numpy_tag(value, module, name)
    except (NotPlainData, RecursionError, MemoryError):  # MemoryError: a real array too big to list
        raise
    except Exception:  # a look-alike of numpy's whose attributes raise: not plain data
        raise NotPlainData(f"{module}.{qualname} could not be read as numpy data") from None
    if tagged is not None:
        return tagged
    raise NotPlainData(f"{module}.{qualname} is not plain data")


def _sort_key(encoded: Any) -> str:
    return json.dumps(encoded, separators=(",", ":"), sort_keys=True)


def has_float(encoded: Any) -> bool:
    """Whether encoded data holds a float or complex (compared with tolerance, so never by hash)."""
    cls = type(encoded)
    if cls is float:
        return True
    if cls is list:
        return any(has_float(v) for v in encoded)
    if cls is dict:
        tag = encoded.get(TAG)
        if tag in ("float", "complex"):
            return True
        if tag in ("ndarray", "npscalar"):
            dtype: str = encoded.get("dtype", "")
            return dtype.startswith(("float", "complex"))
        return has_float(encoded.get("v"))
    return False


def canonical_digest(encoded: Any) -> str:
    """sha256 of encoded data with dict entries sorted: equal plain values give equal digests."""
    import hashlib

    def canon(x: Any) -> Any:
        if type(x) is list:
            return [canon(v) for v in x]
        if type(x) is dict:
            if x.get(TAG) in ("dict", "Counter", "defaultdict"):
                pairs = [[canon(k), canon(v)] for k, v in x["v"]]
                return {TAG: "dict", "v": sorted(pairs, key=lambda kv: _sort_key(kv[0]))}
            return {k: canon(v) for k, v in x.items()}
        return x

    return hashlib.sha256(_sort_key(canon(encoded)).encode()).hexdigest()


def dumps(value: Any) -> str:
    """Encode and serialise in one step."""
    return json.dumps(encode(value), separators=(",", ":"), allow_nan=False)


def _decode_numpy(tag: str, data: dict[str, Any]) -> Any:
    import numpy as np  # only the trusted side ever decodes numpy tags

    dtype = np.dtype(data["dtype"])
    if tag == "ndarray":
        return np.array(decode(data["v"]), dtype=dtype)
    return dtype.type(decode(data["v"]))


def decode(data: Any) -> Any:
    """Rebuild the value that `encode` produced; never runs code from the data."""
    cls = type(data)
    if cls is list:
        return [decode(v) for v in data]
    if cls is not dict:
        return data
    tag = data.get(TAG)
    value = data.get("v")
    if tag == "int":
        return int(value, 16)
    if tag == "float":
        return float(value)
    if tag == "tuple":
        return tuple(decode(v) for v in value)
    if tag == "dict":
        return {decode(k): decode(v) for k, v in value}
    if tag == "set":
        return {decode(v) for v in value}
    if tag == "frozenset":
        return frozenset(decode(v) for v in value)
    if tag == "complex":
        return complex(decode(value[0]), decode(value[1]))
    if tag == "bytes":
        return bytes.fromhex(value)
    if tag == "bytearray":
        return bytearray.fromhex(value)
    if tag in ("Counter", "OrderedDict"):
        return getattr(collections, tag)({decode(k): decode(v) for k, v in value})
    if tag == "defaultdict":
        return collections.defaultdict(None, ((decode(k), decode(v)) for k, v in value))
    if tag == "deque":
        return collections.deque(decode(v) for v in value)
    if tag in ("ndarray", "npscalar"):
        return _decode_numpy(tag, data)
    raise ValueError(f"unknown plain-data tag {tag!r}")


def loads(text: str | bytes) -> Any:
    """Parse and decode in one step."""
    return decode(json.loads(text))
