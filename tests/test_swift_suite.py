"""swift-suite and the directory format: every reference passes, every wrong solution fails, the format is checked."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.benchmarks.directory import BenchmarkFormatError, load_directory
from assay.execution import Executor
from assay.problems import Status
from assay.prompts import INSTRUCT
from tests.languages._common import language_or_skip, sandbox_for

FEATURES = [
    "optionals", "protocols-associated-types", "generics-where", "enums-associated-values", "value-vs-reference",
    "closures-capture", "error-handling", "codable", "property-wrappers", "access-control", "async-await",
    "semver", "state-machine", "dependency-injection", "lru-cache", "process", "filemanager",
]  # fmt: skip


@pytest.fixture(scope="module")
def suite():  # type: ignore[no-untyped-def]
    return load_benchmark("swift-suite")


def test_suite_shape(suite) -> None:  # type: ignore[no-untyped-def]
    assert len(suite.problems) >= 30
    levels = [t for p in suite.problems.values() for t in p.tags if t.startswith("level:")]
    assert levels.count("level:class") >= 8 and levels.count("level:function") >= 8
    tags = {t.split(":", 1)[1] for p in suite.problems.values() for t in p.tags if t.startswith("feature:")}
    missing = [f for f in FEATURES if not any(f in t for t in tags)]
    assert not missing, missing
    for problem in suite.problems.values():
        n_tests = len(re.findall(r"^func\s+test_\w+", problem.tests.code, re.M))
        assert 3 <= n_tests <= 5, (problem.id, n_tests)
        assert problem.entry_point in problem.extra["signature"] and problem.entry_point in problem.reference
        assert problem.extra["wrong_solutions"], problem.id
        prompt = INSTRUCT.render(problem)
        assert prompt.messages[0][1] == problem.prompt and "```swift" in problem.prompt


def test_format_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no benchmark.yaml"):
        load_directory(tmp_path)
    (tmp_path / "benchmark.yaml").write_text("name: mine\nlanguage: cobol\n")
    with pytest.raises(BenchmarkFormatError, match="language must be one of"):
        load_directory(tmp_path)
    (tmp_path / "benchmark.yaml").write_text("name: mine\nlanguage: swift\n")
    (tmp_path / "p1").mkdir()
    (tmp_path / "p1" / "problem.yaml").write_text("title: x\n")
    with pytest.raises(BenchmarkFormatError, match="entry_point is required"):
        load_directory(tmp_path)
    (tmp_path / "p1" / "problem.yaml").write_text("entry_point: f\n")
    with pytest.raises(BenchmarkFormatError, match="missing task.md"):
        load_directory(tmp_path)


def _judge_all(suite, jobs):  # type: ignore[no-untyped-def]
    executor = Executor(sandbox_for("swift"), suite)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(lambda job: (job, executor.judge(suite.problems[job[0]], job[2])), jobs))


@pytest.mark.slow
def test_every_reference_passes_and_every_problem_has_a_wrong_solution_that_fails(suite) -> None:  # type: ignore[no-untyped-def]
    language_or_skip("swift")
    jobs = []
    for pid, problem in suite.problems.items():
        jobs.append((pid, "reference", problem.reference_program()))
        # One wrong solution per problem here; ASSAY_FULL_SWIFT_SUITE=1 checks all of them.
        wrongs = sorted(problem.extra["wrong_solutions"].items())
        for name, code in wrongs if os.environ.get("ASSAY_FULL_SWIFT_SUITE") else wrongs[:1]:
            jobs.append((pid, name, code))
    bad = []
    for (pid, name, _code), verdict in _judge_all(suite, jobs):
        if name == "reference":
            ok = verdict.status is Status.PASSED
        elif name.startswith("compile_error"):
            ok = verdict.status is Status.COMPILE_ERROR
        else:
            ok = verdict.status in (Status.FAILED, Status.RUNTIME_ERROR, Status.TIMEOUT)
        if not ok:
            bad.append((pid, name, verdict.status.value, verdict.message))
    assert not bad, bad


@pytest.mark.slow
def test_a_chat_reply_that_repeats_the_context_still_builds(suite) -> None:  # type: ignore[no-untyped-def]
    language_or_skip("swift")
    problem = next(p for p in suite.problems.values() if p.context.strip())
    reply = problem.context + "\n\n" + problem.reference
    ((_, verdict),) = _judge_all(suite, [(problem.id, "repeated", reply)])
    assert verdict.status is Status.PASSED, verdict.message
