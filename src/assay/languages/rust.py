"""Rust: rustc builds a debug binary (overflow checks and debug assertions on, as MultiPL-E runs it), then it runs.

MultiPL-E's Rust tests close the prompt's function, then `fn main() { ... assert_eq!(...); }`. The
test section shadows `assert!`, `assert_eq!` and `assert_ne!` with macro_rules! of the same name (a
macro_rules! defined earlier in the file takes precedence over the prelude's): a failed assertion
exits with ASSERT_EXIT instead of panicking (exit status 101, like any other panic). The tests'
`main` is renamed; a real `main` calls it and then prints the completion marker.

Cases (assay.judging.cases): the sample as the test program has it (prompt + completion, or a whole
program spliced; then the `}` that closes its function), then the case harness: a module whose trait
encodes a result by its static type (isize, f64, String, Vec, Option, tuples, HashMap...), and a
`main` that evaluates each call (MultiPL-E's own, or rendered as MultiPL-E writes literals) in a
closure typed with the prompt's return type, under catch_unwind (a panic is a record of its own;
the default hook's report is silenced), writing one record per case to fd 3. The harness names std
by absolute paths only (`::std::...`, macros included): a sample's `mod std` or `macro_rules! format`
cannot reach it. It is built once per machine into a crate of its own (libassay_harness.rlib in a
support directory, linked with --extern), so a case build compiles no more than the program path's
does; `main` names it `::assay_harness`, a path that only an external crate answers (a sample's own
`mod assay_harness` cannot stand in for it). Where the crate cannot be built, the harness is a module
of the program, as before. Rust's `==` on these types is Python's (f64 compared exactly, maps as maps), so
the trusted side compares plainly.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, PhaseLimits, Toolchain, Unrepresentable
from assay.languages.braces import BraceLanguage
from assay.languages.harness import NotSplittable, balanced
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type

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

# The case harness (see assay.judging.records): one trait impl per result type, one record per case on fd 3.
# The harness's items: built once per machine into a crate of its own (HARNESS_CRATE, linked with
# --extern; the sample calls it as `::assay_harness`, a path that names an external crate only),
# or, where that build is not possible, written into the program as a module (CASE_HARNESS).
HARNESS_ITEMS = r"""
    pub trait AssayEncode {
        fn assay_encode(&self, out: &mut ::std::string::String);
    }
    macro_rules! assay_display {
        ($($t:ty),*) => { $(impl AssayEncode for $t {
            fn assay_encode(&self, out: &mut ::std::string::String) { out.push_str(&::std::string::ToString::to_string(self)); }
        })* };
    }
    assay_display!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool);
    fn assay_float(x: f64, out: &mut ::std::string::String) {
        if x.is_nan() {
            out.push_str("NaN");
        } else if x.is_infinite() {
            out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
        } else {
            out.push_str(&::std::format!("{:?}", x));  // the shortest text that reads back as the same f64
        }
    }
    impl AssayEncode for f64 {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_float(*self, out); }
    }
    impl AssayEncode for f32 {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_float(*self as f64, out); }
    }
    fn assay_str(s: &str, out: &mut ::std::string::String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&::std::format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    impl AssayEncode for str {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_str(self, out); }
    }
    impl AssayEncode for ::std::string::String {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_str(self, out); }
    }
    impl AssayEncode for char {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_str(&::std::string::ToString::to_string(self), out); }
    }
    impl AssayEncode for () {
        fn assay_encode(&self, out: &mut ::std::string::String) { out.push_str("null"); }
    }
    impl<T: AssayEncode + ?Sized> AssayEncode for &T {
        fn assay_encode(&self, out: &mut ::std::string::String) { (**self).assay_encode(out); }
    }
    impl<T: AssayEncode + ?Sized> AssayEncode for ::std::boxed::Box<T> {
        fn assay_encode(&self, out: &mut ::std::string::String) { (**self).assay_encode(out); }
    }
    impl<T: AssayEncode> AssayEncode for ::std::option::Option<T> {
        fn assay_encode(&self, out: &mut ::std::string::String) {
            match self {
                ::std::option::Option::Some(v) => v.assay_encode(out),
                ::std::option::Option::None => out.push_str("null"),
            }
        }
    }
    fn assay_items<'a, T: AssayEncode + 'a, I: ::std::iter::Iterator<Item = &'a T>>(items: I, out: &mut ::std::string::String) {
        out.push('[');
        for (n, item) in items.enumerate() {
            if n > 0 { out.push(','); }
            item.assay_encode(out);
        }
        out.push(']');
    }
    impl<T: AssayEncode> AssayEncode for [T] {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_items(self.iter(), out); }
    }
    impl<T: AssayEncode, const N: usize> AssayEncode for [T; N] {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_items(self.iter(), out); }
    }
    impl<T: AssayEncode> AssayEncode for ::std::vec::Vec<T> {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_items(self.iter(), out); }
    }
    impl<T: AssayEncode> AssayEncode for ::std::collections::VecDeque<T> {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_items(self.iter(), out); }
    }
    impl<T: AssayEncode, S> AssayEncode for ::std::collections::HashSet<T, S> {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_items(self.iter(), out); }
    }
    impl<T: AssayEncode> AssayEncode for ::std::collections::BTreeSet<T> {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_items(self.iter(), out); }
    }
    fn assay_pairs<'a, K: AssayEncode + 'a, V: AssayEncode + 'a, I: ::std::iter::Iterator<Item = (&'a K, &'a V)>>(items: I, out: &mut ::std::string::String) {
        out.push('[');
        for (n, (k, v)) in items.enumerate() {
            if n > 0 { out.push(','); }
            out.push('[');
            k.assay_encode(out);
            out.push(',');
            v.assay_encode(out);
            out.push(']');
        }
        out.push(']');
    }
    impl<K: AssayEncode, V: AssayEncode, S> AssayEncode for ::std::collections::HashMap<K, V, S> {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_pairs(self.iter(), out); }
    }
    impl<K: AssayEncode, V: AssayEncode> AssayEncode for ::std::collections::BTreeMap<K, V> {
        fn assay_encode(&self, out: &mut ::std::string::String) { assay_pairs(self.iter(), out); }
    }
    macro_rules! assay_tuple {
        ($($name:ident : $n:tt),+) => {
            impl<$($name: AssayEncode),+> AssayEncode for ($($name,)+) {
                fn assay_encode(&self, out: &mut ::std::string::String) {
                    out.push('[');
                    $( if $n > 0 { out.push(','); } self.$n.assay_encode(out); )+
                    out.push(']');
                }
            }
        };
    }
    assay_tuple!(A: 0);
    assay_tuple!(A: 0, B: 1);
    assay_tuple!(A: 0, B: 1, C: 2);
    assay_tuple!(A: 0, B: 1, C: 2, D: 3);
    assay_tuple!(A: 0, B: 1, C: 2, D: 3, E: 4);
    assay_tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5);
    assay_tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5, G: 6);
    assay_tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5, G: 6, H: 7);

    pub fn assay_emit(line: &str) {
        // fd 3 as a File that is never dropped (dropping it would close the channel)
        let mut channel = ::std::mem::ManuallyDrop::new(unsafe { <::std::fs::File as ::std::os::unix::io::FromRawFd>::from_raw_fd(3) });
        if ::std::io::Write::write_all(&mut *channel, line.as_bytes()).is_err() {
            ::std::process::exit(125);  // the channel is gone: the records so far stand
        }
    }
    fn assay_message(payload: &(dyn ::std::any::Any + ::std::marker::Send)) -> ::std::string::String {
        let text = if let ::std::option::Option::Some(s) = payload.downcast_ref::<&str>() {
            ::std::string::ToString::to_string(*s)
        } else if let ::std::option::Option::Some(s) = payload.downcast_ref::<::std::string::String>() {
            s.clone()
        } else {
            ::std::string::String::from("a panic")
        };
        let text: ::std::string::String = text.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).take(300).collect();
        text
    }
    pub fn assay_case<T: AssayEncode>(i: usize, f: &dyn ::std::ops::Fn() -> T) {
        let line = match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| f())) {
            ::std::result::Result::Ok(value) => {
                let mut line = ::std::format!("{} v ", i);
                value.assay_encode(&mut line);
                line
            }
            ::std::result::Result::Err(payload) => ::std::format!("{} e {}", i, assay_message(&*payload)),
        };
        assay_emit(&::std::format!("{}\n", line));
    }
    pub fn assay_start() {
        ::std::panic::set_hook(::std::boxed::Box::new(|_| {}));  // each panic is a record: no report on stderr
    }
    pub fn assay_done(n: usize) {
        assay_emit(&::std::format!("done {}\n", n));
        let _ = ::std::io::Write::flush(&mut ::std::io::stdout());
        ::std::process::exit(0);
    }
"""
HARNESS_ALLOW = "dead_code, unused_imports, unused_macros, non_snake_case, non_camel_case_types"
HARNESS_CRATE = f"#![allow({HARNESS_ALLOW})]\n" + HARNESS_ITEMS
CASE_HARNESS = f"\n#[allow({HARNESS_ALLOW})]\nmod assay_harness {{\n" + HARNESS_ITEMS + "}\n"

HARNESS_CRATE_ENV = "ASSAY_RUST_HARNESS_CRATE"
HARNESS_FLAGS = ("--edition", "2021", "-C", "codegen-units=2", "-A", "warnings", "--crate-type", "rlib", "--crate-name", "assay_harness")


def _build_harness_crate(work: Path, rustc: str) -> None:
    """libassay_harness.rlib from HARNESS_CRATE, with the flags of a sample's build (a debug build)."""
    (work / "assay_harness.rs").write_text(HARNESS_CRATE)
    run_host([rustc, *HARNESS_FLAGS, "-o", "libassay_harness.rlib", "assay_harness.rs"], work, timeout=300)
    (work / "assay_harness.rs").unlink()


_MAIN = re.compile(r"\bfn\s+main\s*\(\s*\)")
_ANY_MAIN = re.compile(r"^[ \t]*(?:pub\s+)?fn\s+main\s*\(\s*\)[^{;]*\{", re.MULTILINE)


class Rust(BraceLanguage):
    """Rust (rustup's toolchain, e.g. /root/.rustup/toolchains/stable-...; cc links)."""

    name = "rust"
    aliases = ("rs",)
    display = "Rust"
    multipl_e = "rs"
    stops = ("\n}",)
    definition = r"\bfn\s+{name}\b"
    source = "main.rs"
    tools = ("rustc", "cc")
    version_args = ("--version",)
    install_hint = "curl https://sh.rustup.rs -sSf | sh (or apt-get install -y rustc); a C linker: apt-get install -y gcc"
    # Edition 2021, what models write (MultiPL-E's runner calls plain rustc: edition 2015); debug build like upstream's.
    # $ASSAY_RUST_EXTERN: the harness crate built once per machine (empty where it could not be built).
    build = "{rustc} --edition 2021 -C codegen-units=2 -A warnings $ASSAY_RUST_EXTERN -o main main.rs"  # warnings would crowd the output cap
    run = "./main"
    stub = '    panic!("stub")\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=8 * GiB, processes=64)
    own_main: ClassVar[re.Pattern[str] | None] = _ANY_MAIN  # a whole program keeps its `use`s and helpers

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """rustc and cc, plus the case harness built once into a crate of its own (support directory
        rust-<key>): a case build then compiles the sample and its calls only. Off with
        ASSAY_RUST_HARNESS_CRATE=0, or where it cannot be built: the harness goes into the program."""
        base = super().toolchain()
        rustc = base.tools["rustc"]
        if switched_off(HARNESS_CRATE_ENV):
            return base
        key = digest(base.version, os.path.realpath(rustc), file_stamp(os.path.realpath(rustc)), HARNESS_CRATE, HARNESS_FLAGS)
        try:
            support = support_dir("rust", key, lambda work: _build_harness_crate(work, rustc))
        except (OSError, subprocess.SubprocessError):
            return base
        rlib = support / "libassay_harness.rlib"
        if not rlib.exists() or re.search(r"\s", str(rlib)):
            return base
        env = {**base.env, "ASSAY_RUST_EXTERN": f"--extern assay_harness={rlib}"}
        return dataclasses.replace(base, ro_binds=tuple(sorted({*base.ro_binds, str(support)})), env=env)

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

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The `candidate(...)` of each `assert_eq!(candidate(...), expected);` (a string literal may span lines)."""
        calls: list[str] = []
        try:
            for found in re.finditer(r"^[ \t]*assert_eq!\(\s*", tests, re.M):
                if not tests.startswith("candidate(", found.end()):
                    return None
                end = balanced(tests, found.end() + len("candidate"), quotes='"')
                calls.append(tests[found.end() : end])
        except NotSplittable:
            return None
        if len(calls) != len(re.findall(r"\bassert", tests)):
            return None
        return [(call, "") for call in calls]

    def render_value(self, value: Any, t: Type) -> str:
        """A Rust literal as MultiPL-E writes it for a value of type t (an expected value, or an argument)."""
        return rust_literal(value, t, top=True)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`candidate(...)`, each argument a literal of its parameter's type."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        return f"candidate({', '.join(rust_literal(a, t, top=True) for a, t in zip(args, signature.param_types, strict=True))})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample as the test program has it, the `}` that closes its function, then the harness and its main."""
        assert isinstance(problem.tests, CaseTests)
        tests = test_program(problem).code
        head, sep, _ = tests.partition("}\n")
        close = head + sep if tests.lstrip().startswith("}") and sep else ""
        found = re.search(r"\blet\s+candidate\s*=\s*([A-Za-z_]\w*)\s*;", tests)
        entry = found.group(1) if found else problem.entry_point
        returns = return_type(problem.prompt)
        # The crate built once, named by a path that reaches external crates only; else the module, inline.
        crate = "ASSAY_RUST_EXTERN" in self.toolchain().env
        h, harness = ("::assay_harness", "") if crate else ("assay_harness", CASE_HARNESS)
        cases = "\n".join(f"    {h}::assay_case({i}, &|| -> {returns} {{ {call} }});" for i, call in enumerate(calls))
        main = (f"fn main() {{\n    {h}::assay_start();\n    let candidate = {entry};\n{cases}\n"
                f"    {h}::assay_done({len(calls)});\n}}\n")
        program = self.as_completion(problem, code) + "\n" + close + harness + main
        return {self.source: program.encode()}


def return_type(prompt: str) -> str:
    """The Rust return type of the prompt's function (its last line: `fn name(params) -> T {`); `()` when it has none."""
    line = next((line for line in reversed(prompt.splitlines()) if line.strip()), "")
    at = line.find("(")
    if at < 0:
        return "()"
    try:
        end = balanced(line, at, quotes="")
    except NotSplittable:
        return "()"
    rest = line[end:].strip()
    if not rest.startswith("->"):
        return "()"
    return rest[2:].rsplit("{", 1)[0].strip() or "()"


ISIZE = 2**63


def rust_type(t: Type) -> str:
    """The Rust type MultiPL-E declares for a Python type."""
    k = t.kind
    scalars = {"int": "isize", "float": "f64", "str": "String", "bool": "bool"}
    if k in scalars:
        return scalars[k]
    if k in ("list", "vtuple"):
        return f"Vec<{rust_type(t.args[0])}>"
    if k == "tuple":
        items = [rust_type(a) for a in t.args]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if k == "dict":
        return f"HashMap<{rust_type(t.args[0])}, {rust_type(t.args[1])}>"
    if k == "optional":
        return f"Option<{rust_type(t.args[0])}>"
    raise Unrepresentable(f"type: MultiPL-E's Rust has no {t}")


def rust_literal(value: Any, t: Type, top: bool = False) -> str:
    """A Rust expression of type t for a plain value, written as MultiPL-E's translator writes it where that
    type-checks: `vec![..]`, `String::from("..")`, `HashMap::from([..])`, `Some(..)`; a top-level empty vector
    as `Vec::<T>::new()`. Where MultiPL-E's would not (nested optionals, ints in nested floats, a 1-tuple,
    quotes and backslashes in strings, which it writes raw), the literal of the type."""
    k = t.kind
    if k == "optional":
        return "None" if value is None else f"Some({rust_literal(value, t.args[0])})"
    if value is None:
        raise Unrepresentable(f"None: where the type is {t}")
    if k == "bool" and isinstance(value, bool):
        return "true" if value else "false"
    if k == "int" and isinstance(value, int) and not isinstance(value, bool):
        if not -ISIZE <= value < ISIZE:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return str(value)
    if k == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, int):
            return f"{value}.0"
        if math.isnan(value):
            return "f64::NAN"
        if math.isinf(value):
            return "f64::INFINITY" if value > 0 else "f64::NEG_INFINITY"
        return repr(value)
    if k == "str" and isinstance(value, str):
        return f"String::from({rust_string(value)})"
    if k in ("list", "vtuple") and isinstance(value, (list, tuple)):
        if not value and top:
            return f"Vec::<{rust_type(t.args[0])}>::new()"
        return "vec![" + ", ".join(rust_literal(v, t.args[0]) for v in value) + "]"
    if k == "tuple" and isinstance(value, (list, tuple)) and len(value) == len(t.args):
        items = [rust_literal(v, a) for v, a in zip(value, t.args, strict=True)]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if k == "dict" and isinstance(value, dict):
        pairs = ", ".join(f"({rust_literal(a, t.args[0])}, {rust_literal(b, t.args[1])})" for a, b in value.items())
        return f"HashMap::from([{pairs}])"
    if k in ("any", "union", "set", "none"):
        raise Unrepresentable(f"type: MultiPL-E's Rust has no {t}")
    raise Unrepresentable(f"type: {value!r} is not a {t}"[:200])


def rust_string(text: str) -> str:
    """A Rust string literal."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            raise Unrepresentable(f"str: a lone surrogate in {text!r}"[:200])
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
