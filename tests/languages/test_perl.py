"""Perl on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-pl"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "    for my $i (0 .. $#$numbers) {\n        for my $j (0 .. $#$numbers) {\n"
        "            return 1 if $i != $j && abs($numbers->[$i] - $numbers->[$j]) < $threshold;\n"
        '        }\n    }\n    return "";\n}\n'
    ),
    "HumanEval_13_greatest_common_divisor": "    ($a, $b) = ($b, $a % $b) while $b;\n    return $a;\n}\n",
    "HumanEval_23_strlen": "    return length($string);\n}\n",
    "HumanEval_30_get_positive": "    return [grep { $_ > 0 } @$l];\n}\n",
}

WRONG = [
    ("HumanEval_23_strlen", "    return length($string) + 1;\n}\n", Status.FAILED),  # wrong answer
    ("HumanEval_30_get_positive", "    return [grep { $_ >= 0 } @$l];\n}\n", Status.FAILED),
    ("HumanEval_23_strlen", "    return length($string;\n}\n", Status.COMPILE_ERROR),  # syntax error
    ("HumanEval_23_strlen", "    my $x;\n    return $x->method();\n}\n", Status.RUNTIME_ERROR),  # method call on undef
    ("HumanEval_13_greatest_common_divisor", "    return $a / 0;\n}\n", Status.RUNTIME_ERROR),  # division by zero
    ("HumanEval_23_strlen", '    $! = 97;\n    die "no\\n";\n}\n', Status.RUNTIME_ERROR),  # a die that would exit 97
    ("HumanEval_23_strlen", "    while (1) {}\n}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '    print "tests passed\\n";\n    exit 0;\n}\n', Status.FAILED),  # early exit with status 0
]


@pytest.fixture(scope="module")
def perl():  # type: ignore[no-untyped-def]
    return language_or_skip("perl")


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(perl, pid: str) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(perl, problem, problem.prompt + CORRECT[pid])
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(perl, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(perl, problem, problem.prompt + body, run_cpu=2, run_wall=10)
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(perl) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    reply = (
        "use strict;\nuse warnings;\n\n# Length of a string\nsub strlen {\n    my ($string) = @_;\n    return length($string);\n}\n\n"
        'print strlen("abc"), "\\n";\n\n__END__\n\n=head1 strlen\n\nReturns the length.\n'
    )
    assert judge(perl, problem, reply).status is Status.PASSED


@pytest.mark.slow
def test_hostile_programs_are_contained(perl, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    target = tmp_path / "escaped"
    writes = f'    if (open(my $fh, ">", "{target}")) {{ print $fh "x"; close($fh); }}\n    return length($string);\n}}\n'
    judge(perl, problem, problem.prompt + writes)
    assert not target.exists()
    flood = '    while (1) { print "x" x 1000, "\\n"; }\n}\n'
    verdict = judge(perl, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(perl) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("perl"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
