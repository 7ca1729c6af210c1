"""Expected outputs: a case-tested problem's reference solution run in the sandbox on every input.

The labels are computed once per problem (two workers never label the same problem twice) and
cached on disk by everything that decides them, so a second run, or another language with the same
inputs, reads them instead of running the reference again.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from assay.languages import plaindata
from assay.languages import python as py
from assay.oracles import NOT_NONE, expected_for
from assay.problems import Benchmark, CaseTests, Problem
from assay.sandbox.base import Sandbox, SandboxLimits

if TYPE_CHECKING:
    from assay.execution.executor import JudgeSettings


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


@dataclass
class Expected:
    """A problem's expected outputs, computed by running its reference solution in the sandbox."""

    values: list[Any]
    cpu: list[float]
    invalid: list[int] = field(default_factory=list)  # cases left out: the reference failed or hit a limit
    messages: list[str] = field(default_factory=list)
    raised: int = 0  # of the invalid cases, those where the reference raised: a defect of the problem
    failures: dict[int, str] = field(default_factory=dict)  # invalid case -> how the reference failed ("raise", "timeout", ...); not cached


K = TypeVar("K")
V = TypeVar("V")


# What the recent-plans caches keep, in bytes of labels on disk (a proxy for the memory their decoded values
# take: HumanEval+'s HumanEval/130 is 124 MB of labels and 85 MB decoded). HumanEval+'s 164 problems, 145 MB of
# labels, all fit: its plans are made once a run, where the samples come round-robin (every problem's first
# sample, then every problem's second: how EvalPlus and bigcode write them) and a cache of the last 8 made
# HumanEval/130's plan again on every round, 2.6 s of CPU each time, with the workers idle.
# Python plans only: a translation's plan holds the outputs converted to the wire form its language is compared
# in (HumanEval/130 in Lua: 325 MB for 124 MB of labels), so the executor keeps the last 8 of those, by count.
LABELS_KEPT_BYTES = 256 * 1024**2


class Recent(Generic[K, V]):
    """What a run keeps of its problems' expected outputs and plans: the most recently used, up to `capacity`
    of them and `budget` of their weight (the bytes of their labels on disk), plus every one that cannot be
    made again cheaply (pinned). One heavier than the whole budget is kept only while it is the newest.
    Memory stays flat however many problems a run has, and a run whose labels fit holds each problem's
    once, in whatever order its samples come."""

    def __init__(self, capacity: int = 8, budget: int | None = None) -> None:
        self.capacity = capacity
        self.budget = budget
        self._items: OrderedDict[K, V] = OrderedDict()
        self._weights: dict[K, int] = {}
        self._total = 0
        self._pinned: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            if key in self._pinned:
                return self._pinned[key]
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: K, value: V, *, evictable: bool = True, weight: int = 0) -> V:
        with self._lock:
            if not evictable:
                self._pinned[key] = value
                return value
            budget = self.budget
            if budget is not None:  # one heavier than the whole budget is kept only while it is the newest
                for old in [k for k, w in self._weights.items() if w > budget and k != key]:
                    self._drop(old)
            self._total += weight - self._weights.get(key, 0)
            self._weights[key] = weight
            self._items[key] = value
            self._items.move_to_end(key)
            # The newest stays, whatever it weighs (it is about to be used), and does not push the others out.
            over = weight if budget is not None and weight > budget else 0
            while len(self._items) > 1 and (len(self._items) > self.capacity or (budget is not None and self._total - over > budget)):
                self._drop(next(iter(self._items)))
            return value

    def _drop(self, key: K) -> None:
        del self._items[key]
        self._total -= self._weights.pop(key)

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._pinned or key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._pinned) + len(self._items)


def _file_size(path: Path | None) -> int:
    """A labels file's bytes; 0 where there is none (no cache, or not written)."""
    try:
        return 0 if path is None else path.stat().st_size
    except OSError:
        return 0


def _write_labels(path: Path, exp: Expected) -> None:
    """Labels on disk, one line a value after a line of the rest: written and read a value at a time, so a
    problem whose outputs are 124 MB of JSON (HumanEval+'s HumanEval/130) never has that text whole in memory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"n": len(exp.values), "cpu": exp.cpu, "invalid": exp.invalid, "messages": exp.messages, "raised": exp.raised}) + "\n")
        for value in exp.values:
            f.write(json.dumps(_dump_value(value)) + "\n")
    os.replace(tmp, path)


def _read_labels(path: Path) -> Expected | None:
    """The labels `_write_labels` wrote, or None where the file does not read back whole."""
    try:
        with path.open(encoding="utf-8") as f:
            head = json.loads(f.readline())
            values = [_load_value(json.loads(line)) for line in f]
        if len(values) != head["n"]:
            return None
        return Expected(values, head["cpu"], head["invalid"], head["messages"], head.get("raised", 0))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _dump_value(value: Any) -> Any:
    if isinstance(value, py.BigOutput):
        return ["big", value.digest, value.size]
    return ["v", plaindata.encode(value)]


def _load_value(data: Any) -> Any:
    if data[0] == "big":
        return py.BigOutput(data[1], data[2])
    return plaindata.decode(data[1])


class Labeller:
    """Labels case-tested problems' inputs by running their references (rule 3's first half)."""

    def __init__(self, sandbox: Sandbox, benchmark: Benchmark, settings: JudgeSettings, cache_dir: Path | None, stopping: threading.Event,
                 per_case: float = 20.0) -> None:
        self.sandbox = sandbox
        self.per_case = per_case  # CPU seconds the reference may take on one input
        self.benchmark = benchmark
        self.settings = settings
        self.cache_dir = cache_dir
        self.stopping = stopping  # once set (Ctrl-C), nothing computed is written to the cache
        # Labels on disk are read again when needed again; what is made of them is kept by the plans (the executor's).
        self._expected: Recent[str, Expected] = Recent(8, LABELS_KEPT_BYTES)
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def _problem_lock(self, pid: str) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(pid, threading.Lock())

    def _expected_path(self, problem: Problem) -> Path | None:
        if self.cache_dir is None:
            return None
        reference = problem.tests.reference if isinstance(problem.tests, CaseTests) else None
        if reference is not None and isinstance(problem.tests, CaseTests):
            # Labels from a Python reference depend on it and the inputs alone: languages that keep the same inputs share them.
            inputs = hashlib.sha256(repr([c.args for c in problem.tests.cases]).encode()).hexdigest()
            key = _digest("labels", reference, inputs, problem.tests.oracle, py.driver_digest(), py.python_version())
            return self.cache_dir / "expected" / f"{key}.jsonl"
        # The problem's own content is in the key: a local benchmark file can change under the same name.
        tests = hashlib.sha256(repr(problem.tests).encode()).hexdigest()
        key = _digest(self.benchmark.content_hash, problem.id, problem.prompt, problem.reference, reference, tests, py.driver_digest(), py.python_version())
        return self.cache_dir / "expected" / f"{key}.jsonl"

    def expected(self, problem: Problem) -> Expected:
        """Expected outputs for a case-tested problem (from the cache, or by running the reference)."""
        found = self._expected.get(problem.id)
        if found is not None:
            return found
        with self._problem_lock(problem.id):
            return self._expected_once(problem)

    def _expected_once(self, problem: Problem) -> Expected:
        found = self._expected.get(problem.id)
        if found is not None:
            return found
        assert isinstance(problem.tests, CaseTests)
        path = self._expected_path(problem)
        exp = _read_labels(path) if path is not None and path.exists() else None
        if exp is None:  # not labelled yet (or a file that does not read back whole: labelled again)
            exp = self._compute_expected(problem)
            if path is not None and exp.messages[:1] != ["sandbox"] and not self.stopping.is_set():
                _write_labels(path, exp)
        # Evictable only where it is on disk: without a cache, labelling again would run the reference again.
        size = _file_size(path)
        return self._expected.put(problem.id, exp, evictable=size > 0, weight=size)

    def cached_on_disk(self, problem: Problem) -> bool:
        """Whether a problem's labels can be read again from the cache (so what is made of them may be dropped)."""
        path = self._expected_path(problem)
        return path is not None and path.exists()

    def labels_size(self, problem: Problem) -> int:
        """The bytes of a problem's labels on disk (0: none), what keeping what is made of them weighs."""
        return _file_size(self._expected_path(problem))

    def _compute_expected(self, problem: Problem) -> Expected:
        tests = problem.tests
        assert isinstance(tests, CaseTests)
        args = [c.args for c in tests.cases]
        code, entry_point = tests.reference if tests.reference is not None else (problem.prompt + problem.reference, problem.entry_point)
        per_case = self.per_case
        # Oracles need the real value; so does another language's harness (its output arrives in full).
        big = None if tests.oracle or problem.language != "python" else py.BIG_OUTPUT
        job = py.cases_job(code, entry_point, args, [per_case] * len(args), run_all=True, not_none=tests.oracle == NOT_NONE, big_output=big)
        cpu_total = per_case * len(args) + 10
        limits = SandboxLimits(
            cpu_seconds=min(cpu_total, 1800.0),
            wall_seconds=min(cpu_total, 1800.0) * 2 + 30,
            memory_bytes=self.settings.memory_bytes,
            processes=self.settings.processes,
            output_bytes=self.settings.output_bytes,
            channel_bytes=py.CASES_CHANNEL_BYTES,
        )
        run = py.run_driver(self.sandbox, job, limits)
        values: list[Any] = []
        cpu: list[float] = []
        invalid: list[int] = []
        messages: list[str] = []
        raised = 0
        failures: dict[int, str] = {}
        for i in range(len(args)):
            outcome = run.outcomes[i] if i < len(run.outcomes) else None
            if outcome is not None:
                run.outcomes[i] = []  # decoded below: its raw lists go now, not when every output is decoded (HumanEval/130's are 12 MB each)
            if outcome is not None and outcome[0] == "big":
                values.append(py.BigOutput(outcome[1], outcome[2]))
                cpu.append(float(outcome[-1]))
                continue
            if outcome is None or outcome[0] != "ok":
                invalid.append(i)
                values.append(None)
                cpu.append(0.0)
                failures[i] = "did not run" if outcome is None else str(outcome[0])
                if outcome is not None and outcome[0] in ("raise", "unplain"):
                    raised += 1
                if len(messages) < 5:
                    why = "did not run" if outcome is None else f"{outcome[0]}: {outcome[1]}"
                    messages.append(f"reference fails on input {i}: {why}")
                continue
            value = plaindata.decode(outcome[1])
            values.append(expected_for(tests.oracle, value))
            cpu.append(float(outcome[-1]))
        if run.report is None and run.sandbox.error:
            messages.insert(0, "sandbox")
        return Expected(values, cpu, invalid, messages, raised, failures)
