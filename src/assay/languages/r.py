"""R: `parse()` checks the syntax (a parse error is a compile error), then `Rscript main.r` runs it, as MultiPL-E does.

MultiPL-E's R tests are `stopifnot(isTRUE(all.equal(candidate(...), expected)))` lines in a
`test_humaneval` function. The test section runs in a `local()` environment with its own `stopifnot`:
its arguments are evaluated first (an error the program raises stays an error, exit status 1), then a
condition that is not all TRUE exits with ASSERT_EXIT. The program's own `stopifnot` is still base R's.
Debian keeps R's configuration (R_HOME/etc) in /etc/R, which the sandbox is shown.
"""

from __future__ import annotations

from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language, RunLimits

STOPIFNOT = f"""    stopifnot <- function(...) {{
        conditions <- list(...)
        for (i in seq_along(conditions)) {{
            ok <- conditions[[i]]
            if (!(is.logical(ok) && !anyNA(ok) && all(ok))) {{
                call <- sys.call()
                cat("assertion failed:", deparse(call[[i + 1L]])[1L], "\\n", file = stderr())
                quit(save = "no", status = {ASSERT_EXIT})
            }}
        }}
        invisible()
    }}
"""


class R(Language):
    """GNU R (Debian's r-base-core)."""

    name = "r"
    display = "R"
    source = "main.r"
    tools = ("Rscript",)
    version_args = ("--version",)
    install_hint = "apt-get install -y r-base-core"
    build = "{Rscript} --vanilla --default-packages=NULL -e 'invisible(parse(file = \"main.r\"))'"
    run = "{Rscript} main.r"
    stub = '  stop("stub")\n}\n'
    limits: ClassVar[RunLimits] = RunLimits(processes=64)
    config_dirs = ("/etc/R",)  # Debian's R_HOME/etc (Renviron, ldpaths) is a link to it

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests in a local environment whose stopifnot exits with ASSERT_EXIT; the marker after them."""
        return "local({\n" + STOPIFNOT + tests.rstrip("\n") + "\n})\n" + f'cat("\\n{marker}\\n", sep = "")\n'
