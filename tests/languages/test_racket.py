"""Racket on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Racket starts slowly (about 2 s of CPU for `raco make` and the run of one program), so every program
but the canary's is judged up front, two at a time, and each test checks its verdict.
"""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark, language_or_skip

# fd 3 as a port, as the harness opens it; every MultiPL-E result guessed as 3, then the done line.
FD3 = "(require ffi/unsafe/port)\n(define assay-forged (unsafe-file-descriptor->port 3 'forged '(write)))\n"
FORGED = '"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n"'
# pidfd_open of every process it can see (the trusted init too), pidfd_getfd of each of their fds, a forged done in each.
PIDFD = (
    "(require ffi/unsafe)\n(define sys (get-ffi-obj \"syscall\" #f (_fun _long _long _long _long -> _long)))\n"
    "(define c-write (get-ffi-obj \"write\" #f (_fun _int _bytes _size -> _long)))\n"
    "(for* ([pid (in-range 1 65)] [p (in-value (sys 434 pid 0 0))] #:when (>= p 0) [fd (in-range 0 31)])\n"
    "  (define d (sys 438 p fd 0))\n  (when (>= d 0) (c-write d #\"done 3\\n\" 7)))\n"
)
HOSTILE = {
    # exit 0 before the harness reports a case
    "early exit": "  (exit 0))\n",
    # records of its own on fd 3 from the module's top level, then exit 0
    "forged records": "  (string-length string))\n" + FD3 + f"(write-string {FORGED} assay-forged)\n(flush-output assay-forged)\n(exit 0)\n",
    # rackunit's check-within and Racket's equal? made to agree with anything
    "check-within and equal? replaced": ("  (+ 1 (string-length string)))\n(define-syntax-rule (check-within a b e) (void))\n"
                                         "(define (equal? a b) #t)\n(define (= . xs) #t)\n"),
    # exit stubbed, so a harness that exits on a failure would carry on
    "stubbed exit": "  (+ 1 (string-length string)))\n(exit-handler (lambda (code) (void)))\n(define (exit . _) (void))\n",
    # an #%app macro of its own: every application after it (the harness's too, were they implicit) returns 3
    "#%app hijacked": ("  (string-length string))\n(require (for-syntax racket/base) (only-in racket/base [#%app base-app]))\n"
                       "(define-syntax (#%app stx) (syntax-case stx () [(_ f . args) #'(base-app (lambda xs 3) . args)]))\n"),
    # build-time code (raco make expands the module): records on fd 3 (closed in the build), and the
    # harness's module rewritten before it is compiled
    "build-time code": (
        "  (+ 1 (string-length string)))\n(require (for-syntax racket/base ffi/unsafe/port))\n(begin-for-syntax\n"
        f"  (with-handlers ([void void]) (let ([p (unsafe-file-descriptor->port 3 'forged '(write))]) (write-string {FORGED} p) (flush-output p)))\n"
        "  (with-handlers ([void void])\n    (with-output-to-file \"assay-case.rkt\" #:exists 'replace\n"
        "      (lambda () (write-string \"#lang racket/base\\n(require ffi/unsafe/port)\\n(provide run)\\n"
        "(define (run t ts) (define p (unsafe-file-descriptor->port 3 'x '(write))) (for ([i (in-naturals)] [_ ts]) (fprintf p \\\"~a v 3\\\\n\\\" i))"
        " (fprintf p \\\"done ~a\\\\n\\\" (length ts)) (flush-output p) (exit 0))\\n\")))))\n"
    ),
    # the old marker: whatever looks like one in its source and compiled code, printed, then exit 0
    "marker from source": ("  (for ([f '(\"main.rkt\" \"compiled/main_rkt.zo\")])\n"
                           "    (with-handlers ([void void]) (for ([l (file->lines f)] #:when (regexp-match? #rx\"ASSAY\" l)) (displayln l))))\n  (exit 0))\n"),
    # the trusted init's descriptors taken with pidfd_getfd (Racket's FFI), a forged done in each
    "parent's fds": "  (+ 1 (string-length string)))\n" + PIDFD,
    # sleeps past the run's wall limit without using CPU
    "sleeps": "  (sleep 600)\n  (string-length string))\n",
}

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
    hostile={name: (STRLEN, body) for name, body in HOSTILE.items()},
    hostile_status={"sleeps": Status.TIMEOUT, "early exit": Status.FAILED, "forged records": Status.FAILED},
    # MultiPL-E's own bugs: quotes left unescaped in strings, lists inside a #hash literal (quoted data
    # there, `(list 6.2 70)` a list of a symbol and two numbers), Python's ints where the type says float.
    render_agreement=0.99,
)


def test_the_encoder_is_compiled_once_and_beside_the_sample_when_turned_off(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A case program requires the encoder compiled once, by path (no assay-case.rkt among its files, and
    `raco make` in the sandbox finds the read-only .zo up to date); turned off, the encoder's source
    goes beside the sample, and judges the same."""
    from assay.execution import Executor
    from assay.languages.racket import Racket
    from assay.sandbox import get_sandbox

    language_or_skip("racket")
    bench = benchmark(SPEC.bench)
    problem = bench.problems[STRLEN]
    right, wrong = problem.prompt + "  (string-length string))\n", problem.prompt + "  (+ 1 (string-length string)))\n"
    prebuilt = Racket.toolchain().env["ASSAY_RACKET_CASE"]
    files = Racket().case_files(problem, right, ['(candidate "ab")'])
    assert set(files) == {"main.rkt"} and f'(file "{prebuilt}")' in files["main.rkt"].decode()
    for switch in ("1", "0"):
        monkeypatch.setenv("ASSAY_RACKET_CASE_MODULE", switch)
        Racket.toolchain.cache_clear()
        try:
            if switch == "0":
                assert "ASSAY_RACKET_CASE" not in Racket.toolchain().env
                assert set(Racket().case_files(problem, right, ['(candidate "ab")'])) == {"main.rkt", "assay-case.rkt"}
            executor = Executor(get_sandbox(ro_binds=Racket.toolchain().ro_binds), bench, workers=1)
            assert executor.judge(problem, right).status is Status.PASSED, switch
            assert executor.judge(problem, wrong).status is Status.FAILED, switch
        finally:
            Racket.toolchain.cache_clear()
