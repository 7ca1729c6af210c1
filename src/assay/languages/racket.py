"""Racket: `raco make` compiles the module (read and expansion errors, such as an unbound identifier, are
compile errors), then `racket main.rkt` runs the compiled module, as MultiPL-E runs the file.

MultiPL-E's Racket tests are rackunit `check-within`s outside any test case: a failing check prints
a report and the program carries on with status 0 (MultiPL-E reads stderr to notice). The test section
installs a `current-check-handler` that prints rackunit's report as usual and then exits: with
ASSERT_EXIT for a failed check (exn:test:check), with 1 when evaluating the check raised something
else (the program's own error). Only a run that gets past the last check prints the marker.
Racket finds its collections through /etc/racket/config.rktd, which the sandbox is shown (without it
Racket recompiles its libraries from source on every start).

Cases: the module is the sample as above, then, in place of the test section, a harness that calls
each case (MultiPL-E's own `(candidate ...)` text) under `with-handlers` and writes its result to fd 3,
encoded at the declared type by `assay-case.rkt`, a module of its own (the sample's definitions cannot
reach into it). Racket is untyped: the encoder reads the type at run time (a union by the value's
kind, #f as None where the type is optional), and a value of the wrong shape is written as what it is,
for the trusted side to refuse. MultiPL-E compares with `check-within ... 0.001`: numbers anywhere in
the result within 0.001 of the expected ones (1 and 1.0 alike), everything else `equal?`.
The encoder module is compiled once per machine (`raco make`, support directory racket-<key>) and
required by path, so `raco make main.rkt` compiles the sample alone (0.1 s of a 0.6 s build);
ASSAY_RACKET_CASE_MODULE=0 writes it beside the sample instead, as it was.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay import values
from assay.languages.base import ASSERT_EXIT, Language, PhaseLimits, Toolchain, Unrepresentable
from assay.languages.harness import NotSplittable, balanced
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type

# Racket's own bindings under a prefix: a program's definition of `exit` or `displayln` cannot touch them.
CHECK_HANDLER = f"""(require rackunit (prefix-in assay: racket/base) (prefix-in assay: rackunit))
(let ([assay-report (assay:current-check-handler)])
  (assay:current-check-handler
   (assay:lambda (e)
     (assay-report e)
     (assay:flush-output (assay:current-output-port))
     (assay:flush-output (assay:current-error-port))
     (assay:exit (assay:if (assay:exn:test:check? e) {ASSERT_EXIT} 1)))))
"""
# The case harness's module (see assay.judging.records and assay.values' wire format). `run` calls each
# thunk, encodes its result at the type (an S-expression: int, float, str, bool, none, any, or
# (kind arg ...)) and writes one record a line to fd 3.
CASE_MODULE = r"""#lang racket/base
(require ffi/unsafe/port racket/set)
(provide run)

(define channel #f)
(define (out)
  (unless channel (set! channel (unsafe-file-descriptor->port 3 'assay-channel '(write))))
  channel)

(define (kind t) (if (pair? t) (car t) t))

(define (enc-real v o)
  (let ([x (if (exact? v) (exact->inexact v) v)])
    (cond [(eqv? x +nan.0) (write-string "NaN" o)]
          [(eqv? x +inf.0) (write-string "Infinity" o)]
          [(eqv? x -inf.0) (write-string "-Infinity" o)]
          [else (write-string (number->string x) o)])))

(define (enc-str s o)
  (write-char #\" o)
  (for ([c (in-string s)])
    (define n (char->integer c))
    (cond [(char=? c #\") (write-string "\\\"" o)]
          [(char=? c #\\) (write-string "\\\\" o)]
          [(char=? c #\newline) (write-string "\\n" o)]
          [(or (< n 32) (= n 127)) (write-string "\\u" o)
                                   (write-string (string-pad (number->string n 16)) o)]
          [else (write-char c o)]))
  (write-char #\" o))
(define (string-pad h) (string-append (make-string (- 4 (string-length h)) #\0) h))

(define (enc-items xs ts o)
  (write-char #\[ o)
  (for ([x (in-list xs)] [t (in-list ts)] [i (in-naturals)])
    (when (> i 0) (write-char #\, o))
    (enc x t o))
  (write-char #\] o))

(define (pick v alts)
  (define (first-of . kinds) (for/first ([a (in-list alts)] #:when (memq (kind a) kinds)) a))
  (or (cond [(exact-integer? v) (or (first-of 'int) (first-of 'float))]
            [(real? v) (or (first-of 'float) (first-of 'int))]
            [(string? v) (first-of 'str)]
            [(boolean? v) (first-of 'bool)]
            [(or (list? v) (set? v)) (first-of 'list 'tuple 'vtuple 'set)]
            [(hash? v) (first-of 'dict)]
            [else #f])
      'any))

(define (enc v t o)
  (case (kind t)
    [(int) (cond [(exact-integer? v) (write-string (number->string v) o)] [(real? v) (enc-real v o)] [else (dyn v o)])]
    [(float) (if (real? v) (enc-real v o) (dyn v o))]
    [(str) (if (string? v) (enc-str v o) (dyn v o))]
    [(bool) (if (boolean? v) (write-string (if v "true" "false") o) (dyn v o))]
    [(none) (if (eq? v #f) (write-string "null" o) (dyn v o))]
    [(list vtuple set)
     (cond [(list? v) (enc-items v (map (lambda (_) (cadr t)) v) o)]
           [(set? v) (enc (set->list v) t o)]
           [else (dyn v o)])]
    [(tuple) (if (and (list? v) (= (length v) (length (cdr t)))) (enc-items v (cdr t) o) (dyn v o))]
    [(dict)
     (if (hash? v)
         (enc-items (for/list ([(k x) (in-hash v)]) (list k x)) (map (lambda (_) (list 'tuple (cadr t) (caddr t))) (hash-keys v)) o)
         (dyn v o))]
    [(optional) (if (and (eq? v #f) (not (eq? (kind (cadr t)) 'bool))) (write-string "null" o) (enc v (cadr t) o))]
    [(union) (enc v (pick v (cdr t)) o)]
    [else (dyn v o)]))

(define (dyn v o)
  (cond [(exact-integer? v) (write-string (number->string v) o)]
        [(real? v) (enc-real v o)]
        [(string? v) (enc-str v o)]
        [(boolean? v) (write-string (if v "true" "false") o)]
        [(void? v) (write-string "null" o)]
        [(list? v) (enc-items v (map (lambda (_) 'any) v) o)]
        [(vector? v) (dyn (vector->list v) o)]
        [(set? v) (dyn (set->list v) o)]
        [(hash? v) (enc-items (for/list ([(k x) (in-hash v)]) (list k x)) (map (lambda (_) 'any) (hash-keys v)) o)]
        [(char? v) (enc-str (string v) o)]
        [(symbol? v) (enc-str (symbol->string v) o)]
        [else (error 'assay "the result is not plain data: ~e" v)]))

(define (message e)
  (define m (with-handlers ([(lambda (_) #t) (lambda (_) "exception")])
              (if (exn? e) (exn-message e) (format "raised ~e" e))))
  (define one (list->string (for/list ([c (in-string m)]) (if (memv c '(#\newline #\return)) #\space c))))
  (if (> (string-length one) 300) (substring one 0 300) one))

(define (run type thunks)
  (for ([th (in-list thunks)] [i (in-naturals)])
    (define line
      (with-handlers ([(lambda (_) #t) (lambda (e) (format "~a e ~a" i (message e)))])
        (define o (open-output-string))
        (enc (th) type o)
        (format "~a v ~a" i (get-output-string o))))
    (write-string (string-append line "\n") (out))
    (flush-output (out)))
  (write-string (format "done ~a\n" (length thunks)) (out))
  (flush-output (out))
  (exit 0))
"""

_CHECK = re.compile(r"^[ \t]*\(check-(?:within|equal\?) ", re.M)
_LANG_LINE = re.compile(r"\A\s*(?:;[^\n]*\n\s*)*#lang\s")


class Racket(Language):
    """Racket CS with rackunit (Debian's racket)."""

    name = "racket"
    aliases = ("rkt",)
    display = "Racket"
    multipl_e = "rkt"
    fence_tags = ("scheme",)
    stops = ("\n(define ", "\n#|", "\n;", "\n(")
    source = "main.rkt"
    tools = ("racket", "raco")
    version_args = ("--version",)
    install_hint = "apt-get install -y racket"
    build = "{raco} make main.rkt"
    build_checks_only = True  # expansion errors fail `racket main.rkt` before any case too; then the check tells them apart
    run = "{racket} main.rkt"
    stub = '  (error "stub"))\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(processes=64)
    env: ClassVar[dict[str, str]] = {"PLTUSERHOME": "/tmp/racket-user"}
    config_dirs = ("/etc/racket",)  # the installation's configuration
    library_probe = ("racket", ("-l", "racket/base", "-e", '(void (collection-file-path "main.rkt" "rackunit"))'), "rackunit")

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """racket and raco, plus the case encoder compiled once (named to case programs by
        $ASSAY_RACKET_CASE); without it, the encoder's source goes beside each sample."""
        base = super().toolchain()
        if switched_off(CASE_MODULE_ENV):
            return base
        raco = base.tools["raco"]
        key = digest(base.version, os.path.realpath(raco), file_stamp(os.path.realpath(raco)), CASE_MODULE)
        try:
            support = support_dir("racket", key, lambda work: _build_case_module(work, raco, base.env))
        except (OSError, subprocess.SubprocessError):
            return base
        module = support / "assay-case.rkt"
        if not (support / "compiled" / "assay-case_rkt.zo").exists() or '"' in str(support) or "\\" in str(support):
            return base
        env = {**base.env, "ASSAY_RACKET_CASE": str(module)}
        return dataclasses.replace(base, ro_binds=tuple(sorted({*base.ro_binds, str(support)})), env=env)

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The sample as a module (a whole program without `#lang` gets `#lang racket`), then the tests."""
        if not _LANG_LINE.match(code):
            code = "#lang racket\n" + code
        return code + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """A check handler that exits with ASSERT_EXIT on a failed check, the tests, then the marker."""
        return CHECK_HANDLER + tests + f'\n(assay:newline)\n(assay:displayln "{marker}")\n'

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `(check-within (candidate ...) expected 0.001)` lines: the call, and "within 0.001"
        (a `check-equal?` would compare plainly)."""
        calls: list[tuple[str, str]] = []
        try:
            for found in _CHECK.finditer(tests):  # over the whole text: a string literal may hold a newline
                start = found.start() + len(found.group(0)) - len(found.group(0).lstrip())
                end = balanced(tests, start, quotes='"')
                at = found.end()
                if not tests.startswith("(candidate", at):
                    return None
                call_end = balanced(tests, at, quotes='"')
                hint = ""
                if "check-within" in found.group(0):
                    epsilon = tests[call_end : end - 1].split()[-1]
                    hint = f"within {float(epsilon)!r}"
                calls.append((tests[at:call_end], hint))
        except (NotSplittable, ValueError, IndexError):
            return None
        if len(calls) != sum(1 for line in tests.splitlines() if line.strip().startswith("(check-")):
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's Racket literals: `(list ...)` for lists and tuples, `#hash((k .  v) ...)` for dicts,
        #f for None."""
        return racket_literal(value, t)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`(candidate a b)`."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        for a, t in zip(args, signature.param_types, strict=True):
            _coerce(a, t)  # it must fit the type; it is written as it is (Racket keeps 2 an exact 2 where Python's type says float)
        rendered = [racket_literal(a, t) for a, t in zip(args, signature.param_types, strict=True)]
        return "(" + " ".join(["candidate", *rendered]) + ")"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """main.rkt: the sample as the program path has it, then the harness; assay-case.rkt: the encoder."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        if not _LANG_LINE.match(code):
            code = "#lang racket\n" + code
        # Racket's own forms under a prefix, and every application of the harness's own explicit
        # (assay:#%app): a sample's `#%app` macro or a definition of `list` reaches only the calls.
        thunks = "\n".join(f"   (assay:lambda () {call})" for call in calls)
        prebuilt = Racket.toolchain().env.get("ASSAY_RACKET_CASE") if Racket.has_support("ASSAY_RACKET_CASE") else None
        where = f'(file "{prebuilt}")' if prebuilt else '"assay-case.rkt"'
        harness = (
            f"\n(require (prefix-in assay: racket/base) (prefix-in assay-case: {where}))\n"
            f"(assay:#%app assay-case:run (assay:quote {type_sexp(problem.tests.signature.returns)})\n"
            f" (assay:let ([candidate {problem.entry_point}])\n  (assay:#%app assay:list\n{thunks})))\n"
        )
        files = {self.source: (code + "\n" + harness).encode()}
        if not prebuilt:
            files["assay-case.rkt"] = CASE_MODULE.encode()
        return files

    def normalize(self, value: Any, t: Type) -> Any:
        """As Racket holds MultiPL-E's values: tuples are lists (dict keys aside), and where the type is an
        optional bool, None is #f, as False is."""
        return _racket_value(value, t)

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """rackunit's `check-within` (the hint "within e"): numbers anywhere in the result within e of
        the expected ones, ints and floats alike (|a - b| <= e: inf is not within e of inf, nor nan of
        nan), everything else equal; without a hint, Python's ==."""
        a, b = self.normalize(actual, t), self.normalize(expected, t)
        if hint.startswith("within "):
            return _within(a, b, float(hint.split()[1]))
        return values.equal(a, b)


CASE_MODULE_ENV = "ASSAY_RACKET_CASE_MODULE"


def _build_case_module(work: Path, raco: str, env: dict[str, str]) -> None:
    """assay-case.rkt and its compiled/ .zo and .dep, which `raco make` of a case program finds up to date."""
    (work / "assay-case.rkt").write_text(CASE_MODULE)
    home = work / ".racket-user"
    run_host([raco, "make", "assay-case.rkt"], work, env={**os.environ, **env, "PLTUSERHOME": str(home), "LC_ALL": "C.UTF-8"})
    shutil.rmtree(home, ignore_errors=True)


def _within(a: Any, b: Any, epsilon: float) -> bool:
    numeric = (int, float)
    if isinstance(a, numeric) and isinstance(b, numeric) and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(a - b) <= epsilon
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_within(x, y, epsilon) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_within(a[k], b[k], epsilon) for k in a)
    return type(a) is type(b) and values.equal(a, b)


def _racket_value(value: Any, t: Type) -> Any:
    k = t.kind
    if k == "optional":
        if t.args[0].kind == "bool" and value is None:
            return False
        return _racket_value(value, t.args[0])
    if isinstance(value, (list, tuple)):
        if k == "tuple" and len(t.args) == len(value):
            return [_racket_value(v, a) for v, a in zip(value, t.args, strict=True)]
        inner = t.args[0] if k in ("list", "vtuple") else values.ANY
        return [_racket_value(v, inner) for v in value]
    if isinstance(value, dict):  # keys as they are: a tuple key must stay hashable
        return {a: _racket_value(b, t.args[1] if k == "dict" else values.ANY) for a, b in value.items()}
    return value


def _coerce(value: Any, t: Type) -> Any:
    try:
        return values.coerce(value, t)
    except values.UnsupportedType as exc:
        raise Unrepresentable(f"type: {exc}") from None


def type_sexp(t: Type) -> str:
    """The type as the harness's encoder reads it: int, float, ... or (kind arg ...)."""
    if not t.args:
        return t.kind
    return "(" + " ".join([t.kind, *(type_sexp(a) for a in t.args)]) + ")"


def racket_literal(value: Any, t: Type = values.ANY) -> str:
    """A Racket expression for a plain value as MultiPL-E writes it (a dict of plain scalars as a
    #hash literal, of anything else as a `(hash ...)` call, whose parts are evaluated)."""
    k = t.kind
    if k == "optional":
        return "#f" if value is None else racket_literal(value, t.args[0])
    if k == "union":
        alt = next((a for a in t.args if values.fits(value, a)), values.ANY)
        return racket_literal(value, alt)
    if value is None:
        return "#f"
    if isinstance(value, bool):
        return "#t" if value else "#f"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "+nan.0"
        if math.isinf(value):
            return "+inf.0" if value > 0 else "-inf.0"
        return repr(value)
    if isinstance(value, str):
        return racket_string(value)
    inner = t.args[0] if k in ("list", "vtuple", "set") else values.ANY
    if isinstance(value, (list, tuple)):
        parts = [racket_literal(v, t.args[i] if k == "tuple" and i < len(t.args) else inner) for i, v in enumerate(value)]
        return "(list " + " ".join(parts) + ")"
    if isinstance(value, (set, frozenset)):
        return "(set " + " ".join(racket_literal(v, inner) for v in sorted(value, key=repr)) + ")"
    if isinstance(value, dict):
        kt, vt = (t.args[0], t.args[1]) if k == "dict" else (values.ANY, values.ANY)
        if all(x is None or isinstance(x, (str, int, float, bool)) for x in (*value.keys(), *value.values())):
            return "#hash(" + " ".join(f"({racket_literal(a, kt)} .  {racket_literal(b, vt)})" for a, b in value.items()) + ")"
        return "(hash " + " ".join(f"{racket_literal(a, kt)} {racket_literal(b, vt)}" for a, b in value.items()) + ")"
    raise Unrepresentable(f"type: {values._short(value)} is not plain data")


def racket_string(text: str) -> str:
    """A Racket string literal: quotes and backslashes escaped, control characters but newlines and tabs as \\u escapes."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif (ord(ch) < 0x20 and ch not in "\n\t") or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
