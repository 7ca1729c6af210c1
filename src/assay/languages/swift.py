"""Swift: swiftc builds a debug binary (assertions stay on, as MultiPL-E runs it), then it runs."""

from __future__ import annotations

from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, RunLimits

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
