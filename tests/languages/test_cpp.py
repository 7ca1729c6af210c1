"""C++ on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time (g++ spends seconds on bits/stdc++.h);
the tests then check their verdicts.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.canary import run_canary
from assay.languages.cpp import Cpp
from assay.problems import Status, Verdict
from tests.conftest import shared_data
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-cpp"
TIGHT = {"run_cpu": 2, "run_wall": 10}

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "    for (size_t i = 0; i < numbers.size(); i++)\n        for (size_t j = 0; j < numbers.size(); j++)\n"
        "            if (i != j && std::abs(numbers[i] - numbers[j]) < threshold) return true;\n    return false;\n"
    ),
    "HumanEval_13_greatest_common_divisor": "    while (b != 0) { long t = a % b; a = b; b = t; }\n    return a;\n",
    "HumanEval_23_strlen": "    return string.size();\n",
    "HumanEval_30_get_positive": "    std::vector<long> out;\n    for (long x : l) if (x > 0) out.push_back(x);\n    return out;\n",
}

WRONG = [
    ("HumanEval_23_strlen", "    return string.size() + 1;\n", Status.FAILED),  # wrong answer
    ("HumanEval_23_strlen", "    return string.length_of();\n", Status.COMPILE_ERROR),  # no such member
    ("HumanEval_30_get_positive", "    return {l.at(l.size())};\n", Status.RUNTIME_ERROR),  # std::out_of_range: terminate, SIGABRT
    ("HumanEval_13_greatest_common_divisor", "    long* p = nullptr;\n    return *p + a;\n", Status.RUNTIME_ERROR),  # SIGSEGV
    ("HumanEval_23_strlen", "    assert(string.size() > 1000);\n    return string.size();\n", Status.RUNTIME_ERROR),  # the sample's own assert aborts
    ("HumanEval_23_strlen", "    for (volatile long i = 0; ; i++) {}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '    std::puts("tests passed");\n    std::exit(0);\n', Status.FAILED),  # early exit with status 0
]

CHAT_REPLY = """#include <iostream>
#include <string>
using namespace std;

static long count_chars(const string& s);

// Returns the length of a string.
long string_length(std::string string) {
    return count_chars(string);
}

static long count_chars(const string& s) { return (long)s.size(); }

int main() {
    cout << string_length("abc") << endl;
    return 0;
}
"""

FLOOD = '    while (true) std::cout << std::string(1000, \'x\') << std::endl;\n'


def hostile_write(target: Path) -> str:
    return f'    FILE* f = std::fopen("{target}", "w");\n    if (f) {{ std::fputs("x", f); std::fclose(f); }}\n    return string.size();\n'


@pytest.fixture(scope="module")
def cpp() -> Cpp:
    return language_or_skip("cpp")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def escape_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cpp-hostile") / "escaped"


@pytest.fixture(scope="module")
def verdicts(cpp: Cpp, escape_target: Path) -> dict[str, Verdict]:
    """Every program of this file, judged two at a time: name -> verdict."""
    bench = benchmark(BENCH)
    jobs: dict[str, tuple[str, str, dict[str, float]]] = {}
    for pid, body in CORRECT.items():
        jobs[f"correct:{pid}"] = (pid, bench.problems[pid].prompt + body, {})
    for i, (pid, body, _) in enumerate(WRONG):
        jobs[f"wrong:{i}"] = (pid, bench.problems[pid].prompt + body, TIGHT)
    jobs["chat"] = ("HumanEval_23_strlen", CHAT_REPLY, {})
    jobs["write"] = ("HumanEval_23_strlen", bench.problems["HumanEval_23_strlen"].prompt + hostile_write(escape_target), {})
    jobs["flood"] = ("HumanEval_23_strlen", bench.problems["HumanEval_23_strlen"].prompt + FLOOD, TIGHT)

    def one(item: tuple[str, tuple[str, str, dict[str, float]]]) -> tuple[str, Verdict]:
        name, (pid, code, limits) = item
        return name, judge(cpp, bench.problems[pid], code, **limits)

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
def test_a_whole_program_from_a_chat_model_is_spliced(verdicts: dict[str, Verdict]) -> None:
    # Its includes and helpers (one declared before the function, defined after it) are kept; its main is dropped.
    assert verdicts["chat"].status is Status.PASSED, verdicts["chat"]


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts: dict[str, Verdict], escape_target: Path) -> None:
    assert verdicts["write"].status is Status.PASSED, verdicts["write"]  # the write failed quietly
    assert not escape_target.exists()
    flood = verdicts["flood"]
    assert flood.status is Status.RUNTIME_ERROR and "output limit" in flood.message and len(flood.stdout) <= 8000, flood


def test_the_test_section_maps_asserts_and_prints_the_marker_last() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    program = Cpp().program(problem, problem.prompt + "    return string.size();\n", "MARK")
    assert "int main() {\n    auto candidate" not in program and "void assay_tests_main() {" in program
    assert program.index("#undef assert") < program.index("assert(candidate(")
    assert program.rstrip().endswith("return 0;\n}") and program.index('puts("MARK")') > program.index("assay_tests_main();")


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(cpp: Cpp) -> None:
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("cpp"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
