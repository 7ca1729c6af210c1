"""R on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

SPEC = LanguageSpec(
    language="r",
    bench="multipl-e/humaneval-r",
    correct={
        "HumanEval_0_has_close_elements": "\n  d <- abs(outer(numbers, numbers, `-`))\n  diag(d) <- Inf\n  any(d < threshold)\n}\n",
        "HumanEval_13_greatest_common_divisor": "\n  while (b != 0) { t <- b; b <- a %% b; a <- t }\n  a\n}\n",
        "HumanEval_23_strlen": "\n  nchar(string)\n}\n",
        "HumanEval_34_unique": "\n  sort(base::unique(l))\n}\n",
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
    ],
    chat_reply="# Length of a string\nstrlen <- function(string) {\n  nchar(string)\n}\n\nprint(strlen('abc'))\n",
    hostile_write=lambda target: f'\n  try(writeLines("x", "{target}"), silent = TRUE)\n  nchar(string)\n}}\n',
    floods=('\n  repeat cat(strrep("x", 1000), "\\n")\n}\n',),
)
