"""OCaml on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file but the canary's is judged up front, two at a time."""

from __future__ import annotations

import pytest

from assay.languages.base import Language
from assay.languages.ocaml import ocaml_string
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, Verdicts, benchmark, judge, language_or_skip

# fd 3 as a channel, through the runtime primitive Stdlib's own stdout is made with.
FD3 = '  let module M = struct external fd : int -> out_channel = "caml_ml_open_descriptor_out" end in\n  let c = M.fd 3 in\n'
# pidfd_open of every process it can see (the trusted init among them), then pidfd_getfd of each of
# their fds, through perl's syscall: a forged "done" into every descriptor (the init's status report too).
PIDFD = (
    "perl -e 'for my $pid (1 .. 64) { my $p = syscall(434, $pid, 0); next if $p < 0; for my $fd (0 .. 30) {"
    " my $d = syscall(438, $p, $fd, 0); next if $d < 0; open(my $h, \">&=\", $d) or next; syswrite($h, \"done 3\\n\"); } }'"
)

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
    # A correct solution that redefines what a harness might lean on: the harness's own unit never sees it.
    extra={"shadows": (STRLEN, " String.length string\nlet (=) _ _ = false\nlet (^) a b = a + b\nmodule List = struct end\n"
                       "module Buffer = struct end\nlet string_of_int _ = \"0\"\n", False)},
    hostile={
        # exit 0 before the harness runs: no records
        "early exit": (STRLEN, " exit 0\n"),
        # records of its own on fd 3 (and the harness's done line), then exit 0
        "forged records": (STRLEN, FD3 + '  output_string c "0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n"; flush c; exit 0\n'),
        # the harness's unit shadowed by a module of the same name that reports a guess for every case
        "harness module replaced": (STRLEN, " String.length string + 1\nmodule Assay_case = struct\n  include Assay_case\n"
                                    '  let case i _ = write (string_of_int i ^ " v 3\\n")\nend\n'),
        # Stdlib itself shadowed: exit does nothing, every int prints as 3
        "Stdlib replaced": (STRLEN, " String.length string + 1\nmodule Stdlib = struct\n  include Stdlib\n  let exit _ = ()\n"
                            '  let string_of_int _ = "3"\nend\nopen Stdlib\n'),
        # OCaml's (=) and compare made to agree with anything, as MultiPL-E's asserts use them
        "overloaded equality": (STRLEN, " String.length string + 1\nlet (=) _ _ = true\nlet (<>) _ _ = false\nlet compare _ _ = 0\n"),
        # the harness's done line forged after a run cut short: exit handlers write to fd 3
        "at_exit forgery": (STRLEN, FD3 + '  at_exit (fun () -> output_string c "done 3\\n"; flush c);\n  exit 0\n'),
        # a result that is not a value of the type at all
        "Obj.magic result": (STRLEN, ' Obj.magic "three"\n'),
        # the old marker: whatever looks like one in its own source and binary, printed, then exit 0
        "marker from source": (STRLEN, '  List.iter (fun f -> try let ic = open_in_bin f in print_string (really_input_string ic (in_channel_length ic))'
                               " with _ -> ()) [\"main.ml\"; \"main\"; Sys.executable_name; \"/proc/self/cmdline\"];\n  exit 0\n"),
        # the trusted init's descriptors taken with pidfd_getfd (perl's syscall), a forged done in each
        "parent's fds": (STRLEN, f"  ignore (Sys.command {ocaml_string(PIDFD)});\n  String.length string + 1\n"),
        # sleeps past the run's wall limit without using CPU
        "sleeps": (STRLEN, ' ignore (Sys.command "sleep 600"); String.length string\n'),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "early exit": Status.FAILED, "forged records": Status.FAILED},
    # The rest are MultiPL-E's own bugs: negative ints as (~3) (a syntax error), quotes left unescaped
    # in strings, an empty float list as [.0].
    render_agreement=0.93,
    # MultiPL-E types an OCaml dict as `(string, int) list`, which OCaml rejects: no dict-returning problem builds.
    round_trip_skip={"HumanEval_111_histogram": "its prompt's (string, int) list does not compile"},
)


@pytest.mark.slow
def test_a_solution_that_shadows_the_standard_library_passes(verdicts: Verdicts) -> None:
    assert verdicts["shadows"].status is Status.PASSED, verdicts["shadows"]


@pytest.mark.slow
def test_output_without_a_final_newline_does_not_hide_the_marker(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems[STRLEN]
    verdict = judge(language, problem, problem.prompt + ' print_string "no newline"; String.length string\n')
    assert verdict.status is Status.PASSED, verdict


def test_the_harness_unit_is_compiled_once_and_beside_the_sample_when_turned_off(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A case build links assay_case.cmo compiled once (no assay_case.ml among the program's files);
    turned off, the unit's source is compiled with the sample's, and judges the same."""
    from assay.execution import Executor
    from assay.languages.ocaml import OCaml
    from assay.sandbox import get_sandbox

    language_or_skip("ocaml")
    bench = benchmark(SPEC.bench)
    problem = bench.problems[STRLEN]
    right, wrong = problem.prompt + " String.length string\n", problem.prompt + " String.length string + 1\n"
    files = OCaml().case_files(problem, right, ['candidate "ab"'])
    assert set(files) == {"main.ml"} and "Assay_case.case 0 " in files["main.ml"].decode()
    assert OCaml.toolchain().env["ASSAY_OCAML_CASE"].endswith("/assay_case.cmo")
    assert "$ASSAY_OCAML_CASE" in (OCaml().build_command(problem) or "")
    monkeypatch.setenv("ASSAY_OCAML_CASE_UNIT", "0")
    OCaml.toolchain.cache_clear()
    try:
        assert "ASSAY_OCAML_CASE" not in OCaml.toolchain().env
        assert set(OCaml().case_files(problem, right, ['candidate "ab"'])) == {"main.ml", "assay_case.ml"}
        executor = Executor(get_sandbox(ro_binds=OCaml.toolchain().ro_binds), bench, workers=1)
        assert executor.judge(problem, right).status is Status.PASSED
        assert executor.judge(problem, wrong).status is Status.FAILED
    finally:
        OCaml.toolchain.cache_clear()
