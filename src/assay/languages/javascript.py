"""JavaScript on Node.js: `node --check` is the build (syntax errors are compile errors), then node runs it.

MultiPL-E's JavaScript tests declare `const assert = require('node:assert')` and a `test()`
function, then call it. The test section runs inside a try block: a failed node:assert assertion
(code ERR_ASSERTION) exits with ASSERT_EXIT, any other exception with status 1, and the marker is
printed after test() returns. The block also keeps the tests' `assert` and `test` from clashing
with the same names in a chat model's whole program.
"""

from __future__ import annotations

import re

from assay.languages.base import ASSERT_EXIT, Language
from assay.problems import Problem

# A chat model's `export function f` / `export { f };` is not valid in a CommonJS script: dropped.
_EXPORT = re.compile(r"^export\s+(?:default\s+)?(?=(?:async\s+)?function\b|const\b|let\b|var\b|class\b)", re.M)
_EXPORT_LIST = re.compile(r"^export\s*\{[^}]*\}\s*;?[ \t]*$", re.M)


def guarded_tests(body: str, marker: str, catch_param: str = "e", process: str = "process") -> str:
    """The test text in a try block: assertion failures -> ASSERT_EXIT, other errors -> 1, then the marker."""
    return (
        "try {\n"
        + body
        + f"\n}} catch ({catch_param}) {{\n"
        + "  try { console.error(e); } catch (_) {}\n"
        + f"  {process}.exit(e && e.code === 'ERR_ASSERTION' ? {ASSERT_EXIT} : 1);\n"
        + "}\n"
        + f"{process}.stdout.write('\\n' + {marker!r} + '\\n');\n"
    )


class JavaScript(Language):
    """JavaScript (Node.js 18+), run as a CommonJS script."""

    name = "javascript"
    aliases = ("js",)
    display = "JavaScript"
    source = "main.js"
    tools = ("node",)
    version_args = ("--version",)
    install_hint = "apt-get install -y nodejs"
    build = "{node} --check main.js"
    run = "{node} main.js"
    stub = '  throw new Error("stub");\n}\n'

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """code + tests, as MultiPL-E runs it; `export` keywords of a whole program are dropped."""
        return _EXPORT_LIST.sub("", _EXPORT.sub("", code)) + "\n" + self.wrap_tests(problem.tests.code, marker)  # type: ignore[union-attr]

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests unchanged, inside a try block that maps node:assert failures to ASSERT_EXIT."""
        return guarded_tests(tests, marker)
