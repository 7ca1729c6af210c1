"""Repository task instances and predictions, in SWE-bench's formats (and Assay's extra keys).

A task (SWE-bench's schema): `instance_id, repo, base_commit, patch, test_patch, problem_statement,
FAIL_TO_PASS, PASS_TO_PASS` (the two as JSON strings, as the Hugging Face datasets hold them, or as
lists), plus what a harness without Docker needs (docs/repo-tasks.md): `language`, `test_cmd`,
`test_directives`, `env_vars`, `install`, `log_parser`. A file is one instance (JSON), a list of them
(JSON), or one a line (JSONL).

A prediction (SWE-bench's): `instance_id`, `model_patch`, `model_name_or_path`; a file is JSONL, a
JSON list, or a JSON object keyed by instance id (SWE-bench's `predictions.json`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class TaskFormatError(ValueError):
    """A task or prediction file that is not in the format (one-line message naming the file and line)."""


@dataclass(frozen=True)
class Task:
    """One repository task instance."""

    instance_id: str
    repo: str  # owner/name
    base_commit: str
    test_patch: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    patch: str = ""  # the gold patch
    problem_statement: str = ""
    language: str = "python"
    test_cmd: str = ""
    test_directives: tuple[str, ...] = ()
    env_vars: tuple[tuple[str, str], ...] = ()
    install: str = ""
    log_parser: str = "pytest"
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def repo_key(self) -> str:
        """`owner__name`, as SWE-bench's instance ids and the bundles in shared/data/repos spell a repository."""
        return self.repo.replace("/", "__")


@dataclass(frozen=True)
class Prediction:
    """One model patch for one task."""

    instance_id: str
    model: str
    patch: str


REQUIRED = ("instance_id", "repo", "base_commit", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")
_PARSERS = {"parse_log_pytest": "pytest", "parse_log_pytest_v2": "pytest", "parse_log_pytest_options": "pytest"}


def _rows(path: Path) -> list[tuple[int, Any]]:
    try:
        text = path.read_text()
    except OSError as exc:
        raise TaskFormatError(f"{path}: cannot be read ({exc.strerror})") from None
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")) and not (stripped.startswith("{") and "\n{" in stripped.rstrip()):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TaskFormatError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
        if isinstance(data, list):
            return list(enumerate(data, 1))
        return [(1, data)]
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise TaskFormatError(f"{path}:{n}: not a JSON line ({exc.msg})") from None
    return rows


def _tests(value: Any, where: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise TaskFormatError(f"{where}: {key} is neither a list nor a JSON-encoded list") from None
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise TaskFormatError(f"{where}: {key} must be a list of test ids")
    return tuple(value)


def task_from(row: Any, where: str) -> Task:
    """A task from one row of a task file (SWE-bench's keys, and Assay's)."""
    if not isinstance(row, dict):
        raise TaskFormatError(f"{where}: a task must be a JSON object")
    missing = [k for k in REQUIRED if k not in row]
    if missing:
        raise TaskFormatError(f"{where}: missing {', '.join(missing)} (SWE-bench's task keys; see docs/repo-tasks.md)")
    directives = row.get("test_directives") or ()
    env = row.get("env_vars") or {}
    if not isinstance(env, dict):
        raise TaskFormatError(f"{where}: env_vars must be an object")
    parser = str(row.get("log_parser") or "pytest")
    known = {"instance_id", "repo", "base_commit", "patch", "test_patch", "problem_statement", "FAIL_TO_PASS", "PASS_TO_PASS", "language",
             "test_cmd", "test_directives", "env_vars", "install", "log_parser"}
    return Task(instance_id=str(row["instance_id"]), repo=str(row["repo"]), base_commit=str(row["base_commit"]), test_patch=str(row["test_patch"]),
                fail_to_pass=_tests(row["FAIL_TO_PASS"], where, "FAIL_TO_PASS"), pass_to_pass=_tests(row["PASS_TO_PASS"], where, "PASS_TO_PASS"),
                patch=str(row.get("patch") or ""), problem_statement=str(row.get("problem_statement") or ""),
                language=str(row.get("language") or "python"), test_cmd=str(row.get("test_cmd") or ""),
                test_directives=tuple(str(d) for d in directives), env_vars=tuple(sorted((str(k), str(v)) for k, v in env.items())),
                install=str(row.get("install") or ""), log_parser=_PARSERS.get(parser, parser),
                extra={k: v for k, v in row.items() if k not in known})


def load_tasks(paths: list[Path]) -> list[Task]:
    """Tasks from files (each JSON, a JSON list, or JSONL) or directories of `*.json` files; ids must be unique."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.json")) + sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    tasks: dict[str, Task] = {}
    for path in files:
        for n, row in _rows(path):
            task = task_from(row, f"{path}:{n}")
            if task.instance_id in tasks:
                raise TaskFormatError(f"{path}:{n}: instance {task.instance_id} appears twice")
            tasks[task.instance_id] = task
    if not tasks:
        raise TaskFormatError(f"{', '.join(map(str, paths))}: no task instances")
    return list(tasks.values())


def load_predictions(path: Path) -> dict[str, Prediction]:
    """Predictions by instance id: JSONL, a JSON list, or SWE-bench's JSON object keyed by instance id."""
    rows = _rows(path)
    if len(rows) == 1 and isinstance(rows[0][1], dict) and "instance_id" not in rows[0][1]:
        rows = [(1, {"instance_id": key, **value}) for key, value in rows[0][1].items() if isinstance(value, dict)]
    out: dict[str, Prediction] = {}
    for n, row in rows:
        if not isinstance(row, dict) or "instance_id" not in row:
            raise TaskFormatError(f"{path}:{n}: a prediction needs instance_id and model_patch (SWE-bench's format)")
        patch = row.get("model_patch", row.get("patch"))
        if patch is not None and not isinstance(patch, str):
            raise TaskFormatError(f"{path}:{n}: model_patch must be a string (a unified diff)")
        out[str(row["instance_id"])] = Prediction(str(row["instance_id"]), str(row.get("model_name_or_path") or "model"), patch or "")
    return out
