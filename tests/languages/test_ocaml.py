"""OCaml on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-ml"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        " let a = Array.of_list numbers in\n  let n = Array.length a in\n  let found = ref false in\n"
        "  for i = 0 to n - 1 do\n    for j = 0 to n - 1 do\n"
        "      if i <> j && Float.abs (a.(i) -. a.(j)) < threshold then found := true\n    done\n  done;\n  !found\n"
    ),
    "HumanEval_13_greatest_common_divisor": " let rec gcd a b = if b = 0 then a else gcd b (a mod b) in\n  gcd a b\n",
    "HumanEval_23_strlen": " String.length string\n",
    "HumanEval_2_truncate_number": " number -. Float.of_int (int_of_float number)\n",
}

WRONG = [
    ("HumanEval_23_strlen", " String.length string + 1\n", Status.FAILED),  # wrong answer
    ("HumanEval_23_strlen", " String.length string +. 1.0\n", Status.COMPILE_ERROR),  # type error
    ("HumanEval_23_strlen", " String.length (string\n", Status.COMPILE_ERROR),  # syntax error
    ("HumanEval_13_greatest_common_divisor", " a / (b - b)\n", Status.RUNTIME_ERROR),  # Division_by_zero
    ("HumanEval_5_intersperse", " [List.hd (List.rev numbers)]\n", Status.RUNTIME_ERROR),  # List.hd []
    ("HumanEval_23_strlen", " assert (String.length string < 0); 0\n", Status.RUNTIME_ERROR),  # the solution's own assert
    ("HumanEval_23_strlen", " let rec loop n = loop (n + 1) in loop 0\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", ' print_endline "tests passed"; exit 0\n', Status.FAILED),  # early exit with status 0
]


@pytest.fixture(scope="module")
def ocaml():  # type: ignore[no-untyped-def]
    return language_or_skip("ocaml")


@pytest.fixture(scope="module")
def verdicts(ocaml):  # type: ignore[no-untyped-def]
    """Every correct and wrong completion, judged two at a time."""
    problems = benchmark(BENCH).problems
    jobs = {("correct", pid): (pid, CORRECT[pid], {}) for pid in CORRECT}
    jobs |= {("wrong", i): (pid, body, {"run_cpu": 2, "run_wall": 10}) for i, (pid, body, _) in enumerate(WRONG)}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(judge, ocaml, problems[pid], problems[pid].prompt + body, **lim) for key, (pid, body, lim) in jobs.items()}
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
def test_a_whole_program_from_a_chat_model_passes(ocaml) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    reply = (
        "(* Length of a string *)\nlet rec strlen (s : string) : int =\n  match s with\n  | \"\" -> 0\n"
        "  | _ -> 1 + strlen (String.sub s 1 (String.length s - 1))\n\nlet () = Printf.printf \"%d\\n\" (strlen \"abc\")\n"
    )
    verdict = judge(ocaml, problem, reply)
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
def test_output_without_a_final_newline_does_not_hide_the_marker(ocaml) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    verdict = judge(ocaml, problem, problem.prompt + ' print_string "no newline"; String.length string\n')
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
def test_hostile_programs_are_contained(ocaml, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    target = tmp_path / "escaped"
    writes = f' (try let oc = open_out "{target}" in output_string oc "x"; close_out oc with Sys_error _ -> ());\n  String.length string\n'
    judge(ocaml, problem, problem.prompt + writes)
    assert not target.exists()
    flood = " let line = String.make 1000 'x' in\n  while true do print_endline line done;\n  0\n"
    verdict = judge(ocaml, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(ocaml) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("ocaml"), workers=2, task_ids=ids)
    # MultiPL-E's OCaml tests write negative numbers as (~3), a syntax error (OCaml's is ~-3), so those
    # problems cannot build for any completion (59 of 513); the canary must report them.
    assert set(result.broken) == {"HumanEval_3_below_zero"}, {k: v.message for k, v in result.broken.items()}
    assert "Syntax error" in result.broken["HumanEval_3_below_zero"].stdout
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for pid, v in result.verdicts.items() if pid not in result.broken)
