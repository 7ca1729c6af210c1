"""C++: g++ -std=c++17 builds the program (no optimisation, assertions on, as MultiPL-E runs it), then it runs.

MultiPL-E's C++ tests close the prompt's function, then `int main() { ... assert(...); }`. The test
section gets its own `assert` (a failed one exits with ASSERT_EXIT instead of abort()'s SIGABRT,
which would look like any other crash), and its `main` is renamed: a real `main` calls it and then
prints the completion marker.

Every prompt includes <bits/stdc++.h>, which costs g++ about 3 s of CPU per program. A precompiled
header of <assert.h> + <bits/stdc++.h> (built on first use, once per g++ version, outside the
sandbox, from the system's headers only, into a support slot of the toolchain cache: see
assay.languages.support; shown to the sandbox read-only) is force-included and cuts that to about
0.5 s. GCC checks that it matches and falls back to the headers if not; ASSAY_CPP_PCH=0 turns it off.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from pathlib import Path
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, GiB, RunLimits, Toolchain, with_extras  # noqa: F401 - with_extras: re-exported
from assay.languages.support import build_once, digest, run_host, support_slot, switched_off

STD = "-std=c++17"
PCH_HEADER = "assay-pch.h"
PCH_TEXT = "#include <assert.h>\n#include <bits/stdc++.h>\n"
PCH_ENV = "ASSAY_CPP_PCH"  # in the sandbox: the header to force-include; on the host: "0" turns it off

TESTS_MAIN = "assay_tests_main"

# Only the test section sees this assert: the sample's own asserts (before it) still abort.
ASSERT_SHIM = f"""
#include <cstdio>
#include <cstdlib>
#undef assert
#define assert(...) ((__VA_ARGS__) ? (void)0 : assay_assert_failed(#__VA_ARGS__, __LINE__))
[[noreturn]] static void assay_assert_failed(const char* what, int line) {{
    std::fflush(stdout);
    std::fprintf(stderr, "assertion failed (line %d): %s\\n", line, what);
    std::fflush(stderr);
    std::_Exit({ASSERT_EXIT});
}}
"""

_MAIN = re.compile(r"\bint\s+main\s*\(\s*(?:void\s*)?\)")
_ANY_MAIN = re.compile(r"^[ \t]*(?:int|auto|void)\s+main\s*\([^)]*\)[^{;]*\{", re.MULTILINE)


class Cpp(BraceLanguage):
    """C++17 with GCC (Debian's g++)."""

    name = "cpp"
    aliases = ("c++",)
    display = "C++"
    source = "main.cpp"
    tools = ("g++",)
    version_args = ("--version",)
    install_hint = "apt-get install -y g++"
    # Force-includes the precompiled header when there is one (-Winvalid-pch: says so when GCC must skip it).
    build = (f'if [ -r "${PCH_ENV}.gch" ]; then {{gpp}} {STD} -Winvalid-pch -include "${PCH_ENV}" -o main main.cpp; '
             f'else {{gpp}} {STD} -o main main.cpp; fi')
    run = "./main"
    stub = '    throw std::runtime_error("stub");\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=4 * GiB, processes=64)
    own_main: ClassVar[re.Pattern[str] | None] = _ANY_MAIN  # a whole program keeps its includes and helpers

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """g++, and the directory of the precompiled header (built on first use) when it can have one."""
        found = super().toolchain()
        directory = pch_dir(found)
        if directory is None:
            return found
        return dataclasses.replace(found, ro_binds=tuple(sorted({*found.ro_binds, str(directory)})),
                                   env={**found.env, PCH_ENV: str(directory / PCH_HEADER)})

    def prepare(self, toolchain: Toolchain) -> None:
        """Build the precompiled header if it is due (once; any failure only costs speed)."""
        header = toolchain.env.get(PCH_ENV)
        if header:
            build_pch(toolchain.tools["g++"], Path(header))

    def wrap_tests(self, tests: str, marker: str) -> str:
        """Close the function, then the assert shim, the tests' main renamed, and a main that prints the marker."""
        head, sep, rest = tests.partition("}\n")
        if not (tests.lstrip().startswith("}") and sep):
            head, sep, rest = "", "", tests
        # The tests' main never returns a value; a void function does not fall off the end of an int one.
        kind = "int" if re.search(r"\breturn\b", rest) else "void"
        rest = _MAIN.sub(f"{kind} {TESTS_MAIN}()", rest, count=1)
        main = f'\nint main() {{\n    {TESTS_MAIN}();\n    std::fflush(stdout);\n    std::puts("{marker}");\n    std::fflush(stdout);\n    return 0;\n}}\n'
        return head + sep + ASSERT_SHIM + rest + main


def pch_dir(toolchain: Toolchain) -> Path | None:
    """The support slot cpp-pch-<g++ and flags>, created (empty) now; None when turned off or not creatable."""
    if switched_off(PCH_ENV):
        return None
    return support_slot("cpp-pch", digest(os.path.realpath(toolchain.tools["g++"]), toolchain.version, STD, PCH_TEXT))


def build_pch(gpp: str, header: Path) -> bool:
    """Precompile the header (trusted: system headers only) next to it; False when it could not be built."""
    def build(gch: Path) -> None:
        if not header.exists() or header.read_text() != PCH_TEXT:
            header.write_text(PCH_TEXT)
            os.chmod(header, 0o644)
        run_host([gpp, STD, "-x", "c++-header", str(header), "-o", str(gch)], gch.parent, timeout=600)

    return build_once(header.with_name(header.name + ".gch"), build)
