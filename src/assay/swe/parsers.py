"""Per-test statuses of a repository task's run, by exact test id: a registry of log parsers.

- `pytest`: Assay's pytest plugin (`assay.swe.pytest_plugin`, loaded with `-p`) writes each test's
  node id and outcome as JSON lines to the scratch directory, so ids with spaces or brackets come
  through whole (SWE-bench's text parsers cut them at a space; repo-tasks/ had to drop 62 such ids).
- `pytest-log`: pytest's `-rA` summary lines (`PASSED tests/x.py::t`), for logs from elsewhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from assay.swe.grading import TestStatus

RESULTS_FILE = "pytest-results.jsonl"


def from_pytest_plugin(scratch: Path, output: str) -> dict[str, TestStatus]:
    """The plugin's records: a test's status is its worst phase (an error in setup or teardown is ERROR)."""
    path = scratch / RESULTS_FILE
    statuses: dict[str, TestStatus] = {}
    if not path.is_file():
        return statuses
    for line in path.read_text(errors="replace").splitlines():
        try:
            row = json.loads(line)
            nodeid, when, outcome = str(row["nodeid"]), str(row["when"]), str(row["outcome"])
        except (ValueError, KeyError, TypeError):
            continue
        xfail = bool(row.get("wasxfail"))
        if when in ("setup", "teardown") and outcome == "failed":
            statuses[nodeid] = TestStatus.ERROR
        elif when == "setup" and outcome == "skipped":
            statuses[nodeid] = TestStatus.XFAIL if xfail else TestStatus.SKIPPED
        elif when == "call" and statuses.get(nodeid) is not TestStatus.ERROR:
            statuses[nodeid] = {"passed": TestStatus.PASSED, "failed": TestStatus.FAILED}.get(outcome, TestStatus.SKIPPED)
            if xfail:
                statuses[nodeid] = TestStatus.XFAIL if outcome == "skipped" else TestStatus.FAILED  # an xpass counts as failed
    return statuses


_SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S.*?)(?: - .*)?$")


def from_pytest_log(scratch: Path, output: str) -> dict[str, TestStatus]:
    """pytest's `-rA` short summary: `STATUS node-id[ - message]`."""
    statuses: dict[str, TestStatus] = {}
    for line in output.splitlines():
        match = _SUMMARY.match(line.strip())
        if match:
            word = match.group(1)
            statuses[match.group(2)] = TestStatus.FAILED if word == "XPASS" else TestStatus(word)
    return statuses


PARSERS: dict[str, Callable[[Path, str], dict[str, TestStatus]]] = {"pytest": from_pytest_plugin, "pytest-log": from_pytest_log}
