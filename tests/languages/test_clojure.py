"""Clojure on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program starts two JVMs (the build check, then the run): they are all judged up front, two
at a time, and each test looks at its verdict.
"""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

TRUNCATE = "HumanEval_2_truncate_number"

SPEC = LanguageSpec(
    language="clojure",
    bench="multipl-e/humaneval-clj",
    correct={
        "HumanEval_0_has_close_elements": (
            "(let [n (count numbers)]\n    (boolean (some true? (for [i (range n) j (range n) :when (not= i j)]\n"
            "                           (< (Math/abs (- (nth numbers i) (nth numbers j))) threshold))))))\n"
        ),
        "HumanEval_13_greatest_common_divisor": "(if (zero? b) a (recur b (mod a b))))\n",
        TRUNCATE: "(- number (Math/floor number)))\n",
        "HumanEval_30_get_positive": "(vec (filter pos? l)))\n",
    },
    wrong=[
        (TRUNCATE, "(Math/floor number))\n", Status.FAILED),  # wrong answer
        (TRUNCATE, "(- number (Math/floor number))\n", Status.COMPILE_ERROR),  # unbalanced parentheses
        (TRUNCATE, "(- number (floor number)))\n", Status.COMPILE_ERROR),  # unresolved symbol
        ("HumanEval_30_get_positive", "(nth l (count l)))\n", Status.RUNTIME_ERROR),  # index out of range
        (TRUNCATE, "(loop [] (recur)))\n", Status.TIMEOUT),
        (TRUNCATE, '(println "tests passed")\n  (System/exit 0))\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply=(
        '(ns solution\n  (:require [clojure.string :as str]))\n\n(defn truncate_number\n  "The decimal part of a number"\n'
        "  [number]\n  (- number (Math/floor number)))\n\n(println (truncate_number 3.5))\n"
    ),
    probe=TRUNCATE,
    hostile_write=lambda target: f'(try (spit "{target}" "x") (catch Exception _ nil))\n  (- number (Math/floor number)))\n',
    floods=('(let [line (apply str (repeat 100000 "x"))] (loop [] (println line) (recur))))\n',),
    prejudge=True,
    # MultiPL-E's Clojure prompts do not escape quotes inside docstrings: 72 of 558 cannot compile
    # for any completion (problem 1's docstring quotes "( ) (( ))"); the canary must report them.
    canary_broken={"HumanEval_1_separate_paren_groups": "Parameter declaration"},
)
