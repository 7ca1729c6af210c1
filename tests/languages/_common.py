"""Shared helpers and tests for language plugin tests: real MultiPL-E problems, a real sandbox, real toolchains.

A language's test module declares its programs in `SPEC = LanguageSpec(...)` and star-imports this
module, which brings the shared tests (run on SPEC), their fixtures and the hook that parametrizes them:

    from tests.languages._common import *  # the shared tests, run on SPEC

Its own tests may use the same fixtures: `language` (the plugin), `verdicts` (SPEC's programs by name,
plus its `extra` ones) and `escape_target`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.canary import run_canary
from assay.languages import get_language
from assay.languages.base import Language, ToolchainMissing
from assay.problems import Benchmark, Problem, Status, Verdict
from assay.sandbox import get_sandbox
from assay.sandbox.base import Sandbox
from tests.conftest import shared_data

__all__ = [  # noqa: RUF022 - in the order the tests run
    "spec",
    "language",
    "escape_target",
    "verdicts",
    "pytest_generate_tests",
    "test_correct_completions_pass",
    "test_wrong_completions_fail_with_the_right_status",
    "test_a_whole_program_from_a_chat_model_passes",
    "test_hostile_programs_are_contained",
    "test_canary_builds_every_sampled_problem_with_a_stub",
]

STRLEN = "HumanEval_23_strlen"
TIGHT: dict[str, float] = {"run_cpu": 2, "run_wall": 10}  # the limits of the programs that must fail: a loop ends sooner


@cache
def benchmark(name: str) -> Benchmark:
    """A MultiPL-E benchmark from ../shared/data (the test skips when it is absent)."""
    data = shared_data()
    if not (data / "multipl-e").is_dir():
        pytest.skip(f"needs the shared data directory ({data}/multipl-e), which is absent here")
    return load_benchmark(name, data_dir=data)


def language_or_skip(name: str) -> Language:
    """The plugin, skipping the test with the install hint when its toolchain is missing here."""
    language = get_language(name)
    try:
        language.toolchain()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    return language


@cache
def sandbox_for(name: str) -> Sandbox:
    """One warm sandbox per language for the whole test session (closed at exit)."""
    import atexit

    box = get_sandbox(ro_binds=get_language(name).toolchain().ro_binds)
    close = getattr(box, "close", None)
    if close:
        atexit.register(close)
    return box


def judge(language: Language, problem: Problem, code: str, **limits: float) -> Verdict:
    """Judge one program (prompt + completion, or a whole program) with optional tighter limits."""
    lim = dataclasses.replace(language.limits, **limits) if limits else language.limits
    return language.judge(sandbox_for(language.name), problem, code, lim)


@dataclasses.dataclass(frozen=True, kw_only=True)
class LanguageSpec:
    """The programs the shared tests judge in one language.

    A body is a completion, judged after its problem's prompt, unless it starts with `whole_prefix`:
    then it is a whole program, judged as it is (as the chat reply always is).
    """

    language: str
    bench: str
    correct: Mapping[str, str]  # problem id -> a completion that passes
    wrong: list[tuple[str, str, Status]]  # (problem id, body, the status it gets under TIGHT limits)
    chat_reply: str  # a whole program as a chat model writes it, for `probe`: it passes
    hostile_write: Callable[[Path], str]  # a body for `probe` that tries to write to the path: it passes, the path stays absent
    floods: tuple[str, ...]  # bodies for `probe` that print without end: under TIGHT limits, each is stopped (see flood_*)
    probe: str = STRLEN  # the problem of the chat reply and of the hostile programs
    chat_probe: str | None = None  # the chat reply's problem, where it is not `probe`
    whole_prefix: str | None = None
    extra: Mapping[str, tuple[str, str, bool]] = dataclasses.field(default_factory=dict)  # the module's own: name -> (problem id, body, tight)
    prejudge: bool = False  # judge every program up front, two at a time (slow builds), rather than each in its test
    tight_write: bool = False  # the write attempt runs under TIGHT limits too
    flood_statuses: tuple[Status, ...] = (Status.RUNTIME_ERROR,)
    flood_message: str | None = "output limit"  # in the flood's verdict message (None: not checked)
    escape_path: str | None = None  # a fixed target for hostile_write (removed first); else one in a fresh temporary directory
    toolchain_cache: bool = False  # support files the toolchain builds are kept per machine, not per test session
    canary_ids: int = 6  # how many problems the canary samples (the first ones)
    canary_broken: Mapping[str, str] = dataclasses.field(default_factory=dict)  # problems no completion can build -> what their output says

    def code(self, problem: Problem, body: str) -> str:
        return body if self.whole_prefix and body.startswith(self.whole_prefix) else problem.prompt + body

    def programs(self, problems: Mapping[str, Problem], target: Path) -> dict[Hashable, tuple[Problem, str, dict[str, float]]]:
        """Every program the tests judge: name -> (problem, code, limits)."""
        probe = problems[self.probe]
        jobs: dict[Hashable, tuple[Problem, str, dict[str, float]]] = {}
        jobs |= {("correct", pid): (problems[pid], self.code(problems[pid], body), {}) for pid, body in self.correct.items()}
        jobs |= {("wrong", i): (problems[pid], self.code(problems[pid], body), TIGHT) for i, (pid, body, _) in enumerate(self.wrong)}
        jobs["chat"] = (problems[self.chat_probe or self.probe], self.chat_reply, {})
        jobs["write"] = (probe, self.code(probe, self.hostile_write(target)), TIGHT if self.tight_write else {})
        jobs |= {("flood", i): (probe, self.code(probe, body), TIGHT) for i, body in enumerate(self.floods)}
        for name, (pid, body, tight) in self.extra.items():
            jobs[name] = (problems[pid], self.code(problems[pid], body), TIGHT if tight else {})
        return jobs


class Verdicts:
    """The verdicts of a module's programs by name: all judged up front, two at a time, where its spec
    says prejudge; else each one when a test first asks for it."""

    def __init__(self, language: Language, spec: LanguageSpec, target: Path) -> None:
        self.language = language
        self.jobs = spec.programs(benchmark(spec.bench).problems, target)
        self.done: dict[Hashable, Verdict] = {}
        if spec.prejudge:
            with ThreadPoolExecutor(max_workers=2) as pool:
                futures = {key: pool.submit(judge, language, problem, code, **lim) for key, (problem, code, lim) in self.jobs.items()}
                self.done = {key: future.result() for key, future in futures.items()}

    def __getitem__(self, key: Hashable) -> Verdict:
        if key not in self.done:
            problem, code, lim = self.jobs[key]
            self.done[key] = judge(self.language, problem, code, **lim)
        return self.done[key]


@pytest.fixture(scope="module")
def spec(request: pytest.FixtureRequest) -> LanguageSpec:
    spec: LanguageSpec = request.module.SPEC
    return spec


@pytest.fixture(scope="module")
def language(spec: LanguageSpec) -> Language:
    if spec.toolchain_cache:
        os.environ.setdefault("ASSAY_TOOLCHAIN_CACHE", f"/var/tmp/assay-test-toolchains-{os.getuid()}")
    return language_or_skip(spec.language)


@pytest.fixture(scope="module")
def escape_target(spec: LanguageSpec, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if spec.escape_path is None:
        return tmp_path_factory.mktemp(f"{spec.language}-hostile") / "escaped"
    target = Path(spec.escape_path)
    target.unlink(missing_ok=True)
    return target


@pytest.fixture(scope="module")
def verdicts(language: Language, spec: LanguageSpec, escape_target: Path) -> Verdicts:
    return Verdicts(language, spec, escape_target)


@pytest.mark.slow
def test_correct_completions_pass(verdicts: Verdicts, pid: str) -> None:
    verdict = verdicts["correct", pid]
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
def test_wrong_completions_fail_with_the_right_status(spec: LanguageSpec, verdicts: Verdicts, case: int) -> None:
    verdict = verdicts["wrong", case]
    assert verdict.status is spec.wrong[case][2], verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(verdicts: Verdicts) -> None:
    assert verdicts["chat"].status is Status.PASSED, verdicts["chat"]


@pytest.mark.slow
def test_hostile_programs_are_contained(spec: LanguageSpec, verdicts: Verdicts, escape_target: Path) -> None:
    assert verdicts["write"].status is Status.PASSED, verdicts["write"]  # the write failed quietly; the tests ran
    assert not escape_target.exists()
    for i in range(len(spec.floods)):
        flood = verdicts["flood", i]
        assert flood.status in spec.flood_statuses and len(flood.stdout) <= 8000, flood
        assert spec.flood_message is None or spec.flood_message in flood.message, flood


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(spec: LanguageSpec, language: Language) -> None:
    bench = benchmark(spec.bench)
    ids = list(bench.problems)[: spec.canary_ids]
    result = run_canary(bench, sandbox_for(spec.language), workers=2, task_ids=ids)
    assert set(result.broken) == set(spec.canary_broken), {k: v.message for k, v in result.broken.items()}
    for pid, output in spec.canary_broken.items():
        assert output in result.broken[pid].stdout, result.broken[pid]
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for pid, v in result.verdicts.items() if pid not in result.broken)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize the shared tests with the module's SPEC: one test a program, named by problem (and status)."""
    spec: LanguageSpec = metafunc.module.SPEC
    if metafunc.function is test_correct_completions_pass:
        metafunc.parametrize("pid", sorted(spec.correct))
    elif metafunc.function is test_wrong_completions_fail_with_the_right_status:
        metafunc.parametrize("case", range(len(spec.wrong)), ids=[f"{pid}-{status.value}" for pid, _, status in spec.wrong])
