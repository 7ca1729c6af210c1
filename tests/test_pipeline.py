"""The one run pipeline: a samples file, the references and a model (here a replay of a samples file)
are only sources. Each claims its run directory the same way, each program is keyed once, and samples
stored under another judge (by `assay generate`, or before an upgrade) are keyed again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.benchmarks._fetch import DataUnavailable
from assay.execution import Executor, pipeline
from assay.execution.sources import ModelSamples, SamplesFile
from assay.models import get_model, parse_model_spec
from assay.models.base import GenerateConfig
from assay.problems import Benchmark, Problem
from assay.prompts import default_template
from assay.samples import Sample, read_samples
from assay.sandbox import get_sandbox
from assay.store import RunStore, RunStoreError

RIGHT = "    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n            if abs(a - b) < threshold:\n                return True\n    return False\n"
WRONG = "    return False\n"


@pytest.fixture(scope="module")
def humaneval() -> Benchmark:
    try:
        return load_benchmark("humaneval")
    except DataUnavailable as exc:
        pytest.skip(str(exc))


def _samples_file(tmp_path: Path) -> Path:
    path = tmp_path / "samples.jsonl"
    rows = [{"task_id": "HumanEval/0", "completion": code} for code in (RIGHT, WRONG, RIGHT)]
    rows.append({"task_id": "HumanEval/2", "completion": "    return number - int(number)\n"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _replay(path: Path, benchmark: Benchmark) -> ModelSamples:
    model = get_model(parse_model_spec(f"replay:{path}"))
    return ModelSamples(model, default_template("completion"), GenerateConfig(n=1), task_ids=["HumanEval/0", "HumanEval/2"])


def _file(path: Path, benchmark: Benchmark) -> SamplesFile:
    return SamplesFile(read_samples(path, task_ids=benchmark.problems), path, benchmark)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = Executor.program_hash

    def counting(self: Executor, problem: Problem, code: str) -> str:
        if code != problem.reference_program():
            seen.append(code)
        return original(self, problem, code)

    monkeypatch.setattr(Executor, "program_hash", counting)
    return seen


def test_a_file_and_a_model_are_sources_of_one_pipeline(humaneval: Benchmark, tmp_path: Path) -> None:
    path = _samples_file(tmp_path)
    sandbox = get_sandbox()
    by_file = pipeline.run(humaneval, _file(path, humaneval), tmp_path / "file", sandbox=sandbox, ks=[1], workers=2)
    by_model = pipeline.run(humaneval, _replay(path, humaneval), tmp_path / "model", sandbox=sandbox, ks=[1], workers=2)
    assert by_file.evaluation is not None and by_model.evaluation is not None
    assert by_file.evaluation.counts == by_model.evaluation.counts == {**by_file.evaluation.counts, "passed": 3, "failed": 1}
    assert by_file.evaluation.scores["humaneval"][1].value == by_model.evaluation.scores["humaneval"][1].value == pytest.approx(5 / 6)
    assert by_file.stats is None and by_model.stats is not None and by_model.stats.generated == 4
    assert by_model.samples_path == tmp_path / "model" / "samples.jsonl" and by_file.samples_path is None
    # Both record the judge the same way, under one identity key.
    for run_dir in ("file", "model"):
        store = RunStore(tmp_path / run_dir)
        assert store.meta("identity") is not None and store.meta("generation_identity") is None
        assert store.meta("config")["sandbox"]["name"] == sandbox.name
        store.close()


def test_one_directory_holds_one_run_whatever_its_source(humaneval: Benchmark, tmp_path: Path) -> None:
    # Before there was one pipeline, evaluate and run claimed a directory under different keys, so a
    # model run went on in a directory holding a samples file's run, and mixed the two.
    path = _samples_file(tmp_path)
    sandbox = get_sandbox()
    pipeline.run(humaneval, _file(path, humaneval), tmp_path / "run", sandbox=sandbox, ks=[1], workers=2)
    with pytest.raises(RunStoreError, match="holds a different run"):
        pipeline.run(humaneval, _replay(path, humaneval), tmp_path / "run", sandbox=sandbox, ks=[1], workers=2)
    pipeline.run(humaneval, _replay(path, humaneval), tmp_path / "other", sandbox=None)
    with pytest.raises(RunStoreError, match="holds a different run"):
        pipeline.run(humaneval, _file(path, humaneval), tmp_path / "other", sandbox=sandbox, ks=[1], workers=2)


def test_generated_samples_are_keyed_once_when_a_judge_first_sees_them(humaneval: Benchmark, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = _samples_file(tmp_path)
    seen = _counting(monkeypatch)
    generated = pipeline.run(humaneval, _replay(path, humaneval), tmp_path / "run", sandbox=None)
    assert generated.evaluation is None and seen == []  # no judge: nothing to key by
    store = RunStore(tmp_path / "run")
    assert {s.program_hash for s in store.samples()} == {None}
    store.close()
    judged = pipeline.run(humaneval, _replay(path, humaneval), tmp_path / "run", sandbox=get_sandbox(), ks=[1], workers=2)
    assert judged.evaluation is not None and judged.evaluation.counts["passed"] == 3
    assert len(seen) == 4  # each stored program keyed once for this judge, and not again to judge it
    seen.clear()
    again = pipeline.run(humaneval, _replay(path, humaneval), tmp_path / "run", sandbox=get_sandbox(), ks=[1], workers=2)
    assert again.evaluation is not None and again.evaluation.counts == judged.evaluation.counts
    assert seen == []  # the same judge: the stored keys stand


def test_samples_keyed_under_another_judge_are_keyed_again(humaneval: Benchmark, tmp_path: Path) -> None:
    # A run resumed after an upgrade (another Assay, toolchain or driver) keys its stored samples again;
    # before, the samples file's rows were kept with their old keys and their verdicts were never found.
    path = _samples_file(tmp_path)
    sandbox = get_sandbox()
    first = pipeline.evaluate(humaneval, read_samples(path), path, tmp_path / "run", sandbox, [1], workers=2)
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        db.execute("UPDATE samples SET program_hash = 'under-an-older-judge:' || idx || task_id")
        db.execute("UPDATE meta SET value = '\"an older judge\"' WHERE key = 'judge_context'")
    second = pipeline.evaluate(humaneval, read_samples(path), path, tmp_path / "run", sandbox, [1], workers=2)
    assert second.n_samples == first.n_samples == 4
    assert second.counts == first.counts and second.scores["humaneval"][1].value == first.scores["humaneval"][1].value


def test_a_model_run_stored_before_one_pipeline_resumes(humaneval: Benchmark, tmp_path: Path) -> None:
    path = _samples_file(tmp_path)
    source = _replay(path, humaneval)
    store = RunStore(tmp_path / "run")
    store.set_meta("generation_identity", source.identity(humaneval, {}))  # where stores kept a model run's identity
    store.add_samples([Sample("HumanEval/0", 0, RIGHT, None)])
    assert store.claim(source.identity(humaneval, {})) is False  # a resume, not a new run
    store.close()
    outcome = pipeline.run(humaneval, source, tmp_path / "run", sandbox=get_sandbox(), ks=[1], workers=2)
    assert outcome.evaluation is not None and outcome.evaluation.n_samples == 4


def test_the_pipeline_runs_its_jobs_on_the_scheduler_it_is_given(humaneval: Benchmark, tmp_path: Path) -> None:
    # The seam a cluster scheduler plugs into: the pipeline does not change, only what runs the jobs.
    from assay.execution.jobs import JudgeJob
    from assay.execution.schedulers import LocalScheduler

    made: list[CountingScheduler] = []

    class CountingScheduler(LocalScheduler):
        def __init__(self, sandbox, workers):  # type: ignore[no-untyped-def]
            super().__init__(sandbox, workers)
            self.jobs: list[str] = []
            made.append(self)

        def submit(self, job: JudgeJob):  # type: ignore[no-untyped-def]
            self.jobs.append(job.program_hash)
            return super().submit(job)

    path = _samples_file(tmp_path)
    outcome = pipeline.run(humaneval, _file(path, humaneval), tmp_path / "run", sandbox=get_sandbox(), ks=[1], workers=2,
                           scheduler=CountingScheduler)
    assert outcome.evaluation is not None and outcome.evaluation.counts["passed"] == 3
    (scheduler,) = made
    assert len(scheduler.jobs) == 3  # three distinct programs of four samples: the driver dedups, the scheduler runs


def test_the_references_are_judged_once_when_they_are_the_samples(humaneval: Benchmark, tmp_path: Path) -> None:
    # `assay evaluate --references`: each reference's check is its sample's verdict; no program runs twice.
    from assay.execution.jobs import JudgeJob
    from assay.execution.schedulers import LocalScheduler

    submitted: list[str] = []

    class Counting(LocalScheduler):
        def submit(self, job: JudgeJob):  # type: ignore[no-untyped-def]
            submitted.append(job.program_hash)
            return super().submit(job)

    ids = ["HumanEval/0", "HumanEval/2", "HumanEval/3"]
    path = tmp_path / "refs.jsonl"
    path.write_text("".join(json.dumps({"task_id": i, "solution": humaneval.problems[i].reference_program()}) + "\n" for i in ids))
    outcome = pipeline.run(humaneval, _file(path, humaneval), tmp_path / "run", sandbox=get_sandbox(), ks=[1], workers=2,
                           use_cache=False, scheduler=Counting)
    assert outcome.evaluation is not None and outcome.evaluation.counts["passed"] == 3
    assert submitted == []  # the reference checks (driver-side calls) made the verdicts
