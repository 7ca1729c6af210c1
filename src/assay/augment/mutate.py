"""Type-aware input mutation, EvalPlus's way: start from a problem's existing test inputs (the seeds),
mutate one argument at a time by its type, keep what is new.

The types are the signature's (`assay.values.Type`), so a mutated input is still a valid call in every
language the problem is translated to; without a signature they are the seeds' own. Mutations are
small steps (an int ±1, a float nudged, a string edited, a container one element longer, shorter or
changed), and literals harvested from the seeds (ints, floats, strings and their words) are mixed in,
as EvalPlus does, so new inputs stay near the interesting ones. Everything draws from the one
`random.Random` given, and nothing iterates a set in hash order, so a seed gives the same inputs on
every run.
"""

from __future__ import annotations

import copy
import math
import random
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.values import ANY, FLOAT, Type, UnsupportedType, fits, type_of

MAX_STR = 1000  # characters in a generated string
MAX_LEN = 100  # elements in a generated container
INT_BOUND = 2**63  # generated ints stay within ±this, unless the seeds already go further


@dataclass
class Ingredients:
    """Literals harvested from the seeds, by kind: ints, floats, strs (whole strings and their words)."""

    ints: list[int]
    floats: list[float]
    strs: list[str]


def canonical(value: Any) -> str:
    """A value's dedupe key: its repr, with sets sorted and dicts ordered by key, and 1, 1.0 and True apart."""
    if isinstance(value, list):
        return "[" + ", ".join(canonical(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(canonical(v) + ", " for v in value) + ")"
    if isinstance(value, (set, frozenset)):
        return "set{" + ", ".join(sorted(canonical(v) for v in value)) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(sorted(f"{canonical(k)}: {canonical(v)}" for k, v in value.items())) + "}"
    return repr(value)


def _ordered(items: Any) -> list[Any]:
    """A set's elements in a fixed order (hash order of strings changes from run to run)."""
    return sorted(items, key=canonical)


def harvest(seeds: Sequence[tuple[Any, ...]]) -> Ingredients:
    """The literals in the seeds, every value walked recursively; deduplicated, first occurrence first.
    Bools are not ints here, and nan and ±inf are no float ingredient (mutation keeps floats finite)."""
    found = Ingredients([], [], [])
    seen: set[tuple[str, Any]] = set()

    def add(kind: str, bucket: list[Any], value: Any) -> None:
        if (kind, value) not in seen:
            seen.add((kind, value))
            bucket.append(value)

    def walk(value: Any) -> None:
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, int):
            add("int", found.ints, value)
        elif isinstance(value, float):
            if math.isfinite(value):
                add("float", found.floats, value)
        elif isinstance(value, str):
            for text in (value, *value.split()):
                if text:
                    add("str", found.strs, text)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)
        elif isinstance(value, (set, frozenset)):
            for v in _ordered(value):
                walk(v)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)

    for seed in seeds:
        walk(seed)
    return found


def fresh(t: Type, ingredients: Ingredients, rng: random.Random) -> Any:
    """A small default value of a type, for a container that has no element to copy: 0 or a harvested
    int, 0.0 or a harvested float, "" or a harvested string, empty containers, False, None, a union's
    first alternative."""
    k = t.kind
    if k in ("int", "any"):
        return rng.choice(ingredients.ints) if ingredients.ints and rng.random() < 0.5 else 0
    if k == "float":
        return rng.choice(ingredients.floats) if ingredients.floats and rng.random() < 0.5 else 0.0
    if k == "str":
        return rng.choice(ingredients.strs) if ingredients.strs and rng.random() < 0.5 else ""
    if k == "bool":
        return False
    if k == "list":
        return []
    if k == "vtuple":
        return ()
    if k == "set":
        return set()
    if k == "dict":
        return {}
    if k == "tuple":
        return tuple(fresh(a, ingredients, rng) for a in t.args)
    if k == "union":
        return fresh(t.args[0], ingredients, rng)
    return None  # none, optional


def _infer(seeds: Sequence[tuple[Any, ...]]) -> tuple[Type, ...]:
    """Each position's type from the seeds: the first seed's type there that every seed fits, one without
    `any` in it first ([] is a list[any], [1] a list[int]); else any."""
    width = max((len(s) for s in seeds), default=0)
    types: list[Type] = []
    for i in range(width):
        values = [s[i] for s in seeds if len(s) > i]
        try:
            candidates = [type_of(v) for v in values]
        except UnsupportedType:
            types.append(ANY)
            continue
        fitting = [c for c in candidates if all(fits(v, c) for v in values)]
        types.append(next((c for c in fitting if not _has_any(c)), fitting[0] if fitting else ANY))
    return tuple(types)


def _has_any(t: Type) -> bool:
    return t.kind == "any" or any(_has_any(a) for a in t.args)


def _alternative(value: Any, alts: Sequence[Type]) -> Type | None:
    """The union alternative a value is of: its own kind first (3 is an int in int | float)."""
    exact = [a for a in alts if a.kind not in ("any", "float") or (a.kind == "float" and isinstance(value, float))]
    return next((a for a in [*exact, *alts] if fits(value, a)), None)


class Mutator:
    """EvalPlus's type-aware mutator over one problem's seeds and parameter types."""

    def __init__(self, param_types: Sequence[Type] | None, seeds: Sequence[tuple[Any, ...]], rng: random.Random) -> None:
        self.seeds = [tuple(s) for s in seeds]
        self.typed = param_types is not None
        self.types = tuple(param_types) if param_types is not None else _infer(self.seeds)
        self.rng = rng
        self.ingredients = harvest(self.seeds)
        self.int_bound = max([INT_BOUND, *(abs(i) for i in self.ingredients.ints)])

    def type_at(self, i: int) -> Type:
        return self.types[i] if i < len(self.types) else ANY

    def mutate(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """One mutation: one argument, chosen at random, mutated by its type; a new tuple, the input untouched."""
        out = list(copy.deepcopy(args))
        if out:
            i = self.rng.randrange(len(out))
            out[i] = self.value(out[i], self.type_at(i))
        return tuple(out)

    def fits(self, args: tuple[Any, ...]) -> bool:
        """Whether every argument is of its position's type (a seed may leave trailing defaults out)."""
        return all(fits(v, self.type_at(i)) for i, v in enumerate(args))

    def generate(self, count: int, max_tries: int | None = None) -> list[tuple[Any, ...]]:
        """Up to `count` new inputs, EvalPlus's loop: mutate a random member of a pool that starts as the
        seeds and grows by every new input; at most `max_tries` (default 20 per input) mutations."""
        tries = 20 * count if max_tries is None else max_tries
        pool = list(self.seeds)
        seen = {canonical(s) for s in pool}
        out: list[tuple[Any, ...]] = []
        if not pool and self.typed and self.types:  # no seeds: start from the types' defaults
            start = tuple(fresh(t, self.ingredients, self.rng) for t in self.types)
            pool.append(start)
            seen.add(canonical(start))
            out.append(start)
        while pool and len(out) < count and tries > 0:
            tries -= 1
            new = self.mutate(self.rng.choice(pool))
            key = canonical(new)
            if key in seen or not self.fits(new):
                continue
            seen.add(key)
            pool.append(new)
            out.append(new)
        return out[:count]

    # ------------------------------------------------------------ by type

    def value(self, value: Any, t: Type) -> Any:
        """A value mutated once by type t (a value that is not of t comes back unchanged)."""
        k = t.kind
        if k == "any":
            try:
                t = type_of(value)
            except UnsupportedType:
                return value
            return value if t.kind == "any" else self.value(value, t)
        if k == "bool":
            return not value if isinstance(value, bool) else value
        if k == "int":
            return self._int(value) if isinstance(value, int) and not isinstance(value, bool) else value
        if k == "float":
            return self._float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
        if k == "str":
            return self._str(value) if isinstance(value, str) else value
        if k == "list" and isinstance(value, list):
            return self._sequence(value, t.args[0], set_like=False)
        if k == "vtuple" and isinstance(value, tuple):
            return tuple(self._sequence(list(value), t.args[0], set_like=False))
        if k == "set" and isinstance(value, (set, frozenset)):
            try:
                return type(value)(self._sequence(_ordered(value), t.args[0], set_like=True))
            except TypeError:  # an unhashable element
                return value
        if k == "tuple" and isinstance(value, tuple) and len(value) == len(t.args) and value:
            i = self.rng.randrange(len(value))
            return (*value[:i], self.value(value[i], t.args[i]), *value[i + 1 :])
        if k == "dict" and isinstance(value, dict):
            try:
                return self._dict(value, t.args[0], t.args[1])
            except TypeError:
                return value
        if k == "optional":
            if value is None:
                return fresh(t.args[0], self.ingredients, self.rng) if self.rng.random() < 0.5 else None
            return None if self.rng.random() < 0.1 else self.value(value, t.args[0])
        if k == "union":
            alt = _alternative(value, t.args)
            return value if alt is None else self.value(value, alt)
        return value  # none, or a value that is not of its type

    def _int(self, value: int) -> int:
        r = self.rng.random()
        if r < 0.1 and self.ingredients.ints:
            return self.rng.choice(self.ingredients.ints)
        new = -value if r < 0.2 and value else value + self.rng.choice((-1, 1))
        return new if abs(new) <= self.int_bound else value

    def _float(self, value: float) -> float:
        rng = self.rng
        if rng.random() < 0.1 and self.ingredients.floats:
            return rng.choice(self.ingredients.floats)
        try:
            new = value + rng.uniform(-1, 1) if rng.random() < 0.5 else value * (1 + rng.uniform(-0.5, 0.5))
        except OverflowError:  # an int too large for a float
            new = math.inf
        return new if math.isfinite(new) else float(fresh(FLOAT, self.ingredients, rng))

    def _piece(self) -> str:
        """Something to put into a string: a harvested string or word, or a few random letters."""
        if self.ingredients.strs and self.rng.random() < 0.7:
            return self.rng.choice(self.ingredients.strs)
        return "".join(self.rng.choices(string.ascii_letters, k=self.rng.randint(1, 3)))

    def _str(self, s: str) -> str:
        rng = self.rng
        op = rng.randrange(5) if s else rng.choice((0, 4))
        if len(s) >= MAX_STR:
            op = 1
        i = rng.randint(0, len(s))
        if op == 0:  # insert an ingredient
            new = s[:i] + self._piece() + s[i:]
        elif op in (1, 2):  # delete a substring, or replace it with an ingredient
            i = rng.randrange(len(s))
            j = rng.randint(i + 1, min(len(s), i + 1 + max(1, len(s) // 4)))
            new = s[:i] + (self._piece() if op == 2 else "") + s[j:]
        elif op == 3:  # duplicate a character
            i = rng.randrange(len(s))
            new = s[: i + 1] + s[i:]
        else:  # insert random letters
            new = s[:i] + "".join(rng.choices(string.ascii_letters, k=rng.randint(1, 3))) + s[i:]
        return new[:MAX_STR]

    def _sequence(self, items: list[Any], elem: Type, set_like: bool) -> list[Any]:
        """A list, variable tuple's or set's elements with one element removed, inserted, repeated or mutated."""
        rng = self.rng
        if not items:
            return [fresh(elem, self.ingredients, rng)]
        ops = ["remove", "insert", "mutate"] if set_like else ["remove", "insert", "repeat", "mutate"]
        if len(items) >= MAX_LEN:
            ops = ["remove", "mutate"]
        op = rng.choice(ops)
        i = rng.randrange(len(items))
        out = list(items)
        if op == "remove":
            del out[i]
        elif op == "insert":
            out.insert(rng.randint(0, len(out)), self.value(copy.deepcopy(items[i]), elem))
        elif op == "repeat":
            out.insert(rng.randint(0, len(out)), copy.deepcopy(items[i]))
        else:
            out[i] = self.value(items[i], elem)
        return out

    def _dict(self, d: dict[Any, Any], kt: Type, vt: Type) -> dict[Any, Any]:
        """A dict with one pair removed, one added (a mutated or fresh key and value), or one value mutated."""
        rng = self.rng
        keys = list(d)
        ops = ["remove", "add", "mutate"] if keys else ["add"]
        if len(keys) >= MAX_LEN:
            ops = ["remove", "mutate"]
        op = rng.choice(ops)
        out = dict(d)
        if op == "remove":
            del out[rng.choice(keys)]
        elif op == "add":
            key = self.value(copy.deepcopy(rng.choice(keys)), kt) if keys and rng.random() < 0.8 else fresh(kt, self.ingredients, rng)
            values = list(d.values())
            val = self.value(copy.deepcopy(rng.choice(values)), vt) if values and rng.random() < 0.8 else fresh(vt, self.ingredients, rng)
            out[key] = val
        else:
            key = rng.choice(keys)
            out[key] = self.value(out[key], vt)
        return out
