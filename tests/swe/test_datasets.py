"""Repository-task datasets from the Hugging Face Hub at a pinned commit, tested against a real HTTP server on
loopback that answers as the Hub does (its revision API and /resolve/ downloads), serving parquet files made
from the verified instances in shared/data/repo-tasks; and SWE-bench 5's rows (eval_script, image)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.swe.datasets import DatasetUnavailable, _split_files, fetch, load
from assay.swe.harness import Sandbox
from assay.swe.tasks import load_tasks, task_from
from tests.fakes.hub import Hub, serve_hub
from tests.swe.test_swe import PYTHON, _data

SHA = "0123456789abcdef0123456789abcdef01234567"
LITE = "SWE-bench/SWE-bench_Lite"


@pytest.fixture()
def hub(tmp_path: Path) -> Iterator[tuple[Hub, str]]:
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    data = _data()
    rows = [json.loads((data / "repo-tasks" / f"{i}.json").read_text()) for i in ("andialbrecht__sqlparse-e92a032", "tkem__cachetools-57d2e48")]
    for row in rows:  # as the Hub's parquet holds them: the test lists JSON-encoded
        for key in ("FAIL_TO_PASS", "PASS_TO_PASS", "env_vars"):
            row[key] = row[key] if isinstance(row.get(key), str) else json.dumps(row.get(key) or {})
    # Lists (test_directives) stay lists, as parquet holds them.
    table = pa.Table.from_pylist([{k: (v if isinstance(v, str | list) else json.dumps(v)) for k, v in r.items()} for r in rows])
    pq.write_table(table, tmp_path / "test.parquet")
    state = Hub(LITE, SHA, {"data/test-00000-of-00001.parquet": (tmp_path / "test.parquet").read_bytes(), "data/dev-00000-of-00001.parquet": b"not this"},
                listed=("README.md",))
    with serve_hub(state) as url:
        yield state, url


@pytest.mark.shared_data
def test_a_hub_dataset_is_fetched_once_at_a_pinned_commit_and_read_offline(hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    state, url = hub
    monkeypatch.setenv("HF_ENDPOINT", url)
    fetched = fetch("swe-bench-lite", tmp_path / "cache")
    assert fetched.commit == SHA and fetched.source == f"hf://{LITE}@{SHA}/test" and [p.name for p in fetched.files] == \
        ["data__test-00000-of-00001.parquet"]  # the test split only, not dev
    tasks = load(fetched)
    local = {t.instance_id: t for t in load_tasks([_data() / "repo-tasks"])}
    assert {t.instance_id for t in tasks} == {"andialbrecht__sqlparse-e92a032", "tkem__cachetools-57d2e48"}
    for t in tasks:  # the same tasks as the local files: lists decoded, Assay's keys kept
        assert (t.fail_to_pass, t.pass_to_pass, t.test_cmd, t.base_commit) == (local[t.instance_id].fail_to_pass, local[t.instance_id].pass_to_pass,
                                                                             local[t.instance_id].test_cmd, local[t.instance_id].base_commit)
        assert t.extra["source"] == fetched.source
    # "main" is pinned to the commit it resolved to: the next load asks nothing, and the files are checked by sha256.
    asked = len(state.requests)
    assert fetch("swe-bench-lite", tmp_path / "cache").commit == SHA and len(state.requests) == asked
    assert fetch("swe-bench-lite", tmp_path / "cache", revision=SHA).files == fetched.files and len(state.requests) == asked
    fetch("swe-bench-lite", tmp_path / "cache", refresh=True)
    assert len(state.requests) > asked
    with pytest.raises(DatasetUnavailable, match="no revision 'v9'"):
        fetch("swe-bench-lite", tmp_path / "other", revision="v9")
    state.garbage = True
    with pytest.raises(DatasetUnavailable, match="not the Hub's API"):
        fetch("swe-bench-lite", tmp_path / "third")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens: offline
    with pytest.raises(DatasetUnavailable, match="not in the cache and not fetched"):
        fetch("swe-bench-lite", tmp_path / "fourth")
    assert fetch("swe-bench-lite", tmp_path / "cache").commit == SHA  # the pinned copy still reads offline
    with pytest.raises(DatasetUnavailable, match="not a Hub id"):
        fetch("not a name", tmp_path / "cache")


@pytest.mark.shared_data
def test_swe_evaluate_grades_a_hub_dataset(hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    _, url = hub
    monkeypatch.setenv("HF_ENDPOINT", url)
    out = tmp_path / "out"
    ran = CliRunner().invoke(cli.app, ["swe", "evaluate", "--dataset", "swe-bench-lite", "--gold", "--repos", str(_data() / "repos"), "--python",
                                       str(PYTHON), "--cache-dir", str(tmp_path / "cache"), "--out", str(out)])
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert ran.exit_code == 0 and {r["resolution"] for r in rows} == {"RESOLVED_FULL"} and len(rows) == 2, ran.output
    assert json.loads((out / "run.json").read_text())["benchmark"]["name"] == f"swe:SWE-bench_Lite@{SHA[:12]}"
    both = CliRunner().invoke(cli.app, ["swe", "evaluate", "--dataset", "swe-bench-lite", "--tasks", "x.jsonl", "--gold", "--out", str(out)])
    assert both.exit_code == 2 and "one of them" in both.output


def test_split_files_and_swe_bench_5_rows() -> None:
    assert _split_files(["data/test-00000-of-00002.parquet", "data/test-00001-of-00002.parquet", "data/dev-0.parquet", "README.md"], "test") == \
        ["data/test-00000-of-00002.parquet", "data/test-00001-of-00002.parquet"]
    # Multi-SWE-bench: one JSON Lines file per repository, no split in the names.
    assert _split_files(["java/alibaba__fastjson2_dataset.jsonl", "go/cli__cli_dataset.jsonl", ".gitattributes"], "test") == \
        ["go/cli__cli_dataset.jsonl", "java/alibaba__fastjson2_dataset.jsonl"]
    row = {"instance_id": "o__r-1", "repo": "o/r", "base_commit": "abc", "test_patch": "", "FAIL_TO_PASS": "[]", "PASS_TO_PASS": "[]",
           "image": "docker.io/swebench/sweb.eval.x86_64.o_1776_r-1:latest", "log_parser": "parse_log_pytest",
           "eval_script": "#!/bin/bash\ncd /testbed\necho '>>>>> Start Test Output'\npytest -rA t.py\necho '>>>>> End Test Output'\n"}
    task = task_from(row, "row")
    assert task.log_parser == "pytest" and task.test_cmd.startswith("bash -c '#!/bin/bash") and "pytest -rA t.py" in task.test_cmd
    assert Sandbox("podman", None, "dataset").image_for(task) == row["image"]
    assert Sandbox("podman", None, "dataset").per_instance
