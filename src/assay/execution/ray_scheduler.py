"""The Ray scheduler: the same judge jobs on a Ray cluster, with the driver as the only source of truth.

Each `JudgeJob` is plain, picklable data; a Ray task runs `run_job(job, sandbox)` on some node and sends
the verdict back. The driver (this process) still dedupes, caches, writes the store and resumes:
nothing on a worker node writes anything that lasts. A worker process keeps its sandbox (and so its
warm zygotes) between tasks, as a local worker thread does. A task whose worker or node dies is
retried by Ray (`retries`); when the retries run out the sample gets a `sandbox_error`, which is never
counted against it and is judged again by the next run. Driver-side work (reference checks,
labelling inputs) stays on the driver's machine, on a local thread pool.

Every node needs what a local run needs: Assay installed in the same Python, the toolchains at the
same paths, bubblewrap. `ray start --head` on one machine, `ray start --address HEAD:6379` on the
others, then `assay evaluate ... --scheduler ray --ray-address HEAD:6379`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import Any, TypeVar

from assay.execution.jobs import JudgeJob, LanguageCases, Plan, PythonCases, run_job
from assay.problems import Problem, Status, Verdict
from assay.sandbox.base import Sandbox

T = TypeVar("T")

RAY_HINT = "the Ray scheduler needs Ray: pip install 'assay[ray]'"


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached."""


def import_ray() -> ModuleType:
    """Ray, or a one-line hint on how to install it."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable(RAY_HINT) from None
    return ray


def connect(ray: ModuleType, address: str | None) -> bool:
    """Join the cluster at `address` (None: $RAY_ADDRESS, or a Ray started here) unless this process already
    has; True when this call started it (so its owner shuts it down), or a one-line RayUnavailable."""
    if ray.is_initialized():
        return False
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    except ConnectionError as exc:
        raise RayUnavailable(f"cannot reach the Ray cluster at {address}: {exc}") from None
    return True


@dataclass(frozen=True)
class SandboxSpec:
    """How to make the driver's sandbox again on a worker node: its kind and its read-only binds."""

    kind: str  # "zygote", "bubblewrap" or "process"
    ro_binds: tuple[str, ...]
    channel_bytes: int | None

    @classmethod
    def of(cls, sandbox: Sandbox) -> SandboxSpec:
        """The spec of a sandbox made here."""
        from assay.sandbox import BubblewrapSandbox, ProcessSandbox, ZygoteSandbox

        kinds: dict[type, str] = {ZygoteSandbox: "zygote", BubblewrapSandbox: "bubblewrap", ProcessSandbox: "process"}
        kind = kinds.get(type(sandbox))
        if kind is None:
            raise ValueError(f"the Ray scheduler cannot rebuild a {type(sandbox).__name__} on a worker node")
        binds: tuple[str, ...] = tuple(getattr(sandbox, "ro_binds", None) or getattr(sandbox, "ro_paths", None) or ())
        return cls(kind, binds, getattr(sandbox, "channel_bytes", None))

    def build(self) -> Sandbox:
        """The sandbox this spec names, made on this node."""
        from assay.sandbox import BubblewrapSandbox, ProcessSandbox, ZygoteSandbox

        made: dict[str, Callable[..., Sandbox]] = {"zygote": ZygoteSandbox, "bubblewrap": BubblewrapSandbox, "process": ProcessSandbox}
        return made[self.kind](ro_binds=self.ro_binds, channel_bytes=self.channel_bytes)


_WORKER_SANDBOXES: dict[SandboxSpec, Sandbox] = {}  # per Ray worker process: made once, kept warm between tasks
_WORKER_LOCK = threading.Lock()


def judge_on_worker(program_hash: str, code: str, judged: tuple[Problem, Plan], spec: SandboxSpec) -> Verdict:
    """What a Ray task runs: the job in this worker's own sandbox (made on its first job)."""
    with _WORKER_LOCK:
        sandbox = _WORKER_SANDBOXES.get(spec)
        if sandbox is None:
            sandbox = _WORKER_SANDBOXES[spec] = spec.build()
    problem, plan = judged
    return run_job(JudgeJob(program_hash, problem, code, plan), sandbox)


class RayScheduler:
    """Judge jobs as Ray tasks (one CPU and `memory` bytes each) on the cluster at `address`, or on a
    Ray instance started here when there is none. At most `window` jobs are in flight at once, so a
    run of millions of samples keeps the driver's memory flat."""

    def __init__(self, sandbox: Sandbox, workers: int | None = None, *, address: str | None = None, retries: int = 3,
                 memory: int = 512 * 1024**2, window: int | None = None) -> None:
        self.ray = import_ray()
        self.spec = SandboxSpec.of(sandbox)
        self._started = connect(self.ray, address)
        # The cluster's CPUs set how many jobs run at once; -j is the driver's own pool (reference checks).
        self.workers = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        self._task = self.ray.remote(judge_on_worker).options(num_cpus=1, memory=memory, max_retries=retries,
                                                               retry_exceptions=False)
        self._local = ThreadPoolExecutor(max_workers=max(1, workers or 2), thread_name_prefix="assay-driver")
        self._window = threading.BoundedSemaphore(window or 4 * self.workers)
        self._inflight: dict[Any, Future[Verdict]] = {}
        # A problem's case plan (its expected outputs: a median 100 KB on HumanEval+, 90 MB at most) goes into
        # the object store once and each of its samples' tasks refers to it, instead of carrying its own copy.
        self._shared: dict[str, tuple[Any, Plan]] = {}
        self._lock = threading.Lock()
        self._stopped = False

    def submit(self, job: JudgeJob) -> Future[Verdict]:
        self._window.acquire()
        if self._stopped:
            self._window.release()
            cancelled: Future[Verdict] = Future()
            cancelled.cancel()
            return cancelled
        judged: Any = (job.problem, job.plan)
        if isinstance(job.plan, PythonCases | LanguageCases):  # one object for a problem's samples, while the executor keeps it
            with self._lock:
                shared = self._shared.get(job.problem.id)
                if shared is None or shared[1] is not job.plan:  # made again (the executor keeps recent plans): the old one goes
                    shared = self._shared[job.problem.id] = (self.ray.put(judged), job.plan)
            judged = shared[0]
        ref = self._task.remote(job.program_hash, job.code, judged, self.spec)
        future: Future[Verdict] = Future()
        with self._lock:
            self._inflight[ref] = future
        ref.future().add_done_callback(lambda done: self._settle(ref, done))
        return future

    def _settle(self, ref: Any, done: Future[Any]) -> None:
        """A task ended: its verdict, a sandbox error where the cluster lost it, or the judge's own crash."""
        with self._lock:
            future = self._inflight.pop(ref, None)
        self._window.release()
        if future is None or not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(done.result())
        except self.ray.exceptions.RayTaskError as exc:  # the judge itself raised: a bug to surface, as locally
            future.set_exception(exc.as_instanceof_cause())
        except Exception as exc:  # a worker, node or object lost after the retries: the cluster's fault, not the sample's
            future.set_result(Verdict(Status.SANDBOX_ERROR, message=f"sandbox error: the Ray task was lost ({type(exc).__name__}: {exc})"[:1000]))

    def call(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        return self._local.submit(fn, *args)

    def stop(self) -> None:
        self._stopped = True
        with self._lock:
            pending = list(self._inflight.items())
        for ref, future in pending:
            future.cancel()
            with contextlib.suppress(Exception):  # already finished, or its worker is gone
                self.ray.cancel(ref, force=True)
        self._local.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._local.shutdown(wait=True)
        self._shared.clear()
        if self._started:
            self.ray.shutdown()

    def __enter__(self) -> RayScheduler:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def ray_scheduler(address: str | None) -> Callable[[Sandbox, int | None], RayScheduler]:
    """A scheduler factory for the pipeline: Ray tasks on the cluster at `address` (None: RAY_ADDRESS, or a local Ray)."""
    import_ray()  # fail before any work starts, with the install hint

    def make(sandbox: Sandbox, workers: int | None) -> RayScheduler:
        return RayScheduler(sandbox, workers, address=address)

    return make
