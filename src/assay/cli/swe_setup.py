"""`assay swe image build | instance` and `assay swe prepare`: what repository tasks run with, made once
(container images from a debootstrap root, per-instance images, per-task virtualenvs), so that grading
runs offline afterwards."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.common import console, default_cache_dir, err, fail
from assay.cli.swe import DatasetOpt, RevisionOpt, SplitOpt, _selected, _store, swe_app

if TYPE_CHECKING:
    from assay.swe.tasks import Task


image_app = typer.Typer(help="Container images for --runtime podman/docker, built here from a debootstrap root (no registry).",
                        no_args_is_help=True)
swe_app.add_typer(image_app, name="image")


@image_app.command("build")
def image_build_cmd(
    tag: Annotated[str | None, typer.Option("--tag", help="The image's name (default: the one --runtime podman uses).")] = None,
    languages: Annotated[str, typer.Option("--languages", help="Comma-separated: whose system packages go in (python, c, go, ruby, rust, swift).")]
    = "python,c,go,ruby,rust",
    engine_name: Annotated[str, typer.Option("--engine", help="podman or docker: where the image is imported.")] = "podman",
    suite: Annotated[str, typer.Option("--suite", help="The Debian release.")] = "bookworm",
    mirror: Annotated[str, typer.Option("--mirror", help="The Debian mirror (a local one works).")] = "http://deb.debian.org/debian",
    packages: Annotated[str | None, typer.Option("--packages", help="More Debian packages, comma-separated.")] = None,
) -> None:
    """Build the system image repository tasks run in: debootstrap's minbase of Debian, the packages the
    languages' tests need (the interpreters and toolchains outside /usr are shown from the host at run time),
    imported into the engine."""
    from assay.swe.containers import IMAGE, ContainerFailed, Engine, build_image
    from assay.swe.runtime import RuntimeUnavailable

    started = time.monotonic()
    chosen = tag or IMAGE
    try:
        engine = Engine.find(engine_name)
        held = build_image(engine, chosen, [x.strip() for x in languages.split(",") if x.strip()], suite=suite, mirror=mirror,
                           extra=[p.strip() for p in (packages or "").split(",") if p.strip()])
    except (RuntimeUnavailable, ContainerFailed, ValueError) as exc:
        fail(str(exc))
    size = engine.run("image", "inspect", "--format", "{{.Size}}", chosen).stdout.decode().strip()
    console.print(f"{chosen}: {len(held)} packages, {int(size) / 1e6:.0f} MB, {time.monotonic() - started:.0f} s" if size.isdigit() else chosen)


@image_app.command("instance")
def image_instance_cmd(
    tasks: Annotated[list[Path], typer.Option("--tasks", help="Task instances (files or directories, repeatable).")],
    repos: Annotated[list[Path] | None, typer.Option("--repos", help="Directories with <owner>__<name>.bundle or clones.")] = None,
    instance_ids: Annotated[str | None, typer.Option("--instance-ids", help="Comma-separated instance ids (default: all).")] = None,
    tag: Annotated[str, typer.Option("--tag", help="The images' name; {id} is SWE-bench's image id of the instance.")]
    = "localhost/sweb.eval.x86_64.{id}",
    base: Annotated[str | None, typer.Option("--base", help="The system image (default: the one `assay swe image build` makes).")] = None,
    install: Annotated[bool, typer.Option("--install/--no-install", help="Run each task's install commands in its image (network needed "
                                                                          "for pip); --no-install keeps the base image's own packages.")] = True,
    engine_name: Annotated[str, typer.Option("--engine", help="podman or docker.")] = "podman",
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Where repository mirrors are kept.")] = None,
) -> None:
    """Build per-instance images in the layout of SWE-bench's published ones (/testbed at base_commit, the
    environment at /opt/miniconda3/envs/testbed), here instead of pulled; grade with --image TAG."""
    import tempfile

    from assay.swe.containers import IMAGE, ContainerFailed, Engine, build_instance_image, instance_image
    from assay.swe.envs import commands
    from assay.swe.repos import RepoUnavailable
    from assay.swe.runtime import RuntimeUnavailable
    from assay.swe.tasks import TaskFormatError, load_tasks

    try:
        loaded = load_tasks(tasks)
        engine = Engine.find(engine_name)
    except (TaskFormatError, RuntimeUnavailable) as exc:
        fail(str(exc))
    loaded = _selected(loaded, instance_ids)
    system = base or IMAGE
    if not engine.has_image(system):
        fail(f"--base {system}: {engine_name} has no such image" + (" (build it: assay swe image build)" if system == IMAGE else ""))
    store = _store(cache_dir or default_cache_dir(), repos)
    built = 0
    for task in loaded:
        name = instance_image(tag, task.instance_id)
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="assay-image-") as tmp:
            try:
                checkout = store.checkout(task.repo_key, task.repo, task.base_commit, Path(tmp) / "testbed")
                build_instance_image(engine, checkout, name, commands(task.install) if install else (), base=system)
            except (ContainerFailed, RepoUnavailable, subprocess.CalledProcessError) as exc:
                err.print(f"[assay] {task.instance_id}: not built: {exc}", markup=False, highlight=False)
                continue
        built += 1
        console.print(f"{task.instance_id}: {name} ({time.monotonic() - started:.0f} s)")
    console.print(f"built {built} of {len(loaded)} images; grade with: assay swe evaluate --runtime {engine_name} --image '{tag}' ...")
    if not built:
        raise typer.Exit(1)


@swe_app.command("prepare")
def prepare_cmd(
    tasks: Annotated[list[Path] | None, typer.Option("--tasks", help="Task instances (files or directories, repeatable).")] = None,
    dataset: DatasetOpt = None,
    revision: RevisionOpt = "main",
    split: SplitOpt = "test",
    base_python: Annotated[Path | None, typer.Option("--base-python", help="The interpreter the environments are made from (default: Assay's).")]
    = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Where the environments are kept.")] = None,
    specs: Annotated[str | None, typer.Option("--specs", help="SWE-bench's environment specs (swebench, or a JSON file), as for evaluate.")] = None,
    repos: Annotated[list[Path] | None, typer.Option("--repos", help="Directories with <owner>__<name>.bundle or clones (specs' setup steps run "
                                                                     "in a checkout).")] = None,
    network: Annotated[bool, typer.Option("--network", help="Allow cloning repositories from GitHub that --repos does not hold.")] = False,
) -> None:
    """Build each distinct test environment the tasks name (a venv per `install`, keyed by its content hash; for a
    task set up from SWE-bench's specs, its Python, packages and install steps, per instance), once, with network;
    `evaluate`, `validate` and `mine` then find them and run offline."""
    from assay.cli.swe import _load, _with_specs
    from assay.swe.envs import EnvironmentFailed, build, env_key, needs_env
    from assay.swe.harness import tree_bytes
    from assay.swe.repos import RepoStore, RepoUnavailable
    from assay.swe.tasks import TaskFormatError

    cache = cache_dir or default_cache_dir()
    try:
        loaded = [t for t in _with_specs(_load(tasks, dataset, revision, split, False, cache)[0], specs) if needs_env(t)]
    except TaskFormatError as exc:
        fail(str(exc))
    store = RepoStore(cache, list(repos or []), allow_network=network)
    base = str(base_python or sys.executable)
    by_key: dict[str, Task] = {}
    failed = built = 0
    for task in loaded:
        try:
            by_key.setdefault(env_key(task, base, store), task)
        except (EnvironmentFailed, RepoUnavailable) as exc:  # a spec's Python missing, its repository not in --repos
            failed += 1
            err.print(f"[assay] {exc}", markup=False, highlight=False)
    for key, task in by_key.items():
        started = time.monotonic()
        try:
            python = build(task, cache, base, store)
        except (EnvironmentFailed, RepoUnavailable) as exc:
            failed += 1
            err.print(f"[assay] {key}: {exc}", markup=False, highlight=False)
            continue
        built += 1
        spec = task.extra.get("spec")
        what = f"{task.instance_id} (spec {spec['repo']} {spec['version']}" if spec else \
            f"{task.install.splitlines()[0][:70]} ({sum(t.install == task.install for t in loaded)} tasks"
        console.print(f"{key}: {what}, {tree_bytes(python.parent.parent) / 1e6:.0f} MB, {time.monotonic() - started:.0f} s)")
    console.print(f"{built} of {built + failed} environments ready under {cache / 'swe' / 'envs'}")
    if failed:
        raise typer.Exit(1)
