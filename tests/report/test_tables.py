"""Report tables: SwiftEval's Table I and correlations reproduced, leaderboards with honest ties, renderers, bad input."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest

from assay.report import build_report, compare_run_dirs, render_comparison, render_report
from assay.report.models_meta import apply_models_meta, load_models_meta, parse_size
from assay.report.render import TextTable, latex_escape, render_sections
from assay.report.runs import BenchmarkInfo, ReportError, Run, load_run, load_runs
from assay.report.tables import (
    CHANGE_THRESHOLDS,
    change_category,
    compare_benchmarks,
    compare_runs,
    failure_anatomy,
    leaderboard,
    size_scatter,
    solve_matrix,
)
from tests.conftest import REPO, shared_data
from tests.report import FASTEVAL_MODELS, config, fasteval_run, reflexion_run, write_run

SAMPLES = shared_data() / "samples"
needs_samples = pytest.mark.skipif(not (SAMPLES / "fasteval").is_dir(), reason=f"needs the shared data directory ({SAMPLES}), absent here")

# SwiftEval (arXiv 2505.24324) Table I: model, size, HumanEval score and rank, SwiftEval score and rank, differences.
TABLE_I = """\
GPT-4o|-|90.3|2|88.9|1|-1.4|1
GPT-4o Mini|-|87.2|7|85.6|3|-1.6|4
GPT-4 Turbo|-|88.2|6|87.1|2|-1.1|4
GPT-4|-|86.6|8|82.2|5|-4.4|3
GPT-3.5 Turbo|-|68.0|21|81.3|6|13.3|15
Codestral Mamba|7B|75.0|19|58.9|11|-16.1|8
Codestral|22B|81.1|13|77.8|8|-3.3|5
CodeLlama Instruct|7B|34.8|41|28.5|27|-6.3|14
CodeLlama Instruct|13B|42.7|37|43.7|16|1.0|21
CodeLlama Instruct|34B|41.5|38|42.1|17|0.6|21
CodeLlama Instruct|70B|67.8|22|52.3|14|-15.5|8
CodeGemma|2B|31.1|44|15.2|37|-15.9|7
CodeGemma|7B|44.5|35|26.9|30|-17.6|5
CodeGemma Instruct|7B|56.1|31|28.1|28|-28.0|3
CodeGemma 1.1 Instruct|7B|60.4|27|36.2|22|-24.2|5
CodeGeeX2|6B|35.9|39|2.5|44|-33.4|-5
CodeGeeX4|9B|82.3|12|53.7|12|-28.6|0
CodeQwen1.5|7B|51.8|32|41.5|18|-10.3|14
CodeQwen1.5 Chat|7B|83.5|11|37.9|21|-45.6|-10
Qwen2.5 Coder|1.5B|43.9|36|11.3|39|-32.6|-3
Qwen2.5 Coder|7B|61.6|26|25.5|31|-36.1|-5
Qwen2.5 Coder Instruct|7B|88.4|5|40.0|19|-48.4|-14
Qwen2.5 Coder Instruct|14B|89.6|4|62.8|10|-26.8|-6
Qwen2.5 Coder Instruct|32B|92.7|1|79.1|7|-13.6|-6
DeepSeek Coder Instruct|1.3B|65.2|24|10.8|40|-54.4|-16
DeepSeek Coder Instruct|6.7B|78.6|17|17.5|36|-61.1|-19
DeepSeek Coder Instruct|33B|79.3|15|32.0|25|-47.3|-10
DeepSeek Coder V2 Instruct|16B|81.1|13|69.1|9|-12.0|4
DeepSeek Coder V2 Instruct|236B|90.2|3|82.4|4|-7.8|-1
Granite Code Instruct|3B|51.2|33|12.1|38|-39.1|-5
Granite Code Instruct|8B|57.9|30|23.1|32|-34.8|-2
Granite Code Instruct|20B|60.4|27|17.6|35|-42.8|-8
Granite Code Instruct|34B|62.2|25|32.1|24|-30.1|1
StarCoder 2|3B|31.7|43|21.3|33|-10.4|10
StarCoder 2|7B|35.4|40|28.9|26|-6.5|14
StarCoder 2|15B|46.3|34|45.5|15|-0.8|19
StarCoder 2 Instruct|15B|72.6|20|53.6|13|-19.0|7
Stable Code|3B|32.4|42|9.1|42|-23.3|0
Stable Code Instruct|3B|59.0|29|10.2|41|-48.8|-12
OpenCodeInterpreter|6.7B|76.2|18|18.9|34|-57.3|-16
OpenCodeInterpreter|33B|79.3|15|27.3|29|-52.0|-14
Yi-Coder Chat|1.5B|67.7|23|4.9|43|-62.8|-20
Yi-Coder Chat|9B|85.4|10|33.9|23|-51.5|-13
Nxcode-CQ|7B|86.6|8|39.7|20|-46.9|-12"""


def memory_run(name: str, suite: str, per_problem: dict[str, list[bool]]) -> Run:
    """A run held in memory (no directory): for tables over many synthetic models."""
    return Run(Path(f"runs/{suite}-{name}"), name, name, "samples", BenchmarkInfo(suite, "1", "h" * 64), {}, [], {suite: per_problem})


def score_run(name: str, suite: str, percent: float) -> Run:
    """A run whose pass@1 is exactly `percent`: one problem, 1000 samples."""
    passed = round(percent * 10)
    return memory_run(name, suite, {"p": [True] * passed + [False] * (1000 - passed)})


@pytest.fixture(scope="module")
def table_i(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Run], list[list[str]]]:
    rows = [line.split("|") for line in TABLE_I.splitlines()]
    runs = []
    for name, size, he, _, se, *_ in rows:
        label = name if size == "-" else f"{name} {size}"
        runs += [score_run(label, "humaneval", float(he)), score_run(label, "swifteval", float(se))]
    meta = tmp_path_factory.mktemp("meta") / "models.yaml"
    meta.write_text("models:\n" + "".join(f"  - {{name: '{n if s == '-' else f'{n} {s}'}', size: '{s}', family: '{n}'}}\n" for n, s, *_ in rows))
    assert apply_models_meta(runs, load_models_meta(meta)) == []
    return runs, rows


def test_swifteval_table_i_ranks_and_differences_are_reproduced(table_i: tuple[list[Run], list[list[str]]]) -> None:
    runs, rows = table_i
    table = compare_benchmarks(runs, "humaneval", "swifteval", rank_by="score", sort_by="family")
    by_model = {r.model: r for r in table.rows}
    assert len(by_model) == 44
    for name, size, _he, he_rank, _se, se_rank, d_score, d_rank in rows:
        row = by_model[name if size == "-" else f"{name} {size}"]
        assert row.a is not None and row.b is not None
        assert (row.a.rank, row.b.rank, row.delta_rank) == (int(he_rank), int(se_rank), int(d_rank)), name
        assert row.delta == pytest.approx(float(d_score), abs=1e-6)
    codestral, deepseek = by_model["Codestral 22B"], by_model["DeepSeek Coder V2 Instruct 16B"]
    assert codestral.a.tied and deepseek.a.tied and codestral.a.rank == 13  # type: ignore[union-attr]
    assert table.category(by_model["GPT-3.5 Turbo"]) == "major gain"
    assert table.category(by_model["CodeLlama Instruct 34B"]) == "same"
    assert table.category(by_model["Yi-Coder Chat 1.5B"]) == "critical drop"


def test_swifteval_size_correlations_are_reproduced(table_i: tuple[list[Run], list[list[str]]]) -> None:
    # The paper: correlation of size and score 0.30 on HumanEval and 0.50 on SwiftEval (Pearson, the 39 models of known size).
    he = size_scatter(table_i[0], "humaneval")
    se = size_scatter(table_i[0], "swifteval")
    assert (he.correlation.n, round(he.correlation.pearson_r, 2), round(se.correlation.pearson_r, 2)) == (39, 0.30, 0.50)
    assert se.fit.slope > he.fit.slope > 0  # SwiftEval's trend line is the steeper one (Figures 1 and 2)
    assert sorted(r.display_name for r, _ in he.unknown_size) == ["GPT-3.5 Turbo", "GPT-4", "GPT-4 Turbo", "GPT-4o", "GPT-4o Mini"]
    text = render_sections([se], "md")
    assert "unknown size (listed, not in the fit): " in text and "Pearson r = 0.498" in text and "| GPT-4o |" in text


def test_change_categories_at_their_boundaries() -> None:
    cases = {0.0: "same", 0.99: "same", -0.99: "same", 1.0: "minor gain", 4.99: "minor gain", 5.0: "major gain", 40.0: "major gain",
             -1.0: "minor drop", -4.99: "minor drop", -5.0: "major drop", -14.99: "major drop", -15.0: "critical drop", -60.0: "critical drop"}
    assert {d: change_category(d) for d in cases} == cases
    assert change_category(math.nan) is None
    assert "critical drop d <= -15" in CHANGE_THRESHOLDS.describe()


def test_leaderboard_ties_models_whose_intervals_overlap() -> None:
    # All-pass and all-fail problems give point intervals: exact ties and exact separations.
    runs = [memory_run("a", "b", {f"p{i}": [True] for i in range(10)}), memory_run("c", "b", {f"p{i}": [False] for i in range(10)}),
            memory_run("b", "b", {f"p{i}": [True] for i in range(10)})]
    board = leaderboard(runs, "b")
    assert [(e.run.label, e.rank, e.tied) for e in board.entries] == [("a", 1, True), ("b", 1, True), ("c", 3, False)]
    text = render_sections([board], "md")
    assert "| =1 | a | 100.0 | [100.0, 100.0] |" in text and "| 3 | c | 0.0 |" in text
    assert [e.run.label for e in leaderboard(runs, "b", sort_by="model").entries] == ["a", "b", "c"]


def test_leaderboard_notes_problems_too_few_samples_for_k() -> None:
    runs = [memory_run("a", "b", {"p": [True, False, True], "q": [True]}), memory_run("z", "b", {"p": [True]})]
    board = leaderboard(runs, "b", k=2)
    assert board.entries[-1].rank is None
    notes = "\n".join(board.notes)
    assert "z: pass@2 needs 2 samples per problem; this run has 1" in notes
    assert "a: 1 problems have fewer than 2 samples" in notes
    with pytest.raises(ReportError, match="no run has the suite 'mbpp'; the runs have: b"):
        leaderboard(runs, "mbpp")


def test_failure_anatomy_shares_are_exact(tmp_path: Path) -> None:
    outcomes = {"a": ["compile_error"] * 3 + ["failed"], "b": [True, "timeout", "runtime_error", "runtime_error"], "c": ["sandbox_error", "skipped"]}
    run = load_run(write_run(tmp_path / "r", outcomes, config(toolchain={"python": "3", "driver": "d", "swift": "6"})))
    (row,) = failure_anatomy([run]).rows
    assert (row.language, row.judged, row.failures) == ("swift", 9, 7)
    assert row.shares() == {"compile_error": 3 / 7, "runtime_error": 2 / 7, "failed": 1 / 7, "timeout": 1 / 7, "memory_exceeded": 0.0}
    anatomy = failure_anatomy([run])
    assert any("1 sandbox errors" in n for n in anatomy.notes)
    assert "| toy | toy | swift | 9 | 11% | 7 | 43% | 29% | 14% | 14% | 0% |" in render_sections([anatomy], "md")


def test_solve_matrix_lists_problems_no_model_solved_first() -> None:
    runs = [memory_run("good", "s", {"p1": [True, True], "p2": [False, False], "p3": [True, False], "p10": [True]}),
            memory_run("bad", "s", {"p1": [True, False], "p2": [False], "p3": [False]})]
    m = solve_matrix(runs, "s")
    assert m.models == ["good", "bad"]
    assert m.problems == ["p2", "p3", "p1", "p10"] and m.unsolved == ["p2"]
    assert m.rates == [[0.0, 0.5, 1.0, 1.0], [0.0, 0.0, 0.5, None]]


def test_renderers_write_every_format(tmp_path: Path) -> None:
    runs = [memory_run("gpt_4 & co", "s", {"p": [True], "q": [False]}), memory_run("other", "s", {"p": [False], "q": [False]})]
    board = leaderboard(runs, "s")
    rows = list(csv.reader(line for line in io.StringIO(render_sections([board], "csv")) if not line.startswith("#")))
    assert rows[0][:4] == ["rank", "rank_tied", "model", "score"] and rows[1][2:4] == ["gpt_4 & co", "0.5"]
    data = json.loads(render_sections([board], "json"))
    (entry,) = [e for e in data["sections"][0]["entries"] if e["model"] == "other"]
    assert entry["score"]["value"] == 0.0 and entry["rank"] in (1, 2)
    latex = render_sections([board], "latex")
    assert "\\toprule" in latex and "gpt\\_4 \\& co" in latex and "\\%" in latex
    assert latex_escape("a_b%c") == "a\\_b\\%c"
    with pytest.raises(ReportError, match="unknown report format 'html'"):
        render_sections([board], "html")
    comparison = compare_benchmarks([*runs, memory_run("other", "t", {"p": [True], "q": [True]})], "s", "t")
    assert "\\cellcolor[HTML]{8FD19E}" in render_sections([comparison], "latex", colour=True)
    assert "not run on t (no change shown): gpt_4 & co" in render_sections([comparison], "md")
    assert TextTable("empty", [], [], ["only a note"]).to_json()["notes"] == ["only a note"]


def test_models_meta_validation_gives_one_line_errors(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    for text, message in [
        ("models:\n  - name: a\n    size: big\n", "model 1 (a), field size: size must be a number of billions"),
        ("models:\n  - name: a\n    sizes: 7\n", "model 1 (a), field sizes: Extra inputs are not permitted"),
        ("models:\n  - {name: a, match: x}\n  - {name: b, match: [X]}\n", "'x' matches two models (a and b)"),
        ("models: [\n", "not valid YAML at line"),
        ("- name: a\n", "expected a mapping with a `models:` list"),
    ]:
        path.write_text(text)
        with pytest.raises(ReportError, match=re.escape(message)) as exc:
            load_models_meta(path)
        assert "\n" not in str(exc.value)
    with pytest.raises(ReportError, match="not found"):
        load_models_meta(tmp_path / "absent.yaml")
    assert [parse_size(v) for v in (34, "1.5B", "350M", "1.2T", None, "unknown")] == [34.0, 1.5, 0.35, 1200.0, None, None]


def docs_example(tmp_path: Path) -> Path:
    """The example file of docs/models-meta.md, so the documented format is the tested one."""
    text = (REPO / "docs" / "models-meta.md").read_text()
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "models.yaml"
    path.write_text(block)
    return path


@pytest.fixture(scope="module")
def fasteval_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    if not (SAMPLES / "fasteval").is_dir():
        pytest.skip(f"needs the shared data directory ({SAMPLES}), absent here")
    root = tmp_path_factory.mktemp("fasteval")
    return [fasteval_run(shared_data(), m, root / m) for m in FASTEVAL_MODELS]


@pytest.mark.slow
@needs_samples
def test_full_report_on_published_verdicts(fasteval_runs: list[Path], tmp_path: Path) -> None:
    report = build_report(fasteval_runs, models_meta=docs_example(tmp_path), generated_at="2025-01-01T00:00:00+00:00")
    assert report.suites == ["humaneval-plus", "humaneval-plus:base"]
    (plus, base) = report.leaderboards
    assert [e.run.display_name for e in plus.entries][:2] == ["GPT-4 (June 2023)", "gpt-3.5-turbo-0613"]
    assert plus.entries[0].score.value == pytest.approx(0.8008, abs=5e-5) and base.entries[0].score.value == pytest.approx(0.8598, abs=5e-5)
    assert [(e.rank, e.tied) for e in plus.entries] == [(1, False), (2, True), (2, True), (4, True), (4, True)]
    assert report.notes == ["not in models.yaml (shown with unknown size and family): gpt-3.5-turbo-0613"]
    (comparison,) = report.comparisons
    assert (comparison.suite_a, comparison.suite_b) == ("humaneval-plus:base", "humaneval-plus")
    assert all(comparison.category(r) == "major drop" for r in comparison.rows)  # EvalPlus's extra tests cost 5-7 points
    (scatter,) = [s for s in report.scatters if s.suite == "humaneval-plus"]
    assert [r.display_name for r, _ in scatter.points] == ["Mistral 7B Instruct v0.1", "WizardCoder Python 34B", "Llama 2 70B Chat"]
    assert {r.display_name for r, _ in scatter.unknown_size} == {"GPT-4 (June 2023)", "gpt-3.5-turbo-0613"}
    assert report.matrices[0].unsolved[:2] == ["HumanEval/21", "HumanEval/22"]
    for fmt in ("md", "csv", "latex"):
        text = render_report(report, fmt)
        assert "fasteval-2023" in text and "Assay 0.1.0" in text, fmt  # provenance: benchmark version and the Assay that made it
    provenance = json.loads(render_report(report, "json"))["sections"][-1]
    assert provenance["assay_version"] == "0.1.0" and provenance["runs"][0]["benchmark"]["version"] == "fasteval-2023"
    md = render_report(report, "md")
    assert "### Provenance" in md and "T=" not in md and "samples file" in md


@needs_samples
def test_compare_reflexion_with_plain_gpt4(tmp_path: Path) -> None:
    simple = reflexion_run(shared_data(), "gpt-4_simple_humaneval_py", tmp_path / "simple")
    refl = reflexion_run(shared_data(), "gpt-4_reflexion_humaneval_py", tmp_path / "reflexion")
    comparison, provenance = compare_run_dirs(refl, simple)
    assert (comparison.score_a.value, comparison.score_b.value) == pytest.approx((150 / 164, 141 / 164))  # the published is_solved rates
    m = comparison.mcnemar
    b, c = len(m.only_a), len(m.only_b)
    assert b - c == 9 and m.both + m.neither + b + c == 164
    tail = sum(math.comb(b + c, i) for i in range(min(b, c) + 1)) / 2 ** (b + c)
    assert m.p_value == pytest.approx(min(1.0, 2 * tail))
    assert comparison.paired.difference == pytest.approx(9 / 164)
    assert [d.task_id for d in comparison.differing] == sorted(m.only_a + m.only_b, key=lambda t: (t.split("/")[0], int(t.split("/")[1])))
    assert all(d.solved_a != d.solved_b for d in comparison.differing)
    text = render_comparison(comparison, provenance, "md")
    assert f"McNemar exact test ({b} vs {c} discordant)" in text and "### Provenance" in text


def test_compare_refuses_different_benchmarks_and_problem_sets(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", {"p": [True], "q": [False]}, config(model="m1"))
    b = write_run(tmp_path / "b", {"p": [False]}, config(model="m2", temperature=0.8))
    c = write_run(tmp_path / "c", {"p": [True]}, config("other", model="m3"))
    with pytest.raises(ReportError, match=r"different benchmarks: .* is toy, .* is other"):
        compare_run_dirs(a, c)
    with pytest.raises(ReportError, match=r"different problems \(.* has 2 problems, .* 1, 1 shared\); compare on the shared ones with --common-problems"):
        compare_run_dirs(a, b)
    comparison, _ = compare_run_dirs(a, b, common_only=True)
    assert comparison.paired.n_problems == 1 and [(d.task_id, d.rate_a, d.rate_b) for d in comparison.differing] == [("p", 1.0, 0.0)]
    assert any("compared on the 1 shared problems only" in n for n in comparison.notes)
    assert any("setting sampling.temperature differs" in n for n in comparison.notes)
    with pytest.raises(ReportError, match="compare two different runs"):
        compare_runs(*load_runs([a]) * 2)
    with pytest.raises(ReportError, match="no run scored 'mbpp'"):
        build_report([a], suites=["mbpp"])


def test_an_allowed_unfinished_run_is_noted_in_the_report(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", {"p": [True], "q": [False]}, unjudged=2)
    with pytest.raises(ReportError, match="unfinished"):
        build_report([run])
    report = build_report([run], allow_unfinished=True)
    md = render_report(report, "md")
    assert "unfinished run: 2 of 4 samples have no verdict" in md and "### Provenance" in md
    assert "\\paragraph{Notes}" not in render_report(report, "latex")  # no report-wide notes here
    assert "\\paragraph{Notes} not in models.yaml" in render_sections([*build_report([run], allow_unfinished=True, models_meta=docs_example(tmp_path)).sections()][:1], "latex")
