"""Per-test statuses of a repository task's run, by exact test id: a registry of log parsers.

- `pytest`: Assay's pytest plugin (`assay.swe.pytest_plugin`, loaded with `-p`) writes each test's
  node id and outcome as JSON lines to the scratch directory, so ids with spaces or brackets come
  through whole (SWE-bench's text parsers cut them at a space; repo-tasks/ had to drop 62 such ids).
- `pytest-log`: pytest's `-rA` summary lines (`PASSED tests/x.py::t`), for logs from elsewhere;
- `go`: `go test -json`'s events (or `-v`'s `--- PASS: TestX (0.00s)`), subtests as `TestX/sub`;
- `cargo`: `test NAME ... ok|FAILED|ignored` (doc-tests' names, which hold spaces, whole);
- `swift`: XCTest's `Test Case 'Class.testMethod' passed` and Swift Testing's `Test name() passed`;
- `minitest`: `-v`'s `Class#test_name = 0.00 s = .`;
- `ctest-unity`: Unity's `N: path/tests/file.c:12:name:PASS` under `ctest -V`, as `file.c:name`;
- `unittest`: unittest's verbose lines (`test_x (pkg.mod.Class) ... ok`, 3.11's `(pkg.mod.Class.test_x)`),
  as `test_x (pkg.mod.Class)`, the ids SWE-bench's django instances use;
- `junit`: JUnit XML reports (`<testcase classname name>` with `<failure>`, `<error>`, `<skipped>`), as
  `classname.name`: the XML files the test run wrote or changed in the checkout (one a patch adds, left
  as it was, is not read).
The text parsers read what the test process printed: the project's own code could print such lines
too, which is why the pytest plugin's file is the one Assay trusts most (docs/repo-tasks.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from assay.swe.grading import TestStatus

RESULTS_FILE = "pytest-results.jsonl"
# A test reported more than once by a text log keeps its worst status: the project's code can print a
# forged `--- PASS: TestX` after the framework's real `--- FAIL: TestX`, but cannot take the failure back.
_RANK = {TestStatus.PASSED: 0, TestStatus.XFAIL: 1, TestStatus.SKIPPED: 2, TestStatus.FAILED: 3, TestStatus.ERROR: 4}


def _worst(statuses: dict[str, TestStatus], test: str, status: TestStatus) -> None:
    if test not in statuses or _RANK[status] > _RANK[statuses[test]]:
        statuses[test] = status


def from_pytest_plugin(scratch: Path, output: str) -> dict[str, TestStatus]:
    """The plugin's records (`scratch`: the results file, or a directory holding RESULTS_FILE): a test's
    status is its worst phase (an error in setup or teardown is ERROR)."""
    path = scratch / RESULTS_FILE if scratch.is_dir() else scratch
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
            _worst(statuses, match.group(2), TestStatus.FAILED if word == "XPASS" else TestStatus(word))
    return statuses




def from_go_test(scratch: Path, output: str) -> dict[str, TestStatus]:
    """`go test -json` events (`{"Action": "pass", "Test": "TestX/sub"}`), else `go test -v`'s `--- PASS: TestX (0.00s)`."""
    statuses: dict[str, TestStatus] = {}
    actions = {"pass": TestStatus.PASSED, "fail": TestStatus.FAILED, "skip": TestStatus.SKIPPED}
    for line in output.splitlines():
        if line.startswith("{"):
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("Test") and event.get("Action") in actions:
                _worst(statuses, str(event["Test"]), actions[str(event["Action"])])
            continue
        match = _GO_V.match(line)
        if match:
            _worst(statuses, match.group(2), {"PASS": TestStatus.PASSED, "FAIL": TestStatus.FAILED, "SKIP": TestStatus.SKIPPED}[match.group(1)])
    return statuses


_GO_V = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+) \(")
_CARGO = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored)(?:,.*)?$")


def from_cargo_test(scratch: Path, output: str) -> dict[str, TestStatus]:
    """`cargo test`'s `test NAME ... ok|FAILED|ignored` lines (doc-tests' names hold spaces: kept whole)."""
    statuses: dict[str, TestStatus] = {}
    for line in output.splitlines():
        match = _CARGO.match(line.strip())
        if match:
            _worst(statuses, match.group(1), {"ok": TestStatus.PASSED, "FAILED": TestStatus.FAILED, "ignored": TestStatus.SKIPPED}[match.group(2)])
    return statuses


_XCTEST = re.compile(r"^Test Case '(?:-\[)?([\w.]+)[ .](\w+)\]?' (passed|failed|skipped)")
_SWIFT_TESTING = re.compile(r"^\S+ Test (\w+)\(\) (passed|failed|skipped)")


def from_swift_test(scratch: Path, output: str) -> dict[str, TestStatus]:
    """`swift test`: XCTest's `Test Case 'Class.testMethod' passed (0.003 seconds)` (Linux; `-[Module.Class testMethod]`
    on Darwin), as `Class.testMethod`; Swift Testing's `✔ Test name() passed after ...`, as `name()`."""
    statuses: dict[str, TestStatus] = {}
    words = {"passed": TestStatus.PASSED, "failed": TestStatus.FAILED, "skipped": TestStatus.SKIPPED}
    for line in output.splitlines():
        line = line.strip()
        match = _XCTEST.match(line)
        if match:
            cls = match.group(1).rsplit(".", 1)[-1]
            _worst(statuses, f"{cls}.{match.group(2)}", words[match.group(3)])
            continue
        match = _SWIFT_TESTING.match(line)
        if match:
            _worst(statuses, f"{match.group(1)}()", words[match.group(2)])
    return statuses


_MINITEST = re.compile(r"^(\w[\w:]*#\S+) = [\d.]+ s = ([.FES])$")


def from_minitest(scratch: Path, output: str) -> dict[str, TestStatus]:
    """minitest's `-v` lines: `Class#test_name = 0.00 s = .` (`.` pass, `F` fail, `E` error, `S` skip)."""
    statuses: dict[str, TestStatus] = {}
    marks = {".": TestStatus.PASSED, "F": TestStatus.FAILED, "E": TestStatus.ERROR, "S": TestStatus.SKIPPED}
    for line in output.splitlines():
        match = _MINITEST.match(line.strip())
        if match:
            _worst(statuses, match.group(1), marks[match.group(2)])
    return statuses


_UNITY = re.compile(r"^(?:\d+: )?(?:\S*/)?([\w.-]+\.c):\d+:(\w+):(PASS|FAIL|IGNORE)")


def from_ctest_unity(scratch: Path, output: str) -> dict[str, TestStatus]:
    """Unity's lines under `ctest -V`: `N: /path/tests/misc_tests.c:295:name:PASS` (or `:FAIL: why`, `:IGNORE`), as `file.c:name`."""
    statuses: dict[str, TestStatus] = {}
    words = {"PASS": TestStatus.PASSED, "FAIL": TestStatus.FAILED, "IGNORE": TestStatus.SKIPPED}
    for line in output.splitlines():
        match = _UNITY.match(line.strip())
        if match:
            _worst(statuses, f"{match.group(1)}:{match.group(2)}", words[match.group(3)])
    return statuses


_UNITTEST = re.compile(r"^(\w+) \(([\w.]+)\)(?:\n.*?)? \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)\b", re.M)


def from_unittest(scratch: Path, output: str) -> dict[str, TestStatus]:
    """unittest's `-v` lines, a docstring line between the name and the outcome allowed, as `test_x (pkg.mod.Class)`."""
    statuses: dict[str, TestStatus] = {}
    words = {"ok": TestStatus.PASSED, "FAIL": TestStatus.FAILED, "ERROR": TestStatus.ERROR, "skipped": TestStatus.SKIPPED,
             "expected failure": TestStatus.XFAIL, "unexpected success": TestStatus.FAILED}
    for match in _UNITTEST.finditer(output):
        name, where = match.group(1), match.group(2)
        where = where.removesuffix(f".{name}")  # Python 3.11 names the method inside the parentheses too
        _worst(statuses, f"{name} ({where})", words[match.group(3)])
    return statuses


JUNIT_DIR = "junit"  # under the task's work directory: the reports the run wrote, copied out of the checkout
_JUNIT_MAX = 64 * 1024 * 1024


def from_junit(reports: Path, output: str) -> dict[str, TestStatus]:
    """Every `*.xml` under `reports` that is a JUnit report: `classname.name` -> its status (worst if repeated).
    Files with a DOCTYPE or over 64 MB are skipped (entity expansion is how an XML file eats the harness)."""
    import xml.etree.ElementTree as ET

    statuses: dict[str, TestStatus] = {}
    for path in sorted(reports.rglob("*.xml")) if reports.is_dir() else []:
        if path.stat().st_size > _JUNIT_MAX:
            continue
        data = path.read_bytes()
        if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
            continue
        try:
            root = ET.fromstring(data)
        except ET.ParseError:
            continue
        for case in root.iter("testcase"):
            name, cls = case.get("name") or "", case.get("classname") or ""
            if not name:
                continue
            tags = {child.tag for child in case}
            status = TestStatus.ERROR if "error" in tags else TestStatus.FAILED if "failure" in tags else \
                TestStatus.SKIPPED if "skipped" in tags else TestStatus.PASSED
            _worst(statuses, f"{cls}.{name}" if cls else name, status)
    return statuses


PARSERS: dict[str, Callable[[Path, str], dict[str, TestStatus]]] = {
    "pytest": from_pytest_plugin,
    "pytest-log": from_pytest_log,
    "go": from_go_test,
    "cargo": from_cargo_test,
    "swift": from_swift_test,
    "minitest": from_minitest,
    "ctest-unity": from_ctest_unity,
    "unittest": from_unittest,
    "junit": from_junit,
}
