"""PHP on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.canary import run_canary
from assay.languages.php import php_mode
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-php"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "    foreach ($numbers as $i => $a) {\n        foreach ($numbers as $j => $b) {\n"
        "            if ($i != $j && abs($a - $b) < $threshold) { return true; }\n        }\n    }\n    return false;\n}\n"
    ),
    "HumanEval_13_greatest_common_divisor": "    while ($b != 0) { [$a, $b] = [$b, $a % $b]; }\n    return $a;\n}\n",
    "HumanEval_30_get_positive": "    return array_values(array_filter($l, fn($x) => $x > 0));\n}\n",
    "HumanEval_34_unique": "    $u = array_values(array_unique($l));\n    sort($u);\n    return $u;\n}\n",
}

WRONG = [
    ("HumanEval_13_greatest_common_divisor", "    return $a % $b;\n}\n", Status.FAILED),  # wrong answer
    ("HumanEval_30_get_positive", "    return array_filter($l, fn($x) => $x > 0);\n}\n", Status.FAILED),  # keys kept: !== fails
    ("HumanEval_13_greatest_common_divisor", "    return $a +* $b;\n}\n", Status.COMPILE_ERROR),  # parse error
    ("HumanEval_13_greatest_common_divisor", "    return intdiv($a, 0);\n}\n", Status.RUNTIME_ERROR),  # DivisionByZeroError
    ("HumanEval_30_get_positive", "    return no_such_function($l);\n}\n", Status.RUNTIME_ERROR),  # undefined function
    ("HumanEval_30_get_positive", '    throw new Exception("Test failed!");\n}\n', Status.RUNTIME_ERROR),  # the program's own exception
    ("HumanEval_13_greatest_common_divisor", "    while (true) {}\n}\n", Status.TIMEOUT),
    ("HumanEval_13_greatest_common_divisor", '    echo "tests passed\\n";\n    exit(0);\n}\n', Status.FAILED),  # early exit with status 0
]


@pytest.fixture(scope="module")
def php():  # type: ignore[no-untyped-def]
    return language_or_skip("php")


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(php, pid: str) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(php, problem, problem.prompt + CORRECT[pid])
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(php, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(php, problem, problem.prompt + body, run_cpu=2, run_wall=10)
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(php) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_13_greatest_common_divisor"]
    reply = (
        "<?php\n\n/**\n * Greatest common divisor.\n */\nfunction greatest_common_divisor($a, $b) {\n"
        "    return $b == 0 ? $a : greatest_common_divisor($b, $a % $b);\n}\n\n"
        'echo greatest_common_divisor(25, 15) . "\\n";\n?>\n'
    )
    assert judge(php, problem, reply).status is Status.PASSED


@pytest.mark.slow
def test_debians_shared_extensions_are_loaded(php) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_13_greatest_common_divisor"]
    body = '    if (!ctype_digit((string) $a) || iconv("UTF-8", "ASCII", "ok") !== "ok") { return -1; }\n' + CORRECT[problem.id]
    assert judge(php, problem, problem.prompt + body).status is Status.PASSED  # ctype and iconv come from /etc/php's conf.d


def test_php_mode_opens_and_closes_the_code() -> None:
    assert php_mode("function f() {}\n") == "<?php\nfunction f() {}\n"
    assert php_mode("<?php\nfunction f() {}\n?>\n") == "<?php\nfunction f() {}\n"
    assert php_mode("<?php\n$s = '?>';\n") == "<?php\n$s = '?>';\n"


@pytest.mark.slow
def test_hostile_programs_are_contained(php, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_13_greatest_common_divisor"]
    target = tmp_path / "escaped"
    writes = f'    @file_put_contents("{target}", "x");\n    while ($b != 0) {{ [$a, $b] = [$b, $a % $b]; }}\n    return $a;\n}}\n'
    judge(php, problem, problem.prompt + writes)
    assert not target.exists()
    flood = '    while (true) { echo str_repeat("x", 1000), "\\n"; }\n}\n'
    verdict = judge(php, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(php) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("php"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())


@pytest.mark.slow
def test_a_function_named_like_a_builtin_is_a_compile_error(php) -> None:  # type: ignore[no-untyped-def]
    # HumanEval_23_strlen cannot be solved in PHP: its prompt redeclares the builtin strlen().
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    assert judge(php, problem, problem.prompt + "    return 0;\n}\n").status is Status.COMPILE_ERROR
