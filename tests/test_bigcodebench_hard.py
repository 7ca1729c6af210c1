"""BigCodeBench-Hard (`bigcodebench-hard`, `-instruct-hard`): its task ids from the Hub's bigcode/bigcodebench-hard
split, fetched once through a real HTTP server on loopback that answers as the Hub does, pinned and then read
offline, or from a local file; the tasks are the full set's, at the same version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.benchmarks import load_benchmark
from tests.conftest import shared_data
from tests.fakes.hub import Hub, serve_hub

SHA = "fedcba9876543210fedcba9876543210fedcba98"
IDS = ["BigCodeBench/13", "BigCodeBench/205", "BigCodeBench/779"]


def _data() -> Path:
    data = shared_data()
    if not (data / "bigcodebench" / "hf_data").is_dir():
        pytest.skip("needs the shared data directory (bigcodebench/hf_data/)")
    return data


@pytest.mark.shared_data
def test_hard_ids_come_from_the_hub_once_and_then_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    data = _data()
    full = load_benchmark("bigcodebench", data_dir=data, cache_dir=tmp_path)
    rows = [{"task_id": i, "complete_prompt": full.problems[i].prompt, "libs": "[]"} for i in IDS]  # the Hub's rows are whole tasks
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "hard.parquet")
    state = Hub("bigcode/bigcodebench-hard", SHA, {"data/v0.1.4-00000-of-00001.parquet": (tmp_path / "hard.parquet").read_bytes(),
                                                   "data/v0.1.0_hf-00000-of-00001.parquet": b"not this"})
    with serve_hub(state) as url:
        monkeypatch.setenv("HF_ENDPOINT", url)
        hard = load_benchmark("bigcodebench-hard", data_dir=data, cache_dir=tmp_path)
    assert list(hard.problems) == IDS and hard.name == "bigcodebench-hard"
    assert all(hard.problems[i] == full.problems[i] for i in IDS)  # the full set's tasks, fixes and all
    assert f"hf://bigcode/bigcodebench-hard@{SHA}/v0.1.4" in hard.version and hard.content_hash != full.content_hash
    assert not any("v0.1.0_hf" in r for r in state.requests)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens: read from the cache, at the pinned commit
    again = load_benchmark("bigcodebench-instruct-hard", data_dir=data, cache_dir=tmp_path)
    assert list(again.problems) == IDS and again.name == "bigcodebench-instruct-hard"
    with pytest.raises(ValueError, match=r"on the Hub only.*--dataset-file"):
        load_benchmark("bigcodebench-hard/v0.1.0", data_dir=data, cache_dir=tmp_path)  # another split: not cached, no Hub


@pytest.mark.shared_data
def test_hard_ids_from_a_local_file_and_bad_ones(tmp_path: Path) -> None:
    data = _data()
    ids = tmp_path / "hard-ids.txt"
    ids.write_text("BigCodeBench/779\nBigCodeBench/205\n")
    bench = load_benchmark("bigcodebench-hard", data_dir=data, cache_dir=tmp_path, path=ids)
    assert list(bench.problems) == ["BigCodeBench/205", "BigCodeBench/779"] and f"local {ids}" in bench.version
    rows = tmp_path / "hard.jsonl"
    rows.write_text(json.dumps({"task_id": "BigCodeBench/99999"}) + "\n")
    with pytest.raises(ValueError, match=r"1 ids are not BigCodeBench tasks \(BigCodeBench/99999\)"):
        load_benchmark("bigcodebench-hard", data_dir=data, cache_dir=tmp_path, path=rows)
    ran = CliRunner().invoke(cli.app, ["evaluate", "bigcodebench-hard", "--references", "--dataset-file", str(ids), "--data-dir", str(data),
                                       "--cache-dir", str(tmp_path), "--run-dir", str(tmp_path / "run")])
    assert ran.exit_code == 0, ran.output
    assert "2/2" in ran.output or "2 / 2" in ran.output or "100.0" in ran.output, ran.output
