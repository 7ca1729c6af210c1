"""OCaml: ocamlc compiles prompt + completion + tests to bytecode, then ocamlrun runs it.

MultiPL-E runs `ocaml prog.ml` (the toplevel: bytecode, the standard library only). Assay compiles
the same program with ocamlc, so type errors are compile errors, and runs the same bytecode
interpreter. The tests are top-level `assert`s, whose failure raises Assert_failure like any other
uncaught exception (exit status 2): an uncaught-exception handler installed just before the tests
exits with ASSERT_EXIT for an Assert_failure raised *in the test section* (by its line number),
leaving the solution's own asserts and every other exception to the default handler.
"""

from __future__ import annotations

import subprocess
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language

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


class OCaml(Language):
    """OCaml (Debian's ocaml: 4.13)."""

    name = "ocaml"
    aliases = ("ml",)
    display = "OCaml"
    source = "main.ml"
    tools = ("ocamlc", "ocamlrun")
    version_args = ("-version",)
    install_hint = "apt-get install -y ocaml"
    build = "{ocamlc} -o main main.ml"
    run = "{ocamlrun} ./main"
    env: ClassVar[dict[str, str]] = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    stub = ' failwith "stub"\n'

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
        return TEST_PRELUDE + tests + f"\nlet () = Stdlib.print_newline (); Stdlib.print_endline {_ocaml_string(marker)}\n"


def _ocaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
