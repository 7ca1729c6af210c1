"""SIGKILL in the middle of a run, run the same command again: nothing lost, nothing counted twice."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.benchmarks.humaneval import packaged_file


def _samples(path: Path) -> int:
    rows = []
    with gzip.open(packaged_file(), "rt") as handle:
        problems = [json.loads(line) for line in handle][:40]
    for p in problems:
        rows.append({"task_id": p["task_id"], "completion": p["canonical_solution"]})
        rows.append({"task_id": p["task_id"], "completion": "    return None\n"})
        rows.append({"task_id": p["task_id"], "completion": p["canonical_solution"] + "\n# variant\n"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return len(rows)


def _cmd(samples: Path, run_dir: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "assay.cli", "evaluate", "humaneval", "--samples", str(samples), "--run-dir", str(run_dir),
            "--json", str(out), "--no-cache", "--plain", "--workers", "2", "--k", "1,2"]


def _judged(run_dir: Path) -> int:
    db = run_dir / "run.sqlite"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_sigkill_then_rerun_equals_uninterrupted_run(tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    n = _samples(samples)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}

    # The interrupted run: kill -9 once some but not all verdicts are stored.
    killed_dir = tmp_path / "killed"
    proc = subprocess.Popen(_cmd(samples, killed_dir, tmp_path / "k.json"), env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _judged(killed_dir) < 15 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = _judged(killed_dir)
    assert 0 < partial < n

    resumed = subprocess.run(_cmd(samples, killed_dir, tmp_path / "k.json"), env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    fresh = subprocess.run(_cmd(samples, tmp_path / "fresh", tmp_path / "f.json"), env=env, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr

    k_scores = json.loads((tmp_path / "k.json").read_text())
    f_scores = json.loads((tmp_path / "f.json").read_text())
    assert k_scores["scores"] == f_scores["scores"]
    assert k_scores["status_counts"] == f_scores["status_counts"]
    assert k_scores["n_samples"] == n
    rows = [json.loads(line) for line in (killed_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == n
    assert len({(r["task_id"], r["sample_index"]) for r in rows}) == n
    fresh_rows = [json.loads(line) for line in (tmp_path / "fresh" / "results.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["sample_index"], r["passed"], r["status"]) for r in rows] == [
        (r["task_id"], r["sample_index"], r["passed"], r["status"]) for r in fresh_rows
    ]
    assert k_scores["scores"]["humaneval"]["pass@1"]["value"] == pytest.approx(2 / 3)
