"""Samples judged as they come, with each problem's plan made ahead, on a thread of its own.

A problem's plan can take seconds to make (HumanEval+'s expected outputs are read back from the labels cache
and decoded: tens of MB for the largest problems). Made in the driver's thread, in the stream's order, it
left the workers idle: they drain the programs submitted ahead of them long before the plan is made. Here
the first program of a problem whose plan is not made yet is parked, its plan is made on the planner's
thread, and the driver goes on to the next samples; parked programs go out as soon as their plan is made.
Parking is bounded (a few problems, a few hundred programs), so memory stays flat on any stream, and a
stream that blocks (a model generating) never holds back what was already parked.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from assay.problems import Problem, Status, Verdict

if TYPE_CHECKING:
    from assay.execution.executor import Executor
    from assay.execution.schedulers import Scheduler
    from assay.samples import Sample
    from assay.store import RunStore, VerdictCache

T = TypeVar("T")


class PlanAhead(Generic[T]):
    """Holds programs whose problem's plan is being made; gives them back, in the order they came, once it is made."""

    def __init__(self, plan: Callable[[Problem], Any], ready: Callable[[Problem], bool], stopping: threading.Event, max_parked: int = 256,
                 max_problems: int = 4, threads: int = 2) -> None:
        self._plan = plan
        self._ready = ready  # whether a problem's plan is made and kept (or cheap): its programs go out at once
        self._stopping = stopping
        self.max_parked = max_parked
        self.max_problems = max_problems  # problems whose plans are asked for and not made yet, at most
        # Two threads: one slow plan (HumanEval/130's 124 MB of labels) does not hold back the next problems'.
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="assay-plan")
        self._making: dict[str, Future[Any]] = {}  # in the order they were asked for
        self._parked: dict[str, list[T]] = {}
        self._count = 0

    def add(self, problem: Problem, item: T) -> list[T]:
        """The programs that can go out now: `item` itself where its problem's plan is made, and any parked
        ones whose plan has been made since. Waits only while too much is parked."""
        out = self._collect()
        if problem.id not in self._making:
            if self._ready(problem):
                out.append(item)
                return out
            self._making[problem.id] = self._pool.submit(self._plan, problem)
        self._parked.setdefault(problem.id, []).append(item)
        self._count += 1
        while self._making and (self._count > self.max_parked or len(self._making) > self.max_problems):
            if not self._wait():
                break  # stopped: the caller sees it too
            out.extend(self._collect())
        return out

    def rest(self) -> Iterator[T]:
        """Every program still parked, as its plan is made (the stream has ended)."""
        while self._making:
            if not self._wait():
                return
            yield from self._collect()

    def close(self) -> None:
        """Stop making plans nobody will use (the stream ended, or stopped)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _wait(self) -> bool:
        """Wait until a plan being made is made (or fails); False: stopped first. In short waits, so that
        Ctrl-C reaches the driver's thread and a stop is seen at once."""
        while not self._stopping.is_set():
            done, _ = wait(self._making.values(), timeout=0.2, return_when=FIRST_COMPLETED)
            if done:
                return True
        return False

    def _collect(self) -> list[T]:
        """Parked programs whose plan is made; a plan that failed raises here, in the driver's thread."""
        out: list[T] = []
        for pid, future in list(self._making.items()):
            if not future.done():
                continue
            future.result()  # re-raises what making the plan raised
            del self._making[pid]
            items = self._parked.pop(pid, [])
            self._count -= len(items)
            out.extend(items)
        return out


def judge_stream(
    executor: Executor,
    scheduler: Scheduler,
    samples: Iterable[Sample],
    store: RunStore,
    cache: VerdictCache | None = None,
    on_verdict: Callable[[int, bool | None], None] | None = None,
    plan_ahead: bool = True,
) -> None:
    """Judge samples as they come (a list, or a generator fed by a model); one run per distinct program
    (`Executor.judge_stream`). A verdict is written to the store by the worker that produced it, before it is
    reported: on_verdict(count, passed), passed None where the verdict was judged before (a resumed run).
    plan_ahead: make each problem's plan on a thread of its own, its programs parked meanwhile (for a stream
    that never waits: a parked program goes out when the next sample comes)."""
    from assay.execution.executor import program_text  # here: the executor module imports this one

    inflight: dict[str, Future[Verdict]] = {}
    report = on_verdict or (lambda count, passed: None)
    # At most this many programs wait or run at once: a stream of a million samples is pulled as the
    # workers free up, so neither the jobs nor the samples pile up in memory.
    window_size = executor.WINDOW_PER_WORKER * max(1, scheduler.workers)
    window = threading.BoundedSemaphore(window_size)

    def finish(h: str, future: Future[Verdict]) -> None:
        window.release()
        if future.cancelled() or future.exception() is not None or executor.stopping.is_set():
            return  # re-raised below, in the caller's thread (or stopped: a killed run's verdict is not one)
        verdict = future.result()
        store.put(h, verdict)
        if cache is not None and verdict.status is not Status.SANDBOX_ERROR:
            cache.put(h, verdict)
        report(1, verdict.passed)
        inflight.pop(h, None)  # stored: a run of millions of programs does not keep every verdict in memory

    def settled(h: str) -> bool:
        """Whether this program needs no run of its own: it is running, or judged (this run, or cached)."""
        running = inflight.get(h)  # looked up before the store: a verdict is stored before it leaves inflight
        if running is not None:  # the same program is already running: count this sample when it is judged
            running.add_done_callback(lambda f: report(1, f.result().passed) if not f.cancelled() and not f.exception() else None)
            return True
        state = store.judged(h)
        if state is not None and (state[1] or state[0] is not Status.SANDBOX_ERROR):  # an earlier run's sandbox error is retried
            status, this_run = state
            report(1, status is Status.PASSED if this_run else None)
            return True
        cached = cache.get(h) if cache else None
        if cached is not None:
            store.put(h, cached)
            report(1, cached.passed)
            return True
        return False

    def submit(problem: Problem, code: str, h: str, check: bool = True) -> bool:
        """Send a program to the workers (unless it was settled while it was parked); False: stopped."""
        if check and settled(h):
            return True
        while not window.acquire(timeout=0.2):
            if executor.stopping.is_set():
                return False
        future = scheduler.submit(executor.job(problem, code, h))
        inflight[h] = future
        future.add_done_callback(functools.partial(_finish_later, finish, h))
        return True

    # A problem's plan (its expected outputs, read back and decoded) is made on a thread of its own while the
    # workers run other programs; its programs wait, parked, until it is made (PlanAhead, above).
    # Without plan_ahead every program goes out at once, its plan made here as it is submitted.
    ready = executor.plan_ready if plan_ahead else (lambda problem: True)
    ahead: PlanAhead[tuple[Problem, str, str]] = PlanAhead(executor.plan, ready, executor.stopping, max_parked=64 * window_size)
    try:
        for sample in samples:
            if executor.stopping.is_set():
                return
            problem = executor.benchmark.problems[sample.task_id]
            code = program_text(problem, sample)
            h = sample.program_hash or executor.program_hash(problem, code)  # hashed once: where the run stored it
            if settled(h):
                continue
            current = (problem, code, h)
            batch = ahead.add(problem, current)
            for item in batch:  # the one just settled needs no second look, unless parked ones go out beside it
                if not submit(*item, check=item is not current or len(batch) > 1):
                    return
        for item in ahead.rest():
            if not submit(*item):
                return
    finally:
        ahead.close()
    if executor.stopping.is_set():
        return
    for future in tuple(inflight.copy().values()):
        future.result()  # waits, and surfaces a crash in the judge


def _finish_later(finish: Callable[[str, Future[Verdict]], None], h: str, future: Future[Verdict]) -> None:
    finish(h, future)
