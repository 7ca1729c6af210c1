"""C++: g++ -std=c++17 builds the program (no optimisation, assertions on, as MultiPL-E runs it), then it runs.

MultiPL-E's C++ tests close the prompt's function, then `int main() { ... assert(...); }`. The test
section gets its own `assert` (a failed one exits with ASSERT_EXIT instead of abort()'s SIGABRT,
which would look like any other crash), and its `main` is renamed: a real `main` calls it and then
prints the completion marker.

Every prompt includes <bits/stdc++.h>, which costs g++ about 3 s of CPU per program. A precompiled
header of <assert.h> + <bits/stdc++.h> (built once per g++ version, outside the sandbox, from the
system's headers only, into the cache dir; shown to the sandbox read-only) is force-included and cuts
that to about 0.5 s. GCC checks that it matches and falls back to the headers if not;
ASSAY_CPP_PCH=0 turns it off.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import re
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import ClassVar

from assay.benchmarks._fetch import default_cache_dir
from assay.languages.base import ASSERT_EXIT, GiB, BraceLanguage, RunLimits, Toolchain, _find_line, _last_line, closing_brace
from assay.problems import Problem, Verdict
from assay.sandbox.base import Sandbox

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

    _pch_lock: ClassVar[threading.Lock] = threading.Lock()

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

    def judge(self, sandbox: Sandbox, problem: Problem, code: str, limits: RunLimits | None = None) -> Verdict:
        """Build the precompiled header first if it is due (once; any failure only costs speed)."""
        toolchain = self.toolchain()
        header = toolchain.env.get(PCH_ENV)
        if header and not os.path.exists(header + ".gch"):
            with self._pch_lock:
                build_pch(toolchain.tools["g++"], Path(header))
        return super().judge(sandbox, problem, code, limits)

    def as_completion(self, problem: Problem, code: str) -> str:
        """The base splice, keeping what a whole program has around the function (includes, helpers), less its main."""
        return with_extras(problem, code, super().as_completion(problem, code), _ANY_MAIN, self.line_comment)

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


def with_extras(problem: Problem, code: str, spliced: str, main: re.Pattern[str], line_comment: str = "//") -> str:
    """A whole program spliced into the prompt's shape keeps the code around the function (includes,
    imports, helpers before or after it), placed before the prompt, less its own `main` and what the
    prompt already has. The base splice keeps only the function's body."""
    if spliced is code or code.startswith(problem.prompt):
        return spliced  # a continued prompt, or not recognisable
    signature = _last_line(problem.prompt)
    after = _find_line(code, signature)
    if after is None:
        return spliced
    before = code[:after].splitlines(keepends=True)[:-1]
    while before and before[-1].strip().startswith(("///", "#[", "//")):
        before.pop()  # the function's own doc comment and attributes
    body = code[after:]
    end = closing_brace(body, line_comment)
    tail = body[end + 1 :] if end is not None else ""
    found = main.search(tail)
    if found:
        close = closing_brace(tail[found.end() :], line_comment)
        tail = tail[: found.start()] + (tail[found.end() + close + 1 :] if close is not None else "")
    imports = {line.strip() for line in problem.prompt.splitlines() if line.startswith("use ")}  # Rust: E0252 twice
    extras = [line for line in "".join(before).splitlines() + tail.splitlines() if line.strip() not in imports]
    text = "\n".join(extras).strip("\n")
    return text + "\n\n" + spliced if text.strip() else spliced


def pch_dir(toolchain: Toolchain) -> Path | None:
    """<cache>/toolchains/cpp-pch-<g++ and flags>, created (empty) now; None when turned off or not creatable."""
    if os.environ.get(PCH_ENV, "").strip().lower() in {"0", "no", "off", "false"}:
        return None
    key = hashlib.sha256(f"{os.path.realpath(toolchain.tools['g++'])}\n{toolchain.version}\n{STD}\n{PCH_TEXT}".encode()).hexdigest()[:16]
    directory = default_cache_dir() / "toolchains" / f"cpp-pch-{key}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        os.chmod(directory, 0o755)
    except OSError:
        return None
    return directory


_pch_tried: set[str] = set()


def build_pch(gpp: str, header: Path) -> bool:
    """Precompile the header (trusted: system headers only) next to it; False when it could not be built."""
    gch = header.with_name(header.name + ".gch")
    if gch.exists():
        return True
    if str(header) in _pch_tried:
        return False  # failed once in this process: do not retry for every program
    _pch_tried.add(str(header))
    try:
        if not header.exists() or header.read_text() != PCH_TEXT:
            header.write_text(PCH_TEXT)
            os.chmod(header, 0o644)
        fd, tmp = tempfile.mkstemp(dir=header.parent, prefix=".building-", suffix=".gch")
        os.close(fd)
        try:
            done = subprocess.run([gpp, STD, "-x", "c++-header", str(header), "-o", tmp], capture_output=True, timeout=600)
            if done.returncode != 0:
                return False
            os.chmod(tmp, 0o644)
            os.replace(tmp, gch)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (OSError, subprocess.SubprocessError):
        return False
    return True
