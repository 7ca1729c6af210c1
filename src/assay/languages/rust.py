"""Rust: rustc builds a debug binary (overflow checks and debug assertions on, as MultiPL-E runs it), then it runs.

MultiPL-E's Rust tests close the prompt's function, then `fn main() { ... assert_eq!(...); }`. The
test section shadows `assert!`, `assert_eq!` and `assert_ne!` with macro_rules! of the same name (a
macro_rules! defined earlier in the file takes precedence over the prelude's): a failed assertion
exits with ASSERT_EXIT instead of panicking (exit status 101, like any other panic). The tests'
`main` is renamed; a real `main` calls it and then prints the completion marker.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, GiB, RunLimits

TESTS_MAIN = "assay_tests_main"

ASSERT_SHIM = f"""
#[allow(unused_macros)]
macro_rules! assay_assert_failed {{
    ($($arg:tt)+) => {{{{
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        eprintln!($($arg)+);
        std::process::exit({ASSERT_EXIT});
    }}}};
}}
#[allow(unused_macros)]
macro_rules! assert {{
    ($cond:expr $(,)?) => {{{{
        if !$cond {{ assay_assert_failed!("assertion failed: {{}}", stringify!($cond)); }}
    }}}};
    ($cond:expr, $($arg:tt)+) => {{{{
        if !$cond {{ assay_assert_failed!("assertion failed: {{}}: {{}}", stringify!($cond), format_args!($($arg)+)); }}
    }}}};
}}
#[allow(unused_macros)]
macro_rules! assert_eq {{
    ($left:expr, $right:expr $(,)?) => {{{{
        match (&$left, &$right) {{
            (left, right) => if !(*left == *right) {{
                assay_assert_failed!("assertion `left == right` failed\\n  left: {{:?}}\\n right: {{:?}}", left, right);
            }}
        }}
    }}}};
    ($left:expr, $right:expr, $($arg:tt)+) => {{{{
        match (&$left, &$right) {{
            (left, right) => if !(*left == *right) {{
                assay_assert_failed!("assertion `left == right` failed: {{}}\\n  left: {{:?}}\\n right: {{:?}}", format_args!($($arg)+), left, right);
            }}
        }}
    }}}};
}}
#[allow(unused_macros)]
macro_rules! assert_ne {{
    ($left:expr, $right:expr $(,)?) => {{{{
        match (&$left, &$right) {{
            (left, right) => if *left == *right {{
                assay_assert_failed!("assertion `left != right` failed\\n  left: {{:?}}\\n right: {{:?}}", left, right);
            }}
        }}
    }}}};
    ($left:expr, $right:expr, $($arg:tt)+) => {{{{
        match (&$left, &$right) {{
            (left, right) => if *left == *right {{
                assay_assert_failed!("assertion `left != right` failed: {{}}\\n  left: {{:?}}\\n right: {{:?}}", format_args!($($arg)+), left, right);
            }}
        }}
    }}}};
}}
"""

_MAIN = re.compile(r"\bfn\s+main\s*\(\s*\)")
_ANY_MAIN = re.compile(r"^[ \t]*(?:pub\s+)?fn\s+main\s*\(\s*\)[^{;]*\{", re.MULTILINE)


class Rust(BraceLanguage):
    """Rust (rustup's toolchain, e.g. /root/.rustup/toolchains/stable-...; cc links)."""

    name = "rust"
    aliases = ("rs",)
    display = "Rust"
    source = "main.rs"
    tools = ("rustc", "cc")
    version_args = ("--version",)
    install_hint = "curl https://sh.rustup.rs -sSf | sh (or apt-get install -y rustc); a C linker: apt-get install -y gcc"
    # Edition 2021, what models write (MultiPL-E's runner calls plain rustc: edition 2015); debug build like upstream's.
    build = "{rustc} --edition 2021 -C codegen-units=2 -A warnings -o main main.rs"  # warnings would crowd the output cap
    run = "./main"
    stub = '    panic!("stub")\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=8 * GiB, processes=64)
    own_main: ClassVar[re.Pattern[str] | None] = _ANY_MAIN  # a whole program keeps its `use`s and helpers

    @classmethod
    def find_tool(cls, tool: str) -> str | None:
        """The real rustc of the default toolchain, not rustup's proxy (which needs rustup's home inside the sandbox)."""
        if tool != "rustc":
            return super().find_tool(tool)
        home = os.path.expanduser("~")
        proxy = shutil.which("rustc") or shutil.which("rustc", path=f"{home}/.cargo/bin:/root/.cargo/bin")
        if proxy is None:
            return None
        try:
            out = subprocess.run([proxy, "--print", "sysroot"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        real = os.path.join(out.stdout.strip(), "bin", "rustc")
        if out.returncode == 0 and os.access(real, os.X_OK):
            return os.path.realpath(real)
        return os.path.abspath(proxy)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """Close the function, then the assertion macros, the tests' main renamed, and a main that prints the marker."""
        head, sep, rest = tests.partition("}\n")
        if not (tests.lstrip().startswith("}") and sep):
            head, sep, rest = "", "", tests
        rest = _MAIN.sub(f"fn {TESTS_MAIN}()", rest, count=1)
        main = f'\nfn main() {{\n    {TESTS_MAIN}();\n    println!("{marker}");\n}}\n'
        return head + sep + ASSERT_SHIM + rest + main
