"""Bash on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.languages.base import Language
from assay.languages.bash import find_function, shell_brace_depth, top_level_functions
from assay.problems import Status
from assay.values import Type
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark, language_or_skip

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
        # A call is judged by what it printed, whatever its status, as MultiPL-E's test does: a fatal shell
        # error, an unset parameter or an exit with an error status print nothing right, so they fail
        # (under the test program they were runtime errors).
        ("HumanEval_13_greatest_common_divisor", "    echo $(( $1 / 0 ))\n", Status.FAILED),  # division by zero: a fatal shell error
        ("HumanEval_30_get_positive", "    echo ${2:?no second list}\n", Status.FAILED),  # unset parameter: a fatal shell error
        ("HumanEval_23_strlen", "    echo nothing\n    exit 3\n", Status.FAILED),  # exits with an error status
        ("HumanEval_23_strlen", "    while true; do :; done\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    echo ${#1}\n}\necho "tests passed"\nexit 0\nstrlen() {\n    echo ${#1}\n', Status.FAILED),  # early exit, status 0
        ("HumanEval_23_strlen", "    echo ${#1}\n    return 1\n", Status.PASSED),  # a nonzero return status is no error
        ("HumanEval_23_strlen", "    echo ${#1}\n    exit 4\n", Status.PASSED),  # nor an exit after the right output
        ("HumanEval_23_strlen", "    echo \" ${#1}\"\n", Status.FAILED),  # " 0" is not "0"
        ("HumanEval_30_get_positive", "    local x\n    for x in $1; do (( x > 0 )) && echo \"$x\"; done\n", Status.FAILED),  # one a line: not "1 2 3"
    ],
    chat_reply=WHOLE,
    hostile_write=lambda target: f"    echo x > {target} 2>/dev/null\n    echo ${{#1}}\n",
    floods=("    local s\n    s=$(printf '%*s' 100000 '')\n    while true; do echo \"$s\" >&2; done\n",),  # stderr: $(...) keeps stdout
    hostile={
        # the old completion marker, looked for in its own source, printed, then exit 0 (at the top level)
        "marker from source": (STRLEN, "    echo 0\n}\ngrep -o 'ASSAY[-_A-Za-z0-9]*' \"$0\"\nexit 0\nassay_unused() {\n    :\n"),
        "early exit": (STRLEN, "    echo 0\n}\nexit 0\nassay_unused() {\n    :\n"),
        # records of its own on fd 3, guessed from the prompt's examples, the done line, then exit 0
        "forged records": (STRLEN, "    echo 0\n}\nprintf '0 v \"0\"\\n1 v \"3\"\\n2 v \"3\"\\ndone 3\\n' >&3\nexit 0\nassay_unused() {\n    :\n"),
        # the call itself (a subshell that has fd 3) writes records and done, then kills the harness's shell
        "forged from the call": (STRLEN, "    printf '0 v \"0\"\\n1 v \"3\"\\n2 v \"3\"\\ndone 3\\n' >&3\n    kill -9 $$\n"),
        # printf, which the harness writes records with, redefined to write the answers it guesses
        "printf redefined": (STRLEN, "    echo -1\n}\nprintf() { if [[ $1 == '%s v %s\\n' ]]; then builtin printf '%s v \"3\"\\n' \"$2\"; else builtin printf \"$@\"; fi; }\n"
                                     "assay_unused() {\n    :\n"),
        # `exit` shadowed by a function, so that the harness could not end the run (nor stop at a CPU-limit kill)
        "stubbed exit": (STRLEN, "    echo -1\n}\nexit() { :; }\nassay_unused() {\n    :\n"),
        # an EXIT trap that writes a done line when the harness exits
        "exit trap": (STRLEN, "    echo -1\n}\ntrap 'builtin printf \"done 3\\n\" >&3' EXIT\nassay_unused() {\n    :\n"),
        # the sandbox init's descriptors through /proc, a forged done on each
        "parent's descriptors": (STRLEN, "    for f in /proc/1/fd/* /proc/$PPID/fd/*; do echo 'done 3' > \"$f\"; done 2>/dev/null\n    kill -9 $$\n"),
        "sleeps": (STRLEN, "    sleep 600\n    echo ${#1}\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED},
    render_agreement=0.99,  # 2295/2305: MultiPL-E writes `!` as `\!`, which Bash keeps as two characters
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


def test_expected_values_are_the_strings_of_multipl_es_literals() -> None:
    from assay.languages.bash import Bash, double_quoted, read_sh, sh_text
    from assay.values import BOOL, INT, STR, list_of, optional

    bash = Bash()
    assert double_quoted('"a\\nb \\\\ \\" \\$ \\!"') == 'a\\nb \\ " $ \\!'  # only \\ \" \$ \` lose their backslash
    assert sh_text([[1, 2], [3]]) == "1 2\\n3" and sh_text({"a": 1}) == "a,1" and sh_text([True, None]) == "true None"
    assert bash.equal("1 2 3", [1, 2, 3], list_of(INT), "") and bash.equal("Hello\\!", "Hello!", STR, 'sh Hello\\!')
    assert not bash.equal("1  2", [1, 2], list_of(INT), "") and bash.equal("3", 3.0, Type("float"), "sh 3")
    assert read_sh("1 2\\n3", list_of(list_of(INT))) == [[1, 2], [3]] and read_sh("None", optional(BOOL)) is None


def test_outputs_are_encoded_exactly_in_the_shell_without_a_subshell(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Each output is encoded into a variable (no `$(...)` around the encoder: a fork per case), byte
    for byte: quotes, backslashes, \\t \\r \\n, other control bytes as \\u00XX, UTF-8 and invalid bytes
    as they are (an invalid byte decodes as its surrogate escape), trailing newlines dropped as `$(...)` drops them."""
    import subprocess

    from assay.judging.records import read_records
    from assay.languages.bash import CASE_HARNESS, Bash

    assert "$(__assay_json" not in CASE_HARNESS
    bash = language_or_skip("bash")
    problem = benchmark(SPEC.bench).problems[STRLEN]
    body = "    printf 'a\"b\\\\c\\td\\re\\001f\\177g\\303\\251h\\377i\\nj%s\\n\\n' \"$1\"\n"
    calls = ['candidate ""', 'candidate "x y"', "candidate \"$(printf '\\033')\""]
    files = Bash().case_files(problem, problem.prompt + body, calls)
    (tmp_path / "main.sh").write_bytes(files["main.sh"])
    shell = bash.toolchain().tools["bash"]
    done = subprocess.run([shell, "-c", f"{shell} main.sh 3>channel"], cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    head = b'a\\"b\\\\c\\td\\re\\u0001f\\u007fg\xc3\xa9h\xffi\\nj'
    assert (tmp_path / "channel").read_bytes() == (
        b'0 v "' + head + b'"\n' + b'1 v "' + head + b'x y"\n' + b'2 v "' + head + b'\\u001b"\n' + b"done 3\n"
    )
    records = read_records((tmp_path / "channel").read_bytes(), 3)
    assert records.done and bash.decode_result(records.results[1][1], Type("str")) == 'a"b\\c\td\re\x01f\x7fgéh\udcffi\njx y'
