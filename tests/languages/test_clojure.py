"""Clojure on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program starts two JVMs (the build check, then the run): they are all judged up front, two
at a time, and each test looks at its verdict.
"""

from __future__ import annotations

from assay.languages.clojure import clojure_string
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

TRUNCATE = "HumanEval_2_truncate_number"

# Every MultiPL-E result guessed as 3, then the harness's done line.
FORGED = '"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n"'
# A FileOutputStream on fd 3, as the harness makes it (sun.misc.Unsafe sets a FileDescriptor's fd).
FD3 = (
    "(let [u (.get (doto (.getDeclaredField sun.misc.Unsafe \"theUnsafe\") (.setAccessible true)) nil)\n"
    "        fd (java.io.FileDescriptor.)]\n"
    "    (.putInt u fd (.objectFieldOffset u (.getDeclaredField java.io.FileDescriptor \"fd\")) (int 3))\n"
    f"    (doto (java.io.FileOutputStream. fd) (.write (.getBytes {FORGED})) (.flush)))"
)
# pidfd_open of every process it can see (the trusted init too), pidfd_getfd of each of their fds, a forged done in each.
PIDFD = (
    "for my $pid (1 .. 64) { my $p = syscall(434, $pid, 0); next if $p < 0; for my $fd (0 .. 30) {"
    ' my $d = syscall(438, $p, $fd, 0); next if $d < 0; open(my $h, ">&=", $d) or next; syswrite($h, "done 3\\n"); } }'
)
WRONG = "(- number (Math/floor number) -1))\n"  # a wrong answer, for the attacks that need one
HOSTILE = {
    # exit 0 before the harness reports a case
    "early exit": "(System/exit 0))\n",
    # records of its own on fd 3, then exit 0
    "forged records": f"{FD3}\n  (System/exit 0))\n",
    # clojure.core/= and clojure.test's report made to agree with anything
    "= and clojure.test replaced": (
        WRONG + "(alter-var-root #'clojure.core/= (constantly (fn [& _] true)))\n(require 'clojure.test)\n"
        "(alter-var-root #'clojure.test/do-report (constantly (fn [_] nil)))\n"
    ),
    # a security manager that forbids exiting, and a shutdown hook that forges a done line
    "exit blocked": (
        "(System/setSecurityManager (proxy [SecurityManager] [] (checkPermission [_]) (checkExit [_] (throw (SecurityException. \"no\")))))\n"
        "  (.addShutdownHook (Runtime/getRuntime) (Thread. #(println \"tests passed\")))\n  " + WRONG
    ),
    # build-time code (the build loads the solution): records on fd 3 (closed in the build), and the
    # program the run phase loads rewritten to forge every case
    "build-time code": (
        WRONG + f"(try {FD3} (catch Exception _ nil))\n"
        '(spit "main.clj" (str "(let [u (.get (doto (.getDeclaredField sun.misc.Unsafe \\"theUnsafe\\") (.setAccessible true)) nil) fd (java.io.FileDescriptor.)]"'
        ' " (.putInt u fd (.objectFieldOffset u (.getDeclaredField java.io.FileDescriptor \\"fd\\")) (int 3))"'
        ' " (doto (java.io.FileOutputStream. fd) (.write (.getBytes \\"0 v 3\\\\n1 v 3\\\\n2 v 3\\\\ndone 3\\\\n\\")) (.flush)))"))\n'
    ),
    # the harness's namespace defined first, to report a guess for every case
    "harness namespace preempted": (
        WRONG + f"(ns assay.case)\n(defn run [_ _]\n  {FD3}\n  (System/exit 0))\n(in-ns 'user)\n"
    ),
    # the old marker: whatever looks like one in its sources, printed, then exit 0
    "marker from source": (
        '(doseq [f ["main.clj" "solution.clj" "assay_build.clj"] m (re-seq #"ASSAY[-_A-Za-z0-9]*" (try (slurp f) (catch Exception _ "")))] (println m))\n'
        "  (System/exit 0))\n"
    ),
    # the trusted init's descriptors taken with pidfd_getfd (through perl), a forged done in each
    "parent's fds": f"(.waitFor (.start (ProcessBuilder. [\"perl\" \"-e\" {clojure_string(PIDFD)}])))\n  (- number (Math/floor number) -1))\n",
    # sleeps past the run's wall limit without using CPU
    "sleeps": "(Thread/sleep 600000)\n  (- number (Math/floor number)))\n",
}

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
    hostile={name: (TRUNCATE, body) for name, body in HOSTILE.items()},
    hostile_status={"sleeps": Status.TIMEOUT, "early exit": Status.FAILED, "forged records": Status.FAILED},
    # MultiPL-E's own bug: quotes left unescaped in strings.
    render_agreement=0.99,
    # Their prompts' docstrings hold unescaped quotes (see canary_broken): no completion builds.
    round_trip_skip={pid: "MultiPL-E's prompt does not compile (unescaped quotes in its docstring)"
                     for pid in ("HumanEval_12_longest", "HumanEval_111_histogram", "HumanEval_137_compare_one")},
    # MultiPL-E's Clojure prompts do not escape quotes inside docstrings: 72 of 558 cannot compile
    # for any completion (problem 1's docstring quotes "( ) (( ))"); the canary must report them.
    canary_broken={"HumanEval_1_separate_paren_groups": "Parameter declaration"},
)
