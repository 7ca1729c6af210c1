"""The unittest and JUnit XML parsers: exact ids from real runs (more-itertools under `python -m unittest -v`,
sqlparse's pytest writing JUnit XML), and the hostile patches against them: a forged `... ok` after the
real failure, and a JUnit report the patch brings along with an early exit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from assay.swe import harness
from assay.swe.grading import TestStatus
from assay.swe.harness import Environment, evaluate_task
from assay.swe.parsers import from_junit, from_unittest
from assay.swe.repos import RepoStore
from assay.swe.runtime import Limits
from assay.swe.tasks import Prediction, Task, load_tasks, task_from
from tests.swe.test_swe import PYTHON, _data, _patch

P, F, E, S, X = TestStatus.PASSED, TestStatus.FAILED, TestStatus.ERROR, TestStatus.SKIPPED, TestStatus.XFAIL


def test_unittest_lines_become_swe_benchs_django_ids() -> None:
    log = ("test_a (pkg.tests.ATests) ... ok\n"
           "test_b (pkg.tests.ATests.test_b) ... FAIL\n"  # Python 3.11 names the method in the parentheses too
           "test_c (pkg.tests.ATests)\nA docstring line. ... ERROR\n"
           "test_d (pkg.tests.ATests) ... skipped 'no db'\n"
           "test_e (pkg.tests.ATests) ... expected failure\n"
           "test_f (pkg.tests.ATests) ... unexpected success\n"
           "test_b (pkg.tests.ATests) ... ok\n")  # printed again by the project's code: the failure stays
    assert from_unittest(Path("/nonexistent"), log) == {"test_a (pkg.tests.ATests)": P, "test_b (pkg.tests.ATests)": F,
                                                        "test_c (pkg.tests.ATests)": E, "test_d (pkg.tests.ATests)": S,
                                                        "test_e (pkg.tests.ATests)": X, "test_f (pkg.tests.ATests)": F}
    row = {"instance_id": "django__django-1", "repo": "django/django", "base_commit": "a", "test_patch": "", "FAIL_TO_PASS": "[]",
           "PASS_TO_PASS": "[]", "log_parser": "parse_log_django"}
    assert task_from(row, "row").log_parser == "unittest"


def test_junit_reports_are_read_by_class_and_name(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "TEST-x.xml").write_text(
        '<testsuites><testsuite name="s"><testcase classname="com.x.FooTest" name="ok()"/>'
        '<testcase classname="com.x.FooTest" name="bad()"><failure message="m"/></testcase>'
        '<testcase classname="com.x.FooTest" name="err()"><error/></testcase>'
        '<testcase classname="com.x.FooTest" name="skip()"><skipped/></testcase></testsuite></testsuites>')
    (tmp_path / "b.xml").write_text('<testsuite><testcase classname="com.x.FooTest" name="bad()"/></testsuite>')  # a pass does not undo a failure
    bomb = '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><testsuite><testcase name="&b;"/></testsuite>'
    (tmp_path / "c.xml").write_text(bomb)  # entity expansion: never parsed
    (tmp_path / "d.xml").write_text("<not xml")
    assert from_junit(tmp_path, "") == {"com.x.FooTest.ok()": P, "com.x.FooTest.bad()": F, "com.x.FooTest.err()": E, "com.x.FooTest.skip()": S}


def _task(instance: str, tmp: Path) -> tuple[Task, RepoStore, Environment]:
    data = _data()
    task = next(t for t in load_tasks([data / "repo-tasks"]) if t.instance_id == instance)
    return task, RepoStore(tmp / "cache", [data / "repos"]), Environment.of(PYTHON)


def _unittest_id(nodeid: str) -> str:
    path, cls, name = nodeid.split("::")
    return f"{name} ({path.removesuffix('.py').replace('/', '.')}.{cls})"


@pytest.mark.shared_data
def test_more_itertools_under_unittest(tmp_path: Path) -> None:
    task, store, env = _task("more-itertools__more-itertools-cf186b5", tmp_path)
    task = dataclasses.replace(task, log_parser="unittest", test_cmd="python -m unittest -v tests.test_more",
                               fail_to_pass=tuple(map(_unittest_id, task.fail_to_pass)), pass_to_pass=tuple(map(_unittest_id, task.pass_to_pass)))

    def grade(patch: str, **kw: bool):  # type: ignore[no-untyped-def]
        return evaluate_task(task, Prediction(task.instance_id, "m", patch), store, env, Limits(wall_seconds=300), **kw)

    gold = grade(task.patch)
    assert gold.resolution == "RESOLVED_FULL" and len(gold.statuses) >= len(task.pass_to_pass) + 1, (gold.error, gold.log[-600:])
    assert grade("", run_empty=True).resolution == "RESOLVED_NO"
    wanted = task.fail_to_pass[0]
    forge = _patch(store, task, tmp_path, {"more_itertools/__init__.py": f"\nimport atexit as _a, sys as _s\n_a.register(lambda: _s.stderr.write({wanted + ' ... ok'!r} + '\\n'))\n"})
    forged = grade(forge)
    assert forged.resolution == "RESOLVED_NO" and forged.statuses.get(wanted) in ("FAILED", "ERROR"), (forged.statuses.get(wanted), forged.log[-600:])


@pytest.mark.shared_data
def test_sqlparse_through_junit_xml_and_a_report_the_patch_brings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task, store, env = _task("andialbrecht__sqlparse-e92a032", tmp_path)

    def junit_id(nodeid: str) -> str:
        path, name = nodeid.split("::", 1)
        return f"{path.removesuffix('.py').replace('/', '.')}.{name}"

    task = dataclasses.replace(task, log_parser="junit", test_cmd="pytest -p no:cacheprovider --junitxml=reports/junit.xml tests/test_split.py",
                               fail_to_pass=tuple(map(junit_id, task.fail_to_pass)), pass_to_pass=tuple(map(junit_id, task.pass_to_pass)))

    def grade(patch: str, **kw: bool):  # type: ignore[no-untyped-def]
        return evaluate_task(task, Prediction(task.instance_id, "m", patch), store, env, Limits(wall_seconds=300), **kw)

    gold = grade(task.patch)
    assert gold.resolution == "RESOLVED_FULL" and len(gold.statuses) == 39, (gold.error, sorted(gold.statuses)[:3], gold.log[-400:])
    assert grade("", run_empty=True).resolution == "RESOLVED_NO"
    cases = "".join(f'<testcase classname="{t.rsplit(".", 1)[0]}" name="{t.rsplit(".", 1)[1]}"/>' for t in (*task.fail_to_pass, *task.pass_to_pass))
    brought = _patch(store, task, tmp_path, {"reports/junit.xml": f"<testsuites><testsuite>{cases}</testsuite></testsuites>\n",
                                             "sqlparse/__init__.py": "\nimport os as _os\n_os._exit(0)\n"})
    forged = grade(brought)
    assert forged.resolution == "RESOLVED_NO" and not forged.statuses, (forged.resolution, forged.statuses)
    # The defence is what stops it: read every XML file in the checkout instead of those the run wrote, and it resolves.
    real = harness.junit_reports
    monkeypatch.setattr(harness, "junit_reports", lambda checkout, dest, before: real(checkout, dest, {}))
    assert grade(brought).resolution == "RESOLVED_FULL"
