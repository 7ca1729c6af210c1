"""`assay report`, `assay compare` and `assay leaderboard` from the command line, with one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from assay import cli
from tests.report import config, write_run
from tests.test_cli import _one_line_error

runner = CliRunner()


def _runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    flags = {f"T/{i}": [i % 2 == 0, i % 3 == 0] for i in range(12)}
    write_run(root / "a", flags, config("toy", model="model-a"))
    write_run(root / "b", {t: [not f[0], True] for t, f in flags.items()}, config("toy", model="model-b"))
    write_run(root / "other", {"X/0": [True]}, config("other-bench", model="model-a"))
    return root


def test_report_formats_and_out_file(tmp_path: Path) -> None:
    root = _runs(tmp_path)
    for fmt, probe in (("md", "### Leaderboard: toy"), ("csv", "model-a"), ("latex", "\\toprule"), ("json", '"leaderboard"')):
        result = runner.invoke(cli.app, ["report", str(root / "a"), str(root / "b"), "--format", fmt])
        assert result.exit_code == 0, result.output
        assert probe in result.output, (fmt, result.output[:500])
    out = tmp_path / "r.md"
    result = runner.invoke(cli.app, ["report", str(root), "--out", str(out), "--benchmarks", "toy"])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "model-a" in text and "model-b" in text and "provenance" in text.lower()


def test_compare_two_runs(tmp_path: Path) -> None:
    root = _runs(tmp_path)
    result = runner.invoke(cli.app, ["compare", str(root / "a"), str(root / "b"), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert "McNemar" in json.dumps(data) or "mcnemar" in json.dumps(data).lower()


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    root = _runs(tmp_path)
    assert "not a run directory" in _one_line_error(runner.invoke(cli.app, ["report", str(tmp_path / "nope")]))
    msg = _one_line_error(runner.invoke(cli.app, ["compare", str(root / "a"), str(root / "other")]))
    assert "other-bench" in msg or "different" in msg
    assert "no run scored 'missing'" in _one_line_error(runner.invoke(cli.app, ["report", str(root), "--benchmarks", "missing"]))
    assert "--format must be" in _one_line_error(runner.invoke(cli.app, ["report", str(root), "--format", "docx"]))
    (tmp_path / "empty").mkdir()
    assert "no run directories" in _one_line_error(runner.invoke(cli.app, ["leaderboard", "--benchmarks", "toy", "--runs-root", str(tmp_path / "empty")]))
    meta = tmp_path / "meta.yaml"
    meta.write_text("models: [\n")
    assert "meta.yaml" in _one_line_error(runner.invoke(cli.app, ["report", str(root / "a"), "--models-meta", str(meta)]))


def test_leaderboard_over_a_runs_root(tmp_path: Path) -> None:
    root = _runs(tmp_path)
    result = runner.invoke(cli.app, ["leaderboard", "--benchmarks", "toy,other-bench", "--runs-root", str(root)])
    assert result.exit_code == 0, result.output
    assert "Leaderboard: toy" in result.output and "Leaderboard: other-bench" in result.output


def test_an_empty_folder_among_the_run_dirs_is_passed_over(tmp_path: Path) -> None:
    """`assay report runs/*` where runs/ also holds a folder with no run: it is said and skipped."""
    root = _runs(tmp_path)
    (root / "empty").mkdir()
    result = runner.invoke(cli.app, ["report", str(root / "a"), str(root / "empty"), str(root / "b"), "--format", "md"])
    assert result.exit_code == 0, result.output
    assert "model-a" in result.output and "model-b" in result.output
    assert f"no run in {root / 'empty'}" in " ".join(result.output.split())
    assert "no run directories" in _one_line_error(runner.invoke(cli.app, ["report", str(root / "empty")]))


def test_a_partial_run_is_marked_and_not_ranked_against_full_runs_unless_asked(tmp_path: Path) -> None:
    """6 of 164 problems gave pass@1 0.83 and rank =1 with no note; now it is marked and left unranked."""
    root = tmp_path / "runs"
    write_run(root / "full", {f"T/{i}": [i % 2 == 0] for i in range(12)}, config("toy", model="full-model", n_problems=12))
    write_run(root / "part", {f"T/{i}": [True] for i in range(3)}, config("toy", model="part-model", n_problems=12))
    result = runner.invoke(cli.app, ["report", str(root / "full"), str(root / "part"), "--format", "json", "--benchmarks", "toy"])
    assert result.exit_code == 0, result.output
    board = next(s for s in json.loads(result.output)["sections"] if s.get("kind") == "leaderboard")
    entries = {e["model"]: e for e in board["entries"]}
    assert entries["part-model"]["rank"] is None and entries["part-model"]["partial"] is True and entries["full-model"]["rank"] == 1
    assert any("part-model: partial run, 3 of 12 problems; not ranked" in n for n in board["notes"])
    md = runner.invoke(cli.app, ["report", str(root / "full"), str(root / "part"), "--format", "md", "--benchmarks", "toy"]).output
    assert "part-model (partial: 3/12)" in md
    result = runner.invoke(cli.app, ["report", str(root / "full"), str(root / "part"), "--format", "json", "--benchmarks", "toy", "--allow-partial"])
    board = next(s for s in json.loads(result.output)["sections"] if s.get("kind") == "leaderboard")
    assert {e["model"]: e["rank"] for e in board["entries"]}["part-model"] is not None


def test_the_docs_forms_work_leaderboard_of_run_dirs_and_compare_help_without_html(tmp_path: Path) -> None:
    """docs/models-meta.md's `assay leaderboard runs/* --benchmarks ...` runs; compare does not offer html."""
    root = _runs(tmp_path)
    result = runner.invoke(cli.app, ["leaderboard", str(root / "a"), str(root / "b"), "--benchmarks", "toy", "--format", "md"])
    assert result.exit_code == 0, result.output
    assert "model-a" in result.output and "model-b" in result.output
    help_text = " ".join(runner.invoke(cli.app, ["compare", "--help"]).output.split())
    assert "md, csv, json or latex" in help_text and "html" not in help_text.split("--format")[1].split("--")[0]
    assert "--format html" in _one_line_error(runner.invoke(cli.app, ["compare", str(root / "a"), str(root / "b"), "--format", "html"]))
