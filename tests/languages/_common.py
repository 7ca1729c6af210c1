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
    "test_multipl_e_tests_load_as_cases",
    "test_rendered_calls_match_multipl_e",
    "test_values_make_the_round_trip",
    "test_hostile_samples_never_pass",
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
    whole_prefix: str | tuple[str, ...] | None = None
    extra: Mapping[str, tuple[str, str, bool]] = dataclasses.field(default_factory=dict)  # the module's own: name -> (problem id, body, tight)
    prejudge: bool = False  # judge every program up front, two at a time (slow builds), rather than each in its test
    tight_write: bool = False  # the write attempt runs under TIGHT limits too
    flood_statuses: tuple[Status, ...] = (Status.RUNTIME_ERROR,)
    flood_message: str | None = "output limit"  # in the flood's verdict message (None: not checked)
    escape_path: str | None = None  # a fixed target for hostile_write (removed first); else one in a fresh temporary directory
    toolchain_cache: bool = False  # support files the toolchain builds are kept per machine, not per test session
    canary_ids: int = 6  # how many problems the canary samples (the first ones)
    canary_broken: Mapping[str, str] = dataclasses.field(default_factory=dict)  # problems no completion can build -> what their output says
    # Cases (assay.judging.cases): what a sample written to cheat does, by name -> (problem id, body). None may
    # pass; each is judged under TIGHT limits. Cover every class of attack the language allows (see
    # docs/verdicts.md): forged records or marker, an early exit, neutralised comparisons or exits,
    # code before main, build-time code, the channel, the wall limit.
    hostile: Mapping[str, tuple[str, str]] = dataclasses.field(default_factory=dict)
    hostile_status: Mapping[str, Status] = dataclasses.field(default_factory=dict)  # where the status itself is the point
    program_judged: Mapping[str, str] = dataclasses.field(default_factory=dict)  # humaneval+mbpp problems not judged as cases -> why
    render_agreement: float = 0.98  # the share of MultiPL-E's translated calls the plugin renders the same (whitespace aside)
    round_trip_skip: Mapping[str, str] = dataclasses.field(default_factory=dict)  # round-trip problems this language cannot build -> why

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
        for name, (pid, body) in self.hostile.items():
            jobs["hostile", name] = (problems[pid], self.code(problems[pid], body), TIGHT)
        return jobs

    @property
    def mbpp_bench(self) -> str:
        return self.bench.replace("/humaneval-", "/mbpp-")


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


# Problems no language judges as cases: their Python signatures are outside the value model.
COMMON_PROGRAM_JUDGED = {"mbpp_595_min_Swaps": "outside the value model"}  # Literal["Not Possible"] | int

# Return types of every shape the MultiPL-E originals use: each problem's expected outputs, rendered as
# literals of the language, go through its harness and must decode to themselves.
ROUND_TRIP = (
    "HumanEval_8_sum_product", "HumanEval_12_longest", "HumanEval_20_find_closest_elements", "HumanEval_21_rescale_to_unit",
    "HumanEval_87_get_row", "HumanEval_111_histogram", "HumanEval_136_largest_smallest_integers", "HumanEval_137_compare_one",
    "mbpp_237_check_occurences", "mbpp_290_max_length", "mbpp_585_expensive_items",
)


def _all_problems(spec: LanguageSpec) -> dict[str, Problem]:
    return {**benchmark(spec.bench).problems, **benchmark(spec.mbpp_bench).problems}


@pytest.mark.slow
def test_multipl_e_tests_load_as_cases(spec: LanguageSpec, language: Language) -> None:
    from assay.problems import CaseTests, ProgramTests

    problems = _all_problems(spec)
    judged = {pid: p.tests.why for pid, p in problems.items() if isinstance(p.tests, ProgramTests)}
    expected = {pid: why for pid, why in {**COMMON_PROGRAM_JUDGED, **spec.program_judged}.items() if pid in problems}
    assert set(judged) == set(expected), {pid: judged.get(pid) for pid in set(judged) ^ set(expected)}
    for pid, why in expected.items():
        assert why in judged[pid], (pid, judged[pid])
    assert all(isinstance(p.tests, CaseTests) and p.tests.signature is not None for pid, p in problems.items() if pid not in judged)


@pytest.mark.slow
def test_rendered_calls_match_multipl_e(spec: LanguageSpec, language: Language) -> None:
    import re

    from assay.languages.base import Unrepresentable
    from assay.problems import CaseTests

    def norm(text: str) -> str:
        return re.sub(r"\s+", "", text)

    total, same, differ = 0, 0, []
    for pid, problem in _all_problems(spec).items():
        tests = problem.tests
        if not isinstance(tests, CaseTests) or tests.signature is None:
            continue
        for case in tests.cases:
            total += 1
            try:
                mine = language.render_call(tests.signature, case.args)
            except Unrepresentable as exc:
                mine = f"<{exc}>"
            if case.call is not None and norm(mine) == norm(case.call):
                same += 1
            else:
                differ.append(f"{pid}: MultiPL-E {case.call!r}, Assay {mine!r}")
    assert total and same / total >= spec.render_agreement, f"{same}/{total} agree; first differences:\n" + "\n".join(differ[:15])


@pytest.mark.slow
@pytest.mark.parametrize("pid", ROUND_TRIP)
def test_values_make_the_round_trip(spec: LanguageSpec, language: Language, pid: str) -> None:
    from assay import values
    from assay.judging.cases import judge_cases, plan_for
    from assay.languages.base import Unrepresentable
    from assay.problems import CaseTests

    if pid in spec.round_trip_skip:
        pytest.skip(spec.round_trip_skip[pid])
    problem = _all_problems(spec).get(pid)
    if problem is None or not isinstance(problem.tests, CaseTests) or problem.tests.signature is None:
        pytest.skip(f"{pid} is not a case-tested problem in {spec.language}")
    returns = problem.tests.signature.returns
    plan = plan_for(language, problem)
    try:
        plan.calls = [language.render_value(values.coerce(c.expected, returns), returns) for c in problem.tests.cases]
    except Unrepresentable as exc:
        pytest.skip(f"{spec.language} cannot represent {pid}'s results: {exc}")
    verdict = judge_cases(language, sandbox_for(language.name), problem, problem.prompt + language.stub, plan, language.limits)
    assert verdict.status is Status.PASSED, (verdict, plan.calls[:3])


@pytest.mark.slow
def test_hostile_samples_never_pass(spec: LanguageSpec, verdicts: Verdicts) -> None:
    passed = {name: verdicts["hostile", name] for name in spec.hostile if verdicts["hostile", name].status is Status.PASSED}
    assert not passed, passed
    for name, status in spec.hostile_status.items():
        assert verdicts["hostile", name].status is status, (name, verdicts["hostile", name])
