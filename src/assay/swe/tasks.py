"""Repository task instances and predictions, in SWE-bench's formats (and Assay's extra keys).

A task (SWE-bench's schema): `instance_id, repo, base_commit, patch, test_patch, problem_statement,
FAIL_TO_PASS, PASS_TO_PASS` (the two as JSON strings, as the Hugging Face datasets hold them, or as
lists), plus what a harness without Docker needs (docs/repo-tasks.md): `language`, `test_cmd`,
`test_directives`, `env_vars`, `install`, `log_parser`. A file is one instance (JSON), a list of them
(JSON), or one a line (JSONL).

Multi-SWE-bench's rows are read too: `org`, `repo`, `number`, `base.sha`, `fix_patch`, `test_patch`,
`resolved_issues` (the problem statement), and the transitions `p2p_tests`, `f2p_tests`, `s2p_tests`,
`n2p_tests` (test -> its {run, test, fix} states): FAIL_TO_PASS is the tests of F2P, S2P (skipped, then
passing) and N2P (absent, then passing); PASS_TO_PASS those of P2P. Its rows name no test command: give a
`--profile` (a known project setup) for them.

A prediction (SWE-bench's): `instance_id`, `model_patch`, `model_name_or_path`; a file is JSONL, a
JSON list, or a JSON object keyed by instance id (SWE-bench's `predictions.json`). Multi-SWE-bench's
(`org`, `repo`, `number`, `fix_patch`) are read too.
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
_PARSERS = {"parse_log_pytest": "pytest", "parse_log_pytest_v2": "pytest", "parse_log_pytest_options": "pytest", "parse_log_django": "unittest"}


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


def _multi_swe_bench(row: dict[str, Any], where: str) -> dict[str, Any]:
    """A Multi-SWE-bench row in SWE-bench's keys (the transitions kept under `transitions`)."""
    base = row.get("base")
    if not isinstance(base, dict) or "sha" not in base:
        raise TaskFormatError(f"{where}: a Multi-SWE-bench row needs base.sha")
    transitions = {kind: row.get(f"{kind}_tests") or {} for kind in ("p2p", "f2p", "s2p", "n2p")}
    if not all(isinstance(t, dict) for t in transitions.values()):
        raise TaskFormatError(f"{where}: p2p_tests, f2p_tests, s2p_tests and n2p_tests must be objects (test -> its states)")
    issues = row.get("resolved_issues") or []
    statement = "\n\n".join(f"{i.get('title', '')}\n{i.get('body', '') or ''}".strip() for i in issues if isinstance(i, dict)) or \
        f"{row.get('title', '')}\n{row.get('body', '') or ''}".strip()
    known = {"org", "repo", "number", "base", "fix_patch", "test_patch", "resolved_issues", "p2p_tests", "f2p_tests", "s2p_tests", "n2p_tests"}
    return {**{k: v for k, v in row.items() if k not in known},
            "instance_id": row.get("instance_id") or f"{row['org']}__{row['repo']}-{row['number']}", "repo": f"{row['org']}/{row['repo']}",
            "base_commit": base["sha"], "patch": row.get("fix_patch") or "", "test_patch": row.get("test_patch") or "",
            "problem_statement": statement, "FAIL_TO_PASS": sorted({*transitions["f2p"], *transitions["s2p"], *transitions["n2p"]}),
            "PASS_TO_PASS": sorted(transitions["p2p"]), "transitions": transitions}


def task_from(row: Any, where: str) -> Task:
    """A task from one row of a task file (SWE-bench's keys, and Assay's; or Multi-SWE-bench's)."""
    if not isinstance(row, dict):
        raise TaskFormatError(f"{where}: a task must be a JSON object")
    if "org" in row and "fix_patch" in row and "number" in row:
        row = _multi_swe_bench(row, where)
    missing = [k for k in REQUIRED if k not in row]
    if missing:
        raise TaskFormatError(f"{where}: missing {', '.join(missing)} (SWE-bench's task keys; see docs/repo-tasks.md)")
    directives = row.get("test_directives") or ()
    env = row.get("env_vars") or {}
    if isinstance(env, str):  # a dataset's parquet holds objects as JSON text
        try:
            env = json.loads(env) or {}
        except ValueError:
            raise TaskFormatError(f"{where}: env_vars is neither an object nor JSON-encoded one") from None
    if not isinstance(env, dict):
        raise TaskFormatError(f"{where}: env_vars must be an object")
    parser = str(row.get("log_parser") or "pytest")
    test_cmd = str(row.get("test_cmd") or "")
    if not test_cmd and isinstance(row.get("eval_script"), str) and row["eval_script"].strip():
        # SWE-bench 5's rows carry the script its harness runs in the instance's image (it resets the test
        # files, applies the test patch, runs the tests): with --image dataset it is the test command.
        import shlex

        test_cmd = f"bash -c {shlex.quote(row['eval_script'])}"
    known = {"instance_id", "repo", "base_commit", "patch", "test_patch", "problem_statement", "FAIL_TO_PASS", "PASS_TO_PASS", "language",
             "test_cmd", "test_directives", "env_vars", "install", "log_parser"}
    return Task(instance_id=str(row["instance_id"]), repo=str(row["repo"]), base_commit=str(row["base_commit"]), test_patch=str(row["test_patch"]),
                fail_to_pass=_tests(row["FAIL_TO_PASS"], where, "FAIL_TO_PASS"), pass_to_pass=_tests(row["PASS_TO_PASS"], where, "PASS_TO_PASS"),
                patch=str(row.get("patch") or ""), problem_statement=str(row.get("problem_statement") or ""),
                language=str(row.get("language") or "python"), test_cmd=test_cmd,
                test_directives=tuple(str(d) for d in directives), env_vars=tuple(sorted((str(k), str(v)) for k, v in env.items())),
                install=str(row.get("install") or ""), log_parser=_PARSERS.get(parser, parser),
                extra={k: v for k, v in row.items() if k not in known})


def with_profile(task: Task, language: str, test_cmd: str, log_parser: str, env_vars: tuple[tuple[str, str], ...], install: str) -> Task:
    """The task, with a profile's setup where it names none of its own (Multi-SWE-bench's rows)."""
    import dataclasses

    if task.test_cmd:
        return task
    return dataclasses.replace(task, language=language, test_cmd=test_cmd, log_parser=log_parser, env_vars=task.env_vars or env_vars,
                               install=task.install or install)


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
    if len(rows) == 1 and isinstance(rows[0][1], dict) and "instance_id" not in rows[0][1] and not {"org", "number"} <= set(rows[0][1]):
        rows = [(1, {"instance_id": key, **value}) for key, value in rows[0][1].items() if isinstance(value, dict)]
    out: dict[str, Prediction] = {}
    for n, row in rows:
        if isinstance(row, dict) and "instance_id" not in row and {"org", "repo", "number"} <= set(row):  # Multi-SWE-bench's
            row = {"instance_id": f"{row['org']}__{row['repo']}-{row['number']}", "model_patch": row.get("fix_patch", ""), **row}
        if not isinstance(row, dict) or "instance_id" not in row:
            raise TaskFormatError(f"{path}:{n}: a prediction needs instance_id and model_patch (SWE-bench's format)")
        patch = row.get("model_patch", row.get("patch"))
        if patch is not None and not isinstance(patch, str):
            raise TaskFormatError(f"{path}:{n}: model_patch must be a string (a unified diff)")
        out[str(row["instance_id"])] = Prediction(str(row["instance_id"]), str(row.get("model_name_or_path") or "model"), patch or "")
    return out
