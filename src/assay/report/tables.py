"""Report tables as typed records: leaderboards, benchmark-vs-benchmark (SwiftEval Table I), failure anatomy,
solve rates, score against size, two-run comparisons and provenance.

Each builder returns a record the HTML and plot layers read; its `tables()` gives `TextTable`s that
`assay.report.render.render_sections` writes as Markdown, CSV, JSON or LaTeX, and its `to_json()` the JSON form.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from assay import __version__
from assay.metrics import FAILURE_KINDS, PassAtK, per_problem_pass_at_k, score_pass_at_k
from assay.report.render import Column, TextTable
from assay.report.runs import ReportError, Run, comparability_notes, natural_key, natural_sorted, runs_for_suite, settings_differences
from assay.report.stats import (
    Correlation,
    McNemarResult,
    OLSFit,
    PairedDifference,
    correlation,
    interval_ranks,
    mcnemar_exact,
    ols,
    paired_bootstrap,
    score_ranks,
    solved,
    tied,
)

# ---------------------------------------------------------------- change categories (SwiftEval Table I)


@dataclass(frozen=True)
class ChangeThresholds:
    """Bands, in percentage points of pass@k, that name a score change between two benchmarks.

    SwiftEval's Table I colours six kinds of change (same level, minor gain, major gain, minor drop,
    major drop, critical drop) but states no numbers, so these are ours: |d| < same is "same";
    a gain is minor below `major`, else major; a drop is minor below `major`, major below `critical`,
    else critical. d = score on the second benchmark - score on the first.
    """

    same: float = 1.0
    major: float = 5.0
    critical: float = 15.0

    def describe(self) -> str:
        """The rule in one line, for a table's notes."""
        s, m, c = (f"{v:g}" for v in (self.same, self.major, self.critical))
        return (
            f"change d (points): same |d| < {s}; minor gain {s} <= d < {m}; major gain d >= {m}; "
            f"minor drop -{m} < d <= -{s}; major drop -{c} < d <= -{m}; critical drop d <= -{c}"
        )


CHANGE_THRESHOLDS = ChangeThresholds()


def change_category(delta_points: float, thresholds: ChangeThresholds = CHANGE_THRESHOLDS) -> str | None:
    """The category of a score change in percentage points (None when the change is unknown)."""
    if not math.isfinite(delta_points):
        return None
    d = delta_points
    if abs(d) < thresholds.same:
        return "same"
    if d > 0:
        return "major gain" if d >= thresholds.major else "minor gain"
    if d > -thresholds.major:
        return "minor drop"
    return "major drop" if d > -thresholds.critical else "critical drop"


# ---------------------------------------------------------------- leaderboard


@dataclass
class LeaderboardEntry:
    """One model on one suite: its score and rank (equal ranks are ties the intervals cannot separate)."""

    run: Run
    score: PassAtK
    rank: int | None
    tied: bool


@dataclass
class Leaderboard:
    """Models on one suite at one k, ranked by the interval rule of `assay.report.stats`."""

    suite: str
    k: int
    entries: list[LeaderboardEntry]
    notes: list[str] = field(default_factory=list)

    def tables(self) -> list[TextTable]:
        """The leaderboard as one text table."""
        sizes = any(e.run.size_b is not None or e.run.family for e in self.entries)
        cols = [Column("rank", "Rank", "rank"), Column("model", "Model")]
        if sizes:
            cols += [Column("family", "Family"), Column("size_b", "Size (B)", "float")]
        conf = round(100 * self.entries[0].score.confidence) if self.entries else 95
        cols += [
            Column("score", f"pass@{self.k} (%)", "score"), Column("ci", f"{conf}% CI", "ci"), Column("n_problems", "Problems", "int"),
            Column("samples", "Samples/problem"), Column("settings", "Settings"),
        ]
        rows = []
        for e in self.entries:
            lo, hi = e.run.samples_per_problem(self.suite)
            rows.append({
                "rank": e.rank, "rank_tied": e.tied,
                "model": e.run.display_name + (f" (partial: {e.run.n_covered}/{e.run.benchmark.n_problems})" if e.run.partial else ""), "family": e.run.family, "size_b": e.run.size_b,
                "score": e.score.value, "ci": (e.score.ci_low, e.score.ci_high), "n_problems": e.score.n_problems,
                "samples": str(lo) if lo == hi else f"{lo}-{hi}", "settings": e.run.settings_summary(), "run": str(e.run.run_dir),
            })
        return [TextTable(f"Leaderboard: {self.suite}, pass@{self.k}", cols, rows, self.notes)]

    def to_json(self) -> dict[str, Any]:
        """The leaderboard with full scores."""
        return {
            "kind": "leaderboard", "suite": self.suite, "k": self.k, "notes": self.notes,
            "entries": [{"model": e.run.display_name, "run": str(e.run.run_dir), "rank": e.rank, "tied": e.tied, "score": asdict(e.score),
                         "partial": e.run.partial, "n_problems_covered": e.run.n_covered,
                         "size_b": e.run.size_b, "family": e.run.family, "settings": e.run.settings()} for e in self.entries],
        }


RANK_RULE = "rank = 1 + number of models whose interval lies wholly above; =n marks a tie the intervals cannot separate"


def ranked(runs: Sequence[Run], suite: str, k: int, confidence: float = 0.95, rank_by: Literal["ci", "score"] = "ci") -> list[LeaderboardEntry]:
    """Every run's score on a suite with its rank (by intervals, or by point scores as SwiftEval's Table I)."""
    scores = [r.score(suite, k, confidence) for r in runs]
    ranks = interval_ranks([(s.ci_low, s.ci_high) for s in scores]) if rank_by == "ci" else score_ranks([s.value for s in scores])
    return [LeaderboardEntry(r, s, rank, t) for r, s, rank, t in zip(runs, scores, ranks, tied(ranks), strict=True)]


def leaderboard(
    runs: Sequence[Run], suite: str, k: int = 1, *, confidence: float = 0.95, sort_by: Literal["score", "model", "size"] = "score",
    allow_partial: bool = False,
) -> Leaderboard:
    """The leaderboard of the runs that have a suite, with notes on anything that makes rows not comparable.
    Partial runs (samples of only some problems) are listed, marked, but not ranked against full runs
    unless allow_partial."""
    chosen = runs_for_suite(runs, suite)
    full = [r for r in chosen if not r.partial]
    unranked = [r for r in chosen if r.partial] if full and not allow_partial else []
    entries = ranked([r for r in chosen if r not in unranked], suite, k, confidence)
    entries += [LeaderboardEntry(r, r.score(suite, k, confidence), None, False) for r in unranked]
    if sort_by == "model":
        entries.sort(key=lambda e: natural_key(e.run.display_name))
    elif sort_by == "size":
        entries.sort(key=lambda e: (e.run.size_b is None, -(e.run.size_b or 0), natural_key(e.run.display_name)))
    else:
        entries.sort(key=lambda e: (e.rank is None, -(e.score.value if math.isfinite(e.score.value) else -1), natural_key(e.run.display_name)))
    notes = [RANK_RULE, *comparability_notes(chosen, suite)]
    for r in chosen:
        if r.partial:
            ranking = "not ranked against full runs (allow partial runs to rank it)" if r in unranked else "ranked as asked"
            notes.append(f"{r.display_name}: partial run, {r.n_covered} of {r.benchmark.n_problems} problems; {ranking}")
    for e in entries:
        if e.score.n_problems == 0:
            notes.append(f"{e.run.display_name}: pass@{k} needs {k} samples per problem; this run has {e.run.samples_per_problem(suite)[1]}")
        elif e.score.excluded:
            notes.append(f"{e.run.display_name}: {len(e.score.excluded)} problems have fewer than {k} samples and are left out of pass@{k}")
    return Leaderboard(suite, k, entries, notes)


# ---------------------------------------------------------------- benchmark vs benchmark (SwiftEval Table I)


@dataclass
class ComparisonRow:
    """One model on two suites: score, interval and rank on each, and the changes."""

    model: str
    size_b: float | None
    family: str | None
    a: LeaderboardEntry | None
    b: LeaderboardEntry | None

    @property
    def delta(self) -> float:
        """Score on b minus score on a, in percentage points (nan if either is missing)."""
        if self.a is None or self.b is None:
            return math.nan
        return 100 * (self.b.score.value - self.a.score.value)

    @property
    def delta_rank(self) -> int | None:
        """Rank on a minus rank on b: positive when the model moves up on b (as in SwiftEval's Table I)."""
        if self.a is None or self.b is None or self.a.rank is None or self.b.rank is None:
            return None
        return self.a.rank - self.b.rank


@dataclass
class BenchmarkComparison:
    """Two suites side by side for the models run on both, in the style of SwiftEval's Table I."""

    suite_a: str
    suite_b: str
    k: int
    rows: list[ComparisonRow]
    thresholds: ChangeThresholds = CHANGE_THRESHOLDS
    rank_by: Literal["ci", "score"] = "ci"
    notes: list[str] = field(default_factory=list)

    def category(self, row: ComparisonRow) -> str | None:
        """The row's change category under this table's thresholds."""
        return change_category(row.delta, self.thresholds)

    def tables(self) -> list[TextTable]:
        """The comparison as one text table; the delta columns carry the change category as their colour."""
        cols = [Column("model", "Model")] + ([Column("size_b", "Size (B)", "float")] if any(r.size_b is not None for r in self.rows) else [])
        for side, suite in (("a", self.suite_a), ("b", self.suite_b)):
            cols += [Column(f"score_{side}", f"{suite} (%)", "score"), Column(f"ci_{side}", "95% CI", "ci"), Column(f"rank_{side}", "Rank", "rank")]
        cols += [Column("delta", "Δ score", "points", colour="category"), Column("delta_rank", "Δ rank", "int", colour="category"), Column("category", "Change")]
        rows = []
        for r in self.rows:
            row: dict[str, Any] = {"model": r.model, "size_b": r.size_b, "family": r.family}
            for side, e in (("a", r.a), ("b", r.b)):
                row[f"score_{side}"] = e.score.value if e else None
                row[f"ci_{side}"] = (e.score.ci_low, e.score.ci_high) if e else None
                row[f"rank_{side}"] = e.rank if e else None
                row[f"rank_{side}_tied"] = e.tied if e else False
            row.update(delta=r.delta, delta_rank=r.delta_rank, category=self.category(r))
            rows.append(row)
        title = f"{self.suite_a} vs {self.suite_b}, pass@{self.k}"
        return [TextTable(title, cols, rows, self.notes)]

    def to_json(self) -> dict[str, Any]:
        """The comparison with its thresholds and rank rule."""
        return {"kind": "benchmark_comparison", "suite_a": self.suite_a, "suite_b": self.suite_b, "k": self.k, "rank_by": self.rank_by,
                "thresholds": asdict(self.thresholds), "rows": self.tables()[0].rows, "notes": self.notes}


def compare_benchmarks(
    runs: Sequence[Run],
    suite_a: str,
    suite_b: str,
    k: int = 1,
    *,
    thresholds: ChangeThresholds = CHANGE_THRESHOLDS,
    rank_by: Literal["ci", "score"] = "ci",
    confidence: float = 0.95,
    sort_by: Literal["a", "b", "delta", "family"] = "b",
) -> BenchmarkComparison:
    """Table I for two suites: models matched by display name; a model on one suite only is listed and noted."""
    if suite_a == suite_b:
        raise ReportError(f"compare two different benchmarks, not {suite_a} with itself")
    side: dict[str, dict[str, LeaderboardEntry]] = {}
    for suite in (suite_a, suite_b):
        side[suite] = {e.run.display_name: e for e in ranked(runs_for_suite(runs, suite), suite, k, confidence, rank_by)}
    names = list(dict.fromkeys([*side[suite_a], *side[suite_b]]))
    rows = []
    for name in names:
        a, b = side[suite_a].get(name), side[suite_b].get(name)
        run = (a or b).run  # type: ignore[union-attr]
        rows.append(ComparisonRow(name, run.size_b, run.family, a, b))

    def value(e: LeaderboardEntry | None) -> float:
        return e.score.value if e is not None and math.isfinite(e.score.value) else -1.0

    keys: dict[str, Callable[[ComparisonRow], Any]] = {
        "a": lambda r: -value(r.a), "b": lambda r: -value(r.b),
        "delta": lambda r: -r.delta if math.isfinite(r.delta) else math.inf,
        "family": lambda r: (r.family is None, natural_key(r.family or ""), r.size_b is None, r.size_b or 0.0),
    }
    rows.sort(key=lambda r: (keys[sort_by](r), natural_key(r.model)))
    rule = RANK_RULE if rank_by == "ci" else "rank = competition rank of the point score (equal scores share a rank)"
    notes = [f"Δ score = {suite_b} - {suite_a} in points; Δ rank = rank on {suite_a} - rank on {suite_b} (positive: moved up); {rule}",
             thresholds.describe()]
    only = {s: [r.model for r in rows if (r.a if s == suite_a else r.b) is None] for s in (suite_b, suite_a)}
    for missing_on, models in only.items():
        if models:
            notes.append(f"not run on {missing_on} (no change shown): {', '.join(models)}")
    for suite in (suite_a, suite_b):
        notes += [f"{suite}: {n}" for n in comparability_notes(runs_for_suite(runs, suite), suite)]
    return BenchmarkComparison(suite_a, suite_b, k, rows, thresholds, rank_by, notes)


# ---------------------------------------------------------------- failure anatomy and solve rates


@dataclass(frozen=True)
class FailureRow:
    """One model's samples on one benchmark in one language: status counts and each failure kind's share of failures."""

    model: str
    benchmark: str
    language: str
    counts: dict[str, int]

    @property
    def judged(self) -> int:
        """Samples with a verdict that counts (skipped ones left out)."""
        return sum(v for k, v in self.counts.items() if k != "skipped")

    @property
    def failures(self) -> int:
        """Samples that failed in a way the sample is to blame for."""
        return sum(self.counts.get(k, 0) for k in FAILURE_KINDS)

    def shares(self) -> dict[str, float]:
        """Each failure kind's share of the failures (0 when nothing failed)."""
        total = self.failures
        return {k: (self.counts.get(k, 0) / total if total else 0.0) for k in FAILURE_KINDS}


@dataclass
class FailureAnatomy:
    """How samples failed, per model, benchmark and language."""

    rows: list[FailureRow]
    notes: list[str] = field(default_factory=list)

    def tables(self) -> list[TextTable]:
        """One row per model, benchmark and language."""
        titles = {"compile_error": "Compile error", "runtime_error": "Runtime error", "failed": "Failed tests", "timeout": "Timeout", "memory_exceeded": "Memory"}
        cols = [Column("model", "Model"), Column("benchmark", "Benchmark"), Column("language", "Language"), Column("samples", "Samples", "int"),
                Column("passed", "Passed", "share"), Column("failures", "Failures", "int")]
        cols += [Column(k, titles[k], "share") for k in FAILURE_KINDS]
        rows = []
        for r in self.rows:
            rows.append({"model": r.model, "benchmark": r.benchmark, "language": r.language, "samples": r.judged,
                         "passed": r.counts.get("passed", 0) / r.judged if r.judged else None, "failures": r.failures, **r.shares(), "counts": r.counts})
        notes = ["failure kinds are shares of the failed samples (a sandbox error is the harness's fault and counted apart)", *self.notes]
        return [TextTable("Failure anatomy", cols, rows, notes)]

    def to_json(self) -> dict[str, Any]:
        """Rows with counts and shares."""
        return {"kind": "failure_anatomy", **self.tables()[0].to_json()}


def failure_anatomy(runs: Sequence[Run]) -> FailureAnatomy:
    """Status counts per run and language, with shares of compile errors, runtime errors, failed tests and timeouts."""
    rows = []
    notes = []
    for run in runs:
        by_lang: dict[str, dict[str, int]] = {}
        for s in run.samples:
            counts = by_lang.setdefault(s.language, {})
            counts[s.status] = counts.get(s.status, 0) + 1
        for lang in sorted(by_lang):
            rows.append(FailureRow(run.display_name, run.benchmark.name, lang, by_lang[lang]))
            if by_lang[lang].get("sandbox_error"):
                notes.append(f"{run.display_name} ({lang}): {by_lang[lang]['sandbox_error']} sandbox errors, not in the shares")
    return FailureAnatomy(rows, notes)


@dataclass
class SolveMatrix:
    """Per-problem solve rate (share of passing samples) of each model on one suite; unsolved-by-all problems first."""

    suite: str
    models: list[str]
    problems: list[str]
    rates: list[list[float | None]]  # [model][problem]; None: the model has no sample of the problem
    unsolved: list[str]

    def tables(self) -> list[TextTable]:
        """Problems as rows, models as columns."""
        cols = [Column("problem", "Problem"), Column("mean", "Mean", "rate")] + [Column(f"m{i}", m, "rate") for i, m in enumerate(self.models)]
        rows = []
        for j, p in enumerate(self.problems):
            values = [self.rates[i][j] for i in range(len(self.models))]
            known = [v for v in values if v is not None]
            rows.append({"problem": p, "mean": sum(known) / len(known) if known else None, **{f"m{i}": v for i, v in enumerate(values)}})
        notes = [f"solve rate = share of a model's samples that pass; {len(self.unsolved)} of {len(self.problems)} problems solved by no model (listed first)"]
        if self.unsolved:
            notes.append(f"unsolved by all: {', '.join(self.unsolved)}")
        return [TextTable(f"Solve rates per problem: {self.suite}", cols, rows, notes)]

    def to_json(self) -> dict[str, Any]:
        """The matrix as plain lists."""
        return {"kind": "solve_matrix", "suite": self.suite, "models": self.models, "problems": self.problems, "rates": self.rates, "unsolved": self.unsolved}


def solve_matrix(runs: Sequence[Run], suite: str) -> SolveMatrix:
    """Models (best first) x problems (unsolved by every model first, then hardest first) solve rates."""
    chosen = sorted(runs_for_suite(runs, suite), key=lambda r: (-r.score(suite, 1).value, natural_key(r.display_name)))
    per_model = [per_problem_pass_at_k(r.suites[suite], 1) for r in chosen]
    problems = natural_sorted({p for rates in per_model for p in rates})

    def mean(p: str) -> float:
        known = [rates[p] for rates in per_model if p in rates]
        return sum(known) / len(known)

    unsolved = [p for p in problems if all(rates.get(p, 0.0) == 0.0 for rates in per_model)]
    problems.sort(key=lambda p: (p not in unsolved, mean(p), natural_key(p)))
    rates = [[r.get(p) for p in problems] for r in per_model]
    return SolveMatrix(suite, [r.display_name for r in chosen], problems, rates, unsolved)


# ---------------------------------------------------------------- score against model size


@dataclass
class SizeScatter:
    """Score against model size on one suite: points, an OLS line and correlations; unknown sizes listed apart."""

    suite: str
    k: int
    points: list[tuple[Run, PassAtK]]  # models of known size
    unknown_size: list[tuple[Run, PassAtK]]
    fit: OLSFit  # y = score in points, x = size in billions (log10 of it with log_size)
    correlation: Correlation
    log_size: bool = False
    notes: list[str] = field(default_factory=list)

    def sizes(self) -> list[float]:
        """The points' model sizes in billions."""
        return [known_size(r) for r, _ in self.points]

    def tables(self) -> list[TextTable]:
        """Models with size and score; the fit and correlations as notes."""
        cols = [Column("model", "Model"), Column("family", "Family"), Column("size_b", "Size (B)", "float"), Column("score", f"pass@{self.k} (%)", "score"), Column("ci", "95% CI", "ci")]
        rows = [{"model": r.display_name, "family": r.family, "size_b": r.size_b, "score": s.value, "ci": (s.ci_low, s.ci_high)} for r, s in [*self.points, *self.unknown_size]]
        return [TextTable(f"Score against model size: {self.suite}, pass@{self.k}", cols, rows, self.summary())]

    def summary(self) -> list[str]:
        """The fit, the correlations and the notes, one line each."""
        x = "log10(size in B)" if self.log_size else "size in B"
        f, c = self.fit, self.correlation
        lines = [
            f"OLS: pass@{self.k} (points) = {f.intercept:.2f} {'-' if f.slope < 0 else '+'} {abs(f.slope):.3f} x {x}; R² = {f.r_squared:.3f}, n = {f.n}" if math.isfinite(f.slope) else f"OLS: undefined (n = {f.n})",
            f"Pearson r = {c.pearson_r:.3f} (p = {c.pearson_p:.3g}); Spearman ρ = {c.spearman_rho:.3f} (p = {c.spearman_p:.3g}); n = {c.n}"
            if math.isfinite(c.pearson_r) else f"correlation: undefined ({'; '.join(c.notes)})",
        ]
        if self.unknown_size:
            lines.append(f"unknown size (listed, not in the fit): {', '.join(r.display_name for r, _ in self.unknown_size)}")
        return lines + self.notes

    def to_json(self) -> dict[str, Any]:
        """Points, fit and correlations."""
        def point(r: Run, s: PassAtK) -> dict[str, Any]:
            return {"model": r.display_name, "family": r.family, "size_b": r.size_b, "score": asdict(s)}
        return {"kind": "size_scatter", "suite": self.suite, "k": self.k, "log_size": self.log_size, "points": [point(*p) for p in self.points],
                "unknown_size": [point(*p) for p in self.unknown_size], "ols": asdict(self.fit), "correlation": asdict(self.correlation), "notes": self.summary()}


def known_size(run: Run) -> float:
    """The model size of a run that has one (a size scatter's point)."""
    if run.size_b is None:
        raise ValueError(f"{run.display_name}: the model size is unknown")
    return run.size_b


def size_scatter(runs: Sequence[Run], suite: str, k: int = 1, *, log_size: bool = False, confidence: float = 0.95) -> SizeScatter:
    """Score against size for the runs on a suite (sizes from apply_models_meta); models of unknown size are kept apart."""
    chosen = runs_for_suite(runs, suite)
    scored = [(r, r.score(suite, k, confidence)) for r in chosen]
    points = sorted([p for p in scored if p[0].size_b is not None and math.isfinite(p[1].value)], key=lambda p: (p[0].size_b, natural_key(p[0].display_name)))
    unknown = [p for p in scored if all(p[0] is not q[0] for q in points)]
    xs = [math.log10(size) if log_size else size for size in (known_size(r) for r, _ in points)]
    ys = [100 * s.value for _, s in points]
    return SizeScatter(suite, k, points, unknown, ols(xs, ys), correlation(xs, ys), log_size, comparability_notes(chosen, suite))


# ---------------------------------------------------------------- two runs of one benchmark (`assay compare`)


@dataclass(frozen=True)
class ProblemDiff:
    """One problem on which two runs' solve rates (per-problem pass@1) differ."""

    task_id: str
    rate_a: float
    rate_b: float
    solved_a: bool  # by the McNemar rule (`assay.report.stats.solved`)
    solved_b: bool


@dataclass
class RunComparison:
    """Two runs on the same problems: scores, a paired bootstrap, an exact McNemar test, and the problems that differ."""

    a: Run
    b: Run
    suite: str
    k: int
    score_a: PassAtK
    score_b: PassAtK
    paired: PairedDifference
    mcnemar: McNemarResult
    differing: list[ProblemDiff]  # biggest differences first
    notes: list[str] = field(default_factory=list)

    def tables(self) -> list[TextTable]:
        """A summary table and the table of problems whose solve rates differ."""
        a, b, p, m = self.a.display_name, self.b.display_name, self.paired, self.mcnemar
        cols = [Column("measure", "Measure"), Column("value", "Value", "score"), Column("ci", "95% CI", "ci"), Column("p", "p", "p"), Column("count", "Problems", "int")]
        rows: list[dict[str, Any]] = [
            {"measure": f"{a}: pass@{self.k}", "value": self.score_a.value, "ci": (self.score_a.ci_low, self.score_a.ci_high), "count": self.score_a.n_problems},
            {"measure": f"{b}: pass@{self.k}", "value": self.score_b.value, "ci": (self.score_b.ci_low, self.score_b.ci_high), "count": self.score_b.n_problems},
            {"measure": f"difference {a} - {b} (paired bootstrap)", "value": p.difference, "ci": (p.ci_low, p.ci_high), "p": p.p_value, "count": p.n_problems},
            {"measure": f"solved by {a} only", "count": len(m.only_a)},
            {"measure": f"solved by {b} only", "count": len(m.only_b)},
            {"measure": "solved by both", "count": m.both},
            {"measure": "solved by neither", "count": m.neither},
            {"measure": f"McNemar exact test ({len(m.only_a)} vs {len(m.only_b)} discordant)", "p": m.p_value, "count": m.n_discordant},
        ]
        notes = [
            f"difference: mean over {p.n_problems} shared problems of per-problem pass@{self.k}, {a} minus {b}, in points; "
            f"{round(100 * p.confidence)}% paired bootstrap interval over problems, p from a sign-flip randomisation test",
            f"McNemar exact test: binomial test of the discordant problems, p = 1/2; a problem is solved when at least {m.solved_threshold:.0%} of its samples pass",
            *self.notes,
        ]
        summary = TextTable(f"{a} vs {b} on {self.suite}", cols, rows, notes)
        dcols = [Column("problem", "Problem"), Column("rate_a", f"{a} pass@1", "rate"), Column("rate_b", f"{b} pass@1", "rate"), Column("delta", "Δ", "rate"), Column("solved_by", "Solved by")]
        drows = []
        for d in self.differing:
            by = a if d.solved_a and not d.solved_b else b if d.solved_b and not d.solved_a else ("both" if d.solved_a else "neither")
            drows.append({"problem": d.task_id, "rate_a": d.rate_a, "rate_b": d.rate_b, "delta": d.rate_a - d.rate_b, "solved_by": by})
        return [summary, TextTable(f"Problems where {a} and {b} differ ({len(drows)})", dcols, drows)]

    def to_json(self) -> dict[str, Any]:
        """Scores, the paired difference, McNemar's test and the differing problems."""
        return {"kind": "run_comparison", "suite": self.suite, "k": self.k, "a": {"model": self.a.display_name, "run": str(self.a.run_dir), "score": asdict(self.score_a)},
                "b": {"model": self.b.display_name, "run": str(self.b.run_dir), "score": asdict(self.score_b)}, "paired_difference": asdict(self.paired),
                "mcnemar": {**asdict(self.mcnemar), "n_discordant": self.mcnemar.n_discordant},
                "differing": [asdict(d) for d in self.differing], "notes": self.notes}


def compare_runs(
    a: Run, b: Run, suite: str | None = None, k: int = 1, *, common_only: bool = False, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> RunComparison:
    """Compare two runs of one benchmark; ReportError for different benchmarks, or different problem sets unless common_only."""
    if a.run_dir.resolve() == b.run_dir.resolve():
        raise ReportError(f"both runs are {a.run_dir}; compare two different runs")
    if a.benchmark.name != b.benchmark.name:
        raise ReportError(f"cannot compare runs of different benchmarks: {a.run_dir} is {a.benchmark.name}, {b.run_dir} is {b.benchmark.name}")
    suite = suite or a.headline_suite
    for run in (a, b):
        if suite not in run.suites:
            raise ReportError(f"{run.run_dir} has no suite {suite!r} (it has {', '.join(run.suites)})")
    fa, fb = a.suites[suite], b.suites[suite]
    notes = []
    if set(fa) != set(fb):
        shared = set(fa) & set(fb)
        what = f"{a.run_dir} has {len(fa)} problems, {b.run_dir} {len(fb)}, {len(shared)} shared"
        if not shared:
            raise ReportError(f"the runs share no problem ({what}); nothing to compare")
        if not common_only:
            raise ReportError(f"the runs cover different problems ({what}); compare on the shared ones with --common-problems")
        notes.append(f"compared on the {len(shared)} shared problems only ({what})")
        fa, fb = {t: v for t, v in fa.items() if t in shared}, {t: v for t, v in fb.items() if t in shared}
    if a.benchmark.content_hash != b.benchmark.content_hash:
        notes.append(f"the runs used different versions of {a.benchmark.name} ({a.benchmark.version} {a.benchmark.content_hash[:12]} vs "
                     f"{b.benchmark.version} {b.benchmark.content_hash[:12]}): the same problem may have different tests")
    for key, values in settings_differences([a, b]).items():
        notes.append(f"setting {key} differs: " + ", ".join(f"{n}: {v}" for n, v in values.items()))
    score_a = score_pass_at_k(fa, [k], confidence, n_resamples, seed)[k]
    score_b = score_pass_at_k(fb, [k], confidence, n_resamples, seed)[k]
    try:
        paired = paired_bootstrap(fa, fb, k, confidence, n_resamples, seed)
    except ValueError as exc:
        raise ReportError(f"{exc} (pass@{k} needs {k} samples per problem)") from None
    ra, rb = per_problem_pass_at_k(fa, 1), per_problem_pass_at_k(fb, 1)
    differing = [ProblemDiff(t, ra[t], rb[t], solved(fa[t]), solved(fb[t])) for t in natural_sorted(ra) if t in rb and ra[t] != rb[t]]
    differing.sort(key=lambda d: (-abs(d.rate_a - d.rate_b), natural_key(d.task_id)))
    return RunComparison(a, b, suite, k, score_a, score_b, paired, mcnemar_exact(fa, fb), differing, notes)


# ---------------------------------------------------------------- provenance


@dataclass
class Provenance:
    """What produced a report: the Assay that made it, and each run's benchmark version, Assay version and settings."""

    runs: list[Run]
    assay_version: str = __version__
    generated_at: str | None = None

    def tables(self) -> list[TextTable]:
        """One row per run; the report's own origin and the runs' notes as notes."""
        cols = [Column("model", "Model"), Column("run", "Run"), Column("benchmark", "Benchmark"), Column("version", "Version"), Column("hash", "Content hash"),
                Column("assay", "Assay"), Column("samples", "Samples", "int"), Column("problems", "Problems", "int"), Column("settings", "Settings"), Column("toolchain", "Toolchain")]
        rows = []
        for r in self.runs:
            commit = r.git_commit
            toolchain = ", ".join(f"{k} {v}" for k, v in (r.config.get("toolchain") or {}).items() if k != "driver")
            rows.append({"model": r.display_name, "run": str(r.run_dir), "benchmark": r.benchmark.name + (f" (released {r.benchmark.window})" if r.benchmark.window else ""), "version": r.benchmark.version, "hash": r.benchmark.content_hash[:12],
                         "assay": (r.assay_version or "?") + (f" ({commit[:7]})" if commit else ""), "samples": len(r.samples), "problems": len(r.problem_ids),
                         "settings": r.settings_summary(), "toolchain": toolchain})
        notes = [f"report made by Assay {self.assay_version}" + (f" at {self.generated_at}" if self.generated_at else "")]
        notes += [f"{r.display_name} ({r.run_dir}): {n}" for r in self.runs for n in r.notes]
        return [TextTable("Provenance", cols, rows, notes)]

    def to_json(self) -> dict[str, Any]:
        """Every run's full recorded configuration."""
        return {"kind": "provenance", "assay_version": self.assay_version, "generated_at": self.generated_at,
                "runs": [{"model": r.display_name, "label": r.label, "run": str(r.run_dir), "kind": r.kind, "benchmark": asdict(r.benchmark),
                          "assay_version": r.assay_version, "git_commit": r.git_commit, "n_samples": len(r.samples), "n_unjudged": r.n_unjudged,
                          "settings": r.settings(), "config": r.config, "notes": r.notes} for r in self.runs]}
