"""Python unittest classes run in the sample's process (ClassEval): the trusted side of the unittest runner.

The runner (python_unittest_driver.py) reports one event per test on the driver's private channel; this
side knows from the test code alone which tests each named class has (as unittest's loader finds them:
`test*` methods, inherited ones too, sorted), so a test that never reports has failed, whatever the sample
printed or however it ended. A class passes when each of its tests reported `ok`; the verdict passes when
every class passes and the runner finished (an early exit, even with status 0, finishes nothing).
"""

from __future__ import annotations

import ast
import json
import re
import secrets
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from assay.languages import python as py
from assay.languages.base import PhaseLimits
from assay.problems import Problem, ProgramTests, Status, TestDetail, Verdict
from assay.sandbox.base import Sandbox, SandboxLimits, SandboxResult

_HERE = Path(__file__).parent
CLASS_LIMIT = 10.0  # CPU seconds for one test class (upstream: 5 s of wall time under func_timeout)
LOAD_LIMIT = 10.0
TASKS = 64  # processes and threads of a run
LIBRARY_TASKS = 256  # with a benchmark's package environment: tensorflow's thread pools (BigCodeBench/289's five folds pass 64)


@cache
def runner_files() -> dict[str, bytes]:
    """The driver's files and the unittest runner, for the sandbox's work dir."""
    driver = py.bytecode_file("driver.py", py.driver_sources()["driver.py"])  # imported by the runner as `driver`
    return {**py.driver_files(), **dict([driver]), "unittest_driver.py": (_HERE / "python_unittest_driver.py").read_bytes()}


def unittest_methods(test_code: str) -> dict[str, list[str]]:
    """Each TestCase class of the test code with the tests unittest's loader would find in it (test*, sorted)."""
    tree = ast.parse(test_code)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def methods(name: str, seen: frozenset[str]) -> set[str]:
        node = classes[name]
        found = {f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name.startswith("test")}
        for b in node.bases:
            if isinstance(b, ast.Name) and b.id in classes and b.id not in seen:
                found |= methods(b.id, seen | {b.id})
        return found

    return {name: sorted(methods(name, frozenset({name}))) for name in classes}


def patched_builtins(test_code: str) -> list[str]:
    """Names of builtins the test code itself patches (`patch("builtins.open", ...)`, `patch.object(builtins, "open")`,
    and pyfakefs' `setUpPyfakefs()`, which puts its fake `open` in builtins: BigCodeBench/719)."""
    found = re.findall(r"""patch(?:\.object)?\(\s*(?:['"]builtins\.(\w+)['"]|builtins\s*,\s*['"](\w+)['"])""", test_code)
    names = {a or b for a, b in found} | ({"open"} if "setUpPyfakefs" in test_code else set())
    return sorted(names)


@dataclass
class UnittestRun:
    """The runner's authenticated events for one run."""

    sandbox: SandboxResult
    tests: list[list[str]] = field(default_factory=list)  # [class, method, outcome, message, cpu]
    final: bool = False
    failure: tuple[str, str] | None = None  # (kind, message): compile, load, tampered, driver_error


def unittest_job(code: str, test: str, test_classes: list[str], class_limit: float = CLASS_LIMIT) -> dict[str, Any]:
    """The runner's job: the sample, the tests, the classes to run and each class's tests."""
    methods = unittest_methods(test)
    return {"code": code, "test": test, "test_classes": test_classes, "tests": {c: methods.get(c, []) for c in test_classes},
            "class_limit": class_limit, "load_limit": LOAD_LIMIT}


def run_unittest(sandbox: Sandbox, job: dict[str, Any], limits: SandboxLimits) -> UnittestRun:
    """Run the unittest runner on one job in a fresh sandbox; keep the events that carry the nonce. A job's own
    sys_path (a benchmark's package environment, bigcodebench) replaces Assay's site-packages."""
    nonce = secrets.token_hex(16).encode()
    job = {"sys_path": py.site_paths(), **job}
    files = {**runner_files(), "job.json": json.dumps(job).encode()}
    argv = [sys.executable, "-I", "-S", "-X", "faulthandler", "unittest_driver.py"]
    return parse_events(sandbox.run(argv, files, limits, stdin=nonce + b"\n"), nonce)


def parse_events(result: SandboxResult, nonce: bytes) -> UnittestRun:
    """The runner's events (an ascii() list after the nonce); lines without the nonce are ignored."""
    run = UnittestRun(result)
    prefix = nonce + b" "
    for line in result.channel.split(b"\n"):
        if not line.startswith(prefix):
            continue
        try:
            event = ast.literal_eval(line[len(prefix):].decode("ascii"))
        except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
            continue
        if not (isinstance(event, list) and event and all(isinstance(x, str) for x in event)):
            continue
        kind, fields = event[0], event[1:]
        if kind == "test" and len(fields) >= 4:
            run.tests.append(fields)
        elif kind == "final":
            run.final = True
        elif kind in ("compile", "load", "tampered", "driver_error") and run.failure is None:
            run.failure = (kind, " ".join(fields))
    return run


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


_OUTCOME = {"ok": Status.PASSED, "failed": Status.FAILED, "skipped": Status.FAILED, "error": Status.RUNTIME_ERROR,
            "timeout": Status.TIMEOUT}


def judge_unittest(run: UnittestRun, expected: dict[str, list[str]]) -> Verdict:
    """The verdict: a TestDetail per test class (`n/m tests passed`), passed only if every test of every class did."""
    res = run.sandbox
    if run.failure is not None:
        kind, message = run.failure
        status = {"compile": Status.COMPILE_ERROR, "tampered": Status.FAILED}.get(kind, Status.RUNTIME_ERROR)
        if kind == "load" and message.startswith("timeout "):
            status, message = Status.TIMEOUT, message[len("timeout "):]
        elif kind == "load" and message.startswith("raise "):
            message = message[len("raise "):]
        return Verdict(status, f"failed: {message}", duration_s=res.wall_seconds, stdout=_text(res.stdout), stderr=_text(res.stderr))
    reported: dict[tuple[str, str], list[str]] = {}
    whole_class: dict[str, list[str]] = {}
    for fields in run.tests:
        if fields[1]:
            reported.setdefault((fields[0], fields[1]), fields)
        else:
            whole_class.setdefault(fields[0], fields)
    early = (Status.RUNTIME_ERROR, "")
    if not run.final:
        early = py._early_end(py.DriverRun(res, None, problem="the tests did not finish (the program exited or was killed)"))
    details: list[TestDetail] = []
    first: tuple[Status, str] | None = None
    for cls, methods in expected.items():
        passed, worst, why = 0, None, ""
        for method in methods:
            got = reported.get((cls, method))
            if got is not None and got[2] == "ok":
                passed += 1
                continue
            if got is not None:
                status, message = _OUTCOME.get(got[2], Status.RUNTIME_ERROR), f"{method}: {got[3]}"
            elif cls in whole_class:
                status, message = _OUTCOME.get(whole_class[cls][2], Status.RUNTIME_ERROR), whole_class[cls][3]
            elif not run.final:
                status, message = early
            else:
                status, message = Status.FAILED, f"{method}: no result (the test did not run)"
            if worst is None:
                worst, why = status, message
        if not methods and cls in whole_class and whole_class[cls][2] != "empty":
            worst, why = _OUTCOME.get(whole_class[cls][2], Status.RUNTIME_ERROR), whole_class[cls][3]
        elif not methods and cls not in whole_class:
            worst, why = (early if not run.final else (Status.FAILED, f"{cls}: no result"))
        detail_status = Status.PASSED if worst is None else worst
        details.append(TestDetail(name=f"class:{cls}", status=detail_status,
                                  message=f"{passed}/{len(methods)} tests passed" + (f"; {why}" if why else "")))
        if worst is not None and first is None:
            first = (worst, f"{cls}: {why}")
    if first is None and not run.final:
        first = early
    status, message = (Status.PASSED, "passed") if first is None else (first[0], f"failed: {first[1]}")
    if status is Status.TIMEOUT:
        message = "timed out"
    return Verdict(status, message, tests=details, duration_s=res.wall_seconds, stdout=_text(res.stdout), stderr=_text(res.stderr))


def judge_unittest_program(sandbox: Sandbox, problem: Problem, code: str, limits: PhaseLimits) -> Verdict:
    """Run a problem's unittest classes against a program (the sample with the benchmark's imports) and judge it."""
    tests = problem.tests
    assert isinstance(tests, ProgramTests)
    if tests.env is not None and tests.env.missing:  # bigcodebench: an environment gap is not the sample's failure
        return Verdict(Status.SKIPPED, f"skipped: environment gap: {tests.env.name} lacks {', '.join(tests.env.missing)} "
                       "(`assay env build bigcodebench`)")
    classes = list(tests.test_classes)
    class_limit = max(1.0, tests.cpu_seconds or limits.run_cpu)
    program = (problem.context.rstrip("\n") + "\n\n" if problem.context.strip() else "") + code  # upstream puts the imports first
    job = unittest_job(program, tests.code, classes, class_limit)
    if tests.env is not None:
        job["sys_path"] = list(tests.env.site_packages)
        job["patched_builtins"] = patched_builtins(tests.code)
    cpu = class_limit * max(1, len(classes)) + LOAD_LIMIT + 5
    box = SandboxLimits(cpu_seconds=cpu, wall_seconds=max(limits.run_wall, 3 * cpu + 10), memory_bytes=tests.memory_bytes or 4 * 1024**3,
                        processes=TASKS if tests.env is None else LIBRARY_TASKS, output_bytes=limits.output_bytes)
    expected = {c: job["tests"][c] for c in classes}
    return judge_unittest(run_unittest(sandbox, job, box), expected)
