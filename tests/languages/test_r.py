"""R on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import dataclasses

from assay.problems import Status
from assay.values import Type
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark, language_or_skip, sandbox_for

SPEC = LanguageSpec(
    language="r",
    bench="multipl-e/humaneval-r",
    correct={
        "HumanEval_0_has_close_elements": "\n  d <- abs(outer(numbers, numbers, `-`))\n  diag(d) <- Inf\n  any(d < threshold)\n}\n",
        "HumanEval_13_greatest_common_divisor": "\n  while (b != 0) { t <- b; b <- a %% b; a <- t }\n  a\n}\n",
        "HumanEval_23_strlen": "\n  nchar(string)\n}\n",
        "HumanEval_34_unique": "\n  sort(base::unique(l))\n}\n",
        "HumanEval_136_largest_smallest_integers": (  # NULL where there is none, c(...) for two numbers, list(...) otherwise
            "\n  neg <- lst[lst < 0]\n  pos <- lst[lst > 0]\n  a <- if (length(neg)) max(neg) else NULL\n"
            "  b <- if (length(pos)) min(pos) else NULL\n  if (is.null(a) || is.null(b)) list(a, b) else c(a, b)\n}\n"
        ),
        "HumanEval_21_rescale_to_unit": "\n  (numbers - min(numbers)) / (max(numbers) - min(numbers)) * (1 + 1e-12)\n}\n",  # within all.equal's tolerance
    },
    wrong=[
        ("HumanEval_23_strlen", "\n  nchar(string) + 1\n}\n", Status.FAILED),  # wrong answer
        ("HumanEval_34_unique", "\n  base::unique(l)\n}\n", Status.FAILED),
        ("HumanEval_23_strlen", "\n  nchar(string\n}\n", Status.COMPILE_ERROR),  # parse error
        ("HumanEval_23_strlen", '\n  stop("boom")\n}\n', Status.RUNTIME_ERROR),  # the program's own error
        ("HumanEval_34_unique", "\n  list(1)[[3]]\n}\n", Status.RUNTIME_ERROR),  # subscript out of bounds
        ("HumanEval_23_strlen", "\n  stopifnot(FALSE)\n}\n", Status.RUNTIME_ERROR),  # the program's own stopifnot is base R's
        ("HumanEval_23_strlen", "\n  repeat {}\n}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '\n  cat("tests passed\\n")\n  quit(status = 0)\n}\n', Status.FAILED),  # early exit with status 0
        ("HumanEval_23_strlen", "\n  as.character(nchar(string))\n}\n", Status.FAILED),  # "3" is not 3 for all.equal
        ("HumanEval_34_unique", "\n  sort(base::unique(l))[seq_along(base::unique(l)) > 0 & FALSE]\n}\n", Status.FAILED),  # numeric(0) is not c()
        ("HumanEval_34_unique", "\n  as.list(sort(base::unique(l)))\n}\n", Status.FAILED),  # a list is not c(...)
        ("HumanEval_34_unique", "\n  u <- sort(base::unique(l))\n  names(u) <- u\n  u\n}\n", Status.FAILED),  # names count
    ],
    chat_reply="# Length of a string\nstrlen <- function(string) {\n  nchar(string)\n}\n\nprint(strlen('abc'))\n",
    hostile_write=lambda target: f'\n  try(writeLines("x", "{target}"), silent = TRUE)\n  nchar(string)\n}}\n',
    floods=('\n  repeat cat(strrep("x", 1000), "\\n")\n}\n',),
    hostile={
        # the old completion marker, looked for in its own source, printed, then exit 0
        "marker from source": (STRLEN, '\n  file <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))\n'
                                       '  src <- paste(readLines(file), collapse = "\\n")\n'
                                       '  cat(regmatches(src, gregexpr("ASSAY[-_A-Za-z0-9]*", src))[[1]], sep = "\\n")\n  quit(save = "no", status = 0)\n}\n'),
        "early exit": (STRLEN, '\n  quit(save = "no", status = 0)\n}\n'),
        # records of its own on fd 3 (through a shell, as the harness does), guessed from the prompt's examples
        "forged records": (STRLEN, '\n  con <- pipe("cat >&3", "w")\n  writeLines(c("0 v 0", "1 v 3", "2 v 3", "done 3"), con)\n'
                                   '  close(con)\n  quit(save = "no", status = 0)\n}\n'),
        # an S3 class all.equal agrees with, and isTRUE, stopifnot and all.equal masked in the global environment
        "always equal": (STRLEN, "\n  assign('all.equal.assay', function(...) TRUE, envir = globalenv())\n"
                                 "  assign('isTRUE', function(x) TRUE, envir = globalenv())\n  assign('all.equal', function(...) TRUE, envir = globalenv())\n"
                                 "  assign('stopifnot', function(...) invisible(), envir = globalenv())\n  structure(0L, class = 'assay')\n}\n"),
        # base functions the harness calls, masked in the global environment: its writes go nowhere
        "masked writes": (STRLEN, "\n  assign('writeLines', function(...) invisible(), envir = globalenv())\n  nchar(string) + 1\n}\n"),
        # quit stubbed, and a finalizer that writes a done line when R exits
        "stubbed exit": (STRLEN, "\n  assign('quit', function(...) invisible(), envir = globalenv())\n"
                                 "  reg.finalizer(globalenv(), function(e) { con <- pipe('cat >&3', 'w'); writeLines('done 3', con); close(con) }, onexit = TRUE)\n"
                                 "  -1\n}\n"),
        "sleeps": (STRLEN, "\n  Sys.sleep(600)\n  nchar(string)\n}\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED},
    round_trip_skip={"mbpp_237_check_occurences": "an R list's names cannot be tuples"},
    render_agreement=0.995,  # 2359/2360: an int beyond 2**53 is refused
)


def test_numbers_compare_with_all_equals_tolerance() -> None:
    from assay.languages.r import atomic, numbers_equal, r_equal
    from assay.values import FLOAT, INT, list_of, optional, tuple_of

    assert numbers_equal([1000000003], [1000000002]) and numbers_equal([1e-9], [0.0]) and not numbers_equal([1.0], [1.001])
    assert numbers_equal([1.0, 2.0, 3.0], [1.0, 2.0, 3.00000001]) and not numbers_equal([float("nan")], [1.0])
    assert atomic([1, 2], list_of(INT)) and not atomic([1e-05, 0.5], list_of(FLOAT)) and not atomic((None, 1), tuple_of(optional(INT), optional(INT)))
    assert r_equal([[1.0, 2.0], [3.0]], [[1, 2], [3]], list_of(list_of(INT))) and not r_equal({"b": 1, "a": 2}, {"a": 2, "b": 1}, Type("dict", (Type("str"), INT)))


# (body, status) judged with the built harness and with its source in the program: the same verdicts.
BOTH_WAYS = [
    ("\n  nchar(string)\n}\n", Status.PASSED),
    ("\n  nchar(string) + 1\n}\n", Status.FAILED),
    ("\n  as.character(nchar(string))\n}\n", Status.FAILED),
    ("\n  nchar(string\n}\n", Status.COMPILE_ERROR),
    ('\n  stop("boom")\n}\n', Status.RUNTIME_ERROR),
    ('\n  quit(save = "no", status = 0)\n}\n', Status.FAILED),
    ("\n  repeat {}\n}\n", Status.TIMEOUT),
]


def _verdicts(problem, sandbox) -> list[tuple[Status, str]]:  # type: ignore[no-untyped-def]
    from assay.languages.r import R

    out = []
    for body, _ in BOTH_WAYS:
        v = R().judge(sandbox, problem, problem.prompt + body, dataclasses.replace(R.limits, run_cpu=2, run_wall=10))
        out.append((v.status, v.message.split(" (exit status")[0]))
    return out


def test_the_harness_is_built_once_and_carried_in_the_program_when_turned_off(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A case program reads the harness back byte-compiled from its support directory; turned off
    (ASSAY_R_HARNESS_RDS=0) or where it cannot be built, the program parses the harness's source
    from one string; the verdicts are the same."""
    import os

    from assay.languages import r as r_module
    from assay.languages.r import R
    from assay.sandbox import get_sandbox

    language_or_skip("r")
    problem = benchmark(SPEC.bench).problems[STRLEN]
    call = ['candidate("ab")']
    toolchain = R.toolchain()
    rds = toolchain.env["ASSAY_R_HARNESS"]
    assert os.path.isfile(rds) and os.path.dirname(rds) in toolchain.ro_binds
    text = R().case_files(problem, problem.prompt + "\n  nchar(string)\n}\n", call)["main.r"].decode()
    assert f'base::readRDS("{rds}")' in text and "a_enc <- function" not in text
    built = _verdicts(problem, get_sandbox(ro_binds=toolchain.ro_binds))
    assert [status for status, _ in built] == [status for _, status in BOTH_WAYS]
    try:
        for how in ("off", "unbuildable"):
            R.toolchain.cache_clear()
            if how == "off":
                monkeypatch.setenv("ASSAY_R_HARNESS_RDS", "0")
            else:
                monkeypatch.delenv("ASSAY_R_HARNESS_RDS")
                monkeypatch.setattr(r_module, "support_dir", lambda *a: (_ for _ in ()).throw(OSError("read-only")))
            assert "ASSAY_R_HARNESS" not in R.toolchain().env
            text = R().case_files(problem, problem.prompt + "\n  nchar(string)\n}\n", call)["main.r"].decode()
            assert "readRDS" not in text and "base::parse(text = " in text
            assert text.count("\n") < problem.prompt.count("\n") + 10  # the harness's source is one line
            assert _verdicts(problem, get_sandbox(ro_binds=R.toolchain().ro_binds)) == built
    finally:
        R.toolchain.cache_clear()


def test_each_case_is_a_top_level_line_of_its_own() -> None:
    """R's REPL parses a file's expression anew for each of its lines: cases in one block cost time
    quadratic in their number (1600 of them: 3 s), so each case is a line of its own; 2000 cases pass."""
    from assay.languages.r import R

    language_or_skip("r")
    problem = benchmark(SPEC.bench).problems[STRLEN]
    code = problem.prompt + "\n  nchar(string)\n}\n"
    calls = [f'candidate("{"x" * (i % 50)}")' for i in range(2000)]
    text = R().case_files(problem, code, calls)["main.r"].decode()
    tail = text[len(code) :].strip("\n").split("\n")
    assert len(tail) == len(calls) + 4 and all(line.startswith("base::evalq(run(") for line in tail[2:-2])
    from assay.judging.cases import CasePlan, judge_cases

    plan = CasePlan(calls=calls, expected=[i % 50 for i in range(2000)], args=[()] * 2000, suites=["base"] * 2000,
                    atols=[0.0] * 2000, hints=[""] * 2000, suite_sizes={"base": 2000})
    verdict = judge_cases(R(), sandbox_for("r"), problem, code, plan, R.limits)
    assert verdict.status is Status.PASSED, verdict.message
