"""Repository runs in `assay report` and `assay compare`: the same leaderboard, comparison and HTML page as
function-level runs, with a per-task view (the patch, each wanted test's status before and after, the log)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.report.runs import load_run
from assay.report.swe import status_of
from assay.swe.tasks import load_tasks
from tests.swe.test_swe import PYTHON, _data

TWO = "andialbrecht__sqlparse-e92a032,tkem__cachetools-57d2e48"


def test_a_graded_run_gets_the_status_that_says_what_went_wrong() -> None:
    assert status_of({"resolution": "RESOLVED_FULL", "applied_by": "git apply"}) == "passed"
    assert status_of({"resolution": "RESOLVED_NO", "applied_by": "git apply", "statuses": {"t": "FAILED"}}) == "failed"
    assert status_of({"resolution": "RESOLVED_PARTIAL", "applied_by": "git apply", "statuses": {"t": "PASSED"}}) == "failed"
    assert status_of({"resolution": "RESOLVED_NO", "applied_by": "", "empty_patch": True}) == "compile_error"
    assert status_of({"resolution": "RESOLVED_NO", "applied_by": "", "error": "the model patch does not apply"}) == "compile_error"
    assert status_of({"resolution": "RESOLVED_NO", "applied_by": "git apply", "statuses": {}}) == "runtime_error"
    assert status_of({"resolution": "RESOLVED_NO", "applied_by": "git apply", "error": "the test command passed the limit of 9 s"}) == "timeout"
    assert status_of({"resolution": "error", "error": "repository: gone"}) == "sandbox_error"


@pytest.mark.shared_data
def test_swe_runs_in_report_compare_and_the_html_page(tmp_path: Path) -> None:
    data = _data()
    tasks = {t.instance_id: t for t in load_tasks([data / "repo-tasks"])}
    common = ["--tasks", str(data / "repo-tasks"), "--repos", str(data / "repos"), "--python", str(PYTHON), "--cache-dir", str(tmp_path / "cache"),
              "--instance-ids", TWO]
    # Model A: the gold patch on one task, a patch that does not apply on the other; model B: gold on both, twice.
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"instance_id": "andialbrecht__sqlparse-e92a032", "model_patch": tasks["andialbrecht__sqlparse-e92a032"].patch,
                             "model_name_or_path": "model-a"}) + "\n" +
                 json.dumps({"instance_id": "tkem__cachetools-57d2e48", "model_patch": "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
                             "model_name_or_path": "model-a"}) + "\n")
    b = tmp_path / "b.jsonl"
    b.write_text("".join(json.dumps({"instance_id": i, "model_patch": tasks[i].patch, "model_name_or_path": "model-b"}) + "\n" for i in TWO.split(",")))
    for name, preds, extra in (("a", a, []), ("b", b, ["--runs-per-task", "2"])):
        ran = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--predictions", str(preds), *extra, "--out", str(tmp_path / "runs" / name)])
        assert ran.exit_code == 0, ran.output
    run = load_run(tmp_path / "runs" / "a")
    assert run.benchmark.name == "swe:repo-tasks" and run.model == "model-a" and run.suites["swe:repo-tasks"] == {
        "andialbrecht__sqlparse-e92a032": [True], "tkem__cachetools-57d2e48": [False]}
    assert {s.status for s in run.samples} == {"passed", "compile_error"} and run.score("swe:repo-tasks", 1).value == 0.5
    assert any("precision" in n and "1/1" in n for n in run.notes)
    md = CliRunner().invoke(cli.app, ["report", str(tmp_path / "runs"), "--format", "md"])
    assert md.exit_code == 0 and "swe:repo-tasks" in md.output and "model-a" in md.output and "model-b" in md.output, md.output
    html_path = tmp_path / "report.html"
    page = CliRunner().invoke(cli.app, ["report", str(tmp_path / "runs" / "a"), str(tmp_path / "runs" / "b"), "--out", str(html_path)])
    assert page.exit_code == 0, page.output
    html = html_path.read_text()
    # The per-task view: the patch, a wanted test's status after it with its status before, the log.
    assert "sqlparse/engine/statement_splitter.py" in html or "diff --git" in html
    assert "before: failing (FAIL_TO_PASS)" in html and "before: passing (PASS_TO_PASS)" in html and "test session starts" in html
    compared = CliRunner().invoke(cli.app, ["compare", str(tmp_path / "runs" / "a"), str(tmp_path / "runs" / "b"), "--format", "md"])
    assert compared.exit_code == 0 and "tkem__cachetools-57d2e48" in compared.output, compared.output
    # An unfinished run is said, as for function-level runs.
    rows = (tmp_path / "runs" / "b" / "results.jsonl").read_text().splitlines()
    (tmp_path / "runs" / "b" / "results.jsonl").write_text("\n".join(rows[:2]) + "\n{cut")
    cut = CliRunner().invoke(cli.app, ["report", str(tmp_path / "runs" / "b"), "--format", "md"])
    assert cut.exit_code == 2 and "unfinished (2 of 4 task runs graded)" in cut.output, cut.output
