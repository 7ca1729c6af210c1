"""Lua on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from assay.languages.lua import without_final_return
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

SPEC = LanguageSpec(
    language="lua",
    bench="multipl-e/humaneval-lua",
    correct={
        "HumanEval_0_has_close_elements": (
            "    for i = 1, #numbers do\n        for j = 1, #numbers do\n"
            "            if i ~= j and math.abs(numbers[i] - numbers[j]) < threshold then return true end\n"
            "        end\n    end\n    return false\nend\n"
        ),
        "HumanEval_13_greatest_common_divisor": "    while b ~= 0 do a, b = b, a % b end\n    return a\nend\n",
        "HumanEval_23_strlen": "    return #string\nend\n",
        "HumanEval_30_get_positive": "    local out = {}\n    for _, x in ipairs(l) do if x > 0 then table.insert(out, x) end end\n    return out\nend\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "    return #string + 1\nend\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    return l\nend\n", Status.FAILED),
        ("HumanEval_23_strlen", "    return #string\n", Status.COMPILE_ERROR),  # missing `end`
        ("HumanEval_23_strlen", "    return string.len + 1\nend\n", Status.RUNTIME_ERROR),  # arithmetic on nil
        ("HumanEval_30_get_positive", "    return l[1].x\nend\n", Status.RUNTIME_ERROR),  # index a number / nil
        ("HumanEval_23_strlen", "    os.exit(0)\nend\n", Status.RUNTIME_ERROR),  # LuaUnit turns an exit during a test into an error
        ("HumanEval_23_strlen", "    while true do end\nend\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    return #string\nend\nprint("tests passed")\nos.exit(0)\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply="-- Length of a string\nlocal function strlen(s)\n    return #s\nend\n\nprint(strlen('abc'))\n\nreturn { strlen = strlen }\n",
    hostile_write=lambda target: f'    local f = io.open("{target}", "w")\n    if f then f:write("x") f:close() end\n    return #string\nend\n',
    floods=('    while true do print(string.rep("x", 1000)) end\nend\n',),
)


def test_a_final_module_return_is_commented_out() -> None:
    assert without_final_return("local M = {}\nreturn M\n") == "local M = {}\n-- return M\n"
    assert without_final_return("local function f()\n    return 1\nend\n") == "local function f()\n    return 1\nend\n"
