"""Grading a repository task as SWE-bench v5 does, with its hardening (harness/grading.py).

Per-test statuses come from a log parser (`assay.swe.parsers`). A FAIL_TO_PASS or PASS_TO_PASS test
passes when its status is PASSED or XFAIL. Then:
- RESOLVED_FULL: every F2P test passes and every P2P test passes;
- RESOLVED_PARTIAL: some but not all F2P tests pass, and every P2P test passes;
- RESOLVED_NO: otherwise.
The hardening:
- a skipped F2P test counts as failed (a fix must make it run and pass); a skipped P2P test is kept
  (neither passed nor failed, as SWE-bench has it);
- a test missing from the log fails;
- a truncated id in the log (SWE-bench's parsers cut pytest ids at spaces) matches a wanted id when it
  is a prefix of exactly one of them;
- a log that claims success without evidence that the suite ran (no status for any wanted test) is no
  resolution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class TestStatus(StrEnum):
    """A test's status in a run, as SWE-bench's parsers name them."""

    __test__ = False  # not a pytest test class
    PASSED = "PASSED"
    FAILED = "FAILED"
    ERROR = "ERROR"
    SKIPPED = "SKIPPED"
    XFAIL = "XFAIL"


class Resolution(StrEnum):
    FULL = "RESOLVED_FULL"
    PARTIAL = "RESOLVED_PARTIAL"
    NO = "RESOLVED_NO"


@dataclass
class Report:
    """What each wanted test did, and the resolution."""

    resolution: Resolution
    f2p_passed: list[str] = field(default_factory=list)
    f2p_failed: list[str] = field(default_factory=list)
    p2p_passed: list[str] = field(default_factory=list)
    p2p_failed: list[str] = field(default_factory=list)
    p2p_skipped: list[str] = field(default_factory=list)
    why: str = ""


def _lookup(statuses: dict[str, TestStatus], wanted: list[str]) -> dict[str, TestStatus]:
    """Each wanted test's status: by exact id, else by a logged id that is a unique prefix of it."""
    out: dict[str, TestStatus] = {}
    for test in wanted:
        if test in statuses:
            out[test] = statuses[test]
    for logged, status in statuses.items():
        if logged in out:
            continue
        matches = [t for t in wanted if t not in out and t.startswith(logged)]
        if len(matches) == 1 and sum(1 for t in wanted if t.startswith(logged)) == 1:
            out[matches[0]] = status
    return out


def grade(statuses: dict[str, TestStatus], fail_to_pass: list[str] | tuple[str, ...], pass_to_pass: list[str] | tuple[str, ...]) -> Report:
    """The resolution of one run's statuses against the task's F2P and P2P lists."""
    f2p, p2p = list(fail_to_pass), list(pass_to_pass)
    found = _lookup(statuses, f2p + p2p)
    ok = (TestStatus.PASSED, TestStatus.XFAIL)
    report = Report(Resolution.NO)
    for test in f2p:
        (report.f2p_passed if found.get(test) in ok else report.f2p_failed).append(test)
    for test in p2p:
        status = found.get(test)
        if status in ok:
            report.p2p_passed.append(test)
        elif status is TestStatus.SKIPPED:
            report.p2p_skipped.append(test)
        else:
            report.p2p_failed.append(test)
    if not found:
        report.why = "no wanted test has a status in the log: the suite did not run"
        return report
    if not report.p2p_failed and not report.f2p_failed and f2p:
        report.resolution = Resolution.FULL
    elif not report.p2p_failed and report.f2p_passed:
        report.resolution = Resolution.PARTIAL
    return report
