"""Reports over run directories: leaderboards, benchmark-vs-benchmark tables, size scatters, failure anatomy, run comparisons.

The entry points take paths and options and return typed records; `render_report` and
`render_comparison` turn those into Markdown, CSV, JSON or LaTeX text. Bad input raises
`ReportError` with a one-line message; anything that makes a table less comparable is a visible note.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from assay.report.models_meta import ModelsMeta, apply_models_meta, load_models_meta
from assay.report.render import CATEGORIES, CATEGORY_COLOURS, FORMATS, Column, HasTables, TextTable, render_sections
from assay.report.runs import ReportError, Run, find_run_dirs, load_run, load_runs, suites_of
from assay.report.tables import (
    CHANGE_THRESHOLDS,
    BenchmarkComparison,
    ChangeThresholds,
    FailureAnatomy,
    Leaderboard,
    ProblemDiff,
    Provenance,
    RunComparison,
    SizeScatter,
    SolveMatrix,
    compare_benchmarks,
    compare_runs,
    failure_anatomy,
    leaderboard,
    size_scatter,
    solve_matrix,
)

__all__ = [
    "CATEGORIES", "CATEGORY_COLOURS", "CHANGE_THRESHOLDS", "FORMATS", "SECTIONS", "AuditSection", "BenchmarkComparison", "ChangeThresholds", "FailureAnatomy",
    "Leaderboard", "ModelsMeta", "ProblemDiff", "Provenance", "Report", "ReportError", "Run", "RunComparison", "SizeScatter", "SolveMatrix", "TextTable",
    "build_report", "compare_run_dirs", "default_pairs", "find_run_dirs", "load_models_meta", "load_run", "load_runs", "render_comparison",
    "render_report", "render_sections", "resolve_suite",
]

Section = Literal["leaderboard", "comparison", "size", "failures", "solve_matrix"]
SECTIONS: tuple[Section, ...] = ("leaderboard", "comparison", "size", "failures", "solve_matrix")


@dataclass
class _Notes:
    """Report-wide notes as a section of their own (shown first)."""

    notes: list[str]

    def tables(self) -> list[TextTable]:
        return [TextTable("Notes", [], [], self.notes)] if self.notes else []

    def to_json(self) -> dict[str, Any]:
        return {"kind": "notes", "notes": self.notes}


@dataclass
class AuditSection:
    """A benchmark audit (`assay audit --format json`) as a section of the report: counts per check, then every finding."""

    data: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> AuditSection:
        """An audit's JSON file; ReportError with one line when it is not one."""
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ReportError(f"--audit {path}: cannot be read as JSON ({exc}); write it with `assay audit BENCH --format json --out FILE`") from None
        if not isinstance(data, dict) or not {"benchmark", "counts", "findings"} <= set(data):
            raise ReportError(f"--audit {path}: not an audit (no benchmark, counts and findings); write it with `assay audit BENCH --format json`")
        return cls(data)

    def tables(self) -> list[TextTable]:
        from assay.audit.checks import CHECKS

        name, n = self.data["benchmark"], self.data.get("n_problems", "?")
        counts = [{"check": c, "findings": k, "about": CHECKS.get(c, "")} for c, k in self.data["counts"].items()]
        counts += [{"check": c, "findings": "not run", "about": why} for c, why in self.data.get("checks_not_run", {}).items()]
        columns = [Column("check", "check"), Column("findings", "findings"), Column("about", "what it looks for")]
        findings = [{k: f.get(k, "") for k in ("problem", "check", "evidence", "fix")} for f in self.data["findings"]]
        finding_columns = [Column("problem", "problem"), Column("check", "check"), Column("evidence", "evidence"), Column("fix", "suggested fix")]
        return [TextTable(f"Audit of {name} ({n} problems): findings per check", columns, counts),
                TextTable(f"Audit of {name}: {len(findings)} findings", finding_columns, findings)]

    def to_json(self) -> dict[str, Any]:
        return {"kind": "audit", **self.data}


@dataclass
class Report:
    """Everything one report shows, as typed records; `sections()` lists them in reading order."""

    runs: list[Run]
    suites: list[str]
    ks: list[int]
    leaderboards: list[Leaderboard] = field(default_factory=list)
    comparisons: list[BenchmarkComparison] = field(default_factory=list)
    scatters: list[SizeScatter] = field(default_factory=list)
    anatomy: FailureAnatomy | None = None
    matrices: list[SolveMatrix] = field(default_factory=list)
    provenance: Provenance | None = None
    notes: list[str] = field(default_factory=list)
    audits: list[AuditSection] = field(default_factory=list)

    def sections(self) -> list[HasTables]:
        """Notes, leaderboards, comparisons, size scatters, failure anatomy, solve matrices, audits, provenance."""
        out: list[HasTables] = [_Notes(self.notes)] if self.notes else []
        out += [*self.leaderboards, *self.comparisons, *self.scatters]
        out += [self.anatomy] if self.anatomy else []
        out += [*self.matrices]
        out += [*self.audits]
        out += [self.provenance] if self.provenance else []
        return out


def resolve_suite(runs: Sequence[Run], name: str) -> str:
    """A suite key from a user's benchmark name (`humaneval-plus`, `humaneval-plus:base`); ReportError listing the known ones."""
    known = suites_of(runs)
    if name in known:
        return name
    raise ReportError(f"no run scored {name!r}; the runs have: {', '.join(known) or 'nothing'} (`<benchmark>:base` is the base tests of an EvalPlus benchmark)")


def default_pairs(suites: Sequence[str]) -> list[tuple[str, str]]:
    """Benchmark pairs to compare when none are asked for: the first benchmark against each other; one EvalPlus benchmark: base vs base + plus."""
    headlines = [s for s in suites if ":" not in s]
    if len(headlines) >= 2:
        return [(headlines[0], other) for other in headlines[1:]]
    if len(headlines) == 1 and f"{headlines[0]}:base" in suites:
        return [(f"{headlines[0]}:base", headlines[0])]
    return []


def build_report(
    run_dirs: Sequence[Path | str],
    *,
    suites: Sequence[str] | None = None,
    ks: Sequence[int] = (1,),
    models_meta: Path | str | ModelsMeta | None = None,
    labels: Mapping[str, str] | None = None,
    allow_unfinished: bool = False,
    allow_partial: bool = False,
    pairs: Sequence[tuple[str, str]] | None = None,
    sections: Sequence[Section] = SECTIONS,
    thresholds: ChangeThresholds = CHANGE_THRESHOLDS,
    rank_by: Literal["ci", "score"] = "ci",
    sort_by: Literal["score", "model", "size"] = "score",
    log_size: bool = False,
    generated_at: str | None = None,
) -> Report:
    """Load runs and build the report's tables; suites default to every suite the runs have, pairs to `default_pairs`."""
    if not ks or min(ks) < 1:
        raise ReportError(f"k must be positive integers, got {list(ks)}")
    runs = load_runs(run_dirs, labels=labels, allow_unfinished=allow_unfinished)
    meta = load_models_meta(models_meta) if isinstance(models_meta, (str, Path)) else models_meta
    notes = apply_models_meta(runs, meta)
    chosen = [resolve_suite(runs, s) for s in suites] if suites else suites_of(runs)
    report = Report(runs, chosen, list(ks), notes=notes)
    if "leaderboard" in sections:
        report.leaderboards = [leaderboard(runs, s, k, sort_by=sort_by, allow_partial=allow_partial) for s in chosen for k in ks]
    if "comparison" in sections:
        for a, b in pairs if pairs is not None else default_pairs(chosen):
            a, b = resolve_suite(runs, a), resolve_suite(runs, b)
            report.comparisons += [compare_benchmarks(runs, a, b, k, thresholds=thresholds, rank_by=rank_by) for k in ks]
    if "size" in sections and meta is not None:
        report.scatters = [size_scatter(runs, s, k, log_size=log_size) for s in chosen for k in ks]
    if "failures" in sections:
        report.anatomy = failure_anatomy(runs)
    if "solve_matrix" in sections:
        report.matrices = [solve_matrix(runs, s) for s in chosen]
    report.provenance = Provenance(runs, generated_at=generated_at or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    return report


def render_report(report: Report, fmt: str = "md", *, colour: bool = False) -> str:
    """The report as md, csv, json or latex text (colour: LaTeX change categories as \\cellcolor)."""
    return render_sections(report.sections(), fmt, colour=colour)


def compare_run_dirs(
    a: Path | str,
    b: Path | str,
    *,
    suite: str | None = None,
    k: int = 1,
    labels: Mapping[str, str] | None = None,
    allow_unfinished: bool = False,
    common_only: bool = False,
    models_meta: Path | str | ModelsMeta | None = None,
    seed: int = 0,
) -> tuple[RunComparison, Provenance]:
    """`assay compare`: two runs of one benchmark, paired; returns the comparison and the provenance of both runs."""
    runs = load_runs([a, b], labels=labels, allow_unfinished=allow_unfinished)
    if len(runs) < 2:
        raise ReportError(f"both arguments are the run {a}; compare two different runs")
    meta = load_models_meta(models_meta) if isinstance(models_meta, (str, Path)) else models_meta
    apply_models_meta(runs, meta)  # the same model twice gets the run directories' names (runs.disambiguate)
    comparison = compare_runs(runs[0], runs[1], suite, k, common_only=common_only, seed=seed)
    return comparison, Provenance(runs, generated_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))


def render_comparison(comparison: RunComparison, provenance: Provenance | None = None, fmt: str = "md") -> str:
    """`assay compare`'s output as md, csv, json or latex text."""
    sections: list[HasTables] = [comparison] + ([provenance] if provenance else [])
    return render_sections(sections, fmt)
