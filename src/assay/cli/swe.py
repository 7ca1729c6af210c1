"""`assay swe evaluate`: repository tasks (SWE-bench's formats) graded in a bubblewrap workspace."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from assay.cli.common import app, console, default_cache_dir, err, fail

swe_app = typer.Typer(help="Repository tasks: SWE-bench-style instances graded by the project's own tests.", no_args_is_help=True)
app.add_typer(swe_app, name="swe")


@swe_app.command("evaluate")
def evaluate(
    tasks: Annotated[list[Path], typer.Option("--tasks", help="Task instances: JSON, a JSON list, JSONL, or a directory of *.json (repeatable).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for results.jsonl and summary.json (resumable).")],
    predictions: Annotated[Path | None, typer.Option("--predictions", help="SWE-bench predictions: instance_id, model_patch, model_name_or_path.")] = None,
    gold: Annotated[bool, typer.Option("--gold", help="Grade each task's own gold patch (a check of the tasks and the harness).")] = False,
    empty: Annotated[bool, typer.Option("--empty", help="Grade an empty patch for each task (its F2P tests must fail).")] = False,
    repos: Annotated[list[Path] | None, typer.Option("--repos", help="Directories with <owner>__<name>.bundle or clones (e.g. ../shared/data/repos).")] = None,
    runtime: Annotated[str, typer.Option("--runtime", help="Where the tests run: bwrap (default).")] = "bwrap",
    python: Annotated[Path | None, typer.Option("--python", help="An interpreter that has the tests' dependencies (default: a venv built per task setup).")] = None,
    instance_ids: Annotated[str | None, typer.Option("--instance-ids", help="Comma-separated instance ids (default: all).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="Wall-clock seconds a task's test command may take.")] = 1800.0,
    workers: Annotated[int | None, typer.Option("--workers", "-j", help="Tasks graded at once (default: cores / 2, at least 1).")] = None,
    network: Annotated[bool, typer.Option("--network", help="Allow cloning repositories from GitHub that --repos does not hold.")] = False,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Where repository mirrors and environments are kept.")] = None,
) -> None:
    """Apply each prediction to its task's repository at the base commit, run the project's tests in the
    sandbox, and grade them as SWE-bench v5 does (RESOLVED_FULL / PARTIAL / NO, infrastructure errors apart)."""
    from assay.swe.envs import EnvironmentFailed, build
    from assay.swe.harness import Environment, TaskResult, evaluate_task
    from assay.swe.repos import RepoStore
    from assay.swe.runtime import Limits, RuntimeUnavailable
    from assay.swe.tasks import Prediction, TaskFormatError, load_predictions, load_tasks

    if runtime != "bwrap":
        fail(f"--runtime {runtime}: only bwrap is available in this version (podman is planned: see the README)")
    if sum(bool(x) for x in (predictions, gold, empty)) != 1:
        fail("give exactly one of --predictions FILE, --gold or --empty")
    try:
        loaded = load_tasks(tasks)
        preds = load_predictions(predictions) if predictions else {}
    except TaskFormatError as exc:
        fail(str(exc))
    if instance_ids:
        wanted = {i.strip() for i in instance_ids.split(",") if i.strip()}
        unknown = wanted - {t.instance_id for t in loaded}
        if unknown:
            fail(f"--instance-ids: no such task: {', '.join(sorted(unknown))}")
        loaded = [t for t in loaded if t.instance_id in wanted]
    pairs = []
    for task in loaded:
        if gold:
            pairs.append((task, Prediction(task.instance_id, "gold", task.patch)))
        elif empty:
            pairs.append((task, Prediction(task.instance_id, "empty", "")))
        elif task.instance_id in preds:
            pairs.append((task, preds[task.instance_id]))
    if not pairs:
        fail("no prediction is for any of the tasks (instance ids differ?)")
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.jsonl"
    done: dict[tuple[str, str], dict[str, object]] = {}
    if results_path.exists():
        for line in results_path.read_text().splitlines():
            try:
                row = json.loads(line)
                done[(row["instance_id"], row["patch_sha256"])] = row
            except (ValueError, KeyError):
                continue  # a line cut short by a crash: that task is graded again
    import hashlib

    todo = [(t, p) for t, p in pairs if (t.instance_id, hashlib.sha256(p.patch.encode()).hexdigest()) not in done]
    cache = cache_dir or default_cache_dir()
    store = RepoStore(cache, list(repos or []), allow_network=network)
    limits = Limits(wall_seconds=timeout)
    started = time.monotonic()

    def grade_one(task: object, prediction: Prediction) -> TaskResult:
        from assay.swe.tasks import Task

        assert isinstance(task, Task)
        try:
            interpreter = python or build(task, cache)
            env = Environment.of(interpreter)
        except (EnvironmentFailed, OSError) as exc:
            return TaskResult(task.instance_id, prediction.model, "error", error=f"environment: {exc}",
                              patch_sha256=hashlib.sha256(prediction.patch.encode()).hexdigest())
        return evaluate_task(task, prediction, store, env, limits, run_empty=empty)

    n_workers = workers or max(1, (os.cpu_count() or 2) // 2)
    results: list[dict[str, object]] = list(done.values())
    try:
        with ThreadPoolExecutor(max_workers=n_workers) as pool, open(results_path, "a") as sink:
            futures = {pool.submit(grade_one, t, p): t.instance_id for t, p in todo}
            for future in as_completed(futures):
                try:
                    result = future.result()
                except RuntimeUnavailable as exc:
                    fail(str(exc))
                row = result.to_json()
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                results.append(row)
                what = result.resolution if not result.infra else f"error: {result.error}"
                err.print(f"[assay] {result.instance_id}: {what} ({result.seconds:.1f} s)", markup=False, highlight=False)
    except KeyboardInterrupt:
        err.print(f"[bold red]interrupted:[/] the tasks graded so far are in {escape(str(results_path))}; run the command again to go on",
                  highlight=False)
        raise typer.Exit(130) from None
    _summary(results, out, time.monotonic() - started)


def _summary(results: list[dict[str, object]], out: Path, seconds: float) -> None:
    """summary.json and the table: resolved, partial, no and errors, overall and per repository."""
    by_repo: dict[str, Counter[str]] = {}
    for row in results:
        repo = str(row["instance_id"]).rsplit("-", 1)[0]
        by_repo.setdefault(repo, Counter())[str(row["resolution"])] += 1
    total = Counter(str(r["resolution"]) for r in results)
    graded = sum(total.values()) - total["error"]
    summary = {"tasks": len(results), "graded": graded, "resolved": total["RESOLVED_FULL"], "partial": total["RESOLVED_PARTIAL"],
               "unresolved": total["RESOLVED_NO"], "errors": total["error"],
               "resolved_rate": (total["RESOLVED_FULL"] / graded) if graded else None,
               "per_repository": {repo: dict(c) for repo, c in sorted(by_repo.items())}, "seconds": round(seconds, 1)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    table = Table(title=f"{len(results)} tasks, {seconds:.1f} s")
    for column in ("repository", "tasks", "resolved", "partial", "unresolved", "infra errors"):
        table.add_column(column, justify="left" if column == "repository" else "right")
    for repo, c in sorted(by_repo.items()):
        table.add_row(escape(repo), str(sum(c.values())), str(c["RESOLVED_FULL"]), str(c["RESOLVED_PARTIAL"]), str(c["RESOLVED_NO"]), str(c["error"]))
    console.print(table)
    rate = f"{summary['resolved_rate']:.3f}" if graded else "n/a"
    console.print(f"resolved: {total['RESOLVED_FULL']} of {graded} graded ({rate}); infrastructure errors (not counted): {total['error']}")
    console.print(f"results: {out / 'results.jsonl'}; summary: {out / 'summary.json'}")
    if not graded:
        raise typer.Exit(1)
