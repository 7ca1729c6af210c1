"""The one run pipeline: a sample source feeds it; it claims the run directory, keys each program once,
judges through the executor (references first, then each sample as it arrives), stores every verdict
before reporting it, and scores the run.

`assay evaluate` (a samples file, or `--references`), `assay run` (a model, or `replay:FILE`) and
`assay generate` (a model, no judge) differ only in their source (`assay.execution.sources`). Progress
is reported here, with one vocabulary: `references`, `generated`, `judged`. Ctrl-C stops the executor at
once and propagates as KeyboardInterrupt with everything stored kept; the CLI turns it, and a run that
scored nothing, into exit statuses in one place (`assay.cli.common.execute`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.execution.executor import Executor, JudgeSettings
from assay.execution.schedulers import LocalScheduler, SchedulerFactory
from assay.execution.sources import SamplesFile, SampleSource
from assay.generation import GenerationStats
from assay.languages import toolchains_record
from assay.metrics import warm_up
from assay.problems import Benchmark
from assay.provenance import RunRecord, SandboxInfo, assay_info, benchmark_info
from assay.samples import Sample
from assay.sandbox.base import Sandbox
from assay.scoring import Evaluation, score_run
from assay.store import RunStore, VerdictCache

Progress = Callable[..., None]  # progress(what, done, total, note="")


@dataclass
class RunOutcome:
    """What a run produced: the scores (where there was a judge), the generation accounting (where a
    model made the samples), and the samples file written from the store."""

    config: dict[str, Any]
    evaluation: Evaluation | None = None
    stats: GenerationStats | None = None
    errors: dict[str, list[str]] = field(default_factory=dict)  # task_id -> why samples could not be generated
    samples_path: Path | None = None


class PassTally:
    """The running pass rate shown with progress: of the verdicts judged in this run (thread-safe)."""

    def __init__(self) -> None:
        self.passed = 0
        self.known = 0
        self._lock = threading.Lock()

    def add(self, count: int, passed: bool | None) -> None:
        if passed is None:
            return
        with self._lock:
            self.known += count
            self.passed += count if passed else 0

    def note(self) -> str:
        """"7 of 20 passed (35%)", or "" before the first verdict of this run."""
        with self._lock:
            passed, known = self.passed, self.known
        return f"{passed} of {known} passed ({passed / known:.0%})" if known else ""


def run(
    benchmark: Benchmark,
    source: SampleSource,
    run_dir: Path,
    *,
    sandbox: Sandbox | None,
    ks: list[int] | None = None,
    settings: JudgeSettings = JudgeSettings(),
    workers: int | None = None,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
    scheduler: SchedulerFactory = LocalScheduler,
    judged: Callable[[], None] | None = None,
) -> RunOutcome:
    """Run one source through the pipeline; without a sandbox the samples are only stored (`assay generate`).
    `scheduler` makes what runs the judge jobs (the local pool by default): the pipeline is the same whatever runs them.
    `judged` is called once every sample is judged, before scoring (the CLI closes its sandbox there, beside the scoring)."""
    ks = [1] if ks is None else ks
    report: Progress = progress or (lambda *a, **k: None)
    store = RunStore(run_dir)
    try:
        judge = {"settings": asdict(settings), "sandbox": sandbox.name} if sandbox is not None else {}
        store.claim(source.identity(benchmark, judge), earlier=source.earlier_identities(benchmark, judge))
        record = RunRecord(assay=assay_info(), benchmark=benchmark_info(benchmark), ks=ks, **source.record())
        executor: Executor | None = None
        if sandbox is not None:
            executor = Executor(sandbox, benchmark, settings, workers=workers, cache_dir=cache_dir, scheduler=scheduler)
            record = record.model_copy(update={
                "settings": asdict(settings),
                "sandbox": SandboxInfo(name=sandbox.name, isolation=sandbox.isolation),
                "toolchain": toolchains_record({p.language for p in benchmark.problems.values()}),
            })
            store.rekey(executor.context(), executor.key)  # samples stored without this judge (`assay generate`), keyed for it
        config = record.to_json()
        store.set_meta("config", config)
        problems = {pid: benchmark.problems[pid] for pid in source.problems(benchmark)}
        stream = source.start(benchmark, store, executor.key if executor is not None else None, report)
        defects: dict[str, str] = {}
        if executor is None:
            for _sample in stream:
                pass
        else:
            warm_up()  # scoring's imports, beside the judging
            defects = _judge(executor, stream, store, problems, source, report, cache_dir if use_cache else None)
            if judged is not None:
                judged()
        samples_path = source.finish(store)
        outcome = RunOutcome(config=config, stats=source.stats, errors=source.errors, samples_path=samples_path)
        if executor is not None:
            outcome.evaluation = score_run(store, benchmark, ks, config, source.unknown, defects, only=set(problems))
            outcome.evaluation.notes = dict(executor.notes)
        return outcome
    finally:
        store.close()


def _judge(executor: Executor, stream: Any, store: RunStore, problems: dict[str, Any], source: SampleSource, report: Progress,
           cache_dir: Path | None) -> dict[str, str]:
    """References first, then every sample as the stream yields it; returns the defective problems' messages."""
    cache = VerdictCache(cache_dir / "verdicts.sqlite") if cache_dir is not None else None
    refs_done = [0]
    judged = [0]
    lock = threading.Lock()
    tally = PassTally()

    def on_reference() -> None:
        refs_done[0] += 1
        report("references", refs_done[0], len(problems))

    def on_verdict(count: int, passed: bool | None = None) -> None:
        with lock:
            judged[0] += count
            done = judged[0]
        tally.add(count, passed)
        report("judged", done, source.expected(), note=tally.note())

    try:
        defects = executor.run(stream, store, cache, on_reference, on_verdict, problems=problems, plan_ahead=not source.waits)
    finally:
        if cache is not None:
            cache.close()
    return {pid: verdict.message for pid, verdict in defects.items()}


def evaluate(
    benchmark: Benchmark,
    samples: list[Sample],
    samples_path: Path,
    run_dir: Path,
    sandbox: Sandbox,
    ks: list[int],
    settings: JudgeSettings = JudgeSettings(),
    workers: int | None = None,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> Evaluation:
    """Judge and score a samples file's samples (what `assay evaluate` runs), resumably."""
    outcome = run(benchmark, SamplesFile(samples, samples_path, benchmark), run_dir, sandbox=sandbox, ks=ks, settings=settings,
                  workers=workers, cache_dir=cache_dir, use_cache=use_cache, progress=progress)
    assert outcome.evaluation is not None
    return outcome.evaluation
