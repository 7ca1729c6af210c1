"""Memory and scale: Assay's own resident memory on HumanEval+, its growth with the number of samples, and
what the driver's store and job queue would face with 1,000 workers and 10 million samples.

    python benchmarks/scale.py memory [--samples FILE]     # peak RSS evaluating all of HumanEval+
    python benchmarks/scale.py flat [--counts 10000,100000]  # peak RSS against the number of samples
    python benchmarks/scale.py store                          # SQLite writes per second; job sizes in flight
    python benchmarks/scale.py problem [--task HumanEval/130]  # one problem: labelling, then judging its reference

`memory` and `flat` run `assay evaluate` as a user does and sample the resident memory of the driver and
of every process under it (the sandboxes' zygotes and inits included; the programs under test are
excluded, as they are the samples' memory, not Assay's) every 50 ms. `flat` repeats the real samples
under new sample indexes: identical programs run once, so the run's time stays that of the distinct
programs while the driver holds and stores N samples.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = REPO.parent / "shared" / "data"
DEFAULT_SAMPLES = DATA / "samples/fasteval/WizardLM--WizardCoder-Python-34B-V1.0/samples.jsonl"


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _is_assay(pid: int) -> bool:
    """Assay's own processes: the driver, bwrap, the zygotes and the runs' trusted inits; not the programs judged."""
    cmd = _cmdline(pid)
    return "assay" in cmd or cmd.startswith(("bwrap", "/usr/bin/bwrap")) or "_zygote_main" in cmd or "perl" in cmd.split(" ", 1)[0]


def measure(cmd: list[str], env: dict[str, str]) -> dict[str, float]:
    """Run a command; its wall time, the driver's peak RSS and the peak total RSS of Assay's processes (MiB)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak_driver = peak_tree = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak_driver, peak_tree
        while not done.is_set():
            tree, total, stack = _children(), 0, [proc.pid]
            while stack:
                pid = stack.pop()
                if pid == proc.pid or _is_assay(pid):
                    total += _rss_kib(pid)
                stack.extend(tree.get(pid, []))
            peak_driver = max(peak_driver, _rss_kib(proc.pid))
            peak_tree = max(peak_tree, total)
            time.sleep(0.05)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    _, stderr = proc.communicate()
    done.set()
    watcher.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:6])} ... failed ({proc.returncode}): {stderr[-2000:]}")
    return {"wall_s": round(time.monotonic() - start, 1), "driver_peak_mib": round(peak_driver / 1024, 1), "assay_peak_mib": round(peak_tree / 1024, 1)}


def _evaluate(benchmark: str, samples: Path, work: Path, cache: Path) -> list[str]:
    return [sys.executable, "-m", "assay.cli", "evaluate", benchmark, "--samples", str(samples), "--run-dir", str(work / f"run-{samples.stem}"),
            "--data-dir", str(DATA), "--no-cache", "--plain", "--k", "1", "--cache-dir", str(cache)]


def cmd_memory(args: argparse.Namespace) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="assay-scale-"))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    warm = measure(_evaluate("humaneval-plus", _subset(args.samples, work, 1), work, args.cache), env)  # expected outputs computed once
    result = measure(_evaluate("humaneval-plus", args.samples, work, args.cache), env)
    return {"benchmark": "humaneval-plus", "samples": sum(1 for _ in args.samples.open()), "warm_up": warm, **result}


def _subset(samples: Path, work: Path, per_task: int) -> Path:
    rows = [json.loads(line) for line in samples.read_text().splitlines()]
    seen: dict[str, int] = {}
    out = work / f"first-{per_task}.jsonl"
    with out.open("w") as f:
        for row in rows:
            if seen.get(row["task_id"], 0) < per_task:
                seen[row["task_id"]] = seen.get(row["task_id"], 0) + 1
                f.write(json.dumps({"task_id": row["task_id"], "completion": row["completion"]}) + "\n")
    return out


def cmd_flat(args: argparse.Namespace) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="assay-scale-"))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    rows = [json.loads(line) for line in args.samples.read_text().splitlines()]
    measure(_evaluate("humaneval", _subset(args.samples, work, 1), work, args.cache), env)  # references checked once
    out: dict[str, object] = {}
    for count in args.counts:
        path = work / f"n{count}.jsonl"
        with path.open("w") as f:
            for i in range(count):
                row = rows[i % len(rows)]
                f.write(json.dumps({"task_id": row["task_id"], "completion": row["completion"], "sample_index": i}) + "\n")
        out[str(count)] = measure(_evaluate("humaneval", path, work, args.cache), env)
        print(count, out[str(count)], file=sys.stderr, flush=True)
    return out


def cmd_store(args: argparse.Namespace) -> dict[str, object]:
    """SQLite writes per second as the driver does them, and the size of the jobs a cluster would hold in flight."""
    sys.path.insert(0, str(REPO / "src"))
    from assay.problems import Status, TestDetail, Verdict
    from assay.samples import Sample
    from assay.store import RunStore

    work = Path(tempfile.mkdtemp(prefix="assay-store-"))
    store = RunStore(work / "run")
    verdict = Verdict(Status.FAILED, message="failed: assertion", duration_s=0.05, tests=[TestDetail(name=f"t{i}", status=Status.PASSED if i % 2 else Status.FAILED) for i in range(5)])
    n = args.writes
    start = time.perf_counter()
    for i in range(n):
        store.put(f"{i:064x}", verdict)
    single = n / (time.perf_counter() - start)

    def writer(base: int) -> None:
        for i in range(n // 8):
            store.put(f"{base + i:064x}", verdict)

    threads = [threading.Thread(target=writer, args=(10**9 * (t + 1),)) for t in range(8)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    threaded = (n // 8 * 8) / (time.perf_counter() - start)
    samples = [Sample(task_id=f"T/{i % 1000}", index=i, completion="    return 1\n" * 5, solution=None, program_hash=f"{i:064x}") for i in range(args.writes * 5)]
    start = time.perf_counter()
    for chunk in range(0, len(samples), 10_000):
        store.add_samples(samples[chunk:chunk + 10_000])
    batched = len(samples) / (time.perf_counter() - start)
    store.close()
    jobs = _job_sizes(args.cache)
    return {"verdict_puts_per_s": round(single), "verdict_puts_per_s_8_threads": round(threaded), "sample_rows_per_s_batched": round(batched),
            "db_bytes_per_verdict": round((work / "run" / "run.sqlite").stat().st_size / (n + n // 8 * 8 + len(samples))), "jobs": jobs}


def _job_sizes(cache: Path) -> dict[str, object]:
    """Pickled JudgeJob sizes (what a Ray task carries) for every HumanEval+ and MBPP+ problem, from their plans."""
    from assay.benchmarks import load_benchmark
    from assay.execution import JudgeSettings
    from assay.execution.executor import Executor
    from assay.execution.schedulers import LocalScheduler
    from assay.sandbox import get_sandbox
    from assay.store import RunStore

    out: dict[str, object] = {}
    for name in ("humaneval-plus", "mbpp-plus"):
        bench = load_benchmark(name, data_dir=DATA, cache_dir=cache)
        sandbox = get_sandbox()
        executor = Executor(sandbox, bench, JudgeSettings(), workers=2, cache_dir=cache)
        with tempfile.TemporaryDirectory() as tmp, LocalScheduler(sandbox, 2) as scheduler:
            store = RunStore(Path(tmp))
            executor.check_references(scheduler, bench.problems, store)
            sizes = sorted(len(pickle.dumps(executor.job(p, p.reference_program(), "0" * 64))) for p in bench.problems.values())
            store.close()
        out[name] = {"problems": len(sizes), "median_bytes": int(statistics.median(sizes)), "p99_bytes": sizes[int(len(sizes) * 0.99)], "max_bytes": sizes[-1]}
    return out


def cmd_problem(args: argparse.Namespace) -> dict[str, object]:
    """Where one problem's memory goes (in this process): labelling its inputs, then judging its reference."""
    sys.path.insert(0, str(REPO / "src"))
    from assay.benchmarks import load_benchmark
    from assay.execution import JudgeSettings
    from assay.execution.executor import Executor
    from assay.sandbox import get_sandbox

    def rss() -> float:
        return _rss_kib(os.getpid()) / 1024

    peak = [0.0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss())
            time.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    cache = Path(tempfile.mkdtemp(prefix="assay-problem-"))
    bench = load_benchmark(args.benchmark, data_dir=DATA, cache_dir=cache)
    executor = Executor(get_sandbox(), bench, JudgeSettings(), workers=1, cache_dir=cache)
    problem = bench.problems[args.task]
    out: dict[str, object] = {"benchmark": args.benchmark, "task": args.task, "loaded_mib": round(rss(), 1)}
    time.sleep(0.05)
    peak[0] = 0.0
    executor.expected(problem)
    time.sleep(0.05)
    out["labelling_peak_mib"], out["labels_held_mib"] = round(peak[0], 1), round(rss(), 1)
    peak[0] = 0.0
    verdict = executor.judge(problem, problem.reference_program())
    time.sleep(0.05)
    out["judging_reference_peak_mib"], out["reference"] = round(peak[0], 1), verdict.status.value
    done.set()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["memory", "flat", "store", "problem"])
    parser.add_argument("--benchmark", default="humaneval-plus")
    parser.add_argument("--task", default="HumanEval/130")
    parser.add_argument("--samples", type=Path, default=DEFAULT_SAMPLES)
    parser.add_argument("--counts", default="10000,100000", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--writes", type=int, default=20_000)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "assay-scale-cache")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    result = {"memory": cmd_memory, "flat": cmd_flat, "store": cmd_store, "problem": cmd_problem}[args.what](args)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
