"""The scheduler seam: a judge job is self-contained, picklable data, and a worker in another process
with its own sandbox turns it into the same verdict as the driver's executor (what a cluster
scheduler will rely on). Every judging path is tried, with a right and a wrong program each."""

from __future__ import annotations

import dataclasses
import multiprocessing
import pickle
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.benchmarks._fetch import DataUnavailable
from assay.execution import Executor
from assay.execution.jobs import JudgeJob, LanguageCases, LanguageProgram, PythonCases, PythonGivenCases, PythonProgram, Skip, run_job
from assay.execution.schedulers import LocalScheduler
from assay.languages import get_language, toolchain_binds
from assay.languages.base import ToolchainMissing
from assay.problems import Benchmark, Case, CaseTests, Problem, Status, Verdict
from assay.sandbox import get_sandbox
from assay.store import RunStore
from tests.conftest import shared_data

HE0_RIGHT = "    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n            if abs(a - b) < threshold:\n                return True\n    return False\n"
HE0_WRONG = "    return False\n"


def _worker(blob: bytes, binds: list[str]) -> tuple[str, str]:
    """In a fresh process: unpickle the job and judge it with a sandbox of this process's own."""
    job = pickle.loads(blob)
    sandbox = get_sandbox(ro_binds=binds)
    try:
        verdict = run_job(job, sandbox)
    finally:
        close = getattr(sandbox, "close", None)
        if close:
            close()
    return verdict.status.value, verdict.message


def _load(name: str, **kw: object) -> Benchmark:
    try:
        return load_benchmark(name, **kw)  # type: ignore[arg-type]
    except DataUnavailable as exc:
        pytest.skip(str(exc))


def _cases() -> list[tuple[str, Benchmark, str, str, str, type]]:
    """(label, benchmark, task, right, wrong, plan kind) for each judging path."""
    data = shared_data()
    out: list[tuple[str, Benchmark, str, str, str, type]] = []
    humaneval = _load("humaneval")
    out.append(("humaneval check()", humaneval, "HumanEval/0", HE0_RIGHT, HE0_WRONG, PythonProgram))
    plus = _load("humaneval-plus", data_dir=data)
    out.append(("humaneval+ cases", plus, "HumanEval/0", HE0_RIGHT, HE0_WRONG, PythonCases))
    py_multiple = _load("multipl-e/humaneval-py", data_dir=data)
    out.append(("multipl-e python given cases", py_multiple, "HumanEval_0_has_close_elements", HE0_RIGHT, HE0_WRONG, PythonGivenCases))
    js = _load("multipl-e/humaneval-js", data_dir=data)
    js_right = ("    for (let i = 0; i < numbers.length; i++)\n      for (let j = i + 1; j < numbers.length; j++)\n"
                "        if (Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n    return false;\n}\n")
    out.append(("multipl-e js cases", js, "HumanEval_0_has_close_elements", js_right, "    return false;\n}\n", LanguageCases))
    suite = _load("swift-suite")
    pid = next(iter(suite.problems))
    problem = suite.problems[pid]
    wrong = next(iter(problem.extra["wrong_solutions"].values()))
    out.append(("swift-suite program", suite, pid, problem.reference_program(), wrong, LanguageProgram))
    return out


@pytest.mark.shared_data
def test_a_job_judged_in_another_process_gets_the_drivers_verdict(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")  # nothing of the driver's memory: only the pickled job
    for label, bench, task, right, wrong, kind in _cases():
        languages = {p.language for p in bench.problems.values()}
        try:
            for name in languages - {"python"}:
                get_language(name).toolchain()
        except ToolchainMissing:
            continue
        binds = toolchain_binds(languages)
        sandbox = get_sandbox(ro_binds=binds)
        executor = Executor(sandbox, bench, cache_dir=tmp_path / "cache")
        problem = bench.problems[task]
        if problem.reference:
            assert executor.check_reference(problem).passed, label
        with context.Pool(1) as pool:
            for code, want in ((right, Status.PASSED), (wrong, None)):
                text = code if problem.reference_is_program else problem.prompt + code
                job = executor.job(problem, text)
                assert isinstance(job.plan, kind), (label, type(job.plan))
                blob = pickle.dumps(job)
                here = executor.judge(problem, text)
                there = pool.apply(_worker, (blob, binds))
                assert there == (here.status.value, here.message), (label, here, there)
                assert (here.status is Status.PASSED) == (want is Status.PASSED), (label, here)
        close = getattr(sandbox, "close", None)
        if close:
            close()


def test_a_language_without_a_plugin_is_a_skip_job(tmp_path: Path) -> None:
    problem = Problem(id="T/0", language="cobol", prompt="", entry_point="f", reference="",
                      tests=CaseTests(cases=(Case(args=(1,), expected=1),)))
    bench = Benchmark(name="t", version="1", content_hash="h", source="test", problems={"T/0": problem})
    job = Executor(get_sandbox(), bench).job(problem, "anything")
    assert isinstance(job.plan, Skip)
    assert run_job(pickle.loads(pickle.dumps(job)), get_sandbox()).status is Status.SKIPPED


def test_the_local_scheduler_runs_jobs_and_calls(tmp_path: Path) -> None:
    bench = _load("humaneval")
    problem = bench.problems["HumanEval/0"]
    sandbox = get_sandbox()
    executor = Executor(sandbox, bench)
    with LocalScheduler(sandbox, 2) as scheduler:
        assert scheduler.call(executor.check_reference, problem).result().passed
        jobs: list[JudgeJob] = [executor.job(problem, problem.prompt + code) for code in (HE0_RIGHT, HE0_WRONG)]
        verdicts: list[Verdict] = [f.result() for f in [scheduler.submit(job) for job in jobs]]
    assert [v.status for v in verdicts] == [Status.PASSED, Status.FAILED]
    assert jobs[0].program_hash == executor.program_hash(problem, problem.prompt + HE0_RIGHT)
    # The executor's streaming judge goes through the same seam: one verdict per distinct program.
    store = RunStore(tmp_path / "run")
    from assay.samples import Sample

    samples = [Sample("HumanEval/0", i, code, None, i) for i, code in enumerate((HE0_RIGHT, HE0_WRONG, HE0_RIGHT))]
    store.add_samples([dataclasses.replace(s, program_hash=executor.key(s)) for s in samples])
    with LocalScheduler(sandbox, 2) as scheduler:
        executor.judge_stream(scheduler, samples, store)
    assert sorted(v.status.value for *_, v in store.results() if v is not None) == ["failed", "passed", "passed"]
    store.close()


def test_each_program_is_hashed_once_in_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The store and the judge take the same hash, made once per sample (references aside: each is hashed
    # for its own check), where evaluate hashed each program twice and the model path three times.
    from assay.execution.pipeline import evaluate
    from assay.samples import Sample

    bench = _load("humaneval")
    problem = bench.problems["HumanEval/0"]
    seen: list[str] = []
    original = Executor.program_hash

    def counting(self: Executor, p: Problem, code: str) -> str:
        seen.append(code)
        return original(self, p, code)

    monkeypatch.setattr(Executor, "program_hash", counting)
    samples = [Sample("HumanEval/0", i, code, None, i + 1) for i, code in enumerate((HE0_RIGHT, HE0_WRONG, HE0_RIGHT))]
    path = tmp_path / "samples.jsonl"
    path.write_text("")
    result = evaluate(bench, samples, path, tmp_path / "run", get_sandbox(), [1], workers=1)
    assert (result.counts["passed"], result.counts["failed"]) == (2, 1)
    sample_hashes = [c for c in seen if c != problem.reference_program()]
    assert len(sample_hashes) == 3, len(sample_hashes)


def test_a_verdict_is_keyed_by_the_problem_as_the_loader_built_it(tmp_path: Path) -> None:
    # The same data file (the same content_hash), but a loader that now builds other tests: the program's
    # hash changes with them, so neither the run store nor the verdict cache serves the old tests' verdict.
    from assay.execution.executor import verdict_code_digest

    bench = _load("humaneval")
    problem = bench.problems["HumanEval/0"]
    executor = Executor(get_sandbox(), bench)
    before = executor.program_hash(problem, HE0_RIGHT)
    assert executor.program_hash(problem, HE0_RIGHT) == before  # stable
    tests = problem.tests
    changed = dataclasses.replace(problem, tests=dataclasses.replace(tests, code=tests.code + "\n    assert candidate([], 1.0) is False\n"))  # type: ignore[type-var]
    rebuilt = dataclasses.replace(bench, problems={**bench.problems, "HumanEval/0": changed})
    other = Executor(get_sandbox(), rebuilt)
    assert other.program_hash(changed, HE0_RIGHT) != before
    assert other.context() != executor.context()  # a run store keyed before the change is keyed again
    assert len(verdict_code_digest()) == 16  # and the judges' own code is in every key
