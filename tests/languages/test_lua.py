"""Lua on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import pytest

from assay.canary import run_canary
from assay.languages.lua import without_final_return
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-lua"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "    for i = 1, #numbers do\n        for j = 1, #numbers do\n"
        "            if i ~= j and math.abs(numbers[i] - numbers[j]) < threshold then return true end\n"
        "        end\n    end\n    return false\nend\n"
    ),
    "HumanEval_13_greatest_common_divisor": "    while b ~= 0 do a, b = b, a % b end\n    return a\nend\n",
    "HumanEval_23_strlen": "    return #string\nend\n",
    "HumanEval_30_get_positive": "    local out = {}\n    for _, x in ipairs(l) do if x > 0 then table.insert(out, x) end end\n    return out\nend\n",
}

WRONG = [
    ("HumanEval_23_strlen", "    return #string + 1\nend\n", Status.FAILED),  # wrong answer
    ("HumanEval_30_get_positive", "    return l\nend\n", Status.FAILED),
    ("HumanEval_23_strlen", "    return #string\n", Status.COMPILE_ERROR),  # missing `end`
    ("HumanEval_23_strlen", "    return string.len + 1\nend\n", Status.RUNTIME_ERROR),  # arithmetic on nil
    ("HumanEval_30_get_positive", "    return l[1].x\nend\n", Status.RUNTIME_ERROR),  # index a number / nil
    ("HumanEval_23_strlen", "    os.exit(0)\nend\n", Status.RUNTIME_ERROR),  # LuaUnit turns an exit during a test into an error
    ("HumanEval_23_strlen", "    while true do end\nend\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '    return #string\nend\nprint("tests passed")\nos.exit(0)\n', Status.FAILED),  # early exit with status 0
]


@pytest.fixture(scope="module")
def lua():  # type: ignore[no-untyped-def]
    return language_or_skip("lua")


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(lua, pid: str) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(lua, problem, problem.prompt + CORRECT[pid])
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(lua, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems[pid]
    verdict = judge(lua, problem, problem.prompt + body, run_cpu=2, run_wall=10)
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_passes(lua) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    reply = "-- Length of a string\nlocal function strlen(s)\n    return #s\nend\n\nprint(strlen('abc'))\n\nreturn { strlen = strlen }\n"
    assert judge(lua, problem, reply).status is Status.PASSED


def test_a_final_module_return_is_commented_out() -> None:
    assert without_final_return("local M = {}\nreturn M\n") == "local M = {}\n-- return M\n"
    assert without_final_return("local function f()\n    return 1\nend\n") == "local function f()\n    return 1\nend\n"


@pytest.mark.slow
def test_hostile_programs_are_contained(lua, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    target = tmp_path / "escaped"
    writes = f'    local f = io.open("{target}", "w")\n    if f then f:write("x") f:close() end\n    return #string\nend\n'
    judge(lua, problem, problem.prompt + writes)
    assert not target.exists()
    flood = '    while true do print(string.rep("x", 1000)) end\nend\n'
    verdict = judge(lua, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(lua) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("lua"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
