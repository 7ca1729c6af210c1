"""Rule 3: every benchmark's reference solutions pass their own tests (HumanEval, HumanEval+, MBPP+)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli


@pytest.mark.slow
@pytest.mark.parametrize("name", ["humaneval", "humaneval-plus", "mbpp-plus"])
def test_reference_solutions_pass(name: str, tmp_path: Path, data_dir: Path) -> None:
    out = tmp_path / "scores.json"
    result = CliRunner().invoke(
        cli.app,
        ["evaluate", name, "--references", "--data-dir", str(data_dir), "--run-dir", str(tmp_path / "run"), "--json", str(out), "--plain", "--k", "1"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["defective_problems"] == {}, data["defective_problems"]
    n = data["config"]["benchmark"]["n_problems"]
    assert data["status_counts"]["passed"] == n, data["status_counts"]
