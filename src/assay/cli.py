"""The `assay` command line: parse, call, print."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from assay import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False, help="Assay: trustworthy evaluation of LLM-written code.")
console = Console()
err = Console(stderr=True)


def fail(message: str) -> None:
    """Print a one-line error and exit with status 2."""
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def default_cache_dir() -> Path:
    """Where downloads, expected outputs and verdicts are cached."""
    return Path(os.environ.get("ASSAY_CACHE_DIR") or Path.home() / ".cache" / "assay")


def parse_ks(text: str) -> list[int]:
    """'1,10,100' -> [1, 10, 100]."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        fail(f"--k must be comma-separated positive integers, got {text!r}")
    if not ks or ks[0] < 1:
        fail(f"--k must be comma-separated positive integers, got {text!r}")
    return ks


class _Progress:
    """Rich progress bars on a terminal; a few plain lines otherwise."""

    def __init__(self, plain: bool) -> None:
        self.plain = plain or not console.is_terminal
        self._bars = None
        self._tasks: dict[str, int] = {}
        self._last: dict[str, float] = {}
        if not self.plain:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bars = Progress(TextColumn("{task.description:<10}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console)
            self._bars.start()

    def __call__(self, what: str, done: int, total: int) -> None:
        if self._bars is not None:
            if what not in self._tasks:
                self._tasks[what] = self._bars.add_task(what, total=total)
            self._bars.update(self._tasks[what], completed=done, total=total)
            return
        now = time.monotonic()
        if done == total or now - self._last.get(what, 0) > 5:
            self._last[what] = now
            print(f"[assay] {what}: {done}/{total}", file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self._bars is not None:
            self._bars.stop()


@app.command()
def evaluate(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name, e.g. humaneval, humaneval-plus, mbpp-plus.")],
    samples: Annotated[Optional[Path], typer.Option("--samples", "-s", help="Samples JSONL(.gz): task_id + completion (human-eval) or solution (EvalPlus).")] = None,
    references: Annotated[bool, typer.Option("--references", help="Evaluate the benchmark's own reference solutions as the samples.")] = False,
    k: Annotated[str, typer.Option("--k", help="Comma-separated k values for pass@k.")] = "1,10,100",
    run_dir: Annotated[Optional[Path], typer.Option("--run-dir", help="Run directory (resumable); default runs/<benchmark>-<samples name>.")] = None,
    json_out: Annotated[Optional[Path], typer.Option("--json", help="Write scores and the full run configuration here.")] = None,
    data_dir: Annotated[Optional[Path], typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data (evalplus/...).")] = None,
    dataset_file: Annotated[Optional[Path], typer.Option("--dataset-file", help="Load the benchmark from this local file.")] = None,
    cache_dir: Annotated[Optional[Path], typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Cache for downloads, expected outputs and verdicts.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not reuse verdicts cached by earlier runs.")] = False,
    workers: Annotated[Optional[int], typer.Option("--workers", "-j", help="Parallel sandboxes (default: number of cores).")] = None,
    timeout: Annotated[Optional[float], typer.Option("--timeout", help="CPU seconds for a test program (HumanEval); default: max(1 s, 4x the reference's).")] = None,
    allow_weak_sandbox: Annotated[bool, typer.Option("--allow-weak-sandbox", help="Without bubblewrap, run samples as plain processes (NOT isolated).")] = False,
    plain: Annotated[bool, typer.Option("--plain", help="Plain progress lines instead of progress bars.")] = False,
) -> None:
    """Run every sample in the sandbox against the benchmark's tests and score it."""
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.evaluate import evaluate as run_evaluation
    from assay.execution import Settings
    from assay.samples import RawSample, SamplesError, read_samples, write_jsonl
    from assay.sandbox import SandboxUnavailable, get_sandbox
    from assay.store import RunStoreError

    ks = parse_ks(k)
    if (samples is None) == (not references):
        fail("give exactly one of --samples FILE or --references")
    cache = cache_dir or default_cache_dir()
    try:
        bench = load_benchmark(benchmark, data_dir=data_dir, cache_dir=cache, path=dataset_file)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError) as exc:
        fail(str(exc))
    if references:
        samples = cache / "references" / f"{bench.name}-{bench.content_hash[:12]}.jsonl"
        write_jsonl(samples, ({"task_id": p.id, "completion": p.reference} for p in bench.problems.values()))
    assert samples is not None
    try:
        rows: list[RawSample] = read_samples(samples)
    except SamplesError as exc:
        fail(str(exc))
    try:
        sandbox = get_sandbox(allow_weak=allow_weak_sandbox)
    except SandboxUnavailable as exc:
        fail(str(exc))
    if sandbox.name != "bubblewrap":
        err.print(f"[yellow]warning:[/] {sandbox.isolation}")
    stem = samples.name.split(".")[0]
    run_dir = run_dir or Path("runs") / f"{bench.name}-{stem}"
    progress = _Progress(plain)
    started = time.monotonic()
    try:
        result = run_evaluation(
            bench,
            rows,
            samples,
            run_dir,
            sandbox,
            ks,
            settings=Settings(timeout=timeout),
            workers=workers,
            cache_dir=cache,
            use_cache=not no_cache,
            progress=progress,
        )
    except RunStoreError as exc:
        progress.stop()
        fail(str(exc))
    finally:
        close = getattr(sandbox, "close", None)
        if close:
            close()
    progress.stop()
    elapsed = time.monotonic() - started
    show(result, bench.name, elapsed)
    if json_out:
        data = result.to_json()
        data["wall_seconds"] = round(elapsed, 3)
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(data, indent=2))
        console.print(f"scores and configuration: {json_out}")


def show(result, name: str, elapsed: float) -> None:  # type: ignore[no-untyped-def]
    """Print the scores table, the failure breakdown and any warnings."""
    labels = list(result.scores)
    table = Table(title=f"{name}: {result.n_samples} samples, {elapsed:.1f} s")
    table.add_column("metric")
    for label in labels:
        title = {"base": f"{name} (base tests)", "plus": f"{name} (base + extra tests)"}.get(label, label)
        table.add_column(title, justify="right")
    ks = sorted({k for by_k in result.scores.values() for k in by_k})
    for k in ks:
        cells = []
        for label in labels:
            s = result.scores[label].get(k)
            if s is None or s.n_problems == 0:
                cells.append("[dim]n/a (too few samples)[/]")
            else:
                note = f" [dim]({len(s.excluded)} problems excluded)[/]" if s.excluded else ""
                cells.append(f"{s.value:.4f} [dim][{s.ci_low:.3f}, {s.ci_high:.3f}][/]{note}")
        table.add_row(f"pass@{k}", *cells)
    console.print(table)
    counts = ", ".join(f"{status} {n}" for status, n in result.counts.items() if n)
    console.print(f"verdicts: {counts}")
    console.print(f"per-sample results: {result.results_path}")
    if result.unknown_tasks:
        listed = ", ".join(f"{t} ({n})" for t, n in list(result.unknown_tasks.items())[:5])
        err.print(f"[yellow]warning:[/] {sum(result.unknown_tasks.values())} samples name task ids not in {name}: {listed}")
    for pid, message in result.defects.items():
        err.print(f"[yellow]defective problem[/] {pid}: reference solution {message}")
    for pid, message in result.notes.items():
        err.print(f"[yellow]note[/] {pid}: {message}")


@app.command()
def benchmarks() -> None:
    """List the benchmarks Assay knows."""
    from assay.benchmarks import benchmark_names

    for name in benchmark_names():
        console.print(name)


@app.command()
def version() -> None:
    """Print Assay's version."""
    console.print(__version__)


def main() -> None:
    """Entry point that turns expected user errors into one-line messages."""
    app()


if __name__ == "__main__":
    main()
