"""Bash on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.languages.base import Language
from assay.languages.bash import find_function, shell_brace_depth, top_level_functions
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark

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

SPEC = LanguageSpec(
    language="bash",
    bench="multipl-e/humaneval-sh",
    correct={
        "HumanEval_13_greatest_common_divisor": "    local a=$1 b=$2 t\n    while (( b != 0 )); do t=$b; b=$(( a % b )); a=$t; done\n    echo $a\n",
        "HumanEval_23_strlen": "    echo ${#1}\n",
        "HumanEval_30_get_positive": (
            "    local out=()\n    for x in $1; do\n        if (( x > 0 )); then out+=(\"$x\"); fi\n    done\n    echo \"${out[*]}\"\n"
        ),
        "HumanEval_53_add": "    echo $(( $1 + $2 ))\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "    echo $(( ${#1} + 1 ))\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    echo $1\n", Status.FAILED),
        ("HumanEval_23_strlen", "    if [ -n \"$1\" ; then\n", Status.COMPILE_ERROR),  # syntax error
        ("HumanEval_13_greatest_common_divisor", "    echo $(( $1 / 0 ))\n", Status.RUNTIME_ERROR),  # division by zero: a fatal shell error
        ("HumanEval_30_get_positive", "    echo ${2:?no second list}\n", Status.RUNTIME_ERROR),  # unset parameter: a fatal shell error
        ("HumanEval_23_strlen", "    echo nothing\n    exit 3\n", Status.RUNTIME_ERROR),  # exits with an error status
        ("HumanEval_23_strlen", "    while true; do :; done\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    echo ${#1}\n}\necho "tests passed"\nexit 0\nstrlen() {\n    echo ${#1}\n', Status.FAILED),  # early exit, status 0
        ("HumanEval_23_strlen", "    echo ${#1}\n    return 1\n", Status.PASSED),  # a nonzero return status is no error
    ],
    chat_reply=WHOLE,
    hostile_write=lambda target: f"    echo x > {target} 2>/dev/null\n    echo ${{#1}}\n",
    floods=("    local s\n    s=$(printf '%*s' 100000 '')\n    while true; do echo \"$s\" >&2; done\n",),  # stderr: $(...) keeps stdout
)


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_is_spliced(language: Language) -> None:
    program = language.as_completion(benchmark(SPEC.bench).problems[STRLEN], WHOLE)  # type: ignore[attr-defined]
    assert program.startswith("count_chars() {") and "usage" not in program  # helpers kept, top-level commands dropped


def test_the_shell_scanner_knows_comments_quotes_and_parameter_lengths() -> None:
    assert shell_brace_depth('echo ${#x} "}" \'{\' $# # }\n') == 0
    assert shell_brace_depth("f() {\n    echo ${a[@]}\n") == 1
    code = "f() {\n  echo 1\n}\ng()\n{\n  f\n}\n"
    assert find_function(code, "g") == (17, 23, 27)  # definition, body, closing brace
    assert top_level_functions(code) == [(0, 17), (17, 29)]
