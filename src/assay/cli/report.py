"""`assay report`, `assay compare` and `assay leaderboard`: parse, call assay.report, print or write."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from assay.cli.common import app, console, err, fail, parse_ks

if TYPE_CHECKING:
    from assay.report import Report

FormatOpt = Annotated[str | None, typer.Option("--format", "-f", help="md, csv, json, latex or html (default: from --out's suffix, else md).")]
CompareFormatOpt = Annotated[str | None, typer.Option("--format", "-f", help="md, csv, json or latex (default: from --out's suffix, else md).")]
OutOpt = Annotated[Path | None, typer.Option("--out", "-o", help="Write the report here (report.html: one self-contained file).")]
MetaOpt = Annotated[Path | None, typer.Option("--models-meta", help="YAML with model sizes and families (docs/models-meta.md).")]
LabelOpt = Annotated[list[str] | None, typer.Option("--label", help="RUN_DIR=NAME: the name a run is shown under (repeatable).")]
UnfinishedOpt = Annotated[bool, typer.Option("--allow-unfinished", help="Report runs with unjudged samples (noted), instead of refusing them.")]
PartialOpt = Annotated[bool, typer.Option("--allow-partial", help="Rank partial runs (samples of only some problems) with full ones; "
                                          "by default they are listed, marked, unranked.")]
SUFFIX_FORMATS = {".html": "html", ".htm": "html", ".md": "md", ".csv": "csv", ".json": "json", ".tex": "latex"}


def _format(fmt: str | None, out: Path | None) -> str:
    chosen = fmt or (SUFFIX_FORMATS.get(out.suffix.lower()) if out else None) or "md"
    if chosen not in ("md", "csv", "json", "latex", "html"):
        fail(f"--format must be md, csv, json, latex or html, got {chosen!r}")
    return chosen


def _run_dirs(runs: list[Path]) -> list[Path]:
    """The run directories the arguments name, or hold; a folder with no run among several (runs/* often
    matches one) is said and passed over."""
    from assay.report import ReportError, find_run_dirs
    from assay.report.swe import is_swe_run

    dirs: list[Path] = []
    empty: list[str] = []
    for path in runs:
        if (path / "run.sqlite").exists() or is_swe_run(path):
            dirs.append(path)
        elif path.is_dir():
            try:
                dirs.extend(find_run_dirs(path))
            except ReportError as exc:
                if len(runs) == 1:
                    fail(str(exc))
                empty.append(str(path))
        else:
            fail(f"{path} is not a run directory (no run.sqlite)")
    if not dirs:
        fail("no run directories found; give run directories made by `assay evaluate` or `assay run`")
    if empty:
        err.print(f"[yellow]warning:[/] no run in {escape(', '.join(empty))}; passed over", soft_wrap=True)
    return dirs


def _labels(items: list[str] | None) -> dict[str, str]:
    labels: dict[str, str] = {}
    for item in items or []:
        run_dir, sep, name = item.partition("=")
        if not sep or not name:
            fail(f"--label must be RUN_DIR=NAME, got {item!r}")
        labels[run_dir] = name
    return labels


def _pairs(items: list[str] | None) -> list[tuple[str, str]] | None:
    if not items:
        return None
    pairs = []
    for item in items:
        a, sep, b = item.partition(",")
        if not sep or not a or not b:
            fail(f"--pair must be BENCHMARK_A,BENCHMARK_B, got {item!r}")
        pairs.append((a.strip(), b.strip()))
    return pairs


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        print(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    console.print(f"report: {out}")


def _render(report: Report, fmt: str, colour: bool) -> str:
    from assay.report import render_report

    if fmt == "html":
        try:
            from assay.report.html import render_html
        except ImportError:
            fail("the HTML report is not available in this installation; use --format md|csv|json|latex")
        return render_html(report)
    return render_report(report, fmt, colour=colour)


@app.command()
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories (or folders holding them, e.g. runs/).")],
    out: OutOpt = None,
    fmt: FormatOpt = None,
    benchmarks: Annotated[str | None, typer.Option("--benchmarks", help="Comma-separated benchmarks to show (default: all the runs have).")] = None,
    k: Annotated[str, typer.Option("--k", help="Comma-separated k values.")] = "1",
    models_meta: MetaOpt = None,
    label: LabelOpt = None,
    pair: Annotated[list[str] | None, typer.Option("--pair", help="BENCHMARK_A,BENCHMARK_B for a Table-I comparison (repeatable).")] = None,
    rank_by: Annotated[str, typer.Option("--rank-by", help="ci: ranks that intervals separate (ties shown); score: plain ranking.")] = "ci",
    sort: Annotated[str, typer.Option("--sort", help="Leaderboard order: score, model or size.")] = "score",
    log_size: Annotated[bool, typer.Option("--log-size", help="Model size on a log scale in the size plots.")] = False,
    colour: Annotated[bool, typer.Option("--colour", help="LaTeX: colour the change categories (\\cellcolor).")] = False,
    allow_unfinished: UnfinishedOpt = False,
    allow_partial: PartialOpt = False,
    audits: Annotated[list[Path] | None, typer.Option("--audit", help="An `assay audit --format json` file to add as a section (repeatable).")] = None,
) -> None:
    """Leaderboards, benchmark comparisons, score vs size, failure anatomy and solve rates over runs."""
    from assay.report import AuditSection, ReportError, build_report

    chosen = _format(fmt, out)
    if rank_by not in ("ci", "score") or sort not in ("score", "model", "size"):
        fail("--rank-by must be ci or score, and --sort score, model or size")
    dirs = _run_dirs(runs)
    try:
        built = build_report(
            dirs, suites=[b.strip() for b in benchmarks.split(",") if b.strip()] if benchmarks else None, ks=parse_ks(k),
            models_meta=models_meta, labels=_labels(label), allow_unfinished=allow_unfinished, allow_partial=allow_partial, pairs=_pairs(pair),
            rank_by=rank_by, sort_by=sort, log_size=log_size,  # type: ignore[arg-type]
        )
        built.audits = [AuditSection.load(path) for path in audits or []]
        text = _render(built, chosen, colour)
    except (ReportError, OSError) as exc:
        fail(str(exc))
    _emit(text, out)


@app.command()
def compare(
    run_a: Annotated[Path, typer.Argument(help="The first run directory.")],
    run_b: Annotated[Path, typer.Argument(help="The second run directory (same benchmark).")],
    benchmark: Annotated[str | None, typer.Option("--benchmark", help="Which score to compare (e.g. humaneval-plus:base); default the headline.")] = None,
    k: Annotated[int, typer.Option("--k", min=1, help="pass@k to compare.")] = 1,
    common_problems: Annotated[bool, typer.Option("--common-problems", help="Compare on the problems both runs have, instead of refusing different problem sets.")] = False,
    fmt: CompareFormatOpt = None,
    out: OutOpt = None,
    models_meta: MetaOpt = None,
    allow_unfinished: UnfinishedOpt = False,
) -> None:
    """Two runs on one benchmark: paired bootstrap of the difference, exact McNemar test, the problems that differ."""
    from assay.report import ReportError, compare_run_dirs, render_comparison

    chosen = _format(fmt, out)
    if chosen == "html":
        fail("--format html: assay compare writes md, csv, json or latex; put both runs in `assay report --out report.html` for HTML")
    try:
        comparison, provenance = compare_run_dirs(run_a, run_b, suite=benchmark, k=k, common_only=common_problems,
                                                  models_meta=models_meta, allow_unfinished=allow_unfinished)
    except (ReportError, OSError) as exc:
        fail(str(exc))
    _emit(render_comparison(comparison, provenance, chosen), out)


@app.command()
def leaderboard(
    benchmarks: Annotated[str, typer.Option("--benchmarks", help="Comma-separated benchmarks, e.g. humaneval,swift-suite.")],
    runs: Annotated[list[Path] | None, typer.Argument(help="Run directories (or folders of them); default: every run under --runs-root.")] = None,
    runs_root: Annotated[Path, typer.Option("--runs-root", help="Folder searched for run directories.")] = Path("runs"),
    models_meta: MetaOpt = None,
    k: Annotated[str, typer.Option("--k", help="Comma-separated k values.")] = "1",
    out: OutOpt = None,
    fmt: FormatOpt = None,
    allow_unfinished: UnfinishedOpt = False,
    allow_partial: PartialOpt = False,
) -> None:
    """Leaderboards of every run under --runs-root on these benchmarks, their comparison and score vs size."""
    from assay.report import ReportError, build_report, find_run_dirs

    chosen = _format(fmt, out)
    if runs:
        dirs = _run_dirs(runs)
    else:
        if not runs_root.is_dir():
            fail(f"--runs-root {runs_root} is not a folder")
        try:
            dirs = find_run_dirs(runs_root)
        except ReportError as exc:
            fail(str(exc))
        if not dirs:
            fail(f"no run directories under {runs_root}")
    try:
        built = build_report(dirs, suites=[b.strip() for b in benchmarks.split(",") if b.strip()], ks=parse_ks(k), models_meta=models_meta,
                             allow_unfinished=allow_unfinished, allow_partial=allow_partial, sections=("leaderboard", "comparison", "size"))
        text = _render(built, chosen, False)
    except (ReportError, OSError) as exc:
        fail(str(exc))
    _emit(text, out)
