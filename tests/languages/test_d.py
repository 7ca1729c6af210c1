"""D on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

import pytest

from assay.languages.d import D
from assay.problems import Status
from tests.conftest import shared_data
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark, language_or_skip

# MultiPL-E's D prompts end with the function's signature: a completion writes the whole body.
CORRECT = {
    "HumanEval_0_has_close_elements": (
        "{\n    foreach (i; 0 .. numbers.length)\n        foreach (j; 0 .. numbers.length)\n"
        "            if (i != j && abs(numbers[i] - numbers[j]) < threshold) return true;\n    return false;\n}\n"
    ),
    "HumanEval_13_greatest_common_divisor": "{\n    while (b != 0) { auto t = a % b; a = b; b = t; }\n    return a;\n}\n",
    "HumanEval_23_strlen": "{\n    return cast(long) string.length;\n}\n",
    "HumanEval_30_get_positive": "{\n    long[] r;\n    foreach (x; l) if (x > 0) r ~= x;\n    return r;\n}\n",
}

# Its own main replaces the tests' empty one (and does not run); its own unittest runs first.
CHAT_REPLY = """import std.stdio;
import std.math : abs;

/// Checks whether any two numbers are closer than the threshold.
bool has_close_elements(float[] numbers, float threshold)
{
    foreach (i, a; numbers)
        foreach (j, b; numbers)
            if (i != j && abs(a - b) < threshold)
                return true;
    return false;
}

unittest
{
    assert(has_close_elements([1.0, 2.0], 0.5) == false);
}

void main()
{
    writeln(has_close_elements([1.0, 2.8, 3.0], 0.3));
}
"""

WHOLE = "// a whole program\nimport std.typecons;\n"  # a body that starts so is judged as written, not after the prompt
STRLEN_HEAD = "long strlen(string string)\n"
FORGE = '    import core.stdc.stdlib : exit;\n    import core.sys.posix.unistd : write;\n    write(3, "0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n".ptr, 26);\n    exit(0);\n'

HOSTILE = {
    # the old completion marker, read from the binary and printed, then exit 0 before any case
    "marker from binary": (STRLEN, "{\n    import std.file : read;\n    import std.string : indexOf;\n    import std.stdio : writeln;\n"
                           "    import core.stdc.stdlib : exit;\n    auto data = cast(const(char)[]) read(\"/proc/self/exe\");\n"
                           '    for (auto at = data.indexOf("ASSAY-DONE-"); at >= 0 && at + 43 <= data.length; at = data.indexOf("ASSAY-DONE-", at + 1))\n'
                           "        writeln(data[at .. at + 43]);\n    exit(0);\n    return 0;\n}\n"),
    # the same from its own source
    "marker from source": (STRLEN, "{\n    import std.stdio : File, writeln;\n    import std.algorithm : canFind;\n    import core.stdc.stdlib : exit;\n"
                           '    foreach (line; File("main.d").byLine) if (line.canFind("ASSAY")) writeln(line);\n    exit(0);\n    return 0;\n}\n'),
    "early exit": (STRLEN, '{\n    import core.stdc.stdio : puts;\n    import core.stdc.stdlib : exit;\n    puts("All tests passed");\n    exit(0);\n    return 0;\n}\n'),
    # records of its own on fd 3, a guess for every case, and the final line, then exit 0
    "forged records": (STRLEN, "{\n" + FORGE + "    return 0;\n}\n"),
    # MultiPL-E's asserts made harmless: an assertHandler that ignores failures, set before any test
    "assert handler": (STRLEN, WHOLE + "shared static this()\n{\n    import core.exception : assertHandler;\n"
                       "    assertHandler = (string file, size_t line, string msg) nothrow {};\n}\n\n" + STRLEN_HEAD + "{\n    return -1;\n}\n"),
    # code before the cases: a unit tester of its own, set by a thread-local module constructor (which runs after
    # the shared ones), that runs nothing and lets main run
    "own unit tester": (STRLEN, WHOLE + "static this()\n{\n    import core.runtime : Runtime, UnitTestResult;\n"
                        "    Runtime.extendedModuleUnitTester = function UnitTestResult() { UnitTestResult r; r.runMain = true; return r; };\n}\n\n"
                        + STRLEN_HEAD + "{\n    return -1;\n}\n"),
    # code before the cases: a module constructor forges every record and exits 0
    "constructor forges": (STRLEN, WHOLE + "shared static this()\n{\n" + FORGE + "}\n\n" + STRLEN_HEAD + "{\n    return -1;\n}\n"),
    # code after the cases: a module destructor appends a forged final line
    "destructor forges": (STRLEN, WHOLE + "shared static ~this()\n{\n    import core.sys.posix.unistd : write;\n    write(3, \"done 3\\n\".ptr, 7);\n}\n\n"
                          + STRLEN_HEAD + "{\n    return cast(long) string.length;\n}\n"),
    # the build reading the channel: a string import of fd 3 (the build phase has no fd 3, nor -J)
    "build imports fd 3": (STRLEN, '{\n    enum forged = import("/proc/self/fd/3");\n    return forged.length;\n}\n'),
    # the parent's descriptors (pidfd_getfd), ptrace and a kill on the parent, through libc's syscall()
    "parent's descriptors": (STRLEN, WHOLE + "extern (C) long syscall(long number, ...);\n\n" + STRLEN_HEAD
                             + "{\n    import core.sys.posix.unistd : getppid, write;\n    import core.sys.posix.signal : kill, SIGKILL;\n"
                             "    long parent = getppid();\n    syscall(101, 16L, parent, 0L, 0L); // ptrace(PTRACE_ATTACH)\n"
                             "    long pidfd = syscall(434, parent, 0L); // pidfd_open\n    foreach (fd; 0 .. 64L)\n    {\n"
                             "        long got = syscall(438, pidfd, fd, 0L); // pidfd_getfd\n"
                             '        if (got >= 0) write(cast(int) got, "done 3\\n".ptr, 7);\n    }\n'
                             "    kill(cast(int) parent, SIGKILL);\n    return -1;\n}\n"),
    # sleeps past the run's wall limit without using CPU
    "sleeps": (STRLEN, "{\n    import core.thread : Thread;\n    import core.time : seconds;\n    Thread.sleep(600.seconds);\n"
               "    return cast(long) string.length;\n}\n"),
}

SPEC = LanguageSpec(
    language="d",
    bench="multipl-e/humaneval-d",
    correct=CORRECT,
    wrong=[
        ("HumanEval_23_strlen", "{\n    return cast(long) string.length + 1;\n}\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "{\n    long[] r;\n    foreach (x; l) if (x >= 0) r ~= x;\n    return r;\n}\n", Status.FAILED),
        ("HumanEval_23_strlen", "{\n    return no_such_name(string);\n}\n", Status.COMPILE_ERROR),  # undefined identifier
        ("HumanEval_23_strlen", "{\n    return cast(long) string.length\n}\n", Status.COMPILE_ERROR),  # syntax: no semicolon
        ("HumanEval_30_get_positive", "{\n    return [l[l.length]];\n}\n", Status.RUNTIME_ERROR),  # ArrayIndexError
        ("HumanEval_13_greatest_common_divisor", '{\n    throw new Exception("boom");\n}\n', Status.RUNTIME_ERROR),  # uncaught exception
        ("HumanEval_13_greatest_common_divisor", "{\n    int* p = null;\n    return *p + a;\n}\n", Status.RUNTIME_ERROR),  # null dereference
        ("HumanEval_23_strlen", "{\n    assert(string.length > 1000);\n    return string.length;\n}\n", Status.RUNTIME_ERROR),  # the sample's own assert
        ("HumanEval_23_strlen", "{\n    while (true) {}\n}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '{\n    import core.stdc.stdio : puts;\n    import core.stdc.stdlib : exit;\n    puts("tests passed");\n    exit(0);\n    return 0;\n}\n', Status.FAILED),  # early exit, status 0
    ],
    chat_reply=CHAT_REPLY,
    chat_probe="HumanEval_0_has_close_elements",
    hostile_write=lambda target: f'{{\n    import std.file : write;\n    try write("{target}", "x"); catch (Exception e) {{}}\n    return string.length;\n}}\n',
    floods=('{\n    import std.stdio : writeln;\n    import std.array : replicate;\n    while (true) writeln("x".replicate(1000));\n}\n',),
    whole_prefix=WHOLE,
    hostile=HOSTILE,
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED,
                    "own unit tester": Status.FAILED, "build imports fd 3": Status.COMPILE_ERROR},
    render_agreement=0.995,  # 2210/2214: MultiPL-E writes a newline in a string raw; mbpp_585's union it cannot type either
    prejudge=True,
)


def test_the_test_section_names_its_file_and_keeps_one_main() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(SPEC.bench).problems["HumanEval_0_has_close_elements"]
    program = D().program(problem, problem.prompt + CORRECT["HumanEval_0_has_close_elements"], "MARK")
    assert program.index('#line 1 "assay-tests.d"\nunittest') > program.index("extendedModuleUnitTester")
    assert program.count("void main(){}") == 1 and 'puts("MARK")' in program
    assert D().program(problem, CHAT_REPLY, "MARK").count("void main(") == 1


@pytest.mark.slow
def test_the_harness_module_is_built_once_and_in_the_program_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A case build imports the harness's module built once and links its object file (the program holds
    none of its items); turned off (ASSAY_D_HARNESS=0), the program holds them, and each kind of sample
    gets the same verdict."""
    from assay.languages.d import CASE_BUILD
    from assay.sandbox import get_sandbox

    language_or_skip("d")
    problem = benchmark(SPEC.bench).problems[STRLEN]
    samples = {Status.PASSED: CORRECT[STRLEN], Status.FAILED: "{\n    return cast(long) string.length + 1;\n}\n",
               Status.RUNTIME_ERROR: '{\n    throw new Exception("boom");\n}\n', Status.COMPILE_ERROR: "{\n    return string;\n}\n"}

    def verdicts() -> dict[Status, tuple[Status, str, list[tuple[str, Status]]]]:
        box = get_sandbox(ro_binds=D.toolchain().ro_binds)
        try:
            found = {want: D().judge(box, problem, problem.prompt + body) for want, body in samples.items()}
        finally:
            getattr(box, "close", lambda: None)()
        return {want: (v.status, v.message, [(t.name, t.status) for t in v.tests]) for want, v in found.items()}

    D.toolchain.cache_clear()
    try:
        flags = D.toolchain().env["ASSAY_D_CASE"]
        assert flags.startswith("-I ") and flags.split()[2].endswith("/assay_harness.o") and flags.split()[1] in D.toolchain().ro_binds
        assert D().build_command(problem) == CASE_BUILD and D.build != CASE_BUILD
        program = D().case_files(problem, problem.prompt + samples[Status.PASSED], ['candidate("ab")'])["main.d"].decode()
        assert "static import assay_harness;" in program and "void assay_put(" not in program
        assert 'try assay_harness.assay_v(0, candidate("ab")); catch (Throwable e) assay_harness.assay_e(0, e);' in program
        prebuilt = verdicts()
        assert {want: got[0] for want, got in prebuilt.items()} == {want: want for want in samples}, prebuilt
        monkeypatch.setenv("ASSAY_D_HARNESS", "0")
        D.toolchain.cache_clear()
        assert "ASSAY_D_CASE" not in D.toolchain().env and D().build_command(problem) == D.build
        program = D().case_files(problem, problem.prompt + samples[Status.PASSED], ['candidate("ab")'])["main.d"].decode()
        assert "assay_harness" not in program and "void assay_put(" in program
        assert verdicts() == prebuilt
    finally:
        D.toolchain.cache_clear()
