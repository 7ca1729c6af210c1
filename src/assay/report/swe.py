"""Repository-task runs (`assay swe evaluate`'s directories) as report `Run`s, so leaderboards, compare
and the HTML page treat them as they treat function-level runs.

A directory is one when it holds `run.json` with `"kind": "swe"` and `results.jsonl`. Its suite is
`swe:<task set>`; each graded run of a task is one sample, passed when RESOLVED_FULL, so pass@1 is the
resolved rate over runs and pass@3 needs three runs a task, as the Multilingual SWE-bench seed counts
them. Infrastructure errors are samples with `sandbox_error` and are left out of the scores (never the
model's failure). The verdict statuses say what went wrong, in the function-level vocabulary:

- `passed`: RESOLVED_FULL;
- `failed`: the tests ran and a FAIL_TO_PASS or PASS_TO_PASS test failed (RESOLVED_PARTIAL or NO);
- `compile_error`: the patch is empty, does not apply, or reaches into the test runner;
- `runtime_error`: no wanted test reported a status (a broken build, an import error, an early exit);
- `timeout`: the test command passed its wall-clock limit.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from assay.report.runs import BenchmarkInfo, ReportError, Run, SampleResult

RUN_JSON = "run.json"
RESULTS = "results.jsonl"


def is_swe_run(path: Path) -> bool:
    """Whether `path` is a directory `assay swe evaluate` wrote."""
    try:
        return (path / RESULTS).is_file() and json.loads((path / RUN_JSON).read_text()).get("kind") == "swe"
    except (OSError, ValueError, AttributeError):
        return False


def status_of(row: dict[str, Any]) -> str:
    """A graded run's verdict status (see the module docstring)."""
    resolution, error = str(row.get("resolution")), str(row.get("error") or "")
    if resolution == "error":
        return "sandbox_error"
    if resolution == "RESOLVED_FULL":
        return "passed"
    if "passed the limit" in error:
        return "timeout"
    if row.get("empty_patch") or not row.get("applied_by") or "reaches into the test runner" in error:
        return "compile_error"
    return "failed" if row.get("statuses") else "runtime_error"


def rows_of(run_dir: Path) -> list[dict[str, Any]]:
    """results.jsonl's rows, a line cut short by a crash left out (as `swe evaluate` does when it resumes)."""
    out = []
    for line in (run_dir / RESULTS).read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and "instance_id" in row:
            out.append(row)
    return out


def load_swe_run(run_dir: Path, label: str | None = None, allow_unfinished: bool = False) -> Run:
    """A repository-task run as a report `Run`; ReportError (one line) when it is empty or unfinished."""
    config = json.loads((run_dir / RUN_JSON).read_text())
    b = config.get("benchmark") or {}
    info = BenchmarkInfo(str(b.get("name")), str(b.get("version")), str(b.get("content_hash")), b.get("n_problems"))
    rows = rows_of(run_dir)
    models = Counter(str(r.get("model")) for r in rows)
    model = str((config.get("model") or {}).get("model") or (models.most_common(1)[0][0] if models else run_dir.name))
    if not rows:
        raise ReportError(f"{run_dir} has no graded tasks (repository tasks {info.name}, model {model}): run or resume `assay swe evaluate` first")
    notes: list[str] = []
    expected = int(config.get("n_runs") or 0)
    if expected and len(rows) < expected:
        if not allow_unfinished:
            raise ReportError(f"{run_dir} is unfinished ({len(rows)} of {expected} task runs graded); resume it with the same command, "
                              "or pass --allow-unfinished")
        notes.append(f"unfinished run: {len(rows)} of {expected} task runs graded; scores cover what was graded")
    samples: list[SampleResult] = []
    flags: dict[str, list[bool]] = {}
    infra = 0
    for row in sorted(rows, key=lambda r: (str(r["instance_id"]), int(r.get("run", 0)))):
        status = status_of(row)
        samples.append(SampleResult(str(row["instance_id"]), int(row.get("run", 0)), status, str(row.get("language") or "python")))
        if status == "sandbox_error":
            infra += 1
            continue
        flags.setdefault(str(row["instance_id"]), []).append(status == "passed")
    if infra:
        notes.append(f"{infra} task runs hit an infrastructure error (the harness could not grade them); they are not scored")
    if not flags:
        raise ReportError(f"{run_dir} has no graded task runs (all {len(rows)} hit infrastructure errors); fix the setup and rerun")
    graded = [r for r in rows if status_of(r) != "sandbox_error"]
    applied = [r for r in graded if r.get("applied_by") and not r.get("empty_patch")]
    if applied:
        resolved = sum(status_of(r) == "passed" for r in applied)
        notes.append(f"precision (resolved among non-empty applied patches): {resolved}/{len(applied)} = {resolved / len(applied):.3f}")
    if info.n_problems and len(flags) < info.n_problems:
        notes.append(f"covers {len(flags)} of the {info.n_problems} tasks of {info.name}")
    return Run(run_dir, label or model, model, "samples", info, config, samples, {info.name: flags}, 0, notes, n_covered=len(flags))


def problem_entries(run: Run, run_index: int, problems: dict[str, dict[str, Any]]) -> None:
    """The HTML page's per-task view of one repository run: the patch (as the sample's code), each wanted
    test's status at the base commit (as the task defines it) and after the patch, the error and the log."""
    for row in rows_of(run.run_dir):
        entry = problems.get(str(row["instance_id"]))
        if entry is None:
            continue
        codes: list[str] = entry["codes"]
        patch = str(row.get("patch") or f"(patch not kept in this run; sha256 {row.get('patch_sha256', '')})")
        if patch not in codes:
            codes.append(patch)
        statuses: dict[str, str] = row.get("statuses") or {}
        f2p, p2p = set(row.get("fail_to_pass") or ()), set(row.get("pass_to_pass") or ())
        tests = [[name, statuses.get(name, "missing"), f"before: {'failing (FAIL_TO_PASS)' if name in f2p else 'passing (PASS_TO_PASS)'}"]
                 for name in sorted(f2p | p2p)]
        message = f"{row.get('resolution')}" + (f": {row.get('error')}" if row.get("error") else "") + \
            (f"; applied by {row.get('applied_by')}" if row.get("applied_by") else "")
        entry["samples"].append([run_index, int(row.get("run", 0)), status_of(row), codes.index(patch), message, tests,
                                 round(float(row.get("seconds") or 0), 3) or None, str(row.get("log") or "")[-8000:], ""])
