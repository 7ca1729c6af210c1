"""A busy machine must not turn correct samples into timeouts (limits are CPU time, not wall time)."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.benchmarks.humaneval import packaged_file
from assay.execution.pipeline import evaluate
from assay.samples import read_samples
from assay.sandbox import get_sandbox


def _spin(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    while not stop.is_set():
        pass


@pytest.mark.slow
def test_correct_samples_pass_with_cpus_oversubscribed_2x(tmp_path: Path) -> None:
    with gzip.open(packaged_file(), "rt") as handle:
        problems = [json.loads(line) for line in handle]
    samples = tmp_path / "refs.jsonl"
    samples.write_text("".join(json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n" for p in problems))
    cores = os.cpu_count() or 1
    stop = multiprocessing.Event()
    # cores spinners + `cores` sandbox workers = 2x as many runnable processes as cores.
    spinners = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(cores)]
    for p in spinners:
        p.start()
    try:
        result = evaluate(load_benchmark("humaneval"), read_samples(samples), samples, tmp_path / "run", get_sandbox(), [1],
                          workers=cores, cache_dir=tmp_path / "cache")
    finally:
        stop.set()
        for p in spinners:
            p.join()
    assert result.counts["passed"] == len(problems), result.counts
    assert result.scores["humaneval"][1].value == 1.0
