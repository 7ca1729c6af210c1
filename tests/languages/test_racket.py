"""Racket on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Racket starts slowly (about 2 s of CPU for `raco make` and the run of one program), so every program
but the canary's is judged up front, two at a time, and each test checks its verdict.
"""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

SPEC = LanguageSpec(
    language="racket",
    bench="multipl-e/humaneval-rkt",
    correct={
        "HumanEval_0_has_close_elements": (
            "  (for*/or ([(a i) (in-indexed numbers)] [(b j) (in-indexed numbers)])\n"
            "    (and (not (= i j)) (< (abs (- a b)) threshold))))\n"
        ),
        "HumanEval_13_greatest_common_divisor": "  (gcd a b))\n",
        "HumanEval_23_strlen": "  (string-length string))\n",
        "HumanEval_30_get_positive": "  (filter positive? l))\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "  (+ 1 (string-length string)))\n", Status.FAILED),  # wrong answer
        ("HumanEval_23_strlen", "  (string-length string)\n", Status.COMPILE_ERROR),  # unbalanced parentheses
        ("HumanEval_23_strlen", "  (string-lenght string))\n", Status.COMPILE_ERROR),  # unbound identifier: found by expansion
        ("HumanEval_30_get_positive", "  (list (car (filter positive? '()))))\n", Status.RUNTIME_ERROR),  # car of '()
        ("HumanEval_23_strlen", "  (let loop () (loop)))\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '  (displayln "tests passed")\n  (exit 0))\n', Status.FAILED),  # early exit with status 0
    ],
    # No #lang line: it gets `#lang racket`.
    chat_reply=';; Length of a string\n(define (strlen string)\n  (string-length string))\n\n(displayln (strlen "abc"))\n',
    hostile_write=lambda target: f'  (with-handlers ([void void]) (with-output-to-file "{target}" (lambda () (display "x"))))\n  (string-length string))\n',
    floods=("  (let loop () (displayln (make-string 1000 #\\x)) (loop)))\n",),
    prejudge=True,
)
