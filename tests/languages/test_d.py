"""D on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

import pytest

from assay.languages.d import D
from assay.problems import Status
from tests.conftest import shared_data
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark

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

# Its own main replaces the tests' empty one (and does not run); its own unittest runs first.
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

SPEC = LanguageSpec(
    language="d",
    bench="multipl-e/humaneval-d",
    correct=CORRECT,
    wrong=[
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
    ],
    chat_reply=CHAT_REPLY,
    chat_probe="HumanEval_0_has_close_elements",
    hostile_write=lambda target: f'{{\n    import std.file : write;\n    try write("{target}", "x"); catch (Exception e) {{}}\n    return string.length;\n}}\n',
    floods=('{\n    import std.stdio : writeln;\n    import std.array : replicate;\n    while (true) writeln("x".replicate(1000));\n}\n',),
    prejudge=True,
)


def test_the_test_section_names_its_file_and_keeps_one_main() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(SPEC.bench).problems["HumanEval_0_has_close_elements"]
    program = D().program(problem, problem.prompt + CORRECT["HumanEval_0_has_close_elements"], "MARK")
    assert program.index('#line 1 "assay-tests.d"\nunittest') > program.index("extendedModuleUnitTester")
    assert program.count("void main(){}") == 1 and 'puts("MARK")' in program
    assert D().program(problem, CHAT_REPLY, "MARK").count("void main(") == 1
