"""Swift: swiftc builds a debug binary (assertions stay on, as MultiPL-E runs it), then it runs.

Most of a small program's build is the Clang module cache (SwiftShims, Glibc, Foundation's C
modules): about 2.3 of 2.6 CPU seconds for a program that imports Foundation. Assay records that
cache once per machine on the host, from its own sample program, in a private /tmp (the cache
remembers its own path), and each build copies it into the sandbox's /tmp/module-cache. A module
the copy lacks is simply built as before; without the cache every build is as slow as a cold one.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, RunLimits, Toolchain
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import Problem, test_program
from assay.sandbox._limits import find_tool

MODULE_CACHE = "/tmp/module-cache"  # inside the sandbox; the recorded cache must have been built at this path
MODULE_CACHE_ENV = "ASSAY_SWIFT_MODULE_CACHE"  # "off" builds every program with a cold cache
_COPY_CACHE = '[ -z "$ASSAY_SWIFT_MODULES" ] || cp -R "$ASSAY_SWIFT_MODULES" ' + MODULE_CACHE + "; "
# What the cache is recorded from: the modules MultiPL-E's and hand-written suites' programs import,
# with the flags of both kinds of build.
_CACHE_SAMPLE = """import Foundation
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
print(Date().timeIntervalSince1970 > 0, "a,b".components(separatedBy: ","))
"""
_CACHE_FLAGS = (("-Onone",), ("-swift-version", "5", "-Onone", "-wmo", "-module-name", "AssayProgram"))

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
    build = _COPY_CACHE + "{swiftc} -Onone -module-cache-path " + MODULE_CACHE + " -o main main.swift"
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
        if test_program(problem).runner != "units":
            return super().files(problem, code, marker)
        if code.startswith(problem.prompt):  # a completion-style sample continues the prompt: keep what it added
            code = code[len(problem.prompt) :]
        files = {
            "prelude.swift": PRELUDE.read_bytes(),
            "solution.swift": drop_repeated_context(code, problem.context).encode(),
            "tests.swift": test_program(problem).code.encode(),
            "main.swift": unit_main(test_program(problem).code, marker).encode(),
        }
        if problem.context.strip():
            files["context.swift"] = problem.context.encode()
        return files

    def build_command(self, problem: Problem) -> str | None:
        """Unit-test suites compile several files with the suite's flags (Swift 5 mode, one frontend process)."""
        if test_program(problem).runner != "units":
            return self.build
        flags = " ".join(shlex.quote(f) for f in problem.extra.get("compile_flags", []))
        sources = "prelude.swift " + ("context.swift " if problem.context.strip() else "") + "solution.swift tests.swift main.swift"
        return f"{_COPY_CACHE}{{swiftc}} {flags} -module-cache-path {MODULE_CACHE} {sources} -o main"

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """swiftc, plus the Clang module cache recorded once per machine (see the module docstring)."""
        base = super().toolchain()
        env = {**base.env, "ASSAY_SWIFT_MODULES": ""}
        cache = module_cache(base)
        if cache is None:
            return dataclasses.replace(base, env=env)
        env["ASSAY_SWIFT_MODULES"] = str(cache)
        return dataclasses.replace(base, ro_binds=tuple(sorted({*base.ro_binds, str(cache.parent)})), env=env)


def module_cache(toolchain: Toolchain) -> Path | None:
    """<support root>/swift-<key>/module-cache, recorded now if needed; None when turned off or it cannot be."""
    if switched_off(MODULE_CACHE_ENV):
        return None
    swiftc = toolchain.tools["swiftc"]
    bwrap = find_tool("bwrap")
    if bwrap is None:
        return None  # the cache must be recorded at the sandbox's path, in a private /tmp
    key = digest(toolchain.version, os.path.realpath(swiftc), file_stamp(os.path.realpath(swiftc)), _CACHE_SAMPLE, _CACHE_FLAGS, MODULE_CACHE)
    try:
        support = support_dir("swift", key, lambda work: _record_module_cache(work, swiftc, bwrap))
    except (OSError, subprocess.SubprocessError):
        return None
    cache = support / "module-cache"
    return cache if cache.is_dir() and not re.search(r"\s", str(cache)) else None


def _record_module_cache(work: Path, swiftc: str, bwrap: str) -> None:
    """Build the sample with each kind of flags against MODULE_CACHE in a private /tmp, then keep the cache."""
    (work / "sample.swift").write_text(_CACHE_SAMPLE)
    builds = " && ".join(
        f"{shlex.quote(swiftc)} {' '.join(flags)} -module-cache-path {MODULE_CACHE} sample.swift -o sample" for flags in _CACHE_FLAGS
    )
    script = f"cd {shlex.quote(str(work))} && {builds} && ./sample >/dev/null && cp -R {MODULE_CACHE} module-cache"
    run_host([bwrap, "--dev-bind", "/", "/", "--tmpfs", "/tmp", "--die-with-parent", "--", "/bin/sh", "-c", script], work, timeout=600)
    for name in ("sample.swift", "sample"):
        (work / name).unlink()


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
