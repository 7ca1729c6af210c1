"""Rust on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

import pytest

from assay.languages.rust import Rust
from assay.problems import Status
from tests.conftest import shared_data
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark, language_or_skip

# Its `use` and its helper after the function are kept; its main is dropped.
CHAT_REPLY = """use std::collections::HashSet;

/// Returns the length of a string.
fn strlen(string: String) -> isize {
    let unique: HashSet<char> = string.chars().collect();
    let _ = unique.len();
    count(&string)
}

fn count(s: &str) -> isize {
    s.chars().count() as isize
}

fn main() {
    println!("{}", strlen(String::from("abc")));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_works() {
        assert_eq!(strlen("ab".to_string()), 2);
    }
}
"""

WHOLE = "// a whole program\n"  # a body that starts so is judged as written, not after the prompt

SPEC = LanguageSpec(
    language="rust",
    bench="multipl-e/humaneval-rs",
    correct={
        "HumanEval_0_has_close_elements": (
            "    for i in 0..numbers.len() {\n        for j in 0..numbers.len() {\n"
            "            if i != j && (numbers[i] - numbers[j]).abs() < threshold { return true; }\n        }\n    }\n    false\n"
        ),
        "HumanEval_13_greatest_common_divisor": "    let (mut a, mut b) = (a, b);\n    while b != 0 { let t = a % b; a = b; b = t; }\n    a\n",
        "HumanEval_23_strlen": "    string.len() as isize\n",
        "HumanEval_30_get_positive": "    l.into_iter().filter(|&x| x > 0).collect()\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "    string.len() as isize + 1\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    l.into_iter().filter(|&x| x >= 0).collect()\n", Status.FAILED),
        ("HumanEval_23_strlen", "    string.length() as isize\n", Status.COMPILE_ERROR),  # no such method
        ("HumanEval_23_strlen", "    let n: isize = string.len();\n    n\n", Status.COMPILE_ERROR),  # type error
        ("HumanEval_13_greatest_common_divisor", "    let x: Option<isize> = None;\n    x.unwrap() + a\n", Status.RUNTIME_ERROR),  # panic
        ("HumanEval_30_get_positive", "    vec![l[l.len()]]\n", Status.RUNTIME_ERROR),  # index out of bounds
        ("HumanEval_13_greatest_common_divisor", "    isize::MAX + a\n", Status.RUNTIME_ERROR),  # overflow panics in a debug build
        ("HumanEval_23_strlen", "    assert!(string.len() > 1000);\n    string.len() as isize\n", Status.RUNTIME_ERROR),  # the sample's own assert panics
        ("HumanEval_23_strlen", "    loop {}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    println!("tests passed");\n    std::process::exit(0)\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply=CHAT_REPLY,
    hostile_write=lambda target: f'    let _ = std::fs::write("{target}", "x");\n    string.len() as isize\n',
    floods=('    loop { println!("{}", "x".repeat(1000)); }\n',),
    whole_prefix=WHOLE,
    hostile={
        # the old completion marker, read from the binary and printed, then exit 0 before any case
        "marker from binary": (STRLEN,
                               '    let data = std::fs::read("/proc/self/exe").unwrap_or_default();\n'
                               "    for i in 0..data.len().saturating_sub(43) {\n"
                               '        if data[i..].starts_with(b"ASSAY-DONE-") { println!("{}", String::from_utf8_lossy(&data[i..i + 43])); }\n'
                               "    }\n    std::process::exit(0)\n"),
        # the same from its own source
        "marker from source": (STRLEN,
                               '    for line in std::fs::read_to_string("main.rs").unwrap_or_default().lines() {\n'
                               '        if line.contains("ASSAY") { println!("{}", line); }\n    }\n    std::process::exit(0)\n'),
        "early exit": (STRLEN, '    println!("All tests passed");\n    std::process::exit(0)\n'),
        # records of its own on fd 3, a guess for every case, and the final line, then exit 0
        "forged records": (STRLEN,
                           "    use std::io::Write;\n    use std::os::unix::io::FromRawFd;\n"
                           "    let mut channel = unsafe { std::fs::File::from_raw_fd(3) };\n"
                           '    let _ = channel.write_all(b"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n");\n    std::process::exit(0)\n'),
        # the channel closed (a File of fd 3 dropped), so that the harness could not report
        "closed channel": (STRLEN, "    use std::os::unix::io::FromRawFd;\n    drop(unsafe { std::fs::File::from_raw_fd(3) });\n    -1\n"),
        # MultiPL-E's comparisons made to accept anything: assert_eq! and assert! shadowed before the tests
        "always equal": (STRLEN, WHOLE + "macro_rules! assert_eq { ($($t:tt)*) => { () }; }\n"
                         "macro_rules! assert { ($($t:tt)*) => { () }; }\n\nfn strlen(string: String) -> isize {\n    -1\n}\n"),
        # a `mod std` of its own, for code that names std::process::exit, std::panic::catch_unwind...
        "shadowed std": (STRLEN, WHOLE + "#[allow(dead_code)]\nmod std {\n    pub mod process { pub fn exit(_code: i32) {} }\n"
                         "    pub mod panic {\n        pub fn catch_unwind<R, F: FnOnce() -> R>(f: F) -> Result<R, ()> { Ok(f()) }\n"
                         "        pub fn set_hook<T>(_hook: T) {}\n    }\n}\n\nfn strlen(string: String) -> isize {\n    -1\n}\n"),
        # format! and write! shadowed by macros of its own, for a harness that formats its records with them
        "shadowed macros": (STRLEN, WHOLE + 'macro_rules! format { ($($t:tt)*) => { String::from("0 v 0") }; }\n'
                            "macro_rules! write { ($($t:tt)*) => { Ok::<(), ()>(()) }; }\n\nfn strlen(string: String) -> isize {\n    -1\n}\n"),
        # a panic hook that exits with status 0, then a panic
        "panic hook exits 0": (STRLEN, "    std::panic::set_hook(Box::new(|_| std::process::exit(0)));\n    panic!(\"no\")\n"),
        # code before main: an .init_array constructor forges every record and exits 0
        "init_array constructor": (STRLEN, WHOLE + "#[used]\n#[link_section = \".init_array\"]\nstatic FORGE: extern \"C\" fn() = forge;\n\n"
                                   'extern "C" fn forge() {\n    use std::io::Write;\n    use std::os::unix::io::FromRawFd;\n'
                                   "    let mut channel = unsafe { std::fs::File::from_raw_fd(3) };\n"
                                   '    let _ = channel.write_all(b"0 v 1\\n1 v 1\\n2 v 1\\ndone 3\\n");\n    std::process::exit(0);\n}\n\n'
                                   "fn strlen(string: String) -> isize {\n    1\n}\n"),
        # the parent's descriptors (pidfd_getfd), ptrace and a kill on the parent, through libc's syscall()
        "parent's descriptors": (STRLEN, WHOLE + 'extern "C" {\n    fn syscall(number: i64, ...) -> i64;\n    fn getppid() -> i32;\n'
                                 "    fn kill(pid: i32, signal: i32) -> i32;\n    fn write(fd: i32, data: *const u8, n: usize) -> isize;\n}\n\n"
                                 "fn strlen(string: String) -> isize {\n    unsafe {\n        let parent = getppid() as i64;\n"
                                 "        syscall(101, 16i64, parent, 0i64, 0i64); // ptrace(PTRACE_ATTACH)\n"
                                 "        let pidfd = syscall(434, parent, 0i64); // pidfd_open\n"
                                 "        for fd in 0..64i64 {\n            let got = syscall(438, pidfd, fd, 0i64); // pidfd_getfd\n"
                                 '            if got >= 0 { write(got as i32, b"done 3\\n".as_ptr(), 7); }\n        }\n'
                                 "        kill(parent as i32, 9);\n    }\n    -1\n}\n"),
        # a look-alike of the harness at the crate root: its assay_case reports "v 1" for every case
        "harness look-alike": (STRLEN, WHOLE + "#[allow(dead_code)]\nmod assay_harness {\n"
                               "    pub fn assay_start() {}\n"
                               '    pub fn assay_case<T>(i: usize, _f: &dyn Fn() -> T) { print_record(&format!("{} v 1\\n", i)); }\n'
                               '    pub fn assay_done(n: usize) { print_record(&format!("done {}\\n", n)); std::process::exit(0); }\n'
                               "    fn print_record(line: &str) {\n        use std::io::Write;\n        use std::os::unix::io::FromRawFd;\n"
                               "        let mut channel = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(3) });\n"
                               "        let _ = channel.write_all(line.as_bytes());\n    }\n}\n\n"
                               "fn strlen(string: String) -> isize {\n    1\n}\n"),
        # another crate under the harness's name, so that `::assay_harness` means it
        "harness renamed crate": (STRLEN, WHOLE + "extern crate std as assay_harness;\n\nfn strlen(string: String) -> isize {\n    1\n}\n"),
        # sleeps past the run's wall limit without using CPU
        "sleeps": (STRLEN, "    std::thread::sleep(std::time::Duration::from_secs(600));\n    string.len() as isize\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED},
    render_agreement=0.995,  # 2197/2198: MultiPL-E writes a newline inside a string raw, Assay as \n
    prejudge=True,
)


def test_the_test_section_shadows_the_assert_macros_and_prints_the_marker_last() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = Rust().program(problem, problem.prompt + "    string.len() as isize\n", "MARK")
    assert program.index("macro_rules! assert_eq") < program.index("assert_eq!(candidate(")
    assert "fn assay_tests_main() {\n    let candidate" in program
    assert program.rstrip().endswith('assay_tests_main();\n    println!("MARK");\n}')


def test_the_harness_is_a_crate_built_once_and_inline_when_turned_off(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A case build links the harness crate (the program names it `::assay_harness`); with the crate
    turned off the harness is a module of the program, and judges the same."""
    from assay.execution import Executor
    from assay.sandbox import get_sandbox

    language_or_skip("rust")
    bench = benchmark(SPEC.bench)
    problem = bench.problems["HumanEval_23_strlen"]
    right, wrong = problem.prompt + "    string.len() as isize\n", problem.prompt + "    string.len() as isize + 1\n"
    call = ['candidate(String::from("ab"))']
    text = Rust().case_files(problem, right, call)["main.rs"].decode()
    assert "::assay_harness::assay_case(0, " in text and "mod assay_harness" not in text
    assert Rust.toolchain().env["ASSAY_RUST_EXTERN"].startswith("--extern assay_harness=/")
    monkeypatch.setenv("ASSAY_RUST_HARNESS_CRATE", "0")
    Rust.toolchain.cache_clear()
    try:
        assert "ASSAY_RUST_EXTERN" not in Rust.toolchain().env
        assert "mod assay_harness {" in Rust().case_files(problem, right, call)["main.rs"].decode()
        executor = Executor(get_sandbox(ro_binds=Rust.toolchain().ro_binds), bench, workers=1)
        assert executor.judge(problem, right).status is Status.PASSED
        assert executor.judge(problem, wrong).status is Status.FAILED
    finally:
        Rust.toolchain.cache_clear()
