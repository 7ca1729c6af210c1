"""Plans made ahead (assay.execution.stream): a problem whose plan is slow to make parks its programs while the
workers run other problems', and a run whose samples come round-robin makes each problem's plan once."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from assay.execution import Executor
from assay.execution import labels as labels_module
from assay.execution.labels import Recent
from assay.execution.schedulers import LocalScheduler
from assay.execution.stream import PlanAhead
from assay.problems import Benchmark, Case, CaseTests, Problem, Status
from assay.samples import Sample
from assay.sandbox import get_sandbox
from assay.store import RunStore


def _problem(pid: str) -> Problem:
    return Problem(id=pid, language="python", prompt="", entry_point="f", reference="", tests=CaseTests(cases=()))


def test_programs_wait_for_their_problem_s_plan_while_ready_problems_go_out() -> None:
    release = threading.Event()
    made: set[str] = {"B"}

    def plan(problem: Problem) -> None:
        assert release.wait(10)
        made.add(problem.id)

    ahead: PlanAhead[str] = PlanAhead(plan, lambda p: p.id in made, threading.Event())
    try:
        assert ahead.add(_problem("A"), "a1") == []  # parked: A's plan is being made
        assert ahead.add(_problem("A"), "a2") == []
        assert ahead.add(_problem("B"), "b1") == ["b1"]  # B's plan is made: it does not wait behind A's
        release.set()
        assert list(ahead.rest()) == ["a1", "a2"]  # in the order they came
        assert ahead.add(_problem("A"), "a3") == ["a3"]  # made now
    finally:
        ahead.close()


def test_parking_is_bounded_the_driver_waits_for_a_plan() -> None:
    calls: list[str] = []
    gates = {pid: threading.Event() for pid in "ACDE"}

    def plan(problem: Problem) -> None:
        assert gates[problem.id].wait(10)
        calls.append(problem.id)

    ahead: PlanAhead[int] = PlanAhead(plan, lambda p: p.id in calls, threading.Event(), max_parked=2, max_problems=2, threads=2)
    try:
        assert ahead.add(_problem("A"), 1) == [] and ahead.add(_problem("A"), 2) == []
        threading.Timer(0.2, gates["A"].set).start()
        assert ahead.add(_problem("A"), 3) == [1, 2, 3]  # a third would pass the bound: waited for A's plan
        # Never more than max_problems plans asked for and not made: a third waits for one of them, whichever is
        # made first (D here, while C's is still being made).
        assert ahead.add(_problem("C"), 4) == [] and ahead.add(_problem("D"), 5) == []
        threading.Timer(0.2, gates["D"].set).start()
        assert ahead.add(_problem("E"), 6) == [5]
        gates["C"].set()
        gates["E"].set()
        assert sorted(ahead.rest()) == [4, 6] and sorted(calls) == ["A", "C", "D", "E"]  # each plan made once
    finally:
        for gate in gates.values():
            gate.set()
        ahead.close()


def test_a_plan_that_fails_raises_in_the_driver_s_thread() -> None:
    def plan(problem: Problem) -> None:
        raise ValueError(f"no plan for {problem.id}")

    ahead: PlanAhead[int] = PlanAhead(plan, lambda p: False, threading.Event())
    try:
        ahead.add(_problem("A"), 1)
        with pytest.raises(ValueError, match="no plan for A"):
            list(ahead.rest())
    finally:
        ahead.close()


def test_a_stop_ends_the_wait_for_a_plan_at_once() -> None:
    stopping = threading.Event()
    never = threading.Event()
    ahead: PlanAhead[int] = PlanAhead(lambda p: never.wait(30), lambda p: False, stopping, max_parked=1)
    try:
        threading.Timer(0.3, stopping.set).start()
        started = time.monotonic()
        assert ahead.add(_problem("A"), 1) == [] and ahead.add(_problem("A"), 2) == []  # the second waited, then saw the stop
        assert list(ahead.rest()) == []
        assert time.monotonic() - started < 5
    finally:
        never.set()
        ahead.close()


def test_recent_keeps_what_fits_its_budget_and_the_newest_whatever_it_weighs() -> None:
    kept: Recent[str, int] = Recent(capacity=10, budget=100)
    for key, weight in (("a", 40), ("b", 40), ("c", 10)):
        kept.put(key, 1, weight=weight)
    assert all(k in kept for k in "abc")
    kept.put("d", 1, weight=30)  # 120 > 100: the least recently used goes
    assert "a" not in kept and all(k in kept for k in "bcd")
    kept.get("b")
    kept.put("e", 1, weight=50)  # 130: c goes (b was used since), then d: 90
    assert sorted(k for k in "abcde" if k in kept) == ["b", "e"]
    kept.put("huge", 1, weight=1000)  # heavier than the whole budget: kept while it is the newest, pushing nothing out
    assert "huge" in kept and "b" in kept and "e" in kept
    kept.put("pinned", 1, evictable=False, weight=10**9)
    kept.put("x", 1, weight=5)  # the next one: the huge one goes, the rest fit (95)
    assert "pinned" in kept and all(k in kept for k in ("b", "e", "x")) and "huge" not in kept
    kept.put("y", 1, weight=50)  # 145: the least recently used go until it fits
    assert sorted(k for k in ("b", "e", "x", "y") if k in kept) == ["x", "y"]
    by_count: Recent[str, int] = Recent(capacity=2)
    for key in "abc":
        by_count.put(key, 1)
    assert sorted(k for k in "abc" if k in by_count) == ["b", "c"]


def _case_problem(k: int) -> Problem:
    # Labelled by its reference: expected outputs come from running it, cached on disk as labels.
    return Problem(id=f"P/{k}", language="python", prompt="def f(x):\n", entry_point="f", reference=f"    return x + {k}\n",
                   tests=CaseTests(cases=tuple(Case(args=(i,)) for i in range(3))))


def test_a_round_robin_stream_reads_each_problem_s_labels_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # EvalPlus and bigcode write samples round-robin: every problem's first sample, then every problem's second.
    # Twelve problems (more than a count-bounded cache of 8 kept) and three rounds: each problem's labels are
    # read back once, its plan made once, and every sample judged.
    problems = {p.id: p for p in (_case_problem(k) for k in range(12))}
    bench = Benchmark(name="rr", version="1", content_hash="rr", source="test", problems=problems)
    sandbox = get_sandbox()
    executor = Executor(sandbox, bench, workers=2, cache_dir=tmp_path / "cache")
    for problem in problems.values():
        executor.expected(problem)  # labelled and written to disk, as the reference check does
    kept = executor.labeller._expected
    executor.labeller._expected = Recent(kept.capacity, kept.budget)  # forget them: read back from disk
    reads: list[str] = []
    real_read = labels_module._read_labels

    def counted(path: Path) -> Any:
        reads.append(path.name)
        return real_read(path)

    monkeypatch.setattr(labels_module, "_read_labels", counted)
    planned: list[str] = []
    real_case_judging = executor.case_judging

    def case_judging(problem: Problem) -> Any:  # called where a problem's plan is made, not where it is reused
        planned.append(problem.id)
        return real_case_judging(problem)

    monkeypatch.setattr(executor, "case_judging", case_judging)
    bodies = ["    return x + {k}\n", "    return x\n", "    return x + {k}  # again\n"]
    samples = [Sample(f"P/{k}", r, bodies[r].format(k=k), None, r * 12 + k) for r in range(3) for k in range(12)]
    store = RunStore(tmp_path / "run")
    try:
        store.add_samples([dataclasses.replace(s, program_hash=executor.key(s)) for s in samples])
        with LocalScheduler(sandbox, 2) as scheduler:
            executor.judge_stream(scheduler, samples, store)
        statuses = sorted(v.status for *_, v in store.results() if v is not None)
    finally:
        store.close()
        sandbox.close()  # type: ignore[attr-defined]
    assert len(reads) == 12 and len(set(reads)) == 12
    assert sorted(planned) == sorted(problems)  # each made once (a cache of the last 8 made them 36 times)
    # P/0's second sample (return x) is right too: 12 + 12 + 1 passed.
    assert statuses.count(Status.PASSED) == 25 and statuses.count(Status.FAILED) == 11


def test_the_workers_run_other_problems_while_one_plan_is_being_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # P/0's plan waits until P/1's programs have been judged: made in the driver's thread, in the stream's order,
    # it would hold them back (and this test would wait out its 20 s before failing).
    problems = {p.id: p for p in (_case_problem(k) for k in range(2))}
    bench = Benchmark(name="slow", version="1", content_hash="slow", source="test", problems=problems)
    sandbox = get_sandbox()
    executor = Executor(sandbox, bench, workers=2, cache_dir=tmp_path / "cache")
    others_judged = threading.Event()
    real_plan = executor.plan

    def plan(problem: Problem) -> Any:
        if problem.id == "P/0" and not executor.plan_ready(problem):
            others_judged.wait(20)
        return real_plan(problem)

    monkeypatch.setattr(executor, "plan", plan)
    samples = [Sample("P/0", 0, "    return x\n", None, 0)] + [Sample("P/1", i, f"    return x + 1  # {i}\n", None, i + 1) for i in range(3)]
    order: list[bool | None] = []

    def on_verdict(count: int, passed: bool | None) -> None:
        order.append(passed)
        if len(order) == 3:
            others_judged.set()

    store = RunStore(tmp_path / "run")
    started = time.monotonic()
    try:
        store.add_samples([dataclasses.replace(s, program_hash=executor.key(s)) for s in samples])
        with LocalScheduler(sandbox, 2) as scheduler:
            executor.judge_stream(scheduler, samples, store, on_verdict=on_verdict)
    finally:
        store.close()
        sandbox.close()  # type: ignore[attr-defined]
    assert others_judged.is_set() and time.monotonic() - started < 20
    assert order == [True, True, True, True]  # P/1's three, then P/0's (return x is right for k = 0)


def test_a_stream_that_waits_for_its_samples_sends_each_program_out_at_once(tmp_path: Path) -> None:
    # A model's stream: the next sample comes when the model has written it. Each program goes out as its sample
    # comes (its plan made there and then), not parked until the next sample (which here waits for the first
    # verdict: parked, the first program would wait out the 20 s).
    from assay.execution.sources import ModelSamples, SamplesFile

    assert ModelSamples.waits and not SamplesFile.waits  # what the pipeline passes as plan_ahead=not waits
    problems = {p.id: p for p in (_case_problem(k) for k in range(2))}
    bench = Benchmark(name="model", version="1", content_hash="model", source="test", problems=problems)
    sandbox = get_sandbox()
    executor = Executor(sandbox, bench, workers=2, cache_dir=tmp_path / "cache")
    first = threading.Event()
    samples = [Sample("P/0", 0, "    return x\n", None, 0), Sample("P/1", 0, "    return x + 1\n", None, 1)]

    def model() -> Any:
        yield samples[0]
        first.wait(20)
        yield samples[1]

    store = RunStore(tmp_path / "run")
    started = time.monotonic()
    try:
        store.add_samples([dataclasses.replace(s, program_hash=executor.key(s)) for s in samples])
        with LocalScheduler(sandbox, 2) as scheduler:
            executor.judge_stream(scheduler, model(), store, on_verdict=lambda count, passed: first.set(), plan_ahead=False)
        statuses = sorted(v.status for *_, v in store.results() if v is not None)
    finally:
        store.close()
        sandbox.close()  # type: ignore[attr-defined]
    assert time.monotonic() - started < 20 and statuses == [Status.PASSED, Status.PASSED]


def test_translations_plan_as_their_programs_go_out_and_keep_eight_plans(tmp_path: Path) -> None:
    # A translation's plan holds its expected outputs converted to its language's wire form (HumanEval/130 in Lua:
    # 325 MB for 124 MB of labels): made ahead and kept whole, they raised HumanEval+/lua's peak memory past 1 GiB.
    lua = Problem(id="L/0", language="lua", prompt="", entry_point="f", reference="", tests=CaseTests(cases=(Case(args=(1,)),)))
    python = _case_problem(0)
    bench = Benchmark(name="mixed", version="1", content_hash="mixed", source="test", problems={"L/0": lua, "P/0": python})
    executor = Executor(get_sandbox(), bench, workers=1, cache_dir=tmp_path)
    assert executor.plan_ready(lua)  # goes out at once, its plan made as it is submitted
    assert not executor.plan_ready(python)  # its labels are read on a planner thread first
    assert executor._plans.capacity == 8 and executor._plans.budget is None
    assert executor._case_plans.budget == labels_module.LABELS_KEPT_BYTES
