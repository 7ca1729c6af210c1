"""`assay swe evaluate | validate | mine | agent | prepare | image`: repository tasks (SWE-bench's formats) graded in a
bubblewrap workspace or a container."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from assay.cli.common import RayAddressOpt, SchedulerOpt, app, console, default_cache_dir, err, fail
from assay.swe.mine import PROFILES

if TYPE_CHECKING:
    from assay.swe.harness import Environment, Sandbox
    from assay.swe.repos import RepoStore
    from assay.swe.runtime import Limits
    from assay.swe.tasks import Prediction, Task

ProfileOpt = Annotated[str | None, typer.Option("--profile", help="The test setup (command, parser, language) for tasks that name none, "
                                                                  f"e.g. Multi-SWE-bench's rows: {', '.join(PROFILES)}.")]
RuntimeOpt = Annotated[str, typer.Option("--runtime", help="Where the tests run: bwrap (default), podman, or docker (any Docker-compatible "
                                                          "engine, e.g. podman's socket).")]
ImageOpt = Annotated[str | None, typer.Option("--image", help="The container image (podman/docker): default the one `assay swe image build` makes; "
                                                             "a name with {id} is per instance, e.g. docker.io/swebench/sweb.eval.x86_64.{id}:latest; "
                                                             "dataset: the image each task's row names (SWE-bench 5).")]
DatasetOpt = Annotated[str | None, typer.Option("--dataset", help="A Hugging Face dataset instead of --tasks: swe-bench, swe-bench-lite, "
                                                                   "swe-bench-verified, swe-bench-multilingual, multi-swe-bench(-mini), or a Hub id.")]
RevisionOpt = Annotated[str, typer.Option("--revision", help="The dataset's branch, tag or commit (the first commit a branch resolves to "
                                                             "is pinned in the cache).")]
SpecsOpt = Annotated[str | None, typer.Option("--specs", help="SWE-bench's per-repository, per-version environment specs for the tasks: "
                                                               "swebench (the installed package's table, swebench==4.1.0) or a JSON file "
                                                               "{repo: {version: spec}}; given, they replace each matching task's own setup. "
                                                               "Without it, tasks with no test_cmd and a version get swebench's.")]
SplitOpt = Annotated[str, typer.Option("--split", help="The dataset's split.")]
RefreshOpt = Annotated[bool, typer.Option("--refresh", help="Resolve the dataset's branch again instead of its pinned commit.")]
swe_app = typer.Typer(help="Repository tasks: SWE-bench-style instances graded by the project's own tests.", no_args_is_help=True)
app.add_typer(swe_app, name="swe")


@swe_app.command("evaluate")
def evaluate(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for results.jsonl and summary.json (resumable).")],
    tasks: Annotated[list[Path] | None, typer.Option("--tasks", help="Task instances: JSON, a JSON list, JSONL, or a directory of *.json "
                                                                     "(repeatable).")] = None,
    dataset: DatasetOpt = None,
    revision: RevisionOpt = "main",
    split: SplitOpt = "test",
    refresh: RefreshOpt = False,
    predictions: Annotated[list[Path] | None, typer.Option("--predictions", help="SWE-bench predictions (instance_id, model_patch, "
                                                           "model_name_or_path); repeat it for several runs of a model (pass@3).")] = None,
    runs_per_task: Annotated[int, typer.Option("--runs-per-task", min=1, help="Grade each prediction this many times (a flaky test shows).")] = 1,
    gold: Annotated[bool, typer.Option("--gold", help="Grade each task's own gold patch (a check of the tasks and the harness).")] = False,
    empty: Annotated[bool, typer.Option("--empty", help="Grade an empty patch for each task (its F2P tests must fail).")] = False,
    repos: Annotated[list[Path] | None, typer.Option("--repos", help="Directories with <owner>__<name>.bundle or clones (e.g. ../shared/data/repos).")] = None,
    runtime: RuntimeOpt = "bwrap",
    image: ImageOpt = None,
    profile: ProfileOpt = None,
    specs: SpecsOpt = None,
    python: Annotated[Path | None, typer.Option("--python", help="An interpreter that has the tests' dependencies (default: a venv built per task setup).")] = None,
    instance_ids: Annotated[str | None, typer.Option("--instance-ids", help="Comma-separated instance ids (default: all).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="Wall-clock seconds a task's test command may take.")] = 1800.0,
    workers: Annotated[int | None, typer.Option("--workers", "-j", help="Tasks graded at once (default: cores / 2, at least 1).")] = None,
    network: Annotated[bool, typer.Option("--network", help="Allow cloning repositories from GitHub that --repos does not hold.")] = False,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Where repository mirrors and environments are kept.")] = None,
    name: Annotated[str | None, typer.Option("--name", help="The task set's name in reports (suite swe:NAME; default: the --tasks files' names).")] = None,
    scheduler: SchedulerOpt = "local",
    ray_address: RayAddressOpt = None,
) -> None:
    """Apply each prediction to its task's repository at the base commit, run the project's tests in the
    sandbox, and grade them as SWE-bench v5 does (RESOLVED_FULL / PARTIAL / NO, infrastructure errors apart)."""
    from assay.execution.ray_scheduler import RayUnavailable
    from assay.swe.runtime import RuntimeUnavailable
    from assay.swe.scheduling import GradeSpec, task_pool
    from assay.swe.tasks import Prediction, TaskFormatError, load_predictions

    if scheduler not in ("local", "ray"):
        fail(f"unknown --scheduler {scheduler!r}; choose local or ray")
    if ray_address and scheduler != "ray":
        fail("--ray-address needs --scheduler ray")
    sandbox = _sandbox(runtime, image)
    if sum(bool(x) for x in (predictions, gold, empty)) != 1:
        fail("give exactly one of --predictions FILE, --gold or --empty")
    cache = cache_dir or default_cache_dir()
    try:
        loaded, set_name = _load(tasks, dataset, revision, split, refresh, cache)
        loaded = _with_profile(loaded, profile, specs)
        runs_of = [load_predictions(path) for path in predictions or []]
    except TaskFormatError as exc:
        fail(str(exc))
    loaded = _selected(loaded, instance_ids, strict=True)
    pairs: list[tuple[Task, Prediction, int]] = []
    sources = runs_of if runs_of else [{t.instance_id: Prediction(t.instance_id, "gold", t.patch) if gold else Prediction(t.instance_id, "empty", "")
                                        for t in loaded}]
    for n, source in enumerate(sources):
        for repeat in range(runs_per_task):
            run = n * runs_per_task + repeat
            pairs += [(task, source[task.instance_id], run) for task in loaded if task.instance_id in source]
    if not pairs:
        fail("no prediction is for any of the tasks (instance ids differ?)")
    out.mkdir(parents=True, exist_ok=True)
    _write_run_json(out, name or set_name, loaded, pairs, runtime, sandbox.image, timeout)
    results_path = out / "results.jsonl"
    done: dict[tuple[str, int, str], dict[str, object]] = {}
    if results_path.exists():
        for line in results_path.read_text().splitlines():
            try:
                row = json.loads(line)
                done[(row["instance_id"], int(row.get("run", 0)), row["patch_sha256"])] = row
            except (ValueError, KeyError):
                continue  # a line cut short by a crash: that task is graded again
    import hashlib

    todo = [(t, p, r) for t, p, r in pairs if (t.instance_id, r, hashlib.sha256(p.patch.encode()).hexdigest()) not in done]
    spec = GradeSpec(cache=str(cache), repos=tuple(str(p) for p in repos or []), network=network, runtime=runtime, image=sandbox.image,
                     python=str(python) if python else None, timeout=timeout, empty=empty)
    make_pool = task_pool(scheduler, ray_address, spec, workers or max(1, (os.cpu_count() or 2) // 2))
    started = time.monotonic()
    results: list[dict[str, object]] = list(done.values())
    try:
        with make_pool() as pool, open(results_path, "a") as sink:
            futures = {pool.submit(t, p, r): t.instance_id for t, p, r in todo}
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
    except RayUnavailable as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        err.print(f"[bold red]interrupted:[/] the tasks graded so far are in {escape(str(results_path))}; run the command again to go on",
                  highlight=False)
        raise typer.Exit(130) from None
    _summary(results, out, time.monotonic() - started)


def _write_run_json(out: Path, name: str, tasks: list[Task], pairs: list[tuple[Task, Prediction, int]], runtime: str, image: str,
                    timeout: float) -> None:
    """The run's record for `assay report`: the task set (name, content hash, size), the model, the settings, this Assay."""
    import hashlib

    from assay.provenance import assay_info

    digest = hashlib.sha256()
    for t in sorted(tasks, key=lambda t: t.instance_id):
        digest.update(json.dumps([t.instance_id, t.base_commit, sorted(t.fail_to_pass), sorted(t.pass_to_pass),
                                  hashlib.sha256(t.test_patch.encode()).hexdigest()]).encode())
    models = sorted({p.model for _, p, _ in pairs})
    record = {"kind": "swe", "benchmark": {"name": f"swe:{name}", "version": f"{len(tasks)} tasks", "content_hash": digest.hexdigest()[:16],
                                           "n_problems": len(tasks)},
              "model": {"model": models[0] if len(models) == 1 else ", ".join(models)}, "n_runs": len(pairs),
              "settings": {"runtime": runtime, "image": image or None, "timeout": timeout, "runs_per_task": len({r for _, _, r in pairs})},
              "assay": assay_info().model_dump(exclude_none=True)}
    (out / "run.json").write_text(json.dumps(record, indent=2) + "\n")


def _summary(results: list[dict[str, object]], out: Path, seconds: float) -> None:
    """summary.json and the tables: resolved rate, pass@1/pass@3, precision and F1, overall, per language and per repository."""
    from assay.swe.metrics import RepoMetrics, compute, grouped

    overall = compute(results)
    by_repo, by_language = grouped(results, "repo"), grouped(results, "language")
    summary = {"overall": overall.to_json(), "per_repository": {k: v.to_json() for k, v in by_repo.items()},
               "per_language": {k: v.to_json() for k, v in by_language.items()}, "seconds": round(seconds, 1)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    def table(title: str, groups: dict[str, RepoMetrics]) -> Table:
        t = Table(title=title)
        for column in ("", "tasks", "runs", "resolved", "pass@1", "pass@3", "precision", "F1", "errors"):
            t.add_column(column, justify="left" if not column else "right")

        def num(value: float) -> str:
            return "n/a" if value != value else f"{value:.3f}"

        for name, m in [*groups.items(), ("all", overall)]:
            p1, p3 = m.pass_at.get(1), m.pass_at.get(3)
            t.add_row(escape(name), str(m.tasks), str(m.runs), str(m.resolved), num(p1.value) if p1 else "n/a",
                      num(p3.value) if p3 else "n/a", num(m.precision.value), num(m.f1), str(m.errors))
        return t

    console.print(table(f"{overall.tasks} tasks, {seconds:.1f} s: per repository (pass@3 needs 3 runs a task; CIs in summary.json)", by_repo))
    if len(by_language) > 1:
        console.print(table("per language", by_language))
    p1 = overall.pass_at.get(1)
    console.print(f"resolved: {overall.resolved} of {overall.runs} graded runs; pass@1 {p1.text() if p1 else 'n/a'} (95% CI); "
                  f"infrastructure errors (not counted): {overall.errors}")
    console.print(f"results: {out / 'results.jsonl'}; summary: {out / 'summary.json'}")
    if not overall.runs:
        raise typer.Exit(1)


@swe_app.command("validate")
def validate_cmd(
    tasks: Annotated[list[Path], typer.Option("--tasks", help="Task instances to check (files or directories, repeatable).")],
    repos: Annotated[list[Path] | None, typer.Option("--repos", help="Directories with <owner>__<name>.bundle or clones.")] = None,
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs of the gold and of the empty patch each.")] = 3,
    profile: ProfileOpt = None,
    specs: SpecsOpt = None,
    python: Annotated[Path | None, typer.Option("--python", help="An interpreter with the tests' dependencies (Python tasks).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the valid instances here (JSONL).")] = None,
    runtime: RuntimeOpt = "bwrap",
    image: ImageOpt = None,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="Wall-clock seconds a test command may take.")] = 1800.0,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Where repository mirrors and environments are kept.")] = None,
) -> None:
    """Check task instances: each gold patch resolves and each empty patch does not, `--runs` times, the same every time."""
    from assay.swe.mine import validate, write_tasks
    from assay.swe.tasks import TaskFormatError, load_tasks

    try:
        loaded = _with_profile(load_tasks(tasks), profile, specs)
    except TaskFormatError as exc:
        fail(str(exc))
    sandbox = _sandbox(runtime, image)
    cache = cache_dir or default_cache_dir()
    store = _store(cache, repos)
    table = Table(title=f"{len(loaded)} instances, gold and empty {runs}x each")
    table.add_column("instance")
    table.add_column("valid")
    table.add_column("why not", overflow="fold")
    valid = []
    for task in loaded:
        result = validate(task, store, _environment(task, python, cache, store), _limits(timeout), runs=runs, sandbox=sandbox)
        table.add_row(escape(task.instance_id), "yes" if result.valid else "no", escape(result.why))
        if result.valid:
            valid.append(task)
    console.print(table)
    console.print(f"valid: {len(valid)} of {len(loaded)}")
    if out:
        write_tasks(valid, out)
        console.print(f"valid instances: {out}")
    if not valid:
        raise typer.Exit(1)


@swe_app.command("mine")
def mine_cmd(
    repo: Annotated[Path, typer.Option("--repo", help="A git repository (a clone; `git clone X.bundle dir` for a bundle).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where the validated instances go (JSONL).")],
    name: Annotated[str | None, typer.Option("--name", help="The repository as owner/name (default: from its origin URL or folder name).")] = None,
    profile: Annotated[str | None, typer.Option("--profile", help=f"A known project's test setup: {', '.join(PROFILES)}.")] = None,
    test_pattern: Annotated[str | None, typer.Option("--test-pattern", help="Regex of test file paths (e.g. '^tests/').")] = None,
    test_cmd: Annotated[str | None, typer.Option("--test-cmd", help="The command that runs the tests, from the repository root.")] = None,
    log_parser: Annotated[str | None, typer.Option("--log-parser", help="How statuses are read: pytest, go, cargo, swift, minitest, ctest-unity.")] = None,
    language: Annotated[str | None, typer.Option("--language", help="The project's language (for its toolchain).")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Only commits after this date (2021-01-01).")] = None,
    commits: Annotated[str | None, typer.Option("--commits", help="Only these commits (comma-separated).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many candidates.")] = None,
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs of each state (before and after the fix).")] = 3,
    python: Annotated[Path | None, typer.Option("--python", help="An interpreter with the tests' dependencies (Python projects).")] = None,
    runtime: RuntimeOpt = "bwrap",
    image: ImageOpt = None,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="Wall-clock seconds a test command may take.")] = 1800.0,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Where repository mirrors and environments are kept.")] = None,
) -> None:
    """Find fix commits that touch tests, split them into a test patch and a gold patch, run both states
    `--runs` times, and keep those with tests that fail before and pass after (F2P), every time."""
    from assay.swe.mine import Profile, mine, write_tasks

    if not (repo / ".git").exists() and not (repo / "HEAD").exists():
        fail(f"--repo {repo}: not a git repository")
    chosen = PROFILES.get(profile or "") if profile else None
    if profile and chosen is None:
        fail(f"--profile {profile}: known: {', '.join(PROFILES)}")
    base = chosen or Profile(language or "python", test_pattern or "", test_cmd or "", log_parser or "pytest")
    setup = Profile(language or base.language, test_pattern or base.test_pattern, test_cmd or base.test_cmd, log_parser or base.log_parser,
                    base.env_vars, base.install)
    if not setup.test_pattern or not setup.test_cmd:
        fail("give --profile, or --test-pattern and --test-cmd (and --log-parser)")
    owner_name = name or _repo_name(repo)
    sandbox = _sandbox(runtime, image)
    cache = cache_dir or default_cache_dir()
    store = _store(cache, [repo.parent], source=repo, key=owner_name.replace("/", "__"))
    from assay.swe.tasks import Task

    probe = Task("probe", owner_name, "", "", (), (), language=setup.language)
    env = _environment(probe, python, cache)
    started = time.monotonic()
    mined = mine(repo, owner_name, setup, store, env, _limits(timeout), since=since, commits=commits.split(",") if commits else None,
                 limit=limit, runs=runs, progress=lambda c, what: err.print(f"[assay] {c[:10]}: {what}", markup=False, highlight=False), sandbox=sandbox)
    write_tasks(mined.kept, out)
    reasons = ", ".join(f"{why} {n}" for why, n in mined.reasons().most_common()) or "none"
    n2p = [t for t in mined.kept if (t.extra.get("transitions") or {}).get("n2p")]
    console.print(f"{owner_name}: {mined.candidates} candidates, {len(mined.kept)} validated, dropped: {reasons} ({time.monotonic() - started:.0f} s)")
    if n2p:
        console.print(f"{len(n2p)} instances have N2P tests (no status before the fix: new, or their test binary stopped before them): "
                      + ", ".join(t.instance_id for t in n2p))
    console.print(f"instances: {out}")
    if not mined.kept:
        raise typer.Exit(1)


def _load(tasks: list[Path] | None, dataset: str | None, revision: str, split: str, refresh: bool, cache: Path) -> tuple[list[Task], str]:
    """The tasks of --tasks or of --dataset (fetched at its pinned commit), and the task set's name."""
    from assay.swe.datasets import DatasetUnavailable, fetch, load
    from assay.swe.tasks import load_tasks

    if bool(tasks) == bool(dataset):
        fail("give --tasks FILE... or --dataset NAME (one of them)")
    if tasks:
        return load_tasks(tasks), "+".join(dict.fromkeys(p.stem for p in tasks))
    assert dataset is not None
    try:
        fetched = fetch(dataset, cache, revision=revision, split=split, refresh=refresh)
        loaded = load(fetched)
    except DatasetUnavailable as exc:
        fail(str(exc))
    err.print(f"[assay] {fetched.source}: {len(loaded)} tasks", markup=False, highlight=False)
    return loaded, f"{fetched.repo_id.split('/')[-1]}@{fetched.commit[:12]}"


def _selected(tasks: list[Task], instance_ids: str | None, strict: bool = False) -> list[Task]:
    """The tasks `--instance-ids` names (all without it); a one-line error when none is a task, or (`strict`) any is not."""
    if not instance_ids:
        return tasks
    wanted = {i.strip() for i in instance_ids.split(",") if i.strip()}
    unknown = wanted - {t.instance_id for t in tasks}
    if strict and unknown:
        fail(f"--instance-ids: no such task: {', '.join(sorted(unknown))}")
    chosen = [t for t in tasks if t.instance_id in wanted]
    if not chosen:
        fail("--instance-ids: none of them is a task")
    return chosen


def _with_specs(tasks: list[Task], specs: str | None) -> list[Task]:
    """Tasks with SWE-bench's specs applied (`assay.swe.specs.set_up_all`); unreadable specs are a TaskFormatError."""
    from assay.swe.specs import SpecsUnavailable, set_up_all
    from assay.swe.tasks import TaskFormatError

    try:
        return set_up_all(tasks, specs)
    except SpecsUnavailable as exc:
        raise TaskFormatError(f"--specs: {exc}") from None


def _with_profile(tasks: list[Task], profile: str | None, specs: str | None = None) -> list[Task]:
    """Tasks with `--specs`' setup (SWE-bench's specs, `assay.swe.specs`), then `--profile`'s where they name none;
    a task left with no test command is a one-line error."""
    from assay.swe.tasks import TaskFormatError, with_profile

    if profile is None or specs is not None:
        tasks = _with_specs(tasks, specs)

    if profile is not None:
        chosen = PROFILES.get(profile)
        if chosen is None:
            raise TaskFormatError(f"--profile {profile}: known: {', '.join(PROFILES)}")
        tasks = [with_profile(t, chosen.language, chosen.test_cmd, chosen.log_parser, chosen.env_vars, chosen.install) for t in tasks]
    bare = [t.instance_id for t in tasks if not t.test_cmd]
    if bare:
        raise TaskFormatError(f"{bare[0]}{f' and {len(bare) - 1} more' if len(bare) > 1 else ''}: no test_cmd (Multi-SWE-bench's rows name "
                              "none, nor do SWE-bench's whose repo and version no spec covers): give --profile or --specs")
    return tasks


def _sandbox(runtime: str, image: str | None) -> Sandbox:
    """`--runtime` and `--image` checked: the engine answers and a fixed image is there (one-line errors)."""
    from assay.swe.containers import IMAGE, Engine
    from assay.swe.harness import Sandbox
    from assay.swe.runtime import RuntimeUnavailable

    if runtime == "bwrap":
        if image:
            fail("--image is for --runtime podman or docker")
        return Sandbox()
    if runtime not in ("podman", "docker"):
        fail(f"--runtime {runtime}: known: bwrap, podman, docker")
    try:
        engine = Engine.find(runtime)
    except RuntimeUnavailable as exc:
        fail(str(exc))
    chosen = image or IMAGE
    if "{" not in chosen and chosen != "dataset" and not engine.has_image(chosen):
        fail(f"--image {chosen}: {runtime} has no such image" + (" (build it: assay swe image build)" if chosen == IMAGE else ""))
    return Sandbox(runtime, engine, chosen)


def _limits(timeout: float) -> Limits:
    from assay.swe.runtime import Limits

    return Limits(wall_seconds=timeout)


def _store(cache: Path, repos: list[Path] | None, source: Path | None = None, key: str | None = None) -> RepoStore:
    from assay.swe.repos import RepoStore

    return RepoStore(cache, list(repos or []), local={key: source} if source is not None and key else None)


def _environment(task: Task, python: Path | None, cache: Path, store: RepoStore | None = None) -> Environment:
    """The task's environment: `--python`, or a venv built for its setup (Python); the toolchain of its language."""
    from assay.swe.envs import EnvironmentFailed, build, needs_env
    from assay.swe.harness import Environment

    try:
        interpreter = python or (build(task, cache, store=store) if needs_env(task) else Path(sys.executable))
        return Environment.of(interpreter, task.language)
    except (EnvironmentFailed, OSError, subprocess.CalledProcessError) as exc:
        fail(f"environment for {task.instance_id}: {exc}")
        raise  # not reached: fail() exits


def _repo_name(repo: Path) -> str:
    """owner/name from the clone's origin URL (a bundle named owner__name, or a GitHub URL), else the folder's name."""
    url = subprocess.run(["git", "config", "--get", "remote.origin.url"], cwd=repo, capture_output=True, text=True).stdout.strip()
    stem = Path(url).name.removesuffix(".bundle").removesuffix(".git") if url else repo.name
    if "__" in stem:
        return stem.replace("__", "/", 1)
    match = re.search(r"github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?$", url)
    return f"{match.group(1)}/{match.group(2)}" if match else f"local/{stem}"


@swe_app.command("agent")
def agent_cmd(
    tasks: Annotated[list[Path], typer.Option("--tasks", help="Task instances (files or directories, repeatable).")],
    model: Annotated[str, typer.Option("--model", help="BACKEND/MODEL, as for `assay run` (openai/..., anthropic/...).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory: predictions-run<N>.jsonl (SWE-bench's format) and trajectories/.")],
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs per task (pass@3 needs 3).")] = 1,
    base_url: Annotated[str | None, typer.Option("--base-url", help="An OpenAI-compatible server's URL.")] = None,
    api_key_env: Annotated[str | None, typer.Option("--api-key-env", help="The variable that holds the API key.")] = None,
    repos: Annotated[list[Path] | None, typer.Option("--repos", help="Directories with <owner>__<name>.bundle or clones.")] = None,
    python: Annotated[Path | None, typer.Option("--python", help="The interpreter the agent's commands get (default: a venv per task setup).")] = None,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="Commands per run (upstream agents default to 250).")] = 50,
    max_cost: Annotated[float, typer.Option("--max-cost", min=0.0, help="Dollars per run, where the model is in the price table (upstream: $3).")] = 3.0,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="Wall-clock seconds per run.")] = 1800.0,
    command_timeout: Annotated[float, typer.Option("--command-timeout", min=1.0, help="Seconds one command may take.")] = 120.0,
    instance_ids: Annotated[str | None, typer.Option("--instance-ids", help="Comma-separated instance ids (default: all).")] = None,
    runtime: RuntimeOpt = "bwrap",
    image: ImageOpt = None,
    specs: SpecsOpt = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Where repository mirrors and environments are kept.")] = None,
) -> None:
    """Let a model fix each task: one bash command a step in the sandboxed checkout, until it submits or a limit is
    hit; the final git diff is its patch. Then: assay swe evaluate --predictions OUT/predictions-run*.jsonl."""
    import asyncio

    from assay.generation import load_prices, price_of
    from assay.models import get_model, parse_model_spec
    from assay.models.base import ModelConfigError, Usage
    from assay.swe.agent import AgentLimits, save, solve
    from assay.swe.tasks import TaskFormatError, load_tasks

    try:
        loaded = _with_specs(load_tasks(tasks), specs)
        spec = parse_model_spec(model)
        options: dict[str, object] = {"base_url": base_url}
        if api_key_env:
            options["api_key_env"] = api_key_env
        backend = get_model(spec, **options)
    except (TaskFormatError, ModelConfigError) as exc:
        fail(str(exc))
    loaded = _selected(loaded, instance_ids)
    sandbox = _sandbox(runtime, image)
    if sandbox.per_instance:
        fail("--image: the agent's commands need the checkout mounted; give a fixed image (per-instance images are for evaluate)")
    cache = cache_dir or default_cache_dir()
    store = _store(cache, repos)
    limits = AgentLimits(steps=max_steps, dollars=max_cost, wall_seconds=timeout, command_seconds=command_timeout)
    prices = load_prices()

    def price(usage: Usage) -> float | None:
        return price_of(prices, spec.backend, spec.model, usage)

    out.mkdir(parents=True, exist_ok=True)
    table = Table(title=f"{spec.backend}/{spec.model} on {len(loaded)} tasks, {runs} run(s)")
    for column in ("task", "run", "ended", "steps", "patch lines", "dollars"):
        table.add_column(column, justify="left" if column in ("task", "ended") else "right")

    async def main() -> None:
        try:
            for run in range(runs):
                path = out / f"predictions-run{run + 1}.jsonl"
                done = {json.loads(line)["instance_id"] for line in path.read_text().splitlines() if line.strip()} if path.exists() else set()
                for task in loaded:
                    if task.instance_id in done:
                        continue
                    trajectory = await solve(task, backend, store, _environment(task, python, cache, store), limits, run=run, price=price,
                                             sandbox=sandbox)
                    save(trajectory, out / "trajectories")
                    with open(path, "a") as sink:
                        sink.write(json.dumps({"instance_id": task.instance_id, "model_patch": trajectory.patch,
                                               "model_name_or_path": f"{spec.backend}/{spec.model}", "run": run + 1}) + "\n")
                    err.print(f"[assay] {task.instance_id} run {run + 1}: {trajectory.exit_reason} after {len(trajectory.steps)} steps",
                              markup=False, highlight=False)
                    table.add_row(escape(task.instance_id), str(run + 1), trajectory.exit_reason, str(len(trajectory.steps)),
                                  str(trajectory.patch.count("\n")), f"{trajectory.dollars:.4f}" if trajectory.dollars is not None else "n/a")
        finally:
            await backend.aclose()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        err.print(f"[bold red]interrupted:[/] the runs finished so far are in {escape(str(out))}; the same command goes on", highlight=False)
        raise typer.Exit(130) from None
    console.print(table)
    files = " ".join(f"--predictions {out / f'predictions-run{r + 1}.jsonl'}" for r in range(runs))
    console.print(f"next: assay swe evaluate --tasks ... {files} --out ...")

