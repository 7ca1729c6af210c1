"""PHP on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.languages.base import Language
from assay.languages.php import php_mode
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark, judge

GCD = "HumanEval_13_greatest_common_divisor"
CORRECT = {
    "HumanEval_0_has_close_elements": (
        "    foreach ($numbers as $i => $a) {\n        foreach ($numbers as $j => $b) {\n"
        "            if ($i != $j && abs($a - $b) < $threshold) { return true; }\n        }\n    }\n    return false;\n}\n"
    ),
    GCD: "    while ($b != 0) { [$a, $b] = [$b, $a % $b]; }\n    return $a;\n}\n",
    "HumanEval_30_get_positive": "    return array_values(array_filter($l, fn($x) => $x > 0));\n}\n",
    "HumanEval_34_unique": "    $u = array_values(array_unique($l));\n    sort($u);\n    return $u;\n}\n",
}

SPEC = LanguageSpec(
    language="php",
    bench="multipl-e/humaneval-php",
    correct=CORRECT,
    wrong=[
        (GCD, "    return $a % $b;\n}\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    return array_filter($l, fn($x) => $x > 0);\n}\n", Status.FAILED),  # keys kept: !== fails
        (GCD, "    return $a +* $b;\n}\n", Status.COMPILE_ERROR),  # parse error
        (GCD, "    return intdiv($a, 0);\n}\n", Status.RUNTIME_ERROR),  # DivisionByZeroError
        ("HumanEval_30_get_positive", "    return no_such_function($l);\n}\n", Status.RUNTIME_ERROR),  # undefined function
        ("HumanEval_30_get_positive", '    throw new Exception("Test failed!");\n}\n', Status.RUNTIME_ERROR),  # the program's own exception
        (GCD, "    while (true) {}\n}\n", Status.TIMEOUT),
        (GCD, '    echo "tests passed\\n";\n    exit(0);\n}\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply=(
        "<?php\n\n/**\n * Greatest common divisor.\n */\nfunction greatest_common_divisor($a, $b) {\n"
        "    return $b == 0 ? $a : greatest_common_divisor($b, $a % $b);\n}\n\n"
        'echo greatest_common_divisor(25, 15) . "\\n";\n?>\n'
    ),
    probe=GCD,  # HumanEval_23_strlen cannot be solved in PHP (see the last test)
    hostile_write=lambda target: f'    @file_put_contents("{target}", "x");\n    while ($b != 0) {{ [$a, $b] = [$b, $a % $b]; }}\n    return $a;\n}}\n',
    floods=('    while (true) { echo str_repeat("x", 1000), "\\n"; }\n}\n',),
)


@pytest.mark.slow
def test_debians_shared_extensions_are_loaded(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems[GCD]
    body = '    if (!ctype_digit((string) $a) || iconv("UTF-8", "ASCII", "ok") !== "ok") { return -1; }\n' + CORRECT[problem.id]
    assert judge(language, problem, problem.prompt + body).status is Status.PASSED  # ctype and iconv come from /etc/php's conf.d


def test_php_mode_opens_and_closes_the_code() -> None:
    assert php_mode("function f() {}\n") == "<?php\nfunction f() {}\n"
    assert php_mode("<?php\nfunction f() {}\n?>\n") == "<?php\nfunction f() {}\n"
    assert php_mode("<?php\n$s = '?>';\n") == "<?php\n$s = '?>';\n"


@pytest.mark.slow
def test_a_function_named_like_a_builtin_is_a_compile_error(language: Language) -> None:
    # HumanEval_23_strlen cannot be solved in PHP: its prompt redeclares the builtin strlen().
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    assert judge(language, problem, problem.prompt + "    return 0;\n}\n").status is Status.COMPILE_ERROR
