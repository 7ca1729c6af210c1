"""What keeps a run's memory flat in the number of samples: a samples file streamed (read twice, stored a
batch at a time, never whole), judged programs looked up in the store rather than held in a set, at most a
window of jobs submitted ahead of the workers, and verdicts group-committed by a writer thread."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.benchmarks._fetch import DataUnavailable
from assay.execution import pipeline
from assay.execution.jobs import JudgeJob
from assay.execution.schedulers import LocalScheduler
from assay.execution.sources import SamplesFile
from assay.problems import Benchmark, Status, Verdict
from assay.samples import Sample, SamplesError, iter_samples
from assay.sandbox import get_sandbox
from assay.store import RunStore, VerdictCache
from tests.conftest import shared_data
from tests.test_pipeline import RIGHT, WRONG, humaneval

__all__ = ["humaneval"]  # the module's fixture, shared with test_pipeline


def _nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_samples_file_is_streamed_not_read_whole(humaneval: Benchmark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 2,500 samples of two programs: the source reads the file twice (its identity, then the run), stores
    # them a batch at a time before yielding them, and never holds more than a batch.
    rows = [{"task_id": "HumanEval/0", "completion": RIGHT if i % 2 else WRONG, "completion_id": i} for i in range(2500)]
    rows.append({"task_id": "Other/1", "completion": "x"})
    path = _write(tmp_path / "s.jsonl", rows)
    reads = []
    held = [0]

    def stream() -> Iterator[Sample]:
        reads.append(1)
        yield from iter_samples(path, task_ids=humaneval.problems)

    source = SamplesFile(stream, path, humaneval)
    assert len(reads) == 1 and source.n_rows == 2501 and source.n_known == 2500 and source.unknown == {"Other/1": 1}
    assert source.problems(humaneval) == ["HumanEval/0"]
    original = RunStore.add_samples

    def add_samples(self: RunStore, samples: list[Sample], first_seq: int = 0) -> None:
        held[0] = max(held[0], len(samples))
        original(self, samples, first_seq)

    monkeypatch.setattr(RunStore, "add_samples", add_samples)
    outcome = pipeline.run(humaneval, source, tmp_path / "run", sandbox=get_sandbox(), ks=[1], workers=2, use_cache=False)
    assert len(reads) == 2 and held[0] == SamplesFile.BATCH
    assert outcome.evaluation is not None and _nonzero(outcome.evaluation.counts) == {"passed": 1250, "failed": 1250}
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        seqs = [r[0] for r in db.execute("SELECT seq FROM samples ORDER BY seq")]
        assert seqs == list(range(2500))  # the file's order, across batches
        # two programs, judged once each (the third verdict is the reference's, from its check)
        assert db.execute("SELECT count(DISTINCT v.program_hash) FROM verdicts v JOIN samples s ON s.program_hash = v.program_hash").fetchone()[0] == 2


def test_a_streamed_file_that_is_not_samples_is_an_error_before_anything_runs(humaneval: Benchmark, tmp_path: Path) -> None:
    dup = _write(tmp_path / "dup.jsonl", [{"task_id": "HumanEval/0", "completion": WRONG, "completion_id": 0}] * 2)
    with pytest.raises(SamplesError, match="duplicate sample"):
        SamplesFile(lambda: iter_samples(dup), dup, humaneval)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(SamplesError, match="has no samples"):
        SamplesFile(lambda: iter_samples(empty), empty, humaneval)


def test_a_resumed_stream_judges_only_what_is_missing(humaneval: Benchmark, tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", [{"task_id": "HumanEval/0", "completion": c} for c in (RIGHT, WRONG, RIGHT + "\n")])
    seen: list[str] = []

    class Counting(LocalScheduler):
        def submit(self, job: JudgeJob) -> Future[Verdict]:
            seen.append(job.program_hash)
            return super().submit(job)

    def run() -> pipeline.RunOutcome:
        return pipeline.run(humaneval, SamplesFile(lambda: iter_samples(path), path, humaneval), tmp_path / "run", sandbox=get_sandbox(),
                            ks=[1], workers=2, use_cache=False, scheduler=Counting)

    first = run()
    assert len(seen) == 3 and first.evaluation is not None and _nonzero(first.evaluation.counts) == {"passed": 2, "failed": 1}
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        db.execute("DELETE FROM verdicts WHERE status='failed'")
    again = run()
    assert len(seen) == 4  # only the program whose verdict was lost runs again
    assert again.evaluation is not None and _nonzero(again.evaluation.counts) == {"passed": 2, "failed": 1}


def test_no_more_than_a_window_of_jobs_is_submitted_ahead_of_the_workers(humaneval: Benchmark, tmp_path: Path) -> None:
    # 40 distinct programs, 2 workers: the stream is pulled as the workers free up, never more than 8 ahead.
    rows = [{"task_id": "HumanEval/0", "completion": WRONG + f"    # {i}\n"} for i in range(40)]
    path = _write(tmp_path / "s.jsonl", rows)
    lock = threading.Lock()
    outstanding = [0, 0]  # now, peak

    class Watching(LocalScheduler):
        def submit(self, job: JudgeJob) -> Future[Verdict]:
            with lock:
                outstanding[0] += 1
                outstanding[1] = max(outstanding[1], outstanding[0])
            future = super().submit(job)

            def done(_: Future[Verdict]) -> None:
                with lock:
                    outstanding[0] -= 1

            future.add_done_callback(done)
            return future

    outcome = pipeline.run(humaneval, SamplesFile(lambda: iter_samples(path), path, humaneval), tmp_path / "run", sandbox=get_sandbox(),
                           ks=[1], workers=2, use_cache=False, scheduler=Watching)
    assert outcome.evaluation is not None and _nonzero(outcome.evaluation.counts) == {"failed": 40}
    assert 2 <= outstanding[1] <= 2 * 4


def test_verdicts_are_group_committed_read_back_before_and_kept_at_close(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    verdict = Verdict(status=Status.FAILED, message="failed: x")
    store.put("a", verdict)
    assert store.get("a") == verdict and store.judged("a") == (Status.FAILED, True)  # pending, read from memory
    other = sqlite3.connect(tmp_path / "run" / "run.sqlite")
    deadline = time.monotonic() + 10
    while other.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 0:  # the writer commits within GROUP_S
        assert time.monotonic() < deadline, "the writer thread never committed"
        time.sleep(0.01)
    for i in range(VerdictCache.GROUP_ROWS * 2 + 3):
        store.put(f"p{i}", verdict)
    store.close()
    assert other.execute("SELECT count(*) FROM verdicts").fetchone()[0] == VerdictCache.GROUP_ROWS * 2 + 4  # close() committed the rest
    assert not [t for t in threading.enumerate() if t.name == "assay-store-writer"]  # no idle thread left behind
    reopened = RunStore(tmp_path / "run")
    assert reopened.judged("a") == (Status.FAILED, False)  # written before this store was opened: an earlier run's
    assert reopened.judged("missing") is None
    reopened.close()


def test_a_huge_outcome_line_is_parsed_when_read_and_reads_as_the_list_it_stands_for() -> None:
    from assay.languages.python import DEFERRED_LINE, DeferredOutcome, parse_channel
    from assay.sandbox.base import SandboxResult

    nonce = b"n" * 32
    big = list(range(DEFERRED_LINE // 4))
    lines = [nonce + b" " + json.dumps(["outcome", ["ok", big, 0.25]], separators=(",", ":")).encode(),
             nonce + b" " + json.dumps(["outcome", ["ok", [1, 2], 0.5]]).encode(),
             b"forged " + json.dumps(["outcome", ["ok", big, 0.0]]).encode(),  # no nonce: not an event, however big
             nonce + b" " + b'["outcome",["ok",[' + b"1," * DEFERRED_LINE + b"garbled",
             nonce + b" " + json.dumps(["final", {"ok": True}]).encode()]
    result = SandboxResult(exit_code=0, signal=None, stdout=b"", stderr=b"", channel=b"\n".join(lines) + b"\n", wall_seconds=0.1, cpu_seconds=0.1)
    run = parse_channel(result, nonce)
    assert run.report == {"ok": True} and len(run.outcomes) == 3
    first, second, garbled = run.outcomes
    assert isinstance(first, DeferredOutcome) and second == ["ok", [1, 2], 0.5]
    assert (first[0], first[1], first[-1], len(first)) == ("ok", big, 0.25, 3)
    assert garbled[0] == "driver_error" and "does not parse" in garbled[1]  # judged as a failure, never a crash


@pytest.mark.slow
def test_huge_outputs_judge_as_before_a_wrong_one_fails(tmp_path: Path) -> None:
    # HumanEval+'s HumanEval/130 (tri): outputs of about a million numbers arrive as deferred outcomes.
    from assay.execution.executor import Executor, JudgeSettings

    try:
        bench = load_benchmark("humaneval-plus", data_dir=shared_data(), cache_dir=tmp_path)
    except DataUnavailable as exc:
        pytest.skip(str(exc))
    problem = bench.problems["HumanEval/130"]
    executor = Executor(get_sandbox(), bench, JudgeSettings(), workers=1, cache_dir=tmp_path)
    assert executor.judge(problem, problem.reference_program()).status is Status.PASSED
    off_by_one = problem.reference_program().replace("def tri(n):", "def tri(n):\n    if n > 100000:\n        return [0] * (n + 1)\n", 1)
    assert off_by_one != problem.reference_program()
    verdict = executor.judge(problem, off_by_one)
    assert verdict.status is Status.FAILED and "expected" in verdict.message
