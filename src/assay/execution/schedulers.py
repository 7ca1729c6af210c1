"""The scheduler seam: what runs judge jobs, and where.

A `Scheduler` runs jobs (`assay.execution.jobs.JudgeJob`) and yields verdicts as futures;
`LocalScheduler` (a thread pool over one sandbox) is the one here, and a cluster scheduler goes
beside it. Driver-side work that runs sandboxed programs too (reference checks and labelling
inputs, which make the plans) goes through `Scheduler.call`, on the driver's machine.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Any, Protocol, TypeVar

from assay.execution.jobs import JudgeJob, run_job
from assay.problems import Verdict
from assay.sandbox.base import Sandbox

T = TypeVar("T")


class Scheduler(Protocol):
    """Runs judge jobs and driver-side calls; the pipeline never sees more of how or where."""

    workers: int

    def submit(self, job: JudgeJob) -> Future[Verdict]:
        """Judge one program; the future's result is its verdict."""
        ...

    def call(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Run driver-side work (a reference check, labelling a problem's inputs) alongside the jobs."""
        ...

    def stop(self) -> None:
        """Ctrl-C: drop what is queued and kill what runs; verdicts of killed runs are not to be kept."""
        ...

    def close(self) -> None:
        """Wait for what was submitted, then release the workers."""
        ...


SchedulerFactory = Callable[[Sandbox, int], Scheduler]  # (sandbox, workers) -> a scheduler; LocalScheduler is one


class LocalScheduler:
    """Jobs on a pool of threads here, each running its program in the given sandbox."""

    def __init__(self, sandbox: Sandbox, workers: int) -> None:
        self.sandbox = sandbox
        self.workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="assay")

    def submit(self, job: JudgeJob) -> Future[Verdict]:
        return self._pool.submit(run_job, job, self.sandbox)

    def call(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        return self._pool.submit(fn, *args)

    def stop(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        close = getattr(self.sandbox, "close", None)
        if close is not None:
            close()

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def __enter__(self) -> LocalScheduler:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()  # as a thread pool's own exit: after stop(), what still runs has been killed
