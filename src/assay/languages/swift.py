"""Swift: swiftc builds a debug binary (assertions stay on, as MultiPL-E runs it), then it runs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, RunLimits
from assay.problems import Problem

# Shadows Swift.assert for the test section: a failed assertion exits with ASSERT_EXIT instead of
# trapping (SIGILL), which would look like any other crash.
ASSERT_SHIM = f"""
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
func assert(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String = String(), file: StaticString = #file, line: UInt = #line) {{
    if !condition() {{
        print("assertion failed: line \\(line) \\(message())")
        exit({ASSERT_EXIT})
    }}
}}
"""


class Swift(BraceLanguage):
    """Swift 5/6 on Linux (swift.org toolchains, e.g. /opt/swift)."""

    name = "swift"
    display = "Swift"
    source = "main.swift"
    tools = ("swiftc",)
    version_args = ("--version",)
    install_hint = "download a toolchain from https://www.swift.org/install/linux/ (e.g. into /opt/swift) and put its usr/bin on PATH"
    build = "{swiftc} -Onone -module-cache-path /tmp/module-cache -o main main.swift"
    run = "./main"
    stub = '    fatalError("stub")\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=8 * 1024**3)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """MultiPL-E's Swift tests: close the function, helpers, then top-level asserts."""
        head, sep, rest = tests.partition("}\n")
        if tests.lstrip().startswith("}") and sep:
            return head + sep + ASSERT_SHIM + rest + f'\nprint("{marker}")\n'
        return ASSERT_SHIM + tests + f'\nprint("{marker}")\n'

    # ------------------------------------------------------------ hand-written suites (runner "units")

    def files(self, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """MultiPL-E: one main.swift. Unit-test suites: prelude + context + solution + tests + a generated main."""
        if problem.tests.runner != "units":  # type: ignore[union-attr]
            return super().files(problem, code, marker)
        if code.startswith(problem.prompt):  # a completion-style sample continues the prompt: keep what it added
            code = code[len(problem.prompt) :]
        files = {
            "prelude.swift": PRELUDE.read_bytes(),
            "solution.swift": drop_repeated_context(code, problem.context).encode(),
            "tests.swift": problem.tests.code.encode(),  # type: ignore[union-attr]
            "main.swift": unit_main(problem.tests.code, marker).encode(),  # type: ignore[union-attr]
        }
        if problem.context.strip():
            files["context.swift"] = problem.context.encode()
        return files

    def build_command(self, problem: Problem) -> str | None:
        """Unit-test suites compile several files with the suite's flags (Swift 5 mode, one frontend process)."""
        if problem.tests.runner != "units":  # type: ignore[union-attr]
            return self.build
        flags = " ".join(shlex.quote(f) for f in problem.extra.get("compile_flags", []))
        sources = "prelude.swift " + ("context.swift " if problem.context.strip() else "") + "solution.swift tests.swift main.swift"
        return f"{{swiftc}} {flags} -module-cache-path /tmp/module-cache {sources} -o main"


PRELUDE = Path(__file__).with_name("swift_prelude.swift")
TEST_FUNC = re.compile(r"^func[ \t]+(test_\w+)[ \t]*\([ \t]*\)[ \t]*(async[ \t]+)?throws[ \t]*\{", re.M)


def unit_main(tests: str, marker: str) -> str:
    """main.swift: every `func test_*() [async] throws` in source order, one ASSAY-TEST line each; a failed
    test exits with ASSERT_EXIT, and the marker is printed only after all of them passed."""
    lines = ["import Foundation", "var assayFailed = 0"]
    for match in TEST_FUNC.finditer(tests):
        name, is_async = match.group(1), bool(match.group(2))
        call = f"try await {name}()" if is_async else f"try {name}()"
        lines.append(f'do {{ {call}; assayReport("{name}", nil) }} catch {{ assayFailed += 1; assayReport("{name}", error) }}')
    lines.append(f"if assayFailed > 0 {{ exit({ASSERT_EXIT}) }}")
    lines.append(f'print("{marker}")')
    return "\n".join(lines) + "\n"


def drop_repeated_context(code: str, context: str) -> str:
    """Remove declarations of the context that a model copied into its reply (they would be declared twice)."""
    if not context.strip():
        return code
    out = code
    for block in re.split(r"\n\s*\n", context.strip()):
        # Imports are never removed: the solution may need them itself.
        body = "\n".join(line for line in block.strip().splitlines() if not line.strip().startswith("import ")).strip()
        if not body or body.startswith("//") and "\n" not in body:
            continue
        pattern = r"\s+".join(re.escape(tok) for tok in body.split())
        out = re.sub(pattern, "", out)
    return out
