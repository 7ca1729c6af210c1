"""Rust on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

import pytest

from assay.languages.rust import Rust
from assay.problems import Status
from tests.conftest import shared_data
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark

# Its `use` and its helper after the function are kept; its main is dropped.
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

SPEC = LanguageSpec(
    language="rust",
    bench="multipl-e/humaneval-rs",
    correct={
        "HumanEval_0_has_close_elements": (
            "    for i in 0..numbers.len() {\n        for j in 0..numbers.len() {\n"
            "            if i != j && (numbers[i] - numbers[j]).abs() < threshold { return true; }\n        }\n    }\n    false\n"
        ),
        "HumanEval_13_greatest_common_divisor": "    let (mut a, mut b) = (a, b);\n    while b != 0 { let t = a % b; a = b; b = t; }\n    a\n",
        "HumanEval_23_strlen": "    string.len() as isize\n",
        "HumanEval_30_get_positive": "    l.into_iter().filter(|&x| x > 0).collect()\n",
    },
    wrong=[
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
    ],
    chat_reply=CHAT_REPLY,
    hostile_write=lambda target: f'    let _ = std::fs::write("{target}", "x");\n    string.len() as isize\n',
    floods=('    loop { println!("{}", "x".repeat(1000)); }\n',),
    prejudge=True,
)


def test_the_test_section_shadows_the_assert_macros_and_prints_the_marker_last() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = Rust().program(problem, problem.prompt + "    string.len() as isize\n", "MARK")
    assert program.index("macro_rules! assert_eq") < program.index("assert_eq!(candidate(")
    assert "fn assay_tests_main() {\n    let candidate" in program
    assert program.rstrip().endswith('assay_tests_main();\n    println!("MARK");\n}')
