"""Elixir on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program starts two BEAMs (elixirc, then the tests): they are all judged up front, two at a
time, and each test looks at its verdict.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.canary import run_canary
from assay.problems import Status, Verdict
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-elixir"
STRLEN = "HumanEval_23_strlen"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "for {a, i} <- Enum.with_index(numbers), {b, j} <- Enum.with_index(numbers), i != j, reduce: false do\n"
        "      acc -> acc or abs(a - b) < threshold\n    end\n  end\nend\n"
    ),
    "HumanEval_13_greatest_common_divisor": "if b == 0, do: a, else: greatest_common_divisor(b, rem(a, b))\n  end\nend\n",
    STRLEN: "String.length(string)\n  end\nend\n",
    "HumanEval_30_get_positive": "Enum.filter(l, fn x -> x > 0 end)\n  end\nend\n",
}

WRONG = [
    (STRLEN, "String.length(string) + 1\n  end\nend\n", Status.FAILED),  # wrong answer
    (STRLEN, "String.length(string\n  end\nend\n", Status.COMPILE_ERROR),  # syntax error
    (STRLEN, "strlen_of(string, undefined_var)\n  end\nend\n", Status.COMPILE_ERROR),  # undefined names
    ("HumanEval_30_get_positive", "Enum.fetch!(l, length(l))\n  end\nend\n", Status.RUNTIME_ERROR),  # index out of range
    (STRLEN, "Stream.repeatedly(fn -> 1 end) |> Enum.sum()\n  end\nend\n", Status.TIMEOUT),
    (STRLEN, 'IO.puts("tests passed")\n    System.halt(0)\n  end\nend\n', Status.FAILED),  # early exit with status 0
]

# A chat model's module: no `candidate` (the prompt's delegate, which the tests call), a demo call.
CHAT_REPLY = (
    "defmodule HumanEval do\n  @doc \"Length of a string\"\n  def strlen(string) do\n    String.length(string)\n  end\nend\n\n"
    'IO.puts(HumanEval.strlen("abc"))\n'
)
FLOOD = 'Stream.repeatedly(fn -> IO.puts(String.duplicate("x", 1000)) end) |> Stream.run()\n  end\nend\n'


def writes_to(target: Path) -> str:
    return f'File.write("{target}", "x")\n    String.length(string)\n  end\nend\n'


@pytest.fixture(scope="module")
def elixir():  # type: ignore[no-untyped-def]
    return language_or_skip("elixir")


@pytest.fixture(scope="module")
def escape_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("elixir-hostile") / "escaped"


@pytest.fixture(scope="module")
def verdicts(elixir, escape_target: Path) -> dict[object, Verdict]:  # type: ignore[no-untyped-def]
    """Every program of this file but the canary's, judged two at a time."""
    problems = benchmark(BENCH).problems
    tight = {"run_cpu": 2, "run_wall": 10}
    jobs: dict[object, tuple[str, str, dict[str, float]]] = {("correct", pid): (pid, problems[pid].prompt + body, {}) for pid, body in CORRECT.items()}
    jobs |= {("wrong", i): (pid, problems[pid].prompt + body, tight) for i, (pid, body, _) in enumerate(WRONG)}
    jobs["chat"] = (STRLEN, CHAT_REPLY, {})
    jobs["writes"] = (STRLEN, problems[STRLEN].prompt + writes_to(escape_target), {})
    jobs["flood"] = (STRLEN, problems[STRLEN].prompt + FLOOD, tight)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(judge, elixir, problems[pid], code, **lim) for key, (pid, code, lim) in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(verdicts, pid: str) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts["correct", pid]
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(WRONG)), ids=[f"{pid}-{status.value}" for pid, _, status in WRONG])
def test_wrong_completions_fail_with_the_right_status(verdicts, case: int) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts["wrong", case]
    assert verdict.status is WRONG[case][2], verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(verdicts) -> None:  # type: ignore[no-untyped-def]
    assert verdicts["chat"].status is Status.PASSED, verdicts["chat"]


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts, escape_target: Path) -> None:  # type: ignore[no-untyped-def]
    assert verdicts["writes"].status is Status.PASSED, verdicts["writes"]  # File.write returned an error; the tests ran
    assert not escape_target.exists()
    flood = verdicts["flood"]
    assert flood.status is Status.RUNTIME_ERROR and "output limit" in flood.message and len(flood.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(elixir) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("elixir"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
