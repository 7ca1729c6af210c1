"""Bash on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.canary import run_canary
from assay.languages.bash import find_function, shell_brace_depth, top_level_functions
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-sh"

CORRECT = {
    "HumanEval_13_greatest_common_divisor": "    local a=$1 b=$2 t\n    while (( b != 0 )); do t=$b; b=$(( a % b )); a=$t; done\n    echo $a\n",
    "HumanEval_23_strlen": "    echo ${#1}\n",
    "HumanEval_30_get_positive": (
        "    local out=()\n    for x in $1; do\n        if (( x > 0 )); then out+=(\"$x\"); fi\n    done\n    echo \"${out[*]}\"\n"
    ),
    "HumanEval_53_add": "    echo $(( $1 + $2 ))\n",
}

WRONG = [
    ("HumanEval_23_strlen", "    echo $(( ${#1} + 1 ))\n", Status.FAILED),  # wrong answer
    ("HumanEval_30_get_positive", "    echo $1\n", Status.FAILED),
    ("HumanEval_23_strlen", "    if [ -n \"$1\" ; then\n", Status.COMPILE_ERROR),  # syntax error
    ("HumanEval_13_greatest_common_divisor", "    echo $(( $1 / 0 ))\n", Status.RUNTIME_ERROR),  # division by zero: a fatal shell error
    ("HumanEval_30_get_positive", "    echo ${2:?no second list}\n", Status.RUNTIME_ERROR),  # unset parameter: a fatal shell error
    ("HumanEval_23_strlen", "    echo nothing\n    exit 3\n", Status.RUNTIME_ERROR),  # exits with an error status
    ("HumanEval_23_strlen", "    while true; do :; done\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '    echo ${#1}\n}\necho "tests passed"\nexit 0\nstrlen() {\n    echo ${#1}\n', Status.FAILED),  # early exit, status 0
    ("HumanEval_23_strlen", "    echo ${#1}\n    return 1\n", Status.PASSED),  # a nonzero return status is no error
]


@pytest.fixture(scope="module")
def bash():  # type: ignore[no-untyped-def]
    return language_or_skip("bash")


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(bash, pid: str) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(bash, problem, problem.prompt + CORRECT[pid])
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(bash, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(bash, problem, problem.prompt + body, run_cpu=2, run_wall=10)
    assert verdict.status is status, verdict


WHOLE = """#!/bin/bash
# Returns the length of a string.
function strlen {
    local s="$1"   # ${#s} is its length; a '{' in a comment or "}" in a string is no brace
    echo "$(count_chars "$s")"
}

count_chars() {
    echo ${#1}
}

if [ $# -ne 1 ]; then
    echo "usage: $0 STRING" >&2
    exit 1
fi
strlen "$1"
"""


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_is_spliced(bash) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    program = bash.as_completion(problem, WHOLE)
    assert program.startswith("count_chars() {") and "usage" not in program  # helpers kept, top-level commands dropped
    assert judge(bash, problem, WHOLE).status is Status.PASSED


def test_the_shell_scanner_knows_comments_quotes_and_parameter_lengths() -> None:
    assert shell_brace_depth('echo ${#x} "}" \'{\' $# # }\n') == 0
    assert shell_brace_depth("f() {\n    echo ${a[@]}\n") == 1
    code = "f() {\n  echo 1\n}\ng()\n{\n  f\n}\n"
    assert find_function(code, "g") == (17, 23, 27)  # definition, body, closing brace
    assert top_level_functions(code) == [(0, 17), (17, 29)]


@pytest.mark.slow
def test_hostile_programs_are_contained(bash, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    target = tmp_path / "escaped"
    judge(bash, problem, problem.prompt + f"    echo x > {target} 2>/dev/null\n    echo ${{#1}}\n")
    assert not target.exists()
    flood = "    local s\n    s=$(printf '%*s' 100000 '')\n    while true; do echo \"$s\" >&2; done\n"  # stderr: $(...) keeps stdout
    verdict = judge(bash, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(bash) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("bash"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
