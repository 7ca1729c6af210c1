"""The report as one self-contained HTML file: sortable tables, inline SVG plots, a solve-rate heat map, provenance,
and a click-through from each problem to its prompt and every model's samples with their verdicts.

Nothing is fetched when the page is read: CSS, JavaScript and figures are inline, fonts are the reader's
own (figures carry their glyphs). Per-problem data is embedded once as JSON in a
`<script type="application/json">` block and turned into a panel only when a problem is clicked, so
reports with thousands of samples open fast. Samples are untrusted model output: the JSON escapes
`<`, `>` and `&`, and the page's script only ever sets `textContent`.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from assay.report.render import CATEGORIES, CATEGORY_COLOURS, Column, TextTable, format_cell
from assay.report.runs import ReportError, Run, local_benchmark, natural_sorted
from assay.report.tables import BenchmarkComparison, SolveMatrix
from assay.store import RunStore

if TYPE_CHECKING:
    from assay.report import Report

TEMPLATES = Path(__file__).parent / "templates"
TEXT_CAP = 4000  # characters kept of a verdict message, a test's message, stdout or stderr
CODE_CAP = 50_000  # characters kept of one sample's code
HEAT_LEVELS = 20  # heat-map cells are coloured in steps of 1/HEAT_LEVELS
# Sort direction of a column's first click: scores best first, ranks and names in reading order.
_FIRST_DESC = frozenset({"score", "ci", "share", "rate", "int", "float", "points"})


@dataclass
class Cell:
    """One table cell: its text, the key it sorts by, an optional background and an optional problem to open."""

    text: str
    sort: str = ""
    colour: str | None = None
    css: str = ""
    problem: str | None = None  # "<benchmark>|<task id>": the cell opens that problem's panel


@dataclass
class HtmlTable:
    """A table as the template draws it: headers with their sort order, rows of cells, notes."""

    id: str
    title: str
    headers: list[tuple[str, str, bool]]  # title, first sort direction ("asc"/"desc"), numeric
    rows: list[list[Cell]]
    notes: list[str] = field(default_factory=list)
    css: str = ""


@dataclass
class Section:
    """One part of the page: a heading, optional prose, figures and tables."""

    id: str
    title: str
    tables: list[HtmlTable] = field(default_factory=list)
    svg: Markup | None = None
    lead: list[str] = field(default_factory=list)  # notes shown above the figure/table
    legend: list[tuple[str, str]] = field(default_factory=list)  # (colour, label)
    heat: dict[str, Any] | None = None  # a solve matrix: canvas data
    details: list[tuple[str, str]] = field(default_factory=list)  # (summary, preformatted text)
    kind: str = ""


def _sort_key(column: Column, value: Any) -> str:
    """A cell's sort key: numbers as their repr, intervals by their low end, unknown as empty (sorted last)."""
    if value is None:
        return ""
    if column.kind == "ci":
        value = value[0]
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (int, float)):
        return "" if isinstance(value, float) and not math.isfinite(value) else repr(float(value))
    return str(value)


def html_table(table: TextTable, table_id: str, *, problem_bench: str | None = None) -> HtmlTable:
    """A text table as an HTML table: formatted cells with raw sort keys; change categories as cell colours."""
    headers = [(c.title, "desc" if c.kind in _FIRST_DESC else "asc", c.kind != "text") for c in table.columns]
    rows = []
    for row in table.rows:
        cells = []
        for c in table.columns:
            value = row.get(c.key)
            category = row.get(c.colour) if c.colour else (value if c.key == "category" else None)
            colour = f"#{CATEGORY_COLOURS[category]}" if category in CATEGORY_COLOURS else None
            problem = f"{problem_bench}|{value}" if problem_bench and c.key == "problem" else None
            cells.append(Cell(format_cell(c.kind, value, row, c.key), _sort_key(c, value), colour, "num" if c.kind != "text" else "", problem))
        rows.append(cells)
    return HtmlTable(table_id, table.title, headers, rows, list(table.notes))


def heat_level(rate: float | None) -> str:
    """The CSS class of a heat-map cell."""
    return "hn" if rate is None else f"h{round(rate * HEAT_LEVELS)}"


def heat_table(matrix: SolveMatrix, table_id: str) -> HtmlTable:
    """The solve matrix as a heat-map table: a row per problem (unsolved first), a coloured cell per model."""
    bench = matrix.suite.split(":")[0]
    headers = [("Problem", "asc", False), ("Mean", "desc", True)] + [(m, "desc", True) for m in matrix.models]
    rows = []
    unsolved = set(matrix.unsolved)
    for j, problem in enumerate(matrix.problems):
        values = [matrix.rates[i][j] for i in range(len(matrix.models))]
        known = [v for v in values if v is not None]
        mean = sum(known) / len(known) if known else None
        cells = [Cell(problem, css="unsolved" if problem in unsolved else "", problem=f"{bench}|{problem}"),
                 Cell(format_cell("rate", mean), _sort_key(Column("m", "m", "rate"), mean), css=f"num {heat_level(mean)}")]
        cells += [Cell(format_cell("rate", v), _sort_key(Column("m", "m", "rate"), v), css=f"num hc {heat_level(v)}") for v in values]  # hc: opens its row's problem
        rows.append(cells)
    notes = list(matrix.tables()[0].notes)
    return HtmlTable(table_id, f"Solve rates per problem: {matrix.suite}", headers, rows, notes, css="heat")


def heat_css() -> str:
    """CSS classes h0..h20 (and hn: no sample) with the heat map's colours."""
    from assay.report.plots import rate_colour

    lines = [f".h{i}{{background:{rate_colour(i / HEAT_LEVELS)}{';color:#fff' if i / HEAT_LEVELS > 0.85 else ''}}}" for i in range(HEAT_LEVELS + 1)]
    return "\n".join([*lines, f".hn{{background:{rate_colour(None)};color:#999}}"])


def heat_palette() -> list[str]:
    """The heat map's colours by level, for the overview canvas."""
    from assay.report.plots import rate_colour

    return [rate_colour(i / HEAT_LEVELS) for i in range(HEAT_LEVELS + 1)] + [rate_colour(None)]


def _cap(text: str | None, limit: int = TEXT_CAP) -> str:
    text = text or ""
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters not shown)"


def problem_data(runs: Sequence[Run], include_samples: bool = True) -> dict[str, Any]:
    """Per benchmark and problem: the prompt (when the benchmark is loadable) and each run's samples with their verdicts."""
    out: dict[str, Any] = {"runs": [{"model": r.display_name, "dir": str(r.run_dir)} for r in runs], "benchmarks": {}}
    for bench_name in dict.fromkeys(r.benchmark.name for r in runs):
        chosen = [(i, r) for i, r in enumerate(runs) if r.benchmark.name == bench_name]
        chosen.sort(key=lambda p: -_headline(p[1]))  # best first, as in the solve matrix
        bench = None
        for _, r in chosen:
            bench = local_benchmark(r.benchmark, (r.config.get("benchmark") or {}).get("source"))
            if bench is not None:
                break
        problems: dict[str, dict[str, Any]] = {}
        for i, run in chosen:
            languages = {s.task_id: s.language for s in run.samples}
            for task_id in run.problem_ids:
                entry = problems.setdefault(task_id, {"lang": languages.get(task_id, ""), "prompt": None, "codes": [], "samples": []})
                problem = bench.problems.get(task_id) if bench is not None else None
                if problem is not None:
                    entry["prompt"] = problem.prompt
            if include_samples:
                _add_samples(problems, i, run)
        note = None
        if bench is None:
            note = f"the prompts are unavailable: {bench_name} was not found here as the runs recorded it (the file they name is absent or changed)"
        out["benchmarks"][bench_name] = {"runs": [i for i, _ in chosen], "prompt_note": note,
                                          "problems": {t: problems[t] for t in natural_sorted(problems)}}
    return out


def _headline(run: Run) -> float:
    """The run's pass@1 on its headline suite (-1 when undefined), to list models best first."""
    value = run.score(run.headline_suite, 1).value
    return value if math.isfinite(value) else -1.0


def _add_samples(problems: dict[str, dict[str, Any]], run_index: int, run: Run) -> None:
    """Append one run's samples (code once per distinct text, status, message, tests, output) to the problems' entries."""
    from assay.report.swe import is_swe_run, problem_entries

    if is_swe_run(run.run_dir):
        problem_entries(run, run_index, problems)
        return
    try:
        store = RunStore(run.run_dir)
        try:
            results = list(store.results())
        finally:
            store.close()
    except sqlite3.Error as exc:
        raise ReportError(f"{run.run_dir}/run.sqlite cannot be read ({exc}); render without samples or fix the run directory") from None
    for sample, verdict in results:
        task_id, idx, completion, solution = sample.task_id, sample.index, sample.completion, sample.solution
        entry = problems.get(task_id)
        if entry is None:
            continue  # a problem with no scored sample (all skipped or unjudged)
        code = _cap(solution if solution else completion, CODE_CAP)
        codes: list[str] = entry["codes"]
        try:
            code_index = codes.index(code)  # a problem has few distinct samples: a scan is cheap
        except ValueError:
            codes.append(code)
            code_index = len(codes) - 1
        if verdict is None:
            entry["samples"].append([run_index, idx, "unjudged", code_index, "", [], None, "", ""])
            continue
        tests = [[t.name, t.status.value, _cap(t.message)] for t in verdict.tests]
        duration = round(verdict.duration_s, 3) if verdict.duration_s else None
        entry["samples"].append([run_index, idx, verdict.status.value, code_index, _cap(verdict.message), tests, duration,
                                 _cap(verdict.stdout), _cap(verdict.stderr)])


def script_json(data: Any) -> Markup:
    """Data as JSON safe inside a `<script>` element: `<`, `>` and `&` written as \\u escapes, so no `</script>` can occur."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


def _sections(report: Report, warnings: list[str]) -> list[Section]:
    """The page's sections in reading order."""
    from assay.report import plots

    out: list[Section] = []
    for i, board in enumerate(report.leaderboards):
        (table,) = board.tables()
        out.append(Section(f"leaderboard-{i}", table.title, [html_table(table, f"t-leaderboard-{i}")], kind="leaderboard"))
    for i, comparison in enumerate(report.comparisons):
        out.append(_comparison_section(comparison, i))
    for i, scatter in enumerate(report.scatters):
        (table,) = scatter.tables()
        svg = _plot(lambda s=scatter, n=i: plots.scatter_svg(s, f"plot-scatter-{n}"), warnings)
        section = Section(f"size-{i}", table.title, svg=svg, lead=list(table.notes), kind="scatter")
        section.tables = [html_table(TextTable("Models, sizes and scores", table.columns, table.rows), f"t-size-{i}")]
        out.append(section)
    anatomy = report.anatomy
    if anatomy is not None and anatomy.rows:
        (table,) = anatomy.tables()
        svg = _plot(lambda: plots.anatomy_svg(anatomy, "plot-anatomy"), warnings)
        out.append(Section("failures", "Failure anatomy", [html_table(table, "t-failures")], svg=svg, kind="anatomy"))
    for i, matrix in enumerate(report.matrices):
        heat = {"models": matrix.models, "problems": matrix.problems, "bench": matrix.suite.split(":")[0],
                "rates": [[None if v is None else round(v, 4) for v in row] for row in matrix.rates], "unsolved": len(matrix.unsolved)}
        heat_tab = heat_table(matrix, f"t-matrix-{i}")
        out.append(Section(f"matrix-{i}", f"Solve rates per problem: {matrix.suite}", [heat_tab], heat=heat, lead=heat_tab.notes, kind="matrix"))
        heat_tab.notes = []
    for i, audit in enumerate(report.audits):
        counts, findings = audit.tables()
        out.append(Section(f"audit-{i}", f"Audit of {audit.data['benchmark']}", [html_table(counts, f"t-audit-{i}"), html_table(findings, f"t-findings-{i}")],
                           kind="audit"))
    if report.provenance is not None:
        (table,) = report.provenance.tables()
        details = [(f"{r.display_name}: recorded configuration ({r.run_dir})", json.dumps(r.config, indent=2, sort_keys=True, default=str))
                   for r in report.provenance.runs]
        out.append(Section("provenance", "Provenance", [html_table(table, "t-provenance")], details=details, kind="provenance"))
    return out


def _comparison_section(comparison: BenchmarkComparison, i: int) -> Section:
    """Table I: the two suites side by side, change cells coloured, the thresholds stated in the legend."""
    (table,) = comparison.tables()
    t = comparison.thresholds
    s, m, c = (f"{v:g}" for v in (t.same, t.major, t.critical))
    rules = {"same": f"|Δ| < {s}", "minor gain": f"{s} ≤ Δ < {m}", "major gain": f"Δ ≥ {m}",
             "minor drop": f"−{m} < Δ ≤ −{s}", "major drop": f"−{c} < Δ ≤ −{m}", "critical drop": f"Δ ≤ −{c}"}
    legend = [(f"#{CATEGORY_COLOURS[k]}", f"{k}: {rules[k]} points") for k in CATEGORIES]
    return Section(f"comparison-{i}", table.title, [html_table(table, f"t-comparison-{i}")], legend=legend, kind="comparison")


def _plot(draw: Any, warnings: list[str]) -> Markup | None:
    """A figure's SVG, or None with a visible warning when it cannot be drawn here."""
    try:
        return Markup(draw())
    except ReportError as exc:
        if str(exc) not in warnings:
            warnings.append(str(exc))
        return None


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return env


def render_html(report: Report, *, include_samples: bool = True, assay_commit: str | None = None) -> str:
    """The report as one self-contained HTML page (no external URLs); include_samples embeds every sample's code and verdict for the problem panels."""
    from assay.provenance import git_commit

    warnings: list[str] = []
    sections = _sections(report, warnings)
    data = problem_data(report.runs, include_samples) if report.matrices else {"runs": [], "benchmarks": {}}  # problems open from the solve matrices
    if not include_samples:
        warnings.append("samples not included in this report: problem panels show prompts only")
    provenance = report.provenance
    made_by = {
        "version": provenance.assay_version if provenance else "",
        "commit": assay_commit if assay_commit is not None else (git_commit() or ""),
        "generated_at": (provenance.generated_at or "") if provenance else "",
    }
    benchmarks = sorted({(r.benchmark.name, r.benchmark.version, r.benchmark.content_hash[:12]) for r in report.runs})
    total = sum(len(r.samples) for r in report.runs)
    return _environment().get_template("report.html.j2").render(
        title="Assay report: " + ", ".join(dict.fromkeys(b for b, _, _ in benchmarks)),
        report=report, sections=sections, notes=report.notes, warnings=warnings, made_by=made_by, benchmarks=benchmarks,
        n_samples=total, data=script_json(data), heat_css=Markup(heat_css()), palette=script_json(heat_palette()),
        include_samples=include_samples,
    )
