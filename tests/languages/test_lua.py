"""Lua on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from assay.languages.lua import Lua, without_final_return
from assay.problems import Status
from assay.values import INT, list_of, optional
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec

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
        STRLEN: "    return #string\nend\n",
        "HumanEval_30_get_positive": "    local out = {}\n    for _, x in ipairs(l) do if x > 0 then table.insert(out, x) end end\n    return out\nend\n",
        "HumanEval_8_sum_product": "    local s, p = 0, 1\n    for _, x in ipairs(numbers) do s = s + x; p = p * x end\n    return {s, p}\nend\n",
    },
    wrong=[
        (STRLEN, "    return #string + 1\nend\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    return l\nend\n", Status.FAILED),
        (STRLEN, "    return #string\n", Status.COMPILE_ERROR),  # missing `end`
        (STRLEN, "    return string.len + 1\nend\n", Status.RUNTIME_ERROR),  # arithmetic on nil
        ("HumanEval_30_get_positive", "    return l[1].x\nend\n", Status.RUNTIME_ERROR),  # index a number / nil
        (STRLEN, "    os.exit(0)\nend\n", Status.RUNTIME_ERROR),  # as under LuaUnit, an exit during a call is an error
        (STRLEN, "    while true do end\nend\n", Status.TIMEOUT),
        (STRLEN, '    return #string\nend\nprint("tests passed")\nos.exit(0)\n', Status.FAILED),  # early exit with status 0
        (STRLEN, '    return tostring(#string)\nend\n', Status.FAILED),  # "0" is not 0 for LuaUnit
        ("HumanEval_30_get_positive", "    local out = {}\n    for i, x in ipairs(l) do if x > 0 then out[i] = x end end\n    return out\nend\n",
         Status.FAILED),  # the right items at the wrong keys
    ],
    chat_reply="-- Length of a string\nlocal function strlen(s)\n    return #s\nend\n\nprint(strlen('abc'))\n\nreturn { strlen = strlen }\n",
    hostile_write=lambda target: f'    local f = io.open("{target}", "w")\n    if f then f:write("x") f:close() end\n    return #string\nend\n',
    floods=('    while true do print(string.rep("x", 1000)) end\nend\n',),
    hostile={
        # the old completion marker, looked for in its own source, printed, then exit 0 (the real exit, kept at load)
        "marker from source": (STRLEN, "    local src = io.open(arg[0]):read('a')\n    for m in src:gmatch('ASSAY[-_%w]*') do print(m) end\n"
                                       "    real_exit(0)\nend\nreal_exit = os.exit\n"),
        "early exit": (STRLEN, "    return -1\nend\nos.exit(0)\n"),
        # records of its own on fd 3 (through a shell, as the harness does), then the done line and the real exit
        "forged records": (STRLEN, "    local o = io.popen('cat >&3', 'w')\n    for i = 0, 2 do o:write(i .. ' v 3\\n') end\n"
                                   "    o:write('done 3\\n')\n    o:close()\n    real_exit(0)\nend\nreal_exit = os.exit\n"),
        # the harness's channel replaced by a sink before it opens it, and a done line of its own
        "silenced channel": (STRLEN, "    return #string + 1\nend\nlocal real_popen = io.popen\n"
                                     "io.popen = function(...) local o = real_popen(...) o:write('done 3\\n') o:close()\n"
                                     "  return {write = function() end, setvbuf = function() end, close = function() end} end\n"),
        # a table equal to everything (__eq), and LuaUnit's assertEquals made to agree with anything
        "always equal": (STRLEN, "    local lu = require('luaunit')\n    lu.assertEquals = function() end\n"
                                 "    return setmetatable({}, {__eq = function() return true end, __len = function() return 0 end})\nend\n"),
        # os.exit stubbed before the harness saves it, so that it could not end the run
        "stubbed exit": (STRLEN, "    return -1\nend\nos.exit = function() end\n"),
        # the debug library: a hook that rewrites every record line the harness is about to write
        "debug hook": (STRLEN, "    debug.sethook(function()\n      local i = 1\n      while true do\n"
                               "        local name, value = debug.getlocal(2, i)\n        if not name then break end\n"
                               "        if name == 'line' and type(value) == 'string' then debug.setlocal(2, i, (value:gsub(' v .*', ' v 3'))) end\n"
                               "        i = i + 1\n      end\n    end, 'l')\n    return -1\nend\n"),
        "sleeps": (STRLEN, "    os.execute('sleep 600')\n    return #string\nend\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED},
    render_agreement=0.995,  # 2355/2360: MultiPL-E writes None as `None` (an unset global), Assay `nil`
)


def test_a_final_module_return_is_commented_out() -> None:
    assert without_final_return("local M = {}\nreturn M\n") == "local M = {}\n-- return M\n"
    assert without_final_return("local function f()\n    return 1\nend\n") == "local function f()\n    return 1\nend\n"


def test_trailing_nones_are_not_in_a_table() -> None:
    lua, t = Lua(), list_of(optional(INT))
    assert lua.equal([1], [1, None], t, "") and not lua.equal([1], [1, None, 2], t, "")
