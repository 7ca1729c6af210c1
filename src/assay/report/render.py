"""Text tables and their renderers: Markdown, CSV, JSON and LaTeX (booktabs).

A `TextTable` holds raw values (scores in [0, 1]); each format decides how to write them: Markdown
and LaTeX show scores as percentages, differences as signed points and tied ranks as "=3"; CSV and
JSON keep the raw numbers.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from assay.report.runs import ReportError

CATEGORIES = ("same", "minor gain", "major gain", "minor drop", "major drop", "critical drop")
# Cell colours (hex RGB) by category, for LaTeX \cellcolor and the HTML layer.
CATEGORY_COLOURS = {
    "same": "E7E6E6", "minor gain": "C6EFCE", "major gain": "8FD19E",
    "minor drop": "FFF2CC", "major drop": "F8CBAD", "critical drop": "F4A6A6",
}


Kind = Literal["text", "int", "score", "ci", "points", "share", "rank", "p", "float", "rate"]


@dataclass(frozen=True)
class Column:
    """One column: the row key it shows, its title, how to format it, and (optionally) the row key of its colour category."""

    key: str
    title: str
    kind: Kind = "text"
    colour: str | None = None


@dataclass
class TextTable:
    """A titled table of plain rows (raw values) with notes; formats decide how values are written."""

    title: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Title, column keys and titles, raw rows and notes."""
        return {"title": self.title, "columns": [{"key": c.key, "title": c.title} for c in self.columns], "rows": _clean(self.rows), "notes": self.notes}


class HasTables(Protocol):
    """Anything a report section can be: it turns into text tables and into JSON."""

    def tables(self) -> list[TextTable]:
        """The section as text tables."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The section as JSON-ready data."""
        ...


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return None if not math.isfinite(value) else value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def format_cell(kind: Kind, value: Any, row: dict[str, Any] | None = None, key: str = "") -> str:
    """A value as table text: scores as percentages, differences as signed points, tied ranks as "=3"."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–" if kind != "text" else ""
    if kind == "score":
        return f"{100 * value:.1f}"
    if kind == "ci":
        lo, hi = value
        return "–" if not (math.isfinite(lo) and math.isfinite(hi)) else f"[{100 * lo:.1f}, {100 * hi:.1f}]"
    if kind == "points":
        return f"{value:+.1f}"
    if kind in ("share", "rate"):
        return f"{100 * value:.0f}%" if kind == "share" else f"{value:.2f}"
    if kind == "rank":
        return ("=" if row is not None and row.get(f"{key}_tied") else "") + str(value)
    if kind == "p":
        return "<0.0001" if value < 1e-4 else f"{value:.4f}"
    if kind == "float":
        return f"{value:.3g}"
    return str(value)


def _cells(table: TextTable) -> list[list[str]]:
    return [[format_cell(c.kind, row.get(c.key), row, c.key) for c in table.columns] for row in table.rows]


def render_markdown(tables: Sequence[TextTable]) -> str:
    """GitHub-flavoured Markdown: a heading, a table and its notes per table."""
    out: list[str] = []
    for t in tables:
        out += [f"### {t.title}", ""]
        if t.columns and t.rows:
            out.append("| " + " | ".join(c.title for c in t.columns) + " |")
            out.append("|" + "|".join("---" if c.kind == "text" else "---:" for c in t.columns) + "|")
            out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in _cells(t)]
            out.append("")
        out += [f"- {note}" for note in t.notes]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _csv_fields(column: Column, row: dict[str, Any]) -> list[tuple[str, Any]]:
    value = row.get(column.key)
    if column.kind == "ci":
        lo, hi = value if value is not None else (None, None)
        return [(f"{column.key}_low", lo), (f"{column.key}_high", hi)]
    if column.kind == "rank":
        return [(column.key, value), (f"{column.key}_tied", row.get(f"{column.key}_tied", False))]
    return [(column.key, value)]


def render_csv(tables: Sequence[TextTable]) -> str:
    """CSV with raw values (scores in [0, 1]); each table's title and notes precede it as `#` lines."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for i, t in enumerate(tables):
        if i:
            buffer.write("\n")
        if len(tables) > 1:
            buffer.write(f"# {t.title}\n")
        for note in t.notes:
            buffer.write(f"# note: {note}\n")
        if not t.columns:
            continue  # a notes-only table
        header = [name for c in t.columns for name, _ in _csv_fields(c, {})]
        writer.writerow(header)
        for row in t.rows:
            values = [v for c in t.columns for _, v in _csv_fields(c, row)]
            writer.writerow(["" if v is None or (isinstance(v, float) and not math.isfinite(v)) else (round(v, 6) if isinstance(v, float) else v) for v in values])
    return buffer.getvalue()


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "–": "--", "Δ": r"$\Delta$", "ρ": r"$\rho$", "²": r"\textsuperscript{2}",
}


def latex_escape(text: str) -> str:
    """Text safe inside a LaTeX table cell (plain pdflatex: the few non-ASCII characters reports use are spelled out)."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def render_latex(tables: Sequence[TextTable], colour: bool = False) -> str:
    """booktabs tables; with colour, change categories colour their cells (needs \\usepackage[table]{xcolor})."""
    out = ["% needs \\usepackage{booktabs}" + (" and \\usepackage[table]{xcolor}" if colour else "")]
    for t in tables:
        if not t.columns:  # a notes-only table: a paragraph
            out += [f"\\paragraph{{{latex_escape(t.title)}}} " + " \\\\ ".join(latex_escape(n) for n in t.notes), ""]
            continue
        align = "".join("l" if c.kind == "text" else "r" for c in t.columns)
        out += ["\\begin{table}[ht]", "\\centering", f"\\caption{{{latex_escape(t.title)}}}", f"\\begin{{tabular}}{{{align}}}", "\\toprule"]
        out.append(" & ".join(latex_escape(c.title) for c in t.columns) + " \\\\")
        out.append("\\midrule")
        for row, cells in zip(t.rows, _cells(t), strict=True):
            shown = []
            for c, cell in zip(t.columns, cells, strict=True):
                text = latex_escape(cell)
                category = row.get(c.colour) if c.colour else None
                if colour and category in CATEGORY_COLOURS:
                    text = f"\\cellcolor[HTML]{{{CATEGORY_COLOURS[category]}}}{text}"
                shown.append(text)
            out.append(" & ".join(shown) + " \\\\")
        out += ["\\bottomrule", "\\end{tabular}"]
        if t.notes:
            out.append("\\par\\smallskip\\footnotesize " + " \\\\ ".join(latex_escape(n) for n in t.notes))
        out += ["\\end{table}", ""]
    return "\n".join(out)


FORMATS = ("md", "csv", "json", "latex")


def render_sections(sections: Sequence[HasTables], fmt: str, *, colour: bool = False) -> str:
    """Render report sections as md (markdown), csv, json or latex (tex)."""
    fmt = {"markdown": "md", "tex": "latex"}.get(fmt.lower(), fmt.lower())
    if fmt == "json":
        return json.dumps({"sections": [_clean(s.to_json()) for s in sections]}, indent=2, allow_nan=False) + "\n"
    tables = [t for s in sections for t in s.tables()]
    if fmt == "md":
        return render_markdown(tables)
    if fmt == "csv":
        return render_csv(tables)
    if fmt == "latex":
        return render_latex(tables, colour)
    raise ReportError(f"unknown report format {fmt!r}; use one of {', '.join(FORMATS)}")
