"""Where repository tasks are graded: a thread pool here, or Ray tasks on a cluster, behind one `submit`.

A grading job is plain data (the task, the prediction, which run, and a `GradeSpec` saying how to grade),
so any node can run it: it builds the repository store, the environment and the runtime from the spec
(once per worker process, kept warm between tasks) and returns the TaskResult. The driver stays the one
source of truth: it writes results.jsonl, skips what is there, and resumes. A Ray task whose worker or
node dies is retried (`retries`); when the retries run out, the task gets an infrastructure error (kept
apart from the model's failures, as every infrastructure error is) and is graded again by the next run.

Every node needs what a local run needs: Assay in the same Python, the repositories at the paths --repos
names (or --network), bubblewrap or the container engine and its image, and its own cache directory
(mirrors and environments are built there on first use).
"""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from assay.swe.harness import Sandbox, TaskResult
    from assay.swe.repos import RepoStore
    from assay.swe.tasks import Prediction, Task


@dataclass(frozen=True)
class GradeSpec:
    """How to grade a prediction, as plain data a worker node can rebuild everything from."""

    cache: str
    repos: tuple[str, ...] = ()
    network: bool = False
    runtime: str = "bwrap"  # bwrap, podman or docker
    image: str = ""
    python: str | None = None  # an interpreter with the tests' dependencies; None: a venv per task setup
    timeout: float = 1800.0
    empty: bool = False  # grading empty patches (--empty): a task's F2P tests must fail

    def sandbox(self) -> Sandbox:
        """The runtime this spec names, made here (the driver checked the engine and the image)."""
        from assay.swe.containers import Engine
        from assay.swe.harness import Sandbox

        if self.runtime == "bwrap":
            return Sandbox()
        return Sandbox(self.runtime, Engine.find(self.runtime), self.image)


_STORES: dict[GradeSpec, tuple[RepoStore, Sandbox]] = {}  # per process: a node's mirrors and runtime, made once
_STORES_LOCK = threading.Lock()


def grade(task: Task, prediction: Prediction, run: int, spec: GradeSpec) -> TaskResult:
    """Grade one prediction on one task, here (a local thread, or a Ray worker)."""
    from assay.swe.envs import EnvironmentFailed, build, needs_env
    from assay.swe.harness import Environment, TaskResult, evaluate_task
    from assay.swe.repos import RepoStore
    from assay.swe.runtime import Limits

    with _STORES_LOCK:
        made = _STORES.get(spec)
        if made is None:
            made = _STORES[spec] = (RepoStore(Path(spec.cache), [Path(p) for p in spec.repos], allow_network=spec.network), spec.sandbox())
    store, sandbox = made
    cache = Path(spec.cache)
    try:
        interpreter = Path(spec.python) if spec.python else (build(task, cache, store=store) if needs_env(task) else Path(sys.executable))
        env = Environment.of(interpreter, task.language)
    except (EnvironmentFailed, OSError, subprocess.CalledProcessError) as exc:
        result = TaskResult(task.instance_id, prediction.model, "error", error=f"environment: {exc}",
                            patch_sha256=hashlib.sha256(prediction.patch.encode()).hexdigest())
    else:
        result = evaluate_task(task, prediction, store, env, Limits(wall_seconds=spec.timeout), run_empty=spec.empty, sandbox=sandbox)
    result.run = run
    return result


class TaskPool(Protocol):
    """Runs grading jobs; the CLI sees only futures of TaskResults."""

    def submit(self, task: Task, prediction: Prediction, run: int) -> Future[TaskResult]:
        """Grade one prediction; the future's result is its TaskResult."""
        ...

    def __enter__(self) -> TaskPool: ...

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None: ...


class LocalTasks:
    """Grading jobs on threads here."""

    def __init__(self, spec: GradeSpec, workers: int) -> None:
        self.spec = spec
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="assay-swe")

    def submit(self, task: Task, prediction: Prediction, run: int) -> Future[TaskResult]:
        return self._pool.submit(grade, task, prediction, run, self.spec)

    def __enter__(self) -> LocalTasks:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._pool.shutdown(wait=kind is None, cancel_futures=kind is not None)


class RayTasks:
    """Grading jobs as Ray tasks on the cluster at `address` (or a Ray started here): `cpus` CPUs and `memory`
    bytes each, as a repository's test run needs more than a function's."""

    def __init__(self, spec: GradeSpec, *, address: str | None = None, cpus: float = 1.0, memory: int = 2 * 1024**3, retries: int = 3) -> None:
        from assay.execution.ray_scheduler import connect, import_ray

        self.ray = import_ray()
        self.spec = spec
        self._started = connect(self.ray, address)
        self._task = self.ray.remote(grade).options(num_cpus=cpus, memory=memory, max_retries=retries, retry_exceptions=False)
        self._inflight: dict[Any, tuple[Future[TaskResult], Task, Prediction, int]] = {}
        self._lock = threading.Lock()

    def submit(self, task: Task, prediction: Prediction, run: int) -> Future[TaskResult]:
        ref = self._task.remote(task, prediction, run, self.spec)
        future: Future[TaskResult] = Future()
        with self._lock:
            self._inflight[ref] = (future, task, prediction, run)
        ref.future().add_done_callback(lambda done: self._settle(ref, done))
        return future

    def _settle(self, ref: Any, done: Future[Any]) -> None:
        from assay.swe.harness import TaskResult

        with self._lock:
            entry = self._inflight.pop(ref, None)
        if entry is None:
            return
        future, task, prediction, run = entry
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(done.result())
        except self.ray.exceptions.RayTaskError as exc:  # grading itself raised: a bug to surface, as locally
            future.set_exception(exc.as_instanceof_cause())
        except Exception as exc:  # a worker or node lost after the retries: the cluster's fault, not the patch's
            lost = TaskResult(task.instance_id, prediction.model, "error", repo=task.repo, language=task.language, run=run,
                              error=f"infrastructure: the Ray task was lost ({type(exc).__name__}: {exc})"[:1000],
                              patch_sha256=hashlib.sha256(prediction.patch.encode()).hexdigest())
            future.set_result(lost)

    def stop(self) -> None:
        """Ctrl-C: cancel what is queued or running on the cluster."""
        with self._lock:
            pending = list(self._inflight)
        for ref in pending:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)

    def __enter__(self) -> RayTasks:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is not None:
            self.stop()
        if self._started:
            self.ray.shutdown()


def task_pool(scheduler: str, address: str | None, spec: GradeSpec, workers: int) -> Callable[[], TaskPool]:
    """What --scheduler names, as a factory (Ray's import and the cluster are reached when it is called)."""
    if scheduler == "ray":
        return lambda: RayTasks(spec, address=address)
    return lambda: LocalTasks(spec, workers)
