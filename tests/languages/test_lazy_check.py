"""Interpreters whose build only checks the syntax (`build_checks_only`): a case run skips that phase and checks
only a run that failed before its harness reported any case. Correct samples pass without the check ever running,
a syntax error is still a compile error, and a sample cannot pose as one or pass by failing early."""

from __future__ import annotations

from typing import Any

import pytest

from assay.languages.base import Language
from assay.problems import Status
from assay.sandbox.base import Sandbox
from tests.languages._common import benchmark, language_or_skip, sandbox_for

GCD = "HumanEval_13_greatest_common_divisor"
# language -> (benchmark, correct body, a syntax error, top-level code that writes an interpreter's parse error and
# exits with its status before the harness runs, records forged on fd 3 and then a syntax error)
CASES: dict[str, tuple[str, str, str, str, str]] = {
    "php": (
        "multipl-e/humaneval-php",
        "    while ($b != 0) { [$a, $b] = [$b, $a % $b]; }\n    return $a;\n}\n",
        "    return $a +* $b;\n}\n",
        '    return 1;\n}\nfwrite(STDERR, "PHP Parse error:  syntax error, unexpected token \\"*\\" in main.php on line 3\\n");\nexit(255);\n',
        '    return 1;\n}\nfwrite(fopen("php://fd/3", "w"), "0 v 1\\n1 v 5\\n2 v 1\\n3 v 5\\ndone 4\\n");\nreturn $a +* ;\n',
    ),
    "perl": (
        "multipl-e/humaneval-pl",
        "    ($a, $b) = ($b, $a % $b) while $b;\n    return $a;\n}\n",
        "    return abs($a;\n}\n",
        '    return 1;\n}\nprint STDERR "syntax error at main.pl line 3, near \\"+*\\"\\nmain.pl had compilation errors.\\n";\nexit 255;\n',
        '    return 1;\n}\nBEGIN { open(my $o, ">&=", 3); print $o "0 v 1\\n1 v 5\\n2 v 1\\n3 v 5\\ndone 4\\n"; }\nreturn abs(1;\n',
    ),
    "ruby": (
        "multipl-e/humaneval-rb",
        "  a.gcd(b)\nend\n",
        "  a +* \nend\nend\n",
        '  1\nend\n$stderr.puts "main.rb:3: syntax error, unexpected *"\nexit! 1\n',
        '  1\nend\nBEGIN { IO.new(3, "w").write("0 v 1\\n1 v 5\\n2 v 1\\n3 v 5\\ndone 4\\n") }\ndef (\n',
    ),
    "r": (
        "multipl-e/humaneval-r",
        "\n  while (b != 0) { t <- b; b <- a %% b; a <- t }\n  a\n}\n",
        "\n  a +* b\n}\n",
        '\n  1\n}\nwrite("Error: unexpected \'*\' in \\"  a +*\\"\\nExecution halted", stderr())\nquit(status = 1)\n',
        '\n  1\n}\ncat("0 v 1\\n1 v 5\\n2 v 1\\n3 v 5\\ndone 4\\n", file = file("/proc/self/fd/3", "w"))\nx <- (1 +* )\n',
    ),
    "racket": (
        "multipl-e/humaneval-rkt",
        "  (gcd a b))\n",
        "  (gcd a b)\n",  # unbalanced parentheses
        '  1)\n(eprintf "main.rkt:3:2: read-syntax: expected a `)` to close `(`\\n")\n(exit 1)\n',
        '  1)\n(with-output-to-file "/proc/self/fd/3" #:exists \'append (lambda () (display "0 v 1\\n1 v 5\\n2 v 1\\n3 v 5\\ndone 4\\n")))\n(gcdd 1 2)\n',
    ),
    "lua": (
        "multipl-e/humaneval-lua",
        "    while b ~= 0 do a, b = b, a % b end\n    return a\nend\n",
        "    return a +* b\nend\n",
        '    return 1\nend\nio.stderr:write("lua5.4: main.lua:3: unexpected symbol near \'*\'\\n")\nos.exit(1)\n',
        '    return 1\nend\nlocal o = io.open("/dev/fd/3", "w") o:write("0 v 1\\n1 v 5\\n2 v 1\\n3 v 5\\ndone 4\\n") o:close()\nreturn a +* \n',
    ),
    "bash": (  # top-level code, as a model's completion can carry it: close the function, then open another
        "multipl-e/humaneval-sh",
        "    local a=$1 b=$2 t\n    while (( b != 0 )); do t=$b; b=$(( a % b )); a=$t; done\n    echo \"$a\"\n}\n",
        "    if (( $1 > 0 )); then\n        echo 1\n}\n",  # `}` before `fi`: bash exits with 2 there, before any case
        '    echo 1; }\necho "main.sh: line 3: syntax error near unexpected token \\`}\'" >&2\nexit 2\nunused() {\n    :\n',
        "    echo 1; }\nprintf '0 v \"1\"\\n1 v \"5\"\\n2 v \"7\"\\n3 v \"12\"\\ndone 4\\n' >&3\nif then\nunused() {\n",
    ),
    "javascript": (
        "multipl-e/humaneval-js",
        "  while (b) { [a, b] = [b, a % b]; }\n  return a;\n}\n",
        "  return a +* b;\n}\n",
        '  return 1;\n}\nprocess.stderr.write("main.js:3\\nSyntaxError: Unexpected token \'*\'\\n");\nprocess.exit(1);\n',
        '  return 1;\n}\nrequire("fs").writeSync(3, "0 v 1\\n1 v 5\\n2 v 1\\n3 v 5\\ndone 4\\n");\nreturn a +* ;\n',
    ),
}


class Counting:
    """The language's sandbox, counting the phases each run asks for."""

    def __init__(self, box: Sandbox) -> None:
        self.box = box
        self.runs: list[list[str]] = []

    def run_phases(self, phases: Any, *args: Any, **kwargs: Any) -> Any:
        self.runs.append([p.name for p in phases])
        return self.box.run_phases(phases, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.box, name)


@pytest.fixture(params=sorted(CASES))
def lang(request: pytest.FixtureRequest) -> tuple[Language, Any, tuple[str, str, str, str, str]]:
    language = language_or_skip(request.param)
    spec = CASES[request.param]
    return language, benchmark(spec[0]).problems[GCD], spec


def test_a_correct_sample_passes_without_the_check(lang: tuple[Language, Any, tuple[str, str, str, str, str]]) -> None:
    language, problem, (_, correct, *_rest) = lang
    assert language.build_checks_only
    box = Counting(sandbox_for(language.name))
    verdict = language.judge(box, problem, problem.prompt + correct)  # type: ignore[arg-type]
    assert verdict.status is Status.PASSED, verdict.message
    assert box.runs == [["run"]]


def test_a_syntax_error_is_still_a_compile_error(lang: tuple[Language, Any, tuple[str, str, str, str, str]]) -> None:
    language, problem, (_, _correct, syntax, *_rest) = lang
    box = Counting(sandbox_for(language.name))
    verdict = language.judge(box, problem, problem.prompt + syntax)  # type: ignore[arg-type]
    assert verdict.status is Status.COMPILE_ERROR, verdict.message
    assert box.runs == [["run"], ["build"]]  # the run failed before any case, so the check ran


def test_a_sample_cannot_pose_as_a_syntax_error_or_pass_by_failing_early(lang: tuple[Language, Any, tuple[str, str, str, str, str]]) -> None:
    language, problem, (_, _correct, _syntax, posing, forged) = lang
    box = sandbox_for(language.name)
    posed = language.judge(box, problem, problem.prompt + posing)
    assert posed.status is Status.RUNTIME_ERROR, posed.message  # the check passes: it was the sample's own exit
    # Records written before the harness (at load, or before a syntax error the interpreter meets later) never pass.
    assert language.judge(box, problem, problem.prompt + forged).status in (Status.FAILED, Status.COMPILE_ERROR)


# Bash parses as it runs: the check runs for a failed run that exited with status 2 (bash's status at a syntax error),
# whatever the run reported before it.
BASH_EXTGLOB = ("    :; }\nshopt -s extglob\ngreatest_common_divisor() {\n    local a=$1 b=$2 t\n    case $b in +([0-9])) ;; *) return 1 ;; esac\n"
                "    while (( b != 0 )); do t=$b; b=$(( a % b )); a=$t; done\n    echo \"$a\"\n")


@pytest.fixture
def bash() -> tuple[Language, Any, Counting]:
    language = language_or_skip("bash")
    return language, benchmark(CASES["bash"][0]).problems[GCD], Counting(sandbox_for("bash"))


def test_bash_checks_a_run_that_reported_every_case_then_met_a_syntax_error(bash: tuple[Language, Any, Counting]) -> None:
    language, problem, box = bash
    verdict = language.judge(box, problem, problem.prompt + CASES["bash"][4])  # type: ignore[arg-type]
    assert verdict.status is Status.COMPILE_ERROR, verdict.message  # the forged records (every one right) count for nothing
    assert box.runs == [["run"], ["build"]]


def test_bash_does_not_check_a_run_a_signal_ended(bash: tuple[Language, Any, Counting]) -> None:
    language, problem, box = bash
    verdict = language.judge(box, problem, problem.prompt + language.stub)  # type: ignore[arg-type]
    assert verdict.status is Status.RUNTIME_ERROR, verdict.message
    assert box.runs == [["run"]]


def test_bash_judges_a_run_that_exited_before_its_syntax_error_as_the_run_it_was(bash: tuple[Language, Any, Counting]) -> None:
    language, problem, box = bash
    verdict = language.judge(box, problem, problem.prompt + "    echo 1; }\nexit 3\nif then\nunused() {\n")  # type: ignore[arg-type]
    assert verdict.status is Status.RUNTIME_ERROR, verdict.message  # as `bash main.sh` ran it (MultiPL-E's own command)
    assert box.runs == [["run"]]


def test_bash_passes_a_correct_sample_that_bash_n_rejects(bash: tuple[Language, Any, Counting]) -> None:
    language, problem, box = bash
    verdict = language.judge(box, problem, problem.prompt + BASH_EXTGLOB)  # type: ignore[arg-type]
    assert verdict.status is Status.PASSED, verdict.message  # `bash -n` runs no shopt: `+([0-9])` is a syntax error to it
    assert box.runs == [["run"]]
