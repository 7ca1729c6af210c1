"""OCaml on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file but the canary's is judged up front, two at a time."""

from __future__ import annotations

import pytest

from assay.languages.base import Language
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark, judge

SPEC = LanguageSpec(
    language="ocaml",
    bench="multipl-e/humaneval-ml",
    correct={
        "HumanEval_0_has_close_elements": (
            " let a = Array.of_list numbers in\n  let n = Array.length a in\n  let found = ref false in\n"
            "  for i = 0 to n - 1 do\n    for j = 0 to n - 1 do\n"
            "      if i <> j && Float.abs (a.(i) -. a.(j)) < threshold then found := true\n    done\n  done;\n  !found\n"
        ),
        "HumanEval_13_greatest_common_divisor": " let rec gcd a b = if b = 0 then a else gcd b (a mod b) in\n  gcd a b\n",
        "HumanEval_23_strlen": " String.length string\n",
        "HumanEval_2_truncate_number": " number -. Float.of_int (int_of_float number)\n",
    },
    wrong=[
        ("HumanEval_23_strlen", " String.length string + 1\n", Status.FAILED),  # wrong answer
        ("HumanEval_23_strlen", " String.length string +. 1.0\n", Status.COMPILE_ERROR),  # type error
        ("HumanEval_23_strlen", " String.length (string\n", Status.COMPILE_ERROR),  # syntax error
        ("HumanEval_13_greatest_common_divisor", " a / (b - b)\n", Status.RUNTIME_ERROR),  # Division_by_zero
        ("HumanEval_5_intersperse", " [List.hd (List.rev numbers)]\n", Status.RUNTIME_ERROR),  # List.hd []
        ("HumanEval_23_strlen", " assert (String.length string < 0); 0\n", Status.RUNTIME_ERROR),  # the solution's own assert
        ("HumanEval_23_strlen", " let rec loop n = loop (n + 1) in loop 0\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", ' print_endline "tests passed"; exit 0\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply=(
        "(* Length of a string *)\nlet rec strlen (s : string) : int =\n  match s with\n  | \"\" -> 0\n"
        "  | _ -> 1 + strlen (String.sub s 1 (String.length s - 1))\n\nlet () = Printf.printf \"%d\\n\" (strlen \"abc\")\n"
    ),
    hostile_write=lambda target: (
        f' (try let oc = open_out "{target}" in output_string oc "x"; close_out oc with Sys_error _ -> ());\n  String.length string\n'
    ),
    floods=(" let line = String.make 1000 'x' in\n  while true do print_endline line done;\n  0\n",),
    prejudge=True,
    # MultiPL-E's OCaml tests write negative numbers as (~3), a syntax error (OCaml's is ~-3), so those
    # problems cannot build for any completion (59 of 513); the canary must report them.
    canary_broken={"HumanEval_3_below_zero": "Syntax error"},
)


@pytest.mark.slow
def test_output_without_a_final_newline_does_not_hide_the_marker(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems[STRLEN]
    verdict = judge(language, problem, problem.prompt + ' print_string "no newline"; String.length string\n')
    assert verdict.status is Status.PASSED, verdict
