"""OCaml: ocamlc compiles prompt + completion + tests to bytecode, then ocamlrun runs it.

MultiPL-E runs `ocaml prog.ml` (the toplevel: bytecode, the standard library only). Assay compiles
the same program with ocamlc, so type errors are compile errors, and runs the same bytecode
interpreter. The tests are top-level `assert`s, whose failure raises Assert_failure like any other
uncaught exception (exit status 2): an uncaught-exception handler installed just before the tests
exits with ASSERT_EXIT for an Assert_failure raised *in the test section* (by its line number),
leaving the solution's own asserts and every other exception to the default handler.

Cases: the program is the same prompt + completion, then a harness in place of the test section
that calls each case in a `try ... with` and writes its result, encoded at the declared type, to
fd 3. OCaml has no overloading: the encoder is generated from the declared Type out of the
combinators of `assay_case.ml`, a compilation unit of its own built before the sample's (so the
sample's own definitions of `(=)`, `List` or even `Stdlib` cannot reach into it). That unit is
compiled once per machine (assay_case.cmi/.cmo in the support directory ocaml-<key>) and each case
build links it: compiling it with every sample took 10 ms of a 20 ms program. ASSAY_OCAML_CASE_UNIT=0,
or a unit that cannot be built, puts its source next to the sample's instead.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay import values
from assay.languages.base import ASSERT_EXIT, Language, Toolchain, Unrepresentable
from assay.languages.harness import NotSplittable, balanced
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import CaseTests, Problem
from assay.values import Signature, Type

TEST_PRELUDE = f"""
let () =
  let assay_tests_from = __LINE__ in
  Stdlib.Printexc.set_uncaught_exception_handler (fun exn backtrace ->
    match exn with
    | Stdlib.Assert_failure (_, line, _) when line > assay_tests_from ->
        Stdlib.prerr_endline (Stdlib.Printexc.to_string exn);
        Stdlib.exit {ASSERT_EXIT}
    | _ -> Stdlib.Printexc.default_uncaught_exception_handler exn backtrace)
"""

# The harness's combinators (see assay.judging.records and assay.values' wire format). An encoder is
# `Buffer.t -> 'a -> unit`; lists are walked with List.iter (tail-recursive: long results are fine).
# The channel is fd 3, as a channel through the runtime's own primitive (what Stdlib's stdout is made with).
CASE_UNIT = r"""
external descriptor_out : int -> out_channel = "caml_ml_open_descriptor_out"
let chan = ref None
let out () =
  match !chan with
  | Some c -> c
  | None -> let c = descriptor_out 3 in set_binary_mode_out c true; chan := Some c; c
let write line = let c = out () in output_string c line; flush c

let int b x = Buffer.add_string b (string_of_int x)
let bool b x = Buffer.add_string b (if x then "true" else "false")
let unit b () = Buffer.add_string b "null"
let float b x =
  if Float.is_nan x then Buffer.add_string b "NaN"
  else if x = Float.infinity then Buffer.add_string b "Infinity"
  else if x = Float.neg_infinity then Buffer.add_string b "-Infinity"
  else begin
    (* the shortest %g that reads back as the same float *)
    let rec go p = let s = Printf.sprintf "%.*g" p x in if p >= 17 || float_of_string s = x then s else go (p + 1) in
    Buffer.add_string b (go 1)
  end
let string b s =
  Buffer.add_char b '"';
  String.iter (fun ch ->
    match ch with
    | '"' -> Buffer.add_string b "\\\""
    | '\\' -> Buffer.add_string b "\\\\"
    | '\n' -> Buffer.add_string b "\\n"
    | '\r' -> Buffer.add_string b "\\r"
    | '\t' -> Buffer.add_string b "\\t"
    | c when Char.code c < 0x20 || Char.code c = 0x7f -> Buffer.add_string b (Printf.sprintf "\\u%04x" (Char.code c))
    | c -> Buffer.add_char b c) s;
  Buffer.add_char b '"'
let list e b l =
  Buffer.add_char b '[';
  List.iteri (fun i x -> if i > 0 then Buffer.add_char b ','; e b x) l;
  Buffer.add_char b ']'
let option e b = function None -> Buffer.add_string b "null" | Some x -> e b x
let items b es =
  Buffer.add_char b '[';
  List.iteri (fun i e -> if i > 0 then Buffer.add_char b ','; e b) es;
  Buffer.add_char b ']'

let one_line s = String.map (fun c -> if c = '\n' || c = '\r' then ' ' else c) s
let case i f =
  let b = Buffer.create 64 in
  let line =
    try f b; string_of_int i ^ " v " ^ Buffer.contents b
    with e ->
      let m = (try Printexc.to_string e with _ -> "exception") in
      let m = if String.length m > 300 then String.sub m 0 300 else m in
      string_of_int i ^ " e " ^ one_line m
  in
  write (line ^ "\n")
let finish n = write ("done " ^ string_of_int n ^ "\n"); exit 0
"""

CASE_MODULE = "Assay_case"
CASE_UNIT_ENV = "ASSAY_OCAML_CASE_UNIT"
_ASSERT = re.compile(r"^[ \t]*\(assert \(\(candidate ", re.M)
MAX_INT = 2**62 - 1  # OCaml's 63-bit int
MIN_INT = -(2**62)


class OCaml(Language):
    """OCaml (Debian's ocaml: 4.13)."""

    name = "ocaml"
    aliases = ("ml",)
    display = "OCaml"
    multipl_e = "ml"
    stops = ("\n\n", "\n(*", "\ntype", "\nlet")
    definition = r"\blet\s+(?:rec\s+)?{name}\b"
    source = "main.ml"
    tools = ("ocamlc", "ocamlrun")
    version_args = ("-version",)
    install_hint = "apt-get install -y ocaml"
    build = "{ocamlc} -o main main.ml"
    run = "{ocamlrun} ./main"
    env: ClassVar[dict[str, str]] = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    stub = ' failwith "stub"\n'

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """ocamlc and ocamlrun, plus the case harness's unit compiled once (support directory
        ocaml-<key>, named to case builds by $ASSAY_OCAML_CASE); without it, case builds compile
        assay_case.ml with the sample."""
        base = super().toolchain()
        ocamlc = base.tools["ocamlc"]
        if switched_off(CASE_UNIT_ENV):
            return base
        key = digest(base.version, os.path.realpath(ocamlc), file_stamp(os.path.realpath(ocamlc)), CASE_UNIT)
        try:
            support = support_dir("ocaml", key, lambda work: _build_case_unit(work, ocamlc))
        except (OSError, subprocess.SubprocessError):
            return base
        unit = support / "assay_case.cmo"
        if not (unit.exists() and (support / "assay_case.cmi").exists()) or re.search(r"\s", str(support)):
            return base
        env = {**base.env, "ASSAY_OCAML_CASE": f"-I {support} {unit}"}
        return dataclasses.replace(base, ro_binds=tuple(sorted({*base.ro_binds, str(support)})), env=env)

    @classmethod
    def read_version(cls, tool_path: str) -> str:
        """`ocamlc -version` prints the bare number."""
        try:
            out = subprocess.run([tool_path, "-version"], capture_output=True, text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError) as exc:
            return f"unknown ({exc})"
        return f"OCaml {out}" if out else "unknown"

    def wrap_tests(self, tests: str, marker: str) -> str:
        """A failed test assertion exits ASSERT_EXIT; the marker is printed after the test section ran."""
        return TEST_PRELUDE + tests + f"\nlet () = Stdlib.print_newline (); Stdlib.print_endline {ocaml_string(marker)}\n"

    # ------------------------------------------------------------ cases

    def build_command(self, problem: Problem) -> str | None:
        """A case run links the harness's unit first (it sees the standard library only): the one
        compiled once where there is one, else its source compiled with the sample's."""
        if isinstance(problem.tests, CaseTests):
            if OCaml.has_support("ASSAY_OCAML_CASE"):
                return "{ocamlc} -o main $ASSAY_OCAML_CASE main.ml"
            return "{ocamlc} -o main assay_case.ml main.ml"
        return self.build

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `(assert ((candidate a b) = expected));` lines: `candidate a b`."""
        calls: list[tuple[str, str]] = []
        try:
            for found in _ASSERT.finditer(tests):  # over the whole text: a string literal may hold a newline
                at = found.end() - len("(candidate ")
                end = balanced(tests, at, quotes='"')
                calls.append((tests[at + 1 : end - 1].strip(), ""))
        except NotSplittable:
            return None
        if len(calls) != sum(1 for line in tests.splitlines() if line.strip().startswith("(assert")):
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's OCaml literals: `[a; b]` lists, `(a, b)` tuples, `[(k, v); ...]` association
        lists for dicts, `Some(x)`/`None` options. Negative numbers are written `(-3)` where they
        stand alone (MultiPL-E's `(~3)` is a syntax error)."""
        return _literal(value, t, top=True)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`candidate a b` (MultiPL-E's call, without its parentheses)."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        rendered = [_literal(_coerce(a, t), t, top=True) for a, t in zip(args, signature.param_types, strict=True)]
        return " ".join(["candidate", *rendered]) if rendered else "candidate ()"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample as the program path builds it, then the harness in place of the test section."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        encoder = ocaml_encoder(problem.tests.signature.returns)
        lines = [
            "",
            "let () =",
            f"  let candidate = {problem.entry_point} in",
            f"  let assay_enc = {encoder} in",
        ]
        lines += [f"  {CASE_MODULE}.case {i} (fun assay_b -> assay_enc assay_b ({call}));" for i, call in enumerate(calls)]
        lines.append(f"  {CASE_MODULE}.finish {len(calls)}")
        files = {self.source: (code + "\n" + "\n".join(lines) + "\n").encode()}
        if not OCaml.has_support("ASSAY_OCAML_CASE"):
            files["assay_case.ml"] = CASE_UNIT.encode()
        return files

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """OCaml's `=`, which MultiPL-E's asserts use: a dict is an association list there, so its
        pairs compare in order (Python's dicts do not); everything else is Python's `==`."""
        return _ordered_equal(actual, expected, t)



def _build_case_unit(work: Path, ocamlc: str) -> None:
    """assay_case.cmi and assay_case.cmo from CASE_UNIT (its source is kept, for error messages)."""
    (work / "assay_case.ml").write_text(CASE_UNIT)
    run_host([ocamlc, "-c", "assay_case.ml"], work, timeout=300)


def _ordered_equal(a: Any, b: Any, t: Type) -> bool:
    k = t.kind
    if k == "dict" and isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(
            _ordered_equal(ka, kb, t.args[0]) and _ordered_equal(va, vb, t.args[1]) for (ka, va), (kb, vb) in zip(a.items(), b.items(), strict=True)
        )
    if k in ("list", "vtuple") and isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_ordered_equal(x, y, t.args[0]) for x, y in zip(a, b, strict=True))
    if k == "tuple" and isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_ordered_equal(x, y, s) for x, y, s in zip(a, b, t.args, strict=True))
    if k == "optional" and a is not None and b is not None:
        return _ordered_equal(a, b, t.args[0])
    return values.equal(a, b)


def _coerce(value: Any, t: Type) -> Any:
    try:
        return values.coerce(value, t)
    except values.UnsupportedType as exc:
        raise Unrepresentable(f"type: {exc}") from None


def _literal(value: Any, t: Type, top: bool = False) -> str:
    k = t.kind
    if k == "optional":
        return "None" if value is None else f"Some({_literal(value, t.args[0])})"
    if value is None and k != "none":
        raise Unrepresentable(f"None: where the type is {t}")
    if k == "none":
        return "()"
    if k == "bool" and isinstance(value, bool):
        return "true" if value else "false"
    if k == "int" and isinstance(value, int) and not isinstance(value, bool):
        if not MIN_INT <= value <= MAX_INT:
            raise Unrepresentable(f"int beyond 63 bits: {value}")
        return f"({value})" if value < 0 and top else str(value)
    if k == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        x = float(value)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "infinity" if x > 0 else "neg_infinity"
        text = repr(x)
        return f"({text})" if text.startswith("-") and top else text
    if k == "str" and isinstance(value, str):
        return ocaml_string(value)
    if k == "list" and isinstance(value, list):
        return "[" + "; ".join(_literal(v, t.args[0]) for v in value) + "]"
    if k == "tuple" and isinstance(value, tuple) and len(value) == len(t.args):
        return "(" + ", ".join(_literal(v, a) for v, a in zip(value, t.args, strict=True)) + ")"
    if k == "dict" and isinstance(value, dict):
        return "[" + "; ".join(f"({_literal(a, t.args[0])}, {_literal(b, t.args[1])})" for a, b in value.items()) + "]"
    if k in ("set", "vtuple", "union", "any"):
        raise Unrepresentable(f"type: OCaml has no {t} (MultiPL-E translates none)")
    raise Unrepresentable(f"type: {values._short(value)} is not a {t}")


def ocaml_string(text: str) -> str:
    """An OCaml string literal (UTF-8 as it is; quotes, backslashes and control characters escaped)."""
    out = []
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):03d}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def ocaml_encoder(t: Type, depth: int = 0) -> str:
    """The harness's encoder for a value of type t, out of assay_case.ml's combinators."""
    m = CASE_MODULE
    k = t.kind
    if k in ("int", "float", "bool"):
        return f"{m}.{k}"
    if k == "str":
        return f"{m}.string"
    if k == "none":
        return f"{m}.unit"
    if k == "list":
        return f"({m}.list {ocaml_encoder(t.args[0], depth)})"
    if k == "optional":
        return f"({m}.option {ocaml_encoder(t.args[0], depth)})"
    if k == "tuple" and t.args:
        names = [f"assay_x{depth}_{i}" for i in range(len(t.args))]
        parts = "; ".join(f"(fun b -> {ocaml_encoder(a, depth + 1)} b {n})" for a, n in zip(t.args, names, strict=True))
        return f"(fun b ({', '.join(names)}) -> {m}.items b [{parts}])"
    if k == "dict":
        return ocaml_encoder(values.list_of(values.tuple_of(t.args[0], t.args[1])), depth)
    raise Unrepresentable(f"type: OCaml has no {t}")
