"""A phase's command: plain ones are executed as they are (no shell between the trusted init and the
tool), anything with shell syntax runs under /bin/sh."""

from __future__ import annotations

from assay.languages.base import phase_argv

ENV = {"ASSAY_OCAML_CASE": "-I /cache/ocaml-1 /cache/ocaml-1/assay_case.cmo", "EMPTY": ""}


def test_plain_commands_and_the_toolchains_own_variables_are_executed_directly() -> None:
    assert phase_argv("/usr/bin/ocamlrun ./main", ENV) == ("/usr/bin/ocamlrun", "./main")
    assert phase_argv("./main", ENV) == ("./main",)
    assert phase_argv("/usr/bin/ocamlc -o main $ASSAY_OCAML_CASE main.ml", ENV) == (
        "/usr/bin/ocamlc", "-o", "main", "-I", "/cache/ocaml-1", "/cache/ocaml-1/assay_case.cmo", "main.ml")
    assert phase_argv("/usr/bin/tool $EMPTY main", ENV) == ("/usr/bin/tool", "main")  # as the shell splits an empty variable


def test_anything_else_runs_under_the_shell() -> None:
    assert phase_argv("/usr/bin/tool $UNKNOWN main", ENV) == ("/bin/sh", "-c", "exec /usr/bin/tool $UNKNOWN main")
    assert phase_argv("mkdir -p classes && /usr/bin/javac X.java", ENV) == ("/bin/sh", "-c", "mkdir -p classes && /usr/bin/javac X.java")
    assert phase_argv("/usr/bin/java -Dx=1 Main", ENV) == ("/bin/sh", "-c", "exec /usr/bin/java -Dx=1 Main")
    assert phase_argv("/usr/bin/tool 'a b'", ENV) == ("/bin/sh", "-c", "exec /usr/bin/tool 'a b'")
    assert phase_argv("tool main", ENV) == ("/bin/sh", "-c", "exec tool main")  # found on PATH by the shell
    assert phase_argv("/usr/bin/tool *.c", ENV)[0] == "/bin/sh"
