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
        (GCD, "    while ($b != 0) { [$a, $b] = [$b, $a % $b]; }\n    return (float) $a;\n}\n", Status.FAILED),  # the right value as a float: 1.0 !== 1
        (GCD, "    while ($b != 0) { [$a, $b] = [$b, $a % $b]; }\n    return (string) $a;\n}\n", Status.FAILED),  # "1" !== 1
    ],
    chat_reply=(
        "<?php\n\n/**\n * Greatest common divisor.\n */\nfunction greatest_common_divisor($a, $b) {\n"
        "    return $b == 0 ? $a : greatest_common_divisor($b, $a % $b);\n}\n\n"
        'echo greatest_common_divisor(25, 15) . "\\n";\n?>\n'
    ),
    probe=GCD,  # HumanEval_23_strlen cannot be solved in PHP (see the last test)
    hostile_write=lambda target: f'    @file_put_contents("{target}", "x");\n    while ($b != 0) {{ [$a, $b] = [$b, $a % $b]; }}\n    return $a;\n}}\n',
    floods=('    while (true) { echo str_repeat("x", 1000), "\\n"; }\n}\n',),
    hostile={
        # the old completion marker, looked for in its own source, printed, then exit 0
        "marker from source": (GCD, '    preg_match_all("/ASSAY[-_A-Za-z0-9]*/", file_get_contents(__FILE__), $m);\n'
                                    '    foreach ($m[0] as $x) { echo $x, PHP_EOL; }\n    exit(0);\n}\n'),
        "early exit": (GCD, "    exit(0);\n}\n"),
        # records of its own on fd 3, guessed from the prompt's examples, and the done line
        "forged records": (GCD, '    $o = fopen("php://fd/3", "w");\n    fwrite($o, "0 v 1\\n1 v 5\\n2 v 1\\n3 v 5\\ndone 4\\n");\n    exit(0);\n}\n'),
        # a done line written at shutdown, after an exit before the harness wrote anything
        "shutdown writer": (GCD, '    register_shutdown_function(function () { fwrite(fopen("php://fd/3", "w"), "done 4\\n"); });\n    exit(0);\n}\n'),
        # a `candidate` of its own that answers anything, defined before the tests' one
        "own candidate": (GCD, "    return 1;\n}\nfunction candidate(...$args) { return 1; }\n"),
        # objects (PHP has no == overloading): an ArrayObject, a Closure, a Stringable
        "objects": (GCD, '    return $a > 40 ? new ArrayObject([]) : ($a > 5 ? fn() => 1 : new class { function __toString() { return "1"; } });\n}\n'),
        # an exception handler that exits 0, and an error handler that swallows everything
        "handlers": (GCD, "    set_exception_handler(function ($e) { exit(0); });\n    set_error_handler(fn() => true);\n"
                          '    throw new Exception("Test failed!");\n}\n'),
        # the parent's descriptors through FFI syscalls (pidfd_open, pidfd_getfd; ptrace), a forged done on each
        "syscalls": (GCD, '    $c = FFI::cdef("long syscall(long n, ...);", "libc.so.6");\n    $ppid = posix_getppid();\n'
                          "    $c->syscall(101, 16, $ppid, 0, 0);\n    $pidfd = $c->syscall(434, $ppid, 0);\n"
                          '    for ($fd = 0; $pidfd >= 0 && $fd < 16; $fd++) { $n = $c->syscall(438, $pidfd, $fd, 0); if ($n >= 0) { @fwrite(fopen("php://fd/$n", "w"), "done 4\\n0\\n"); } }\n'
                          "    exit(0);\n}\n"),
        # a forked child that keeps writing to the channel after the harness's last record
        "forked writer": (GCD, '    if (pcntl_fork() === 0) { usleep(300000); fwrite(fopen("php://fd/3", "w"), "done 4\\n"); exit(0); }\n    return 1;\n}\n'),
        "sleeps": (GCD, "    sleep(600);\n    return 1;\n}\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED},
    round_trip_skip={"mbpp_237_check_occurences": "a PHP array cannot have tuples as keys"},
    render_agreement=0.995,  # 2359/2360: MultiPL-E leaves a `$` that interpolates unescaped
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


def test_identity_keeps_ints_apart_from_floats() -> None:
    from assay.languages.php import PhpLiteral, php_identical

    literal = PhpLiteral('array("a" => 3, "b" => 2.0, "c" => array(1, null))').parse()
    assert literal == {"a": 3, "b": 2.0, "c": [1, None]} and isinstance(literal["b"], float)
    assert php_identical(3, 3.0, 3) and not php_identical(3.0, 3.0, 3) and not php_identical(3, 3.0, 3.0)  # 3 !== 3.0
    assert php_identical([1.5, 2], [1.5, 2.0], [1.5, 2]) and not php_identical({"b": 1, "a": 2}, {"a": 2, "b": 1}, None)  # order counts
