"""Reading and writing samples files: both formats, gzip, index rules, and every user error."""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from assay.samples import Sample, SamplesError, read_samples, split_known, write_jsonl

SHARED_DATA = Path(
    os.environ.get("ASSAY_DATA_DIR") or os.environ.get("ASSAY_SHARED_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data"
)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def rows_to_lines(rows: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(row) for row in rows]


def read_error(path: Path) -> str:
    with pytest.raises(SamplesError) as info:
        read_samples(path)
    message = str(info.value)
    assert "\n" not in message, message
    assert isinstance(info.value, ValueError)
    return message


# ---- formats ------------------------------------------------------------------------------------


def test_human_eval_format(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "samples.jsonl",
        rows_to_lines(
            [
                {"task_id": "HumanEval/0", "completion": "    return 1\n"},
                {"task_id": "HumanEval/1", "completion": "    return 2\n"},
                {"task_id": "HumanEval/0", "completion": "    return 3\n"},
            ]
        ),
    )
    samples = read_samples(path)
    assert samples == [
        Sample("HumanEval/0", 0, "    return 1\n", None, 1),
        Sample("HumanEval/1", 0, "    return 2\n", None, 2),
        Sample("HumanEval/0", 1, "    return 3\n", None, 3),
    ]
    assert all(s.extra == {} for s in samples)


def test_evalplus_format(tmp_path: Path) -> None:
    program = "def f(x):\n    return x\n"
    path = write_lines(
        tmp_path / "samples.jsonl",
        rows_to_lines([{"task_id": "Mbpp/2", "solution": program}, {"task_id": "Mbpp/2", "solution": ""}]),
    )
    samples = read_samples(path)
    assert [(s.task_id, s.index, s.completion, s.solution) for s in samples] == [
        ("Mbpp/2", 0, None, program),
        ("Mbpp/2", 1, None, ""),
    ]


def test_solution_wins_over_completion_and_completion_kept_as_extra(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        rows_to_lines([{"task_id": "T/0", "completion": "body", "solution": "full program"}]),
    )
    (sample,) = read_samples(path)
    assert sample.solution == "full program"
    assert sample.completion is None
    assert sample.extra == {"completion": "body"}


def test_null_code_field_counts_as_absent(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", rows_to_lines([{"task_id": "T/0", "completion": "x", "solution": None}]))
    (sample,) = read_samples(path)
    assert (sample.completion, sample.solution) == ("x", None)
    assert sample.extra == {"solution": None}


def test_extra_fields_preserved(tmp_path: Path) -> None:
    row = {
        "task_id": "T/0",
        "completion": "x",
        "model": "gpt-x",
        "temperature": 0.8,
        "result": "passed",
        "passed": True,
        "meta": {"tokens": [1, 2, 3]},
    }
    (sample,) = read_samples(write_lines(tmp_path / "s.jsonl", rows_to_lines([row])))
    assert sample.extra == {k: v for k, v in row.items() if k not in ("task_id", "completion")}


def test_gzip_detected_by_magic_bytes_not_name(tmp_path: Path) -> None:
    text = "".join(rows_to_lines([{"task_id": "T/0", "completion": "é ünïcode"}])) + "\n"
    named = tmp_path / "s.jsonl.gz"
    named.write_bytes(gzip.compress(text.encode()))
    unnamed = tmp_path / "s.jsonl"  # gzip data under a plain name
    unnamed.write_bytes(gzip.compress(text.encode()))
    plain_named_gz = tmp_path / "plain.jsonl.gz"  # plain text under a .gz name
    plain_named_gz.write_text(text, encoding="utf-8")
    for path in (named, unnamed, plain_named_gz):
        (sample,) = read_samples(path)
        assert sample.completion == "é ünïcode"


def test_blank_lines_bom_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    body = '\ufeff{"task_id": "T/0", "completion": "a"}\r\n\r\n   \n{"task_id": "T/0", "completion": "b"}\r\n\n'
    path.write_bytes(body.encode("utf-8"))
    samples = read_samples(path)
    assert [(s.completion, s.index, s.line) for s in samples] == [("a", 0, 1), ("b", 1, 4)]


def test_accepts_str_path(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", rows_to_lines([{"task_id": "T/0", "completion": "a"}]))
    assert len(read_samples(str(path))) == 1


# ---- index rules --------------------------------------------------------------------------------


def test_index_from_completion_id_and_sample_index(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        rows_to_lines(
            [
                {"task_id": "T/0", "completion": "a", "completion_id": 7},
                {"task_id": "T/0", "completion": "b", "sample_index": 3},
                {"task_id": "T/1", "completion": "c", "completion_id": 0, "sample_index": 0},
            ]
        ),
    )
    samples = read_samples(path)
    assert [(s.task_id, s.index) for s in samples] == [("T/0", 7), ("T/0", 3), ("T/1", 0)]
    # The index fields become `index`; they are not repeated in extra.
    assert all(s.extra == {} for s in samples)


def test_index_counter_counts_earlier_rows_of_same_task(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        rows_to_lines(
            [
                {"task_id": "A", "completion": "1", "completion_id": 5},
                {"task_id": "B", "completion": "2"},
                {"task_id": "A", "completion": "3"},  # one earlier A row: index 1
                {"task_id": "B", "completion": "4"},
                {"task_id": "A", "completion": "5"},
            ]
        ),
    )
    assert [(s.task_id, s.index) for s in read_samples(path)] == [("A", 5), ("B", 0), ("A", 1), ("B", 1), ("A", 2)]


def test_out_of_order_explicit_indices(tmp_path: Path) -> None:
    rows = [{"task_id": "T", "completion": str(i), "sample_index": i} for i in (2, 0, 1)]
    samples = read_samples(write_lines(tmp_path / "s.jsonl", rows_to_lines(rows)))
    assert [s.index for s in samples] == [2, 0, 1]
    assert [s.completion for s in samples] == ["2", "0", "1"]


def test_duplicate_explicit_index(tmp_path: Path) -> None:
    rows = [
        {"task_id": "T/0", "completion": "a", "sample_index": 0},
        {"task_id": "T/1", "completion": "b", "sample_index": 0},
        {"task_id": "T/0", "completion": "c", "sample_index": 0},
    ]
    message = read_error(write_lines(tmp_path / "dup.jsonl", rows_to_lines(rows)))
    assert message.startswith(f"{tmp_path / 'dup.jsonl'}:3: duplicate sample")
    assert '"T/0"' in message and "first on line 1" in message


def test_duplicate_between_counter_and_explicit_index(tmp_path: Path) -> None:
    rows = [
        {"task_id": "T/0", "completion": "a"},  # counter: 0
        {"task_id": "T/0", "completion": "b", "completion_id": 0},
    ]
    message = read_error(write_lines(tmp_path / "dup.jsonl", rows_to_lines(rows)))
    assert "dup.jsonl:2:" in message and "first on line 1" in message


@pytest.mark.parametrize(
    ("value", "shown"), [("3", '"3"'), (1.0, "1.0"), (-1, "-1"), (True, "true"), ([0], "[0]")]
)
def test_bad_index_value(tmp_path: Path, value: Any, shown: str) -> None:
    rows = [{"task_id": "T/0", "completion": "a"}, {"task_id": "T/0", "completion": "b", "completion_id": value}]
    message = read_error(write_lines(tmp_path / "idx.jsonl", rows_to_lines(rows)))
    assert "idx.jsonl:2:" in message
    assert '"completion_id" must be a non-negative integer' in message and shown in message


def test_null_index_counts_as_absent(tmp_path: Path) -> None:
    rows = [{"task_id": "T/0", "completion": "a", "completion_id": None}] * 2
    samples = read_samples(write_lines(tmp_path / "s.jsonl", rows_to_lines(rows)))
    assert [(s.index, s.extra) for s in samples] == [(0, {}), (1, {})]


def test_disagreeing_index_fields(tmp_path: Path) -> None:
    rows = [{"task_id": "T/0", "completion": "b", "completion_id": 1, "sample_index": 2}]
    message = read_error(write_lines(tmp_path / "idx.jsonl", rows_to_lines(rows)))
    assert "idx.jsonl:1:" in message and "completion_id=1, sample_index=2 disagree" in message


# ---- user errors --------------------------------------------------------------------------------


def test_invalid_json(tmp_path: Path) -> None:
    lines = rows_to_lines([{"task_id": f"T/{i}", "completion": "x"} for i in range(16)])
    lines.append('{"task_id": "T/16" "completion": "x"}')
    path = write_lines(tmp_path / "samples.jsonl", lines)
    message = read_error(path)
    assert message == (
        f"{path}:17: not valid JSON (Expecting ',' delimiter); each line must be one JSON object"
    )


def test_pretty_printed_json_points_at_first_line(tmp_path: Path) -> None:
    path = tmp_path / "pretty.jsonl"
    path.write_text(json.dumps({"task_id": "T/0", "completion": "x"}, indent=2) + "\n")
    message = read_error(path)
    assert re.match(rf"{re.escape(str(path))}:1: not valid JSON \(.+\); each line must be one JSON object$", message)


@pytest.mark.parametrize(("line", "what"), [("[1, 2]", "an array"), ('"text"', "a string"), ("3", "a number")])
def test_row_not_an_object(tmp_path: Path, line: str, what: str) -> None:
    message = read_error(write_lines(tmp_path / "s.jsonl", [line]))
    assert message.startswith(f"{tmp_path / 's.jsonl'}:1: expected a JSON object, got {what}")


def test_missing_task_id(tmp_path: Path) -> None:
    lines = ["", json.dumps({"task_id": "T/0", "completion": "x"}), json.dumps({"completion": "y"})]
    message = read_error(write_lines(tmp_path / "s.jsonl", lines))
    assert message.startswith(f"{tmp_path / 's.jsonl'}:3: missing \"task_id\"")


@pytest.mark.parametrize(("value", "what"), [(11, "a number 11"), (None, "null null"), (["a"], 'an array ["a"]')])
def test_task_id_wrong_type(tmp_path: Path, value: Any, what: str) -> None:
    message = read_error(write_lines(tmp_path / "s.jsonl", rows_to_lines([{"task_id": value, "completion": "x"}])))
    assert f's.jsonl:1: "task_id" must be a string, got {what}' in message


def test_task_id_empty(tmp_path: Path) -> None:
    message = read_error(write_lines(tmp_path / "s.jsonl", rows_to_lines([{"task_id": "", "completion": "x"}])))
    assert 's.jsonl:1: "task_id" is empty' in message


def test_neither_completion_nor_solution(tmp_path: Path) -> None:
    rows = [{"task_id": "T/0", "completion": "x"}, {"task_id": "T/1", "code": "x"}]
    message = read_error(write_lines(tmp_path / "s.jsonl", rows_to_lines(rows)))
    assert message.startswith(f'{tmp_path / "s.jsonl"}:2: neither "completion" nor "solution" is given')


@pytest.mark.parametrize(
    ("row", "field", "what"),
    [
        ({"task_id": "T/0", "completion": ["a", "b"]}, "completion", "an array"),
        ({"task_id": "T/0", "completion": 3}, "completion", "a number"),
        ({"task_id": "T/0", "solution": {"code": "x"}}, "solution", "an object"),
        ({"task_id": "T/0", "solution": False, "completion": "x"}, "solution", "a boolean"),
    ],
)
def test_code_field_wrong_type(tmp_path: Path, row: dict[str, Any], field: str, what: str) -> None:
    message = read_error(write_lines(tmp_path / "s.jsonl", rows_to_lines([row])))
    assert f's.jsonl:1: "{field}" must be a string, got {what}' in message


def test_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"task_id": "T/0", "completion": "a"}\n{"task_id": "T/1", "completion": "\xff"}\n')
    message = read_error(path)
    assert message.startswith(f"{path}:2: not valid UTF-8") and "save the file as UTF-8" in message


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf\n"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    message = read_error(path)
    assert message.startswith(f"{path}: the file has no samples")


def test_empty_gzip_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl.gz"
    path.write_bytes(gzip.compress(b""))
    assert read_error(path).startswith(f"{path}: the file has no samples")


def test_file_not_found(tmp_path: Path) -> None:
    path = tmp_path / "missing.jsonl"
    assert read_error(path) == f"{path}: file not found; check the path"


def test_directory(tmp_path: Path) -> None:
    """A directory is read in EvalPlus's layout; one without samples says what that layout is."""
    assert read_error(tmp_path).startswith(f"{tmp_path}: the directory has no samples; EvalPlus's layout")
    (tmp_path / "HumanEval_3").mkdir()
    (tmp_path / "HumanEval_3" / "1.py").write_text("def f(): pass\n")
    (tmp_path / "HumanEval_3" / "0.py").write_text("def f(): return 0\n")
    (tmp_path / "Other_9").mkdir()
    (tmp_path / "Other_9" / "0.py").write_text("x = 1\n")
    samples = read_samples(tmp_path, task_ids=["HumanEval/3"])
    assert [(s.task_id, s.index, s.solution) for s in samples] == [
        ("HumanEval/3", 0, "def f(): return 0\n"), ("HumanEval/3", 1, "def f(): pass\n"), ("Other_9", 0, "x = 1\n")]


def test_truncated_gzip(tmp_path: Path) -> None:
    rows = [{"task_id": f"T/{i % 7}", "completion": f"return {i} " * 30} for i in range(3_000)]
    data = gzip.compress(("\n".join(rows_to_lines(rows)) + "\n").encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    message = read_error(path)
    match = re.match(rf"{re.escape(str(path))}:(\d+): the gzip data is truncated or corrupt \(.+\); ", message)
    assert match, message
    # The error points just past the last complete line, somewhere inside the file.
    assert 1 < int(match.group(1)) < 3_000


def test_corrupt_gzip_checksum(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(b'{"task_id": "T/0", "completion": "x"}\n'))
    data[-8:-4] = b"\0\0\0\0"  # the CRC32 of the trailer
    path = tmp_path / "crc.jsonl.gz"
    path.write_bytes(bytes(data))
    assert "the gzip data is truncated or corrupt (CRC check failed" in read_error(path)


def test_control_characters_in_task_id_stay_on_one_line(tmp_path: Path) -> None:
    rows = [{"task_id": "a\nb", "completion": "x", "completion_id": 0}] * 2
    message = read_error(write_lines(tmp_path / "s.jsonl", rows_to_lines(rows)))
    assert '"a\\nb"' in message


# ---- split_known --------------------------------------------------------------------------------


def test_split_known_counts_unknown_ids(tmp_path: Path) -> None:
    rows = [{"task_id": t, "completion": "x"} for t in ["A", "X", "B", "X", "Y", "A"]]
    samples = read_samples(write_lines(tmp_path / "s.jsonl", rows_to_lines(rows)))
    known, unknown = split_known(samples, ["A", "B", "C"])
    assert [(s.task_id, s.index) for s in known] == [("A", 0), ("B", 0), ("A", 1)]
    assert unknown == {"X": 2, "Y": 1}
    assert list(unknown) == ["X", "Y"]  # first-seen order
    assert split_known(samples, {"A", "B", "X", "Y"})[1] == {}


# ---- writing ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["out.jsonl", "out.jsonl.gz"])
def test_write_then_read_round_trip(tmp_path: Path, name: str) -> None:
    rows = [
        {"task_id": "T/0", "completion": "é\n\ttab", "completion_id": 0, "score": 0.5},
        {"task_id": "T/0", "solution": "def f(): pass", "completion_id": 1},
    ]
    path = tmp_path / name
    assert write_jsonl(path, iter(rows)) == 2
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")
    samples = read_samples(path)
    assert [(s.index, s.completion, s.solution, s.extra) for s in samples] == [
        (0, "é\n\ttab", None, {"score": 0.5}),
        (1, None, "def f(): pass", {}),
    ]
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temp file left behind


def test_write_gzip_is_reproducible(tmp_path: Path) -> None:
    rows = [{"task_id": "T/0", "completion": "x"}]
    write_jsonl(tmp_path / "a.jsonl.gz", rows)
    write_jsonl(tmp_path / "b.jsonl.gz", rows)
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()


def test_write_replaces_atomically_and_keeps_old_file_on_error(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    write_jsonl(path, [{"task_id": "old", "completion": "x"}])

    def rows() -> Any:
        yield {"task_id": "new", "completion": "y"}
        raise RuntimeError("generator failed mid-way")

    with pytest.raises(RuntimeError):
        write_jsonl(path, rows())
    assert [s.task_id for s in read_samples(path)] == ["old"]
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]

    with pytest.raises(TypeError):
        write_jsonl(path, [{"task_id": "new", "completion": object()}])
    assert [s.task_id for s in read_samples(path)] == ["old"]
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]

    write_jsonl(path, [{"task_id": "new", "completion": "y"}])
    assert [s.task_id for s in read_samples(path)] == ["new"]


def test_write_respects_umask(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    write_jsonl(path, [])
    old = os.umask(0)
    os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o666 & ~old
    assert path.read_bytes() == b""


# ---- a real samples file ------------------------------------------------------------------------


@pytest.mark.shared_data
def test_real_fasteval_samples_file() -> None:
    path = SHARED_DATA / "samples" / "fasteval" / "gpt-4-0613" / "samples.jsonl"
    if not path.is_file():
        pytest.skip(f"shared data not found at {path}; set ASSAY_DATA_DIR to the shared/data folder")
    samples = read_samples(path)
    assert len(samples) == 492
    assert len({s.task_id for s in samples}) == 164
    assert {s.index for s in samples} == {0, 1, 2}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert [(s.task_id, s.index) for s in samples] == [(r["task_id"], r["sample_index"]) for r in rows]
    assert all(s.completion is not None and s.solution is None for s in samples)
    assert set(samples[0].extra) == {"published_base_pass", "published_plus_pass"}
