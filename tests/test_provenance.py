"""The run record and the schema version: in results.jsonl, in `--json` and in the store, and a store
of another version is refused with one line by every command that opens it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.provenance import SCHEMA_VERSION, RunRecord, SchemaMismatch, check_schema
from assay.store import RunStore, RunStoreError

runner = CliRunner()
RIGHT = "    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n            if abs(a - b) < threshold:\n                return True\n    return False\n"


def _evaluate(tmp_path: Path, run_dir: Path, out: Path):  # type: ignore[no-untyped-def]
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "HumanEval/0", "completion": RIGHT}) + "\n")
    return runner.invoke(cli.app, ["evaluate", "humaneval", "--samples", str(samples), "--task-ids", "HumanEval/0",
                                   "--run-dir", str(run_dir), "--json", str(out), "--k", "1", "--plain"])


def _set_version(run_dir: Path, version: object) -> None:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (json.dumps(version),))


def test_every_output_carries_the_schema_version(tmp_path: Path) -> None:
    run_dir, out = tmp_path / "run", tmp_path / "scores.json"
    result = _evaluate(tmp_path, run_dir, out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["schema_version"] == SCHEMA_VERSION and data["config"]["schema_version"] == SCHEMA_VERSION
    record = RunRecord.model_validate(data["config"])  # the record is the typed one, nothing else in it
    assert record.benchmark.name == "humaneval" and record.samples is not None and record.samples.n == 1 and record.ks == [1]
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert rows and all(r["schema_version"] == SCHEMA_VERSION for r in rows)
    store = RunStore(run_dir)
    assert store.meta("schema_version") == SCHEMA_VERSION and store.meta("config") == data["config"]
    store.close()


@pytest.mark.parametrize(("version", "says"), [(SCHEMA_VERSION + 1, "newer"), (0, "rerun it into a new --run-dir"), ("x", "not this Assay's")])
def test_a_store_of_another_schema_version_is_refused(tmp_path: Path, version: object, says: str) -> None:
    run_dir, out = tmp_path / "run", tmp_path / "scores.json"
    assert _evaluate(tmp_path, run_dir, out).exit_code == 0
    _set_version(run_dir, version)
    with pytest.raises(RunStoreError, match=says):
        RunStore(run_dir)
    for args in (["report", str(run_dir)], None):
        result = runner.invoke(cli.app, args) if args else _evaluate(tmp_path, run_dir, tmp_path / "again.json")
        text = " ".join(result.output.split())
        assert result.exit_code != 0 and text.startswith("error:") and "schema version" in text and says in text, text
        assert "Traceback" not in text
    assert not (tmp_path / "again.json").exists()  # nothing was scored into the old store


def test_a_store_from_before_the_version_was_written_reads_as_version_1(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.close()
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        db.execute("DELETE FROM meta WHERE key='schema_version'")
    store = RunStore(tmp_path / "run")
    assert store.meta("schema_version") == SCHEMA_VERSION == 1
    store.close()


def test_check_schema_passes_only_this_version() -> None:
    check_schema(SCHEMA_VERSION, "x")
    check_schema(None, "x")
    for other in (SCHEMA_VERSION + 1, SCHEMA_VERSION - 1, "1"):
        with pytest.raises(SchemaMismatch):
            check_schema(other, "x")
