"""The Ray scheduler on a real local Ray cluster: a head (no CPUs, so no jobs) and two worker nodes of
one CPU each, started here. The results equal a local run's sample for sample, with a worker killed
mid-run; a task lost for good is a sandbox error that the next run judges again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.execution.ray_scheduler import RAY_HINT, RayUnavailable, SandboxSpec, import_ray

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SAMPLES = DATA / "samples" / "fasteval" / "gpt-3.5-turbo-0613" / "samples.jsonl"
ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'assay[ray]')")
pytestmark = pytest.mark.slow


def test_missing_ray_gives_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(RayUnavailable, match=r"pip install 'assay\[ray\]'"):
        import_ray()
    assert "assay[ray]" in RAY_HINT


def test_sandbox_spec_rebuilds_the_same_kind_of_sandbox() -> None:
    from assay.sandbox import ProcessSandbox, get_sandbox

    sandbox = get_sandbox()
    spec = SandboxSpec.of(sandbox)
    assert type(spec.build()) is type(sandbox)
    weak = SandboxSpec.of(ProcessSandbox(ro_binds=[str(DATA.parent)]))
    assert weak.kind == "process" and weak.ro_binds == (str(DATA.parent),)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from ray.cluster_utils import Cluster

    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    made.add_node(num_cpus=1)
    made.add_node(num_cpus=1)
    made.wait_for_nodes()
    yield made
    made.shutdown()


def _samples(tmp: Path, problems: int) -> Path:
    if not SAMPLES.is_file():
        pytest.skip(f"needs {SAMPLES} (../shared/data is absent)")
    rows = [json.loads(line) for line in SAMPLES.read_text().splitlines()]
    picked = [r for r in rows if int(r["task_id"].split("/")[1]) < problems]
    path = tmp / "samples.jsonl"
    path.write_text("".join(json.dumps({"task_id": r["task_id"], "completion": r["completion"]}) + "\n" for r in picked))
    return path


def _evaluate(samples: Path, run_dir: Path, *extra: str, benchmark: str = "humaneval") -> dict[str, Any]:
    out = run_dir.parent / f"{run_dir.name}.json"
    cmd = [sys.executable, "-m", "assay.cli", "evaluate", benchmark, "--samples", str(samples), "--run-dir", str(run_dir), "--json", str(out),
           "--k", "1", "--plain", "--no-cache", "--cache-dir", str(run_dir.parent / "cache"), "--data-dir", str(DATA), *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return {"scores": json.loads(out.read_text()), "results": _results(run_dir)}


def _results(run_dir: Path) -> list[tuple[str, int, str]]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return sorted((r["task_id"], r.get("sample_index", r.get("idx", 0)), r["status"]) for r in rows)


def _judging_workers() -> list[int]:
    """Pids of Ray worker processes running a judge task now (Ray names them by the task's function)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.startswith(b"ray::judge_on_worker"):
                pids.append(int(entry.name))
    return pids


def test_a_cluster_run_equals_a_local_run_with_a_worker_killed_midway(cluster: Any, tmp_path: Path) -> None:
    samples = _samples(tmp_path, 24)
    local = _evaluate(samples, tmp_path / "local")
    killed: list[int] = []
    stop = threading.Event()

    def kill_one() -> None:
        while not stop.is_set() and not killed:
            for pid in _judging_workers():
                os.kill(pid, signal.SIGKILL)  # mid-task: Ray must run that job again elsewhere
                killed.append(pid)
                break
            time.sleep(0.005)

    killer = threading.Thread(target=kill_one, daemon=True)
    killer.start()
    try:
        remote = _evaluate(samples, tmp_path / "ray", "--scheduler", "ray", "--ray-address", cluster.address)
    finally:
        stop.set()
        killer.join()
    assert killed, "no Ray worker was caught running a judge task"
    assert remote["results"] == local["results"]  # sample for sample
    assert not any(status == "sandbox_error" for _, _, status in remote["results"])
    assert remote["scores"]["scores"] == local["scores"]["scores"]
    assert len(local["results"]) == 72 and 0 < sum(s == "passed" for _, _, s in local["results"]) < 72


def test_case_plans_travel_once_a_problem_and_judge_as_locally(cluster: Any, tmp_path: Path) -> None:
    # HumanEval+'s expected outputs are in each problem's case plan: put in Ray's object store once, and
    # every sample's task refers to it; the verdicts (base and plus) are the local run's.
    samples = _samples(tmp_path, 6)
    local = _evaluate(samples, tmp_path / "local", benchmark="humaneval-plus")
    remote = _evaluate(samples, tmp_path / "ray", "--scheduler", "ray", "--ray-address", cluster.address, benchmark="humaneval-plus")
    assert remote["results"] == local["results"] and len(local["results"]) == 18
    assert remote["scores"]["scores"] == local["scores"]["scores"]


def test_a_task_lost_for_good_is_a_sandbox_error_and_the_next_run_judges_it(cluster: Any, tmp_path: Path) -> None:
    from assay.benchmarks import load_benchmark
    from assay.execution import JudgeSettings, pipeline
    from assay.execution.ray_scheduler import RayScheduler
    from assay.execution.sources import SamplesFile
    from assay.problems import Status
    from assay.samples import read_samples
    from assay.sandbox import get_sandbox

    bench = load_benchmark("humaneval", data_dir=DATA)
    slow = ("    import time\n    time.sleep(3)\n    return any(abs(a - b) < threshold for i, a in enumerate(numbers) "
            "for j, b in enumerate(numbers) if i != j)\n")
    path = tmp_path / "slow.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval/0", "completion": slow}) + "\n")
    rows = read_samples(path)

    def no_retries(sandbox: Any, workers: int | None) -> RayScheduler:
        return RayScheduler(sandbox, workers, address=cluster.address, retries=0)

    killed: list[int] = []

    def kill_when_running() -> None:
        deadline = time.monotonic() + 60
        while not killed and time.monotonic() < deadline:
            for pid in _judging_workers():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.01)

    killer = threading.Thread(target=kill_when_running, daemon=True)
    killer.start()
    run_dir = tmp_path / "run"
    first = pipeline.run(bench, SamplesFile(rows, path, bench), run_dir, sandbox=get_sandbox(), ks=[1], use_cache=False,
                         cache_dir=tmp_path / "cache", scheduler=no_retries, settings=JudgeSettings(timeout=20, wall_timeout=30))
    killer.join()
    assert killed
    assert first.evaluation is not None
    statuses = [json.loads(line)["status"] for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert statuses == [Status.SANDBOX_ERROR.value]  # the cluster's loss, not the sample's failure

    again = pipeline.run(bench, SamplesFile(rows, path, bench), run_dir, sandbox=get_sandbox(), ks=[1], use_cache=False,
                         cache_dir=tmp_path / "cache", scheduler=no_retries, settings=JudgeSettings(timeout=20, wall_timeout=30))
    assert again.evaluation is not None
    statuses = [json.loads(line)["status"] for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert statuses == [Status.PASSED.value]  # judged again, and right


def test_unknown_scheduler_and_stray_address_are_one_line_errors(tmp_path: Path) -> None:
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": "HumanEval/0", "completion": "    return False\n"}) + "\n")
    base = [sys.executable, "-m", "assay.cli", "evaluate", "humaneval", "--samples", str(samples), "--run-dir", str(tmp_path / "r")]
    for extra, message in ((["--scheduler", "dask"], "unknown --scheduler 'dask'"), (["--ray-address", "127.0.0.1:1"], "--ray-address needs --scheduler ray")):
        done = subprocess.run([*base, *extra], capture_output=True, text=True, timeout=120, env={**os.environ, "RAY_ADDRESS": ""})
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr


def _swe(tmp: Path, out: str, *extra: str) -> dict[str, tuple[str, list[str]]]:
    tasks = ["andialbrecht__sqlparse-e92a032", "tkem__cachetools-57d2e48"]
    argv = [sys.executable, "-m", "assay.cli", "swe", "evaluate", "--tasks", str(DATA / "repo-tasks"), "--repos", str(DATA / "repos"),
            "--python", sys.executable, "--cache-dir", str(tmp / "cache"), "--instance-ids", ",".join(tasks), "--out", str(tmp / out), *extra]
    gold = subprocess.run([*argv, "--gold"], capture_output=True, text=True, timeout=900, env={**os.environ, "RAY_ADDRESS": ""})
    assert gold.returncode == 0, gold.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp / out / "results.jsonl").read_text().splitlines()]
    return {r["instance_id"]: (r["resolution"], sorted(r["f2p_failed"] + r["p2p_failed"])) for r in rows}


def test_repository_tasks_fan_out_as_ray_tasks_and_grade_as_locally(cluster: Any, tmp_path: Path) -> None:
    # `assay swe evaluate --scheduler ray`: each task is graded by a Ray task on a worker node (its own
    # mirrors, environment and runtime, built there); the driver writes results.jsonl and resumes.
    if not (DATA / "repo-tasks").is_dir() or not (DATA / "repos").is_dir():
        pytest.skip(f"needs the shared data directory ({DATA}: repo-tasks/, repos/)")
    local = _swe(tmp_path, "local")
    remote = _swe(tmp_path, "ray", "--scheduler", "ray", "--ray-address", cluster.address)
    assert remote == local and {r for r, _ in local.values()} == {"RESOLVED_FULL"}
    again = subprocess.run([sys.executable, "-m", "assay.cli", "swe", "evaluate", "--tasks", str(DATA / "repo-tasks"), "--repos", str(DATA / "repos"),
                            "--python", sys.executable, "--cache-dir", str(tmp_path / "cache"), "--instance-ids", ",".join(local), "--gold",
                            "--out", str(tmp_path / "ray"), "--scheduler", "ray", "--ray-address", cluster.address],
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "[assay]" not in again.stderr  # resumed: nothing graded twice
    bad = subprocess.run([sys.executable, "-m", "assay.cli", "swe", "evaluate", "--tasks", str(DATA / "repo-tasks"), "--gold", "--out",
                          str(tmp_path / "x"), "--scheduler", "dask"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown --scheduler 'dask'" in bad.stderr
