"""`assay toolchains`, `assay canary`, `assay benchmarks` and `assay version`: what runs here and what Assay knows."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from assay import __version__
from assay.cli.common import _Progress, _sandbox_for, app, console, default_cache_dir, fail


@app.command()
def toolchains(json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False) -> None:
    """Which languages run here, with their toolchain versions, and how to install the rest."""
    from assay.languages import UnknownLanguage, get_language, language_names
    from assay.languages.base import ToolchainMissing

    rows: list[dict[str, Any]] = []
    for name in language_names():
        try:
            language = get_language(name)
        except UnknownLanguage as exc:
            rows.append({"language": name, "available": False, "version": None, "tools": {}, "install": str(exc)})
            continue
        try:
            tc = language.toolchain()
            rows.append({"language": name, "available": True, "version": tc.version, "tools": tc.tools, "install": None})
        except ToolchainMissing as exc:
            rows.append({"language": name, "available": False, "version": None, "tools": {}, "install": str(exc)})
    if json_out:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="toolchains")
    table.add_column("language")
    table.add_column("runs here")
    table.add_column("version / how to install")
    for row in rows:
        table.add_row(row["language"], "[green]yes[/]" if row["available"] else "[red]no[/]", row["version"] or row["install"])
    console.print(table)


@app.command()
def canary(
    benchmark: Annotated[str, typer.Argument(help="A benchmark with test programs, e.g. multipl-e/humaneval-swift.")],
    data_dir: Annotated[Path | None, typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data.")] = None,
    dataset_file: Annotated[Path | None, typer.Option("--dataset-file", help="Load the benchmark from this local file.")] = None,
    workers: Annotated[int | None, typer.Option("--workers", "-j", help="Parallel sandboxes (default: number of cores).")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write every problem's canary verdict here.")] = None,
    allow_weak_sandbox: Annotated[bool, typer.Option("--allow-weak-sandbox", help="Without bubblewrap, run as plain processes (NOT isolated).")] = False,
) -> None:
    """Build every problem's prompt + a stub + its tests: find problems that cannot compile before blaming a model."""
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError
    from assay.canary import run_canary

    try:
        bench = load_benchmark(benchmark, data_dir=data_dir, cache_dir=default_cache_dir(), path=dataset_file)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError, BenchmarkFormatError) as exc:
        fail(str(exc))
    sandbox = _sandbox_for(bench, allow_weak_sandbox)
    progress = _Progress(False)
    started = time.monotonic()
    try:
        result = run_canary(bench, sandbox, workers=workers or os.cpu_count() or 1, progress=lambda d, t: progress("canary", d, t))
    finally:
        progress.stop()
        close = getattr(sandbox, "close", None)
        if close:
            close()
    elapsed = time.monotonic() - started
    console.print(f"{bench.name}: {len(result.verdicts)} problems in {elapsed:.1f} s")
    for pid, verdict in result.broken.items():
        detail = verdict.tests[0].message.splitlines()[-1] if verdict.tests and verdict.tests[0].message else verdict.message
        console.print(f"[red]cannot build[/] {pid}: {detail}", highlight=False)
    for pid in result.stub_passes:
        console.print(f"[yellow]a stub passes[/] {pid}: its tests check nothing")
    console.print(f"{len(result.broken)} problems cannot be built, {len(result.stub_passes)} pass with a stub")
    if json_out:
        json_out.write_text(json.dumps({pid: {"status": v.status.value, "message": v.message} for pid, v in result.verdicts.items()}, indent=2))


@app.command()
def benchmarks(
    names: Annotated[list[str] | None, typer.Argument(help="With --details: only these benchmarks (default: every humaneval-plus/<lang> and mbpp-plus/<lang>).")] = None,
    details: Annotated[bool, typer.Option("--details", help="Per benchmark: problems, cases kept and left out (and why), program-judged problems.")] = False,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data.")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Downloads and cached results.")] = None,
) -> None:
    """List the benchmarks Assay knows (--details: what each holds, language by language)."""
    from assay.benchmarks import UnknownBenchmark, about, benchmark_names

    if not details:
        listing = [(name, *about(name)) for name in benchmark_names()]
        width = max(len(r[0]) for r in listing)
        print(f"{'benchmark':<{width}}  problems | languages | licence")
        for name, size, languages, licence in listing:
            print(f"{name:<{width}}  {size} | {languages} | {licence}")
        return
    from assay.benchmarks import details as bench_details
    from assay.benchmarks.plus_languages import benchmark_names as plus_names

    wanted = names or plus_names()
    try:
        rows = bench_details.details(wanted, data_dir=data_dir, cache_dir=cache_dir)
    except UnknownBenchmark as exc:
        fail(str(exc))
        return
    print(bench_details.markdown(rows))
    if all(r.unavailable for r in rows):
        raise typer.Exit(1)


@app.command()
def version() -> None:
    """Print Assay's version."""
    console.print(__version__)
