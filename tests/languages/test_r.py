"""R on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-r"

CORRECT = {
    "HumanEval_0_has_close_elements": "\n  d <- abs(outer(numbers, numbers, `-`))\n  diag(d) <- Inf\n  any(d < threshold)\n}\n",
    "HumanEval_13_greatest_common_divisor": "\n  while (b != 0) { t <- b; b <- a %% b; a <- t }\n  a\n}\n",
    "HumanEval_23_strlen": "\n  nchar(string)\n}\n",
    "HumanEval_34_unique": "\n  sort(base::unique(l))\n}\n",
}

WRONG = [
    ("HumanEval_23_strlen", "\n  nchar(string) + 1\n}\n", Status.FAILED),  # wrong answer
    ("HumanEval_34_unique", "\n  base::unique(l)\n}\n", Status.FAILED),
    ("HumanEval_23_strlen", "\n  nchar(string\n}\n", Status.COMPILE_ERROR),  # parse error
    ("HumanEval_23_strlen", '\n  stop("boom")\n}\n', Status.RUNTIME_ERROR),  # the program's own error
    ("HumanEval_34_unique", "\n  list(1)[[3]]\n}\n", Status.RUNTIME_ERROR),  # subscript out of bounds
    ("HumanEval_23_strlen", "\n  stopifnot(FALSE)\n}\n", Status.RUNTIME_ERROR),  # the program's own stopifnot is base R's
    ("HumanEval_23_strlen", "\n  repeat {}\n}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '\n  cat("tests passed\\n")\n  quit(status = 0)\n}\n', Status.FAILED),  # early exit with status 0
]


@pytest.fixture(scope="module")
def r():  # type: ignore[no-untyped-def]
    return language_or_skip("r")


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(r, pid: str) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(r, problem, problem.prompt + CORRECT[pid])
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(r, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(r, problem, problem.prompt + body, run_cpu=2, run_wall=10)
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(r) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    reply = "# Length of a string\nstrlen <- function(string) {\n  nchar(string)\n}\n\nprint(strlen('abc'))\n"
    assert judge(r, problem, reply).status is Status.PASSED


@pytest.mark.slow
def test_hostile_programs_are_contained(r, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    target = tmp_path / "escaped"
    writes = f'\n  try(writeLines("x", "{target}"), silent = TRUE)\n  nchar(string)\n}}\n'
    judge(r, problem, problem.prompt + writes)
    assert not target.exists()
    flood = '\n  repeat cat(strrep("x", 1000), "\\n")\n}\n'
    verdict = judge(r, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(r) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("r"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
