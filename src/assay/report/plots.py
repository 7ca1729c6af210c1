"""Report figures as inline SVG: score against model size (SwiftEval's Figures 1 and 2) and failure anatomy.

Figures are drawn with matplotlib (Agg, its bundled DejaVu Sans, glyphs as paths) and cleaned for
inlining into one HTML page: no XML prolog, DOCTYPE, metadata or namespace URLs, ids prefixed per
figure so several figures share a page, and a fixed hash salt so the same report gives the same bytes.
The per-problem solve-rate heat map is HTML (a table and a canvas, `assay.report.html`): a figure
with hundreds of problem columns is unreadable as an image.
"""

from __future__ import annotations

import io
import itertools
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.metrics import FAILURE_KINDS
from assay.report.runs import ReportError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from assay.report.tables import FailureAnatomy, SizeScatter

# Failure kinds in stacking order with their colours (colour-blind safe: Okabe-Ito).
FAILURE_COLOURS = {
    "compile_error": "#E69F00", "runtime_error": "#D55E00", "failed": "#0072B2", "timeout": "#CC79A7", "memory_exceeded": "#009E73",
}
FAILURE_TITLES = {"compile_error": "compile error", "runtime_error": "runtime error", "failed": "failed tests", "timeout": "timeout", "memory_exceeded": "memory"}
POINT_COLOUR, TREND_COLOUR, UNKNOWN_COLOUR = "#1F77B4", "#FF7F0E", "#6BAED6"  # as the paper: blue points, orange OLS line
MAX_POINT_LABELS = 40  # more labels than this overlap into noise; the table under the plot names every point
MAX_LINE_LABELS = 12  # likewise for the lines of models of unknown size (the list beside the plot names them all)

_RC = {
    "svg.hashsalt": "assay-report",  # clip-path ids from content, not uuid4: deterministic output
    "svg.fonttype": "path",  # glyphs embedded as paths: no font needed where the report is read
    "font.family": "DejaVu Sans",  # bundled with matplotlib: works offline
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 72.0,
}


def _matplotlib() -> Any:
    """The matplotlib module, or ReportError with the install hint."""
    try:
        import matplotlib
    except ImportError:
        raise ReportError("plots need matplotlib; install it with `pip install matplotlib`") from None
    return matplotlib


def _rc() -> Any:
    """A context with the report's matplotlib settings."""
    return _matplotlib().rc_context(_RC)


def _figure(width: float, height: float) -> Figure:
    """A figure not managed by pyplot (no GUI backend, no global state; pyplot's import alone costs seconds)."""
    _matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)  # the Agg canvas: savefig(format="svg") switches to the SVG backend from it
    return fig


def plain(text: str) -> str:
    """Text matplotlib shows as written (a `$` would start mathtext)."""
    return text.replace("$", r"\$")


def figure_svg(fig: Figure, prefix: str, label: str = "") -> str:
    """A figure as an `<svg>` element ready to inline in HTML: ids prefixed, no prolog, metadata, comments or URLs."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    return clean_svg(buffer.getvalue(), prefix, label)


def clean_svg(svg: str, prefix: str, label: str = "") -> str:
    """Matplotlib's SVG document as an inline element: prolog, DOCTYPE, metadata, comments, global style and namespaces removed, ids prefixed."""
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)  # matplotlib escapes "--" inside its comments, so this cannot over-match
    svg = re.sub(r"\s*<style type=\"text/css\">.*?</style>", "", svg, flags=re.S)  # a `*{...}` rule would reach the whole page
    svg = re.sub(r"<defs>\s*</defs>\s*", "", svg)
    svg = re.sub(r'\s+xmlns(?::\w+)?="[^"]*"', "", svg)
    svg = re.sub(r'\s+version="1\.1"', "", svg)
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    if ids:
        svg = re.sub(r'(\sid=")([^"]+)"', lambda m: f'{m.group(1)}{prefix}-{m.group(2)}"', svg)
        svg = re.sub(r"#([\w.\-]+)", lambda m: f"#{prefix}-{m.group(1)}" if m.group(1) in ids else m.group(0), svg)
    aria = f' role="img" aria-label="{_attr(label)}"' if label else ""
    svg = svg.replace("<svg ", f'<svg class="plot" id="{prefix}"{aria} stroke-linejoin="round" stroke-linecap="butt" ', 1)
    return svg.strip() + "\n"


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def _short(text: str, width: int = 34) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def scatter_svg(scatter: SizeScatter, prefix: str = "scatter") -> str:
    """Score against model size: points with their intervals, the OLS line, r and ρ in the legend; unknown sizes as lines and a list beside the plot."""
    with _rc():
        fig = _figure(8.4, 4.6)
        ax = fig.add_axes((0.08, 0.11, 0.60, 0.80))
        xs = scatter.sizes()
        ys = [100 * s.value for _, s in scatter.points]
        lows = [max(0.0, y - 100 * s.ci_low) if math.isfinite(s.ci_low) else 0.0 for y, (_, s) in zip(ys, scatter.points, strict=True)]
        highs = [max(0.0, 100 * s.ci_high - y) if math.isfinite(s.ci_high) else 0.0 for y, (_, s) in zip(ys, scatter.points, strict=True)]
        if xs:
            ax.errorbar(xs, ys, yerr=[lows, highs], fmt="o", color=POINT_COLOUR, ecolor="#9ECAE1", elinewidth=1, capsize=2, markersize=5,
                        label=f"models of known size (n = {len(xs)}), 95% CI", zorder=3)
        if len(xs) <= MAX_POINT_LABELS:
            for (run, _), x, y in zip(scatter.points, xs, ys, strict=True):
                ax.annotate(plain(_short(run.display_name, 28)), (x, y), xytext=(4, 3), textcoords="offset points", fontsize=6.5, color="#333333")
        if scatter.log_size:
            ax.set_xscale("log")
        fit, c = scatter.fit, scatter.correlation
        if xs and math.isfinite(fit.slope):
            lo, hi = min(xs), max(xs)
            if scatter.log_size:
                grid = [10 ** (math.log10(lo) + (math.log10(hi) - math.log10(lo)) * i / 50) for i in range(51)]
                line = [fit.predict(math.log10(g)) for g in grid]
            else:
                grid = [lo + (hi - lo) * i / 50 for i in range(51)]
                line = [fit.predict(g) for g in grid]
            stats = f"OLS trend (R² = {fit.r_squared:.2f})" if math.isfinite(fit.r_squared) else "OLS trend"
            if math.isfinite(c.pearson_r):
                stats += f"\nPearson r = {c.pearson_r:.2f}, Spearman ρ = {c.spearman_rho:.2f} (n = {c.n})"
            ax.plot(grid, line, color=TREND_COLOUR, linewidth=1.8, label=stats, zorder=2)
        else:
            ax.plot([], [], " ", label=f"no trend line: {fit.n} model(s) of known size")
        for run, s in scatter.unknown_size:
            if math.isfinite(s.value):
                ax.axhline(100 * s.value, color=UNKNOWN_COLOUR, linewidth=0.9, linestyle=(0, (4, 3)), zorder=1)
                if len(scatter.unknown_size) <= MAX_LINE_LABELS:
                    ax.annotate(plain(_short(run.display_name, 28)), (1.0, 100 * s.value), xycoords=("axes fraction", "data"), xytext=(-2, 2),
                                textcoords="offset points", ha="right", va="bottom", fontsize=6.5, color="#3182BD")
        if scatter.unknown_size:
            ax.plot([], [], color=UNKNOWN_COLOUR, linewidth=0.9, linestyle=(0, (4, 3)), label="models of unknown size (score)")
        ax.set_ylim(0, 100)
        ax.set_xlabel("model size (billions of parameters" + (", log scale)" if scatter.log_size else ")"))
        ax.set_ylabel(f"pass@{scatter.k} (%)")
        ax.set_title(plain(f"{scatter.suite}: pass@{scatter.k} against model size"), fontsize=10, loc="left")
        ax.grid(True, color="#EEEEEE", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="lower right", fontsize=7, frameon=True, framealpha=0.9)
        _unknown_list(fig, scatter)
        return figure_svg(fig, prefix, f"{scatter.suite}: pass@{scatter.k} against model size")


def _unknown_list(fig: Figure, scatter: SizeScatter) -> None:
    """The models of unknown size, beside the plot, with their scores."""
    lines = ["Unknown size (not in the fit):"]
    shown = sorted(scatter.unknown_size, key=lambda p: -(p[1].value if math.isfinite(p[1].value) else -1))
    for run, s in shown[:24]:
        score = f"{100 * s.value:.1f}" if math.isfinite(s.value) else "–"
        lines.append(f"  {score:>5}  {_short(run.display_name, 30)}")
    if len(shown) > 24:
        lines.append(f"  … and {len(shown) - 24} more (see the table)")
    if not shown:
        lines.append("  none")
    fig.text(0.71, 0.91, plain("\n".join(lines)), fontsize=7.5, va="top", ha="left", family="DejaVu Sans Mono", color="#333333")


def anatomy_svg(anatomy: FailureAnatomy, prefix: str = "anatomy") -> str:
    """Stacked horizontal bars: each model x language's failures split into compile errors, runtime errors, failed tests, timeouts and memory."""
    rows = anatomy.rows
    several = len({r.benchmark for r in rows}) > 1
    labels = [plain(_short(f"{r.model} · " + (f"{r.benchmark} · " if several else "") + r.language, 48)) for r in rows]
    with _rc():
        top, bottom, per_bar = 0.75, 0.55, 0.28  # inches: title and legend above, axis label below
        height = top + bottom + per_bar * max(1, len(rows))
        fig = _figure(8.4, height)
        left = min(0.45, 0.04 + 0.0078 * max((len(lab) for lab in labels), default=10))
        ax = fig.add_axes((left, bottom / height, 0.84 - left, 1 - (top + bottom) / height))
        ys = list(range(len(rows)))
        starts = [0.0] * len(rows)
        for kind in FAILURE_KINDS:
            widths = [100 * r.shares()[kind] for r in rows]
            ax.barh(ys, widths, left=starts, height=0.72, color=FAILURE_COLOURS[kind], label=FAILURE_TITLES[kind], edgecolor="white", linewidth=0.4)
            for y, x0, w in zip(ys, starts, widths, strict=True):
                if w >= 9:
                    ax.text(x0 + w / 2, y, f"{w:.0f}%", ha="center", va="center", fontsize=6.5, color="white")
            starts = [s + w for s, w in zip(starts, widths, strict=True)]
        for y, r in zip(ys, rows, strict=True):
            text = f"{r.failures} of {r.judged} failed" if r.failures else ("nothing failed" if r.judged else "no judged samples")
            ax.text(101.5, y, text, va="center", ha="left", fontsize=6.5, color="#555555")
        ax.set_yticks(ys, labels, fontsize=7.5)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of failed samples (%)")
        ax.tick_params(axis="y", length=0)
        fig.text(0.01, 1 - 0.22 / height, "Failure anatomy: how the failed samples failed", fontsize=10, va="center")
        fig.legend(*ax.get_legend_handles_labels(), loc="center left", bbox_to_anchor=(left, 1 - 0.52 / height), ncol=len(FAILURE_KINDS),
                   fontsize=7.5, frameon=False, handlelength=1.2, columnspacing=1.2, borderaxespad=0.0)
        return figure_svg(fig, prefix, "Failure anatomy: share of compile errors, runtime errors, failed tests, timeouts and memory per model and language")


def rate_colour(rate: float | None) -> str:
    """Heat-map colour of a solve rate: red (never solved) through yellow to green (always); light grey when unknown."""
    if rate is None or not math.isfinite(rate):
        return "#F2F2F2"
    stops: Sequence[tuple[float, tuple[int, int, int]]] = ((0.0, (0xF0, 0xA0, 0x96)), (0.5, (0xFF, 0xE6, 0x99)), (1.0, (0x3A, 0x9A, 0x5B)))
    for (x0, c0), (x1, c1) in itertools.pairwise(stops):
        if rate <= x1:
            t = (rate - x0) / (x1 - x0)
            return "#" + "".join(f"{round(a + (b - a) * t):02X}" for a, b in zip(c0, c1, strict=True))
    return "#2E8B57"
