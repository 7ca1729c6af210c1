"""D on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.canary import run_canary
from assay.languages.d import D
from assay.problems import Status, Verdict
from tests.conftest import shared_data
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-d"
TIGHT = {"run_cpu": 2, "run_wall": 10}

# MultiPL-E's D prompts end with the function's signature: a completion writes the whole body.
CORRECT = {
    "HumanEval_0_has_close_elements": (
        "{\n    foreach (i; 0 .. numbers.length)\n        foreach (j; 0 .. numbers.length)\n"
        "            if (i != j && abs(numbers[i] - numbers[j]) < threshold) return true;\n    return false;\n}\n"
    ),
    "HumanEval_13_greatest_common_divisor": "{\n    while (b != 0) { auto t = a % b; a = b; b = t; }\n    return a;\n}\n",
    "HumanEval_23_strlen": "{\n    return cast(long) string.length;\n}\n",
    "HumanEval_30_get_positive": "{\n    long[] r;\n    foreach (x; l) if (x > 0) r ~= x;\n    return r;\n}\n",
}

WRONG = [
    ("HumanEval_23_strlen", "{\n    return cast(long) string.length + 1;\n}\n", Status.FAILED),  # wrong answer
    ("HumanEval_30_get_positive", "{\n    long[] r;\n    foreach (x; l) if (x >= 0) r ~= x;\n    return r;\n}\n", Status.FAILED),
    ("HumanEval_23_strlen", "{\n    return no_such_name(string);\n}\n", Status.COMPILE_ERROR),  # undefined identifier
    ("HumanEval_23_strlen", "{\n    return cast(long) string.length\n}\n", Status.COMPILE_ERROR),  # syntax: no semicolon
    ("HumanEval_30_get_positive", "{\n    return [l[l.length]];\n}\n", Status.RUNTIME_ERROR),  # ArrayIndexError
    ("HumanEval_13_greatest_common_divisor", '{\n    throw new Exception("boom");\n}\n', Status.RUNTIME_ERROR),  # uncaught exception
    ("HumanEval_13_greatest_common_divisor", "{\n    int* p = null;\n    return *p + a;\n}\n", Status.RUNTIME_ERROR),  # null dereference
    ("HumanEval_23_strlen", "{\n    assert(string.length > 1000);\n    return string.length;\n}\n", Status.RUNTIME_ERROR),  # the sample's own assert
    ("HumanEval_23_strlen", "{\n    while (true) {}\n}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '{\n    import core.stdc.stdio : puts;\n    import core.stdc.stdlib : exit;\n    puts("tests passed");\n    exit(0);\n    return 0;\n}\n', Status.FAILED),  # early exit, status 0
]

CHAT_REPLY = """import std.stdio;
import std.math : abs;

/// Checks whether any two numbers are closer than the threshold.
bool has_close_elements(float[] numbers, float threshold)
{
    foreach (i, a; numbers)
        foreach (j, b; numbers)
            if (i != j && abs(a - b) < threshold)
                return true;
    return false;
}

unittest
{
    assert(has_close_elements([1.0, 2.0], 0.5) == false);
}

void main()
{
    writeln(has_close_elements([1.0, 2.8, 3.0], 0.3));
}
"""

FLOOD = '{\n    import std.stdio : writeln;\n    import std.array : replicate;\n    while (true) writeln("x".replicate(1000));\n}\n'


def hostile_write(target: Path) -> str:
    return f'{{\n    import std.file : write;\n    try write("{target}", "x"); catch (Exception e) {{}}\n    return string.length;\n}}\n'


@pytest.fixture(scope="module")
def d() -> D:
    return language_or_skip("d")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def escape_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("d-hostile") / "escaped"


@pytest.fixture(scope="module")
def verdicts(d: D, escape_target: Path) -> dict[str, Verdict]:
    """Every program of this file, judged two at a time: name -> verdict."""
    bench = benchmark(BENCH)
    jobs: dict[str, tuple[str, str, dict[str, float]]] = {}
    for pid, body in CORRECT.items():
        jobs[f"correct:{pid}"] = (pid, bench.problems[pid].prompt + body, {})
    for i, (pid, body, _) in enumerate(WRONG):
        jobs[f"wrong:{i}"] = (pid, bench.problems[pid].prompt + body, TIGHT)
    jobs["chat"] = ("HumanEval_0_has_close_elements", CHAT_REPLY, {})
    jobs["write"] = ("HumanEval_23_strlen", bench.problems["HumanEval_23_strlen"].prompt + hostile_write(escape_target), {})
    jobs["flood"] = ("HumanEval_23_strlen", bench.problems["HumanEval_23_strlen"].prompt + FLOOD, TIGHT)

    def one(item: tuple[str, tuple[str, str, dict[str, float]]]) -> tuple[str, Verdict]:
        name, (pid, code, limits) = item
        return name, judge(d, bench.problems[pid], code, **limits)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, jobs.items()))


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(verdicts: dict[str, Verdict], pid: str) -> None:
    verdict = verdicts[f"correct:{pid}"]
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("index", "status"), [(i, status) for i, (_, _, status) in enumerate(WRONG)], ids=[f"{p}-{s.value}" for p, _, s in WRONG])
def test_wrong_completions_fail_with_the_right_status(verdicts: dict[str, Verdict], index: int, status: Status) -> None:
    verdict = verdicts[f"wrong:{index}"]
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_runs_with_the_tests(verdicts: dict[str, Verdict]) -> None:
    # Its own main replaces the tests' empty one (and does not run); its own unittest runs first.
    assert verdicts["chat"].status is Status.PASSED, verdicts["chat"]


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts: dict[str, Verdict], escape_target: Path) -> None:
    assert verdicts["write"].status is Status.PASSED, verdicts["write"]  # the write failed quietly
    assert not escape_target.exists()
    flood = verdicts["flood"]
    assert flood.status is Status.RUNTIME_ERROR and "output limit" in flood.message and len(flood.stdout) <= 8000, flood


def test_the_test_section_names_its_file_and_keeps_one_main() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(BENCH).problems["HumanEval_0_has_close_elements"]
    program = D().program(problem, problem.prompt + CORRECT["HumanEval_0_has_close_elements"], "MARK")
    assert program.index('#line 1 "assay-tests.d"\nunittest') > program.index("extendedModuleUnitTester")
    assert program.count("void main(){}") == 1 and 'puts("MARK")' in program
    assert D().program(problem, CHAT_REPLY, "MARK").count("void main(") == 1


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(d: D) -> None:
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("d"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
