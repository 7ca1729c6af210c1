"""Racket: `raco make` compiles the module (read and expansion errors, such as an unbound identifier, are
compile errors), then `racket main.rkt` runs the compiled module, as MultiPL-E runs the file.

MultiPL-E's Racket tests are rackunit `check-within`s outside any test case: a failing check prints
a report and the program carries on with status 0 (MultiPL-E reads stderr to notice). The test section
installs a `current-check-handler` that prints rackunit's report as usual and then exits: with
ASSERT_EXIT for a failed check (exn:test:check), with 1 when evaluating the check raised something
else (the program's own error). Only a run that gets past the last check prints the marker.
Racket finds its collections through /etc/racket/config.rktd, which the sandbox is shown (without it
Racket recompiles its libraries from source on every start).
"""

from __future__ import annotations

import re
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language, RunLimits
from assay.problems import Problem, test_program

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
_LANG_LINE = re.compile(r"\A\s*(?:;[^\n]*\n\s*)*#lang\s")


class Racket(Language):
    """Racket CS with rackunit (Debian's racket)."""

    name = "racket"
    aliases = ("rkt",)
    display = "Racket"
    source = "main.rkt"
    tools = ("racket", "raco")
    version_args = ("--version",)
    install_hint = "apt-get install -y racket"
    build = "{raco} make main.rkt"
    run = "{racket} main.rkt"
    stub = '  (error "stub"))\n'
    limits: ClassVar[RunLimits] = RunLimits(processes=64)
    env: ClassVar[dict[str, str]] = {"PLTUSERHOME": "/tmp/racket-user"}
    config_dirs = ("/etc/racket",)  # the installation's configuration
    library_probe = ("racket", ("-l", "racket/base", "-e", '(void (collection-file-path "main.rkt" "rackunit"))'), "rackunit")

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The sample as a module (a whole program without `#lang` gets `#lang racket`), then the tests."""
        if not _LANG_LINE.match(code):
            code = "#lang racket\n" + code
        return code + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """A check handler that exits with ASSERT_EXIT on a failed check, the tests, then the marker."""
        return CHECK_HANDLER + tests + f'\n(assay:newline)\n(assay:displayln "{marker}")\n'
