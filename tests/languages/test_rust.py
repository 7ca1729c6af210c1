"""Rust on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.canary import run_canary
from assay.languages.rust import Rust
from assay.problems import Status, Verdict
from tests.conftest import shared_data
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-rs"
TIGHT = {"run_cpu": 2, "run_wall": 10}

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "    for i in 0..numbers.len() {\n        for j in 0..numbers.len() {\n"
        "            if i != j && (numbers[i] - numbers[j]).abs() < threshold { return true; }\n        }\n    }\n    false\n"
    ),
    "HumanEval_13_greatest_common_divisor": "    let (mut a, mut b) = (a, b);\n    while b != 0 { let t = a % b; a = b; b = t; }\n    a\n",
    "HumanEval_23_strlen": "    string.len() as isize\n",
    "HumanEval_30_get_positive": "    l.into_iter().filter(|&x| x > 0).collect()\n",
}

WRONG = [
    ("HumanEval_23_strlen", "    string.len() as isize + 1\n", Status.FAILED),  # wrong answer
    ("HumanEval_30_get_positive", "    l.into_iter().filter(|&x| x >= 0).collect()\n", Status.FAILED),
    ("HumanEval_23_strlen", "    string.length() as isize\n", Status.COMPILE_ERROR),  # no such method
    ("HumanEval_23_strlen", "    let n: isize = string.len();\n    n\n", Status.COMPILE_ERROR),  # type error
    ("HumanEval_13_greatest_common_divisor", "    let x: Option<isize> = None;\n    x.unwrap() + a\n", Status.RUNTIME_ERROR),  # panic
    ("HumanEval_30_get_positive", "    vec![l[l.len()]]\n", Status.RUNTIME_ERROR),  # index out of bounds
    ("HumanEval_13_greatest_common_divisor", "    isize::MAX + a\n", Status.RUNTIME_ERROR),  # overflow panics in a debug build
    ("HumanEval_23_strlen", "    assert!(string.len() > 1000);\n    string.len() as isize\n", Status.RUNTIME_ERROR),  # the sample's own assert panics
    ("HumanEval_23_strlen", "    loop {}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '    println!("tests passed");\n    std::process::exit(0)\n', Status.FAILED),  # early exit with status 0
]

CHAT_REPLY = """use std::collections::HashSet;

/// Returns the length of a string.
fn strlen(string: String) -> isize {
    let unique: HashSet<char> = string.chars().collect();
    let _ = unique.len();
    count(&string)
}

fn count(s: &str) -> isize {
    s.chars().count() as isize
}

fn main() {
    println!("{}", strlen(String::from("abc")));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_works() {
        assert_eq!(strlen("ab".to_string()), 2);
    }
}
"""

FLOOD = '    loop { println!("{}", "x".repeat(1000)); }\n'


def hostile_write(target: Path) -> str:
    return f'    let _ = std::fs::write("{target}", "x");\n    string.len() as isize\n'


@pytest.fixture(scope="module")
def rust() -> Rust:
    return language_or_skip("rust")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def escape_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rust-hostile") / "escaped"


@pytest.fixture(scope="module")
def verdicts(rust: Rust, escape_target: Path) -> dict[str, Verdict]:
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
        return name, judge(rust, bench.problems[pid], code, **limits)

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
    # Its `use` and its helper after the function are kept; its main is dropped.
    assert verdicts["chat"].status is Status.PASSED, verdicts["chat"]


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts: dict[str, Verdict], escape_target: Path) -> None:
    assert verdicts["write"].status is Status.PASSED, verdicts["write"]  # the write failed quietly
    assert not escape_target.exists()
    flood = verdicts["flood"]
    assert flood.status is Status.RUNTIME_ERROR and "output limit" in flood.message and len(flood.stdout) <= 8000, flood


def test_the_test_section_shadows_the_assert_macros_and_prints_the_marker_last() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    program = Rust().program(problem, problem.prompt + "    string.len() as isize\n", "MARK")
    assert program.index("macro_rules! assert_eq") < program.index("assert_eq!(candidate(")
    assert "fn assay_tests_main() {\n    let candidate" in program
    assert program.rstrip().endswith('assay_tests_main();\n    println!("MARK");\n}')


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(rust: Rust) -> None:
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("rust"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
