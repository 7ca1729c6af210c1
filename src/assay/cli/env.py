"""`assay env build|show bigcodebench`: a benchmark's package environment (assay.benchmarks.bigcodebench_env)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from assay.cli.common import app, console, default_cache_dir, err, fail

env_app = typer.Typer(help="Package environments a benchmark's tests import from (bigcodebench's pinned libraries).", no_args_is_help=True)
app.add_typer(env_app, name="env")
KNOWN = ("bigcodebench",)


def _check(benchmark: str) -> None:
    if benchmark not in KNOWN:
        fail(f"no package environment for {benchmark!r}; known: {', '.join(KNOWN)}")


@env_app.command("build")
def build(
    benchmark: Annotated[str, typer.Argument(help="The benchmark whose environment to build: bigcodebench.")],
    subset: Annotated[str, typer.Option("--subset", help="full (upstream's ~70 pins) or core (numpy, pandas, dateutil, pytz: quick).")] = "full",
    directory: Annotated[Path | None, typer.Option("--dir", help="Build here (default: <cache>/envs/bigcodebench-<digest>).")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help="A data directory laid out like shared/data.")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", help="Downloads and environments (default ~/.cache/assay).")] = None,
) -> None:
    """Build the environment once from PyPI (nearest installable versions where a pin cannot install); print its manifest's summary."""
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.bigcodebench import requirements_file
    from assay.benchmarks.bigcodebench_env import EnvironmentError_, build_env

    _check(benchmark)
    cache = cache_dir or default_cache_dir()
    try:
        built = build_env(requirements_file(data_dir, cache), subset, directory, cache, log=sys.stderr)
    except (DataUnavailable, EnvironmentError_) as exc:
        fail(str(exc))
    m = built.manifest
    console.print(f"{built.path}: {len(m['installed'])} packages, {m['size_mb']} MB, built in {m['build_seconds']} s (Python {m['python']})")
    for sub in m["substitutions"]:
        err.print(f"[yellow]substituted[/] {sub['pinned']} -> {sub['installed']}: {sub['why']}")
    if directory is not None:
        err.print(f"use it with ASSAY_BIGCODEBENCH_ENV={built.path}")


@env_app.command("show")
def show(
    benchmark: Annotated[str, typer.Argument(help="bigcodebench")],
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", help="Where environments are (default ~/.cache/assay).")] = None,
) -> None:
    """Print the record of the environment evaluations would use (what the run record carries)."""
    from assay.benchmarks.bigcodebench_env import EnvironmentError_, find_env, record

    _check(benchmark)
    try:
        found = find_env(cache_dir or default_cache_dir())
    except EnvironmentError_ as exc:
        fail(str(exc))
    sys.stdout.write(json.dumps(record(found), indent=2) + "\n")
