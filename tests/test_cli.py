"""The command line: one-line errors for bad input, results files, and the recorded configuration."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from assay import cli
from assay.sandbox import bubblewrap

runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(cli.app, list(args))


def _one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert text.startswith("error:"), text
    assert "Traceback" not in text
    return " ".join(text.split())


def test_unknown_benchmark(tmp_path: Path) -> None:
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "HumanEval/0", "completion": "    return True\\n"}\n')
    msg = _one_line_error(_invoke("evaluate", "humanevil", "--samples", str(samples)))
    assert "unknown benchmark 'humanevil'" in msg and "humaneval" in msg


def test_malformed_samples_line(tmp_path: Path) -> None:
    samples = tmp_path / "bad.jsonl"
    samples.write_text('{"task_id": "HumanEval/0", "completion": "x"}\n{"task_id": oops}\n')
    msg = _one_line_error(_invoke("evaluate", "humaneval", "--samples", str(samples), "--run-dir", str(tmp_path / "r")))
    assert "bad.jsonl:2" in msg


def test_missing_samples_file_and_bad_k(tmp_path: Path) -> None:
    msg = _one_line_error(_invoke("evaluate", "humaneval", "--samples", str(tmp_path / "nope.jsonl")))
    assert "nope.jsonl" in msg
    msg = _one_line_error(_invoke("evaluate", "humaneval", "--samples", str(tmp_path / "x.jsonl"), "--k", "1,zero"))
    assert "--k" in msg


def test_refuses_without_bubblewrap_unless_weak_sandbox_accepted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(bubblewrap.BubblewrapSandbox, "available", classmethod(lambda cls: bubblewrap.Availability(False, "bwrap not found")))
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "HumanEval/0", "completion": "    return False\\n"}\n')
    msg = _one_line_error(_invoke("evaluate", "humaneval", "--samples", str(samples), "--run-dir", str(tmp_path / "r")))
    assert "--allow-weak-sandbox" in msg and "bubblewrap" in msg
    out = tmp_path / "scores.json"
    result = _invoke("evaluate", "humaneval", "--samples", str(samples), "--run-dir", str(tmp_path / "r2"),
                     "--allow-weak-sandbox", "--json", str(out), "--plain")
    assert result.exit_code == 0, result.output
    config = json.loads(out.read_text())["config"]
    assert config["sandbox"]["name"] == "process"
    assert "no filesystem or network isolation" in config["sandbox"]["isolation"].lower() or "not" in config["sandbox"]["isolation"].lower()


def test_results_and_configuration(tmp_path: Path) -> None:
    samples = tmp_path / "s.jsonl"
    rows = [
        {"task_id": "HumanEval/0", "completion": "    return False\n", "model": "m"},
        {"task_id": "HumanEval/0", "completion": "    return (\n", "model": "m"},
        {"task_id": "HumanEval/999", "completion": "    return 1\n"},
    ]
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "scores.json"
    result = _invoke("evaluate", "humaneval", "--samples", str(samples), "--run-dir", str(tmp_path / "run"), "--json", str(out), "--k", "1,5", "--plain")
    assert result.exit_code == 0, result.output
    assert "HumanEval/999" in result.output  # unknown task ids are reported, not dropped silently
    data = json.loads(out.read_text())
    cfg = data["config"]
    assert cfg["assay"]["version"] and "git_commit" in cfg["assay"]
    assert cfg["benchmark"]["name"] == "humaneval" and len(cfg["benchmark"]["content_hash"]) == 64
    assert cfg["toolchain"]["python"].startswith("CPython")
    assert cfg["settings"]["memory_bytes"] > 0 and cfg["sandbox"]["name"] == "bubblewrap"
    assert data["unknown_task_ids"] == {"HumanEval/999": 1}
    assert data["status_counts"]["failed"] == 1 and data["status_counts"]["compile_error"] == 1
    assert data["scores"]["humaneval"]["pass@1"]["value"] == 0.0
    assert data["scores"]["humaneval"]["pass@5"]["value"] is None  # k > n: reported, not averaged in
    assert data["scores"]["humaneval"]["pass@5"]["excluded"] == ["HumanEval/0"]
    results = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in results] == ["failed", "compile_error"]
    assert all({"task_id", "completion", "passed", "result", "status", "tests", "model"} <= set(r) for r in results)
    assert results[1]["result"].startswith("failed: SyntaxError")


def test_run_dir_of_another_run_is_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"task_id": "HumanEval/0", "completion": "    return False\\n"}\n')
    b.write_text('{"task_id": "HumanEval/0", "completion": "    return True\\n"}\n')
    assert _invoke("evaluate", "humaneval", "--samples", str(a), "--run-dir", str(tmp_path / "r"), "--plain").exit_code == 0
    msg = _one_line_error(_invoke("evaluate", "humaneval", "--samples", str(b), "--run-dir", str(tmp_path / "r"), "--plain"))
    assert "different run" in msg
