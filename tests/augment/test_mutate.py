"""Type-aware input mutation (EvalPlus's method): deterministic, type-safe, new, small steps from the seeds."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from typing import Any

import pytest

from assay.augment.mutate import Ingredients, Mutator, canonical, fresh, harvest
from assay.values import ANY, BOOL, FLOAT, INT, STR, Type, dict_of, fits, list_of, optional, tuple_of, union

VTUPLE_INT = Type("vtuple", (INT,))
SET_INT = Type("set", (INT,))

# (parameter types, seeds) for a variety of signatures
SIGNATURES: dict[str, tuple[list[Type], list[tuple[Any, ...]]]] = {
    "list[int]": ([list_of(INT)], [([1, 2, 3],), ([],), ([-5, 10],)]),
    "str": ([STR], [("hello world",), ("",), ("abc",)]),
    "dict[str, int]": ([dict_of(STR, INT)], [({"a": 1, "b": 2},), ({},)]),
    "tuple[int, str]": ([tuple_of(INT, STR)], [((1, "x"),), ((0, ""),)]),
    "set[int]": ([SET_INT], [({1, 2},), (set(),)]),
    "optional[int]": ([optional(INT)], [(None,), (3,)]),
    "int | str": ([union([INT, STR])], [(1,), ("a",)]),
    "list[list[float]]": ([list_of(list_of(FLOAT))], [([[1.0, 2.5], []],), ([],)]),
    "vtuple[int]": ([VTUPLE_INT], [((1, 2),), ((),)]),
    "int, float, bool": ([INT, FLOAT, BOOL], [(3, 0.5, True), (0, -2.0, False)]),
    "dict[int, list[str]]": ([dict_of(INT, list_of(STR))], [({1: ["a", "b c"]},)]),
}


def keys(inputs: list[tuple[Any, ...]]) -> list[str]:
    return [canonical(a) for a in inputs]


def test_the_same_rng_seed_gives_the_same_inputs() -> None:
    types, seeds = SIGNATURES["dict[int, list[str]]"]
    first = Mutator(types, seeds, random.Random(7)).generate(100)
    again = Mutator(types, seeds, random.Random(7)).generate(100)
    other = Mutator(types, seeds, random.Random(8)).generate(100)
    assert keys(first) == keys(again)
    assert keys(first) != keys(other)


def test_set_inputs_do_not_depend_on_the_hash_seed() -> None:
    program = (
        "import random; from assay.augment.mutate import Mutator, canonical; from assay.values import STR, Type, dict_of\n"
        "s = Type('set', (STR,)); seeds = [({'ab', 'cd ef', 'g'}, {'x': {'p', 'q'}})]\n"
        "print([canonical(a) for a in Mutator([s, dict_of(STR, s)], seeds, random.Random(0)).generate(100)])"
    )
    runs = {
        subprocess.run([sys.executable, "-c", program], env={**os.environ, "PYTHONHASHSEED": h}, capture_output=True, text=True, check=True).stdout
        for h in ("1", "2")
    }
    assert len(runs) == 1 and "set{" in runs.pop()


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_outputs_fit_the_signature_and_are_new(name: str) -> None:
    types, seeds = SIGNATURES[name]
    out = Mutator(types, seeds, random.Random(0)).generate(100, max_tries=10_000)  # ints walk by ±1: new ones only at the edges
    assert len(out) == 100
    for args in out:
        assert len(args) == len(types)
        assert all(fits(v, t) for v, t in zip(args, types, strict=True)), args
    got = keys(out)
    assert len(set(got)) == len(got)
    assert not set(got) & set(keys(seeds))


def test_generated_values_keep_their_container_kinds() -> None:
    out = Mutator([VTUPLE_INT, SET_INT, list_of(INT)], [((1, 2), {3}, [4])], random.Random(1)).generate(100)
    assert all(isinstance(a, tuple) and isinstance(b, set) and isinstance(c, list) for a, b, c in out)
    frozen = Mutator([SET_INT], [(frozenset({1, 2}),)], random.Random(1)).generate(20)
    assert all(isinstance(v, frozenset) for (v,) in frozen)


def test_count_and_max_tries_are_honoured() -> None:
    types, seeds = SIGNATURES["list[int]"]
    assert len(Mutator(types, seeds, random.Random(0)).generate(37)) == 37
    assert len(Mutator(types, seeds, random.Random(0)).generate(50, max_tries=10)) <= 10
    assert Mutator(types, seeds, random.Random(0)).generate(0) == []
    assert Mutator([BOOL], [(True,), (False,)], random.Random(0)).generate(5) == []  # nothing new exists


def test_an_int_moves_by_one_or_to_an_ingredient() -> None:
    results = {Mutator([INT], [(5,)], random.Random(i)).mutate((5,))[0] for i in range(300)}
    assert results <= {4, 6, 5, -5}  # ±1, the seed's own literal, a sign flip
    assert {4, 6} <= results
    steps = Mutator([INT], [(5,)], random.Random(3)).generate(10)
    assert all(isinstance(v, int) and not isinstance(v, bool) and abs(v) < 20 for (v,) in steps)


def test_a_float_moves_a_little_and_stays_finite() -> None:
    for i in range(200):
        (v,) = Mutator([FLOAT], [(2.0,)], random.Random(i)).mutate((2.0,))
        assert isinstance(v, float) and 0.0 <= v <= 3.0
    huge = Mutator([FLOAT], [(1e308,), (math.inf,)], random.Random(0)).generate(100)
    assert huge and all(math.isfinite(v) for (v,) in huge)


def test_ints_stay_within_the_bound_unless_the_seeds_exceed_it() -> None:
    out = Mutator([INT], [(2**63,)], random.Random(0)).generate(200)
    assert out and all(abs(v) <= 2**63 for (v,) in out)
    big = Mutator([INT], [(2**70,)], random.Random(0)).generate(50)
    assert any(abs(v) > 2**63 for (v,) in big)


def test_mutate_leaves_its_input_alone() -> None:
    seed = ([[1, 2], [3]], {"k": [1]})
    mutator = Mutator([list_of(list_of(INT)), dict_of(STR, list_of(INT))], [seed], random.Random(0))
    for _ in range(200):
        new = mutator.mutate(seed)
        assert new[0] is not seed[0] and all(a is not b for a in new[0] for b in seed[0])
        assert new[1] is not seed[1]
    assert seed == ([[1, 2], [3]], {"k": [1]})


def test_harvest_finds_nested_literals_in_order() -> None:
    seeds = [([1, (2, {"a b": 3.5})], {frozenset({7})}, True, None), (1, "a", math.nan, -0.5)]
    found = harvest(seeds)
    assert found.ints == [1, 2, 7]  # True is no int
    assert found.floats == [3.5, -0.5]  # nan is no ingredient
    assert found.strs == ["a b", "a", "b"]


def test_strings_take_in_harvested_words() -> None:
    out = Mutator([STR], [("",), ("zebra crossing",)], random.Random(0)).generate(200)
    assert any("crossing" in s and s != "zebra crossing" for (s,) in out)
    assert all(len(s) <= 1000 for (s,) in out)


def test_one_and_one_point_oh_and_true_are_different_keys() -> None:
    assert len({canonical(1), canonical(1.0), canonical(True)}) == 3
    assert canonical(({1: [1]},)) != canonical(({1: [1.0]},))
    assert canonical({3, 1, 2}) == canonical({2, 3, 1})
    assert canonical({"b": 1, "a": 2}) == canonical({"a": 2, "b": 1})
    assert canonical(set()) != canonical({}) and canonical([1]) != canonical((1,))
    out = Mutator([ANY], [(1,), (1.0,), (True,)], random.Random(0)).generate(50)
    assert not {canonical(v) for (v,) in out} & {canonical(1), canonical(1.0), canonical(True)}


def test_an_empty_list_seed_grows() -> None:
    out = Mutator([list_of(INT)], [([],)], random.Random(0)).generate(30)
    assert len(out) == 30
    assert all(v and all(isinstance(x, int) for x in v) for (v,) in out)


def test_containers_and_strings_stay_bounded() -> None:
    seeds = [("x" * 995, list(range(98)), {i: i for i in range(99)})]
    out = Mutator([STR, list_of(INT), dict_of(INT, INT)], seeds, random.Random(0)).generate(300)
    assert len(out) == 300
    assert all(len(s) <= 1000 and len(xs) <= 100 and len(d) <= 100 for s, xs, d in out)


def test_optional_and_union_reach_every_alternative_they_start_from() -> None:
    opt = Mutator([optional(INT)], [(None,)], random.Random(0)).generate(20)
    assert opt and all(isinstance(v, int) for (v,) in opt)  # None is the seed, so each one is an int
    either = Mutator([union([INT, STR])], [(1,), ("a",)], random.Random(0)).generate(50)
    assert {type(v) for (v,) in either} == {int, str}


def test_types_are_inferred_from_the_seeds_without_a_signature() -> None:
    assert Mutator(None, [([],), ([1, 2],)], random.Random(0)).types == (list_of(INT),)
    assert Mutator(None, [(1,), (2.5,)], random.Random(0)).types == (FLOAT,)
    assert Mutator(None, [(1,), ("a",)], random.Random(0)).types == (ANY,)
    assert Mutator(None, [(1, "a"), (2,)], random.Random(0)).types == (INT, STR)
    out = Mutator(None, [([1, 2], "s")], random.Random(0)).generate(100)
    assert len(out) == 100 and all(fits(a, list_of(INT)) and isinstance(b, str) for a, b in out)


def test_fresh_values_are_small_defaults() -> None:
    empty = Ingredients([], [], [])
    rng = random.Random(0)
    assert fresh(tuple_of(INT, STR, FLOAT, BOOL), empty, rng) == (0, "", 0.0, False)
    assert fresh(list_of(INT), empty, rng) == [] and fresh(dict_of(STR, INT), empty, rng) == {}
    assert fresh(Type("set", (INT,)), empty, rng) == set() and fresh(VTUPLE_INT, empty, rng) == ()
    assert fresh(union([STR, INT]), empty, rng) == "" and fresh(optional(INT), empty, rng) is None
    some = Ingredients([42], [], ["w"])
    assert {fresh(INT, some, random.Random(i)) for i in range(50)} == {0, 42}


def test_no_seeds_starts_from_the_types_defaults() -> None:
    out = Mutator([INT, STR], [], random.Random(0)).generate(10)
    assert len(out) == 10 and out[0] == (0, "")
    assert Mutator(None, [], random.Random(0)).generate(10) == []


def test_five_hundred_inputs_from_humaneval_like_seeds() -> None:
    # HumanEval/0 has_close_elements(numbers: List[float], threshold: float) -> bool
    seeds: list[tuple[Any, ...]] = [
        ([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3),
        ([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05),
        ([1.0, 2.0, 5.9, 4.0, 5.0], 0.95),
        ([1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1),
        ([1.1, 2.2, 3.1, 4.1, 5.1], 1.0),
    ]
    out = Mutator([list_of(FLOAT), FLOAT], seeds, random.Random(0)).generate(500)
    assert len(out) == 500
    assert all(fits(xs, list_of(FLOAT)) and isinstance(t, float) for xs, t in out)
    # HumanEval/12 longest(strings: List[str]) -> Optional[str]
    words = Mutator([list_of(STR)], [([],), (["x", "y", "z"],), (["x", "yyy", "zzzz", "www", "kkkk", "abc"],)], random.Random(0)).generate(500)
    assert len(words) == 500
