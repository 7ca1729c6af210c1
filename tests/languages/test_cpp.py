"""C++ on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time (g++ spends seconds on bits/stdc++.h);
the tests then check their verdicts.
"""

from __future__ import annotations

import pytest

from assay.languages.cpp import Cpp
from assay.problems import Status
from tests.conftest import shared_data
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark, language_or_skip

# Its includes and helpers (one declared before the function, defined after it) are kept; its main is dropped.
CHAT_REPLY = """#include <iostream>
#include <string>
using namespace std;

static long count_chars(const string& s);

// Returns the length of a string.
long string_length(std::string string) {
    return count_chars(string);
}

static long count_chars(const string& s) { return (long)s.size(); }

int main() {
    cout << string_length("abc") << endl;
    return 0;
}
"""

SPEC = LanguageSpec(
    language="cpp",
    bench="multipl-e/humaneval-cpp",
    correct={
        "HumanEval_0_has_close_elements": (
            "    for (size_t i = 0; i < numbers.size(); i++)\n        for (size_t j = 0; j < numbers.size(); j++)\n"
            "            if (i != j && std::abs(numbers[i] - numbers[j]) < threshold) return true;\n    return false;\n"
        ),
        "HumanEval_13_greatest_common_divisor": "    while (b != 0) { long t = a % b; a = b; b = t; }\n    return a;\n",
        "HumanEval_23_strlen": "    return string.size();\n",
        "HumanEval_30_get_positive": "    std::vector<long> out;\n    for (long x : l) if (x > 0) out.push_back(x);\n    return out;\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "    return string.size() + 1;\n", Status.FAILED),  # wrong answer
        ("HumanEval_23_strlen", "    return string.length_of();\n", Status.COMPILE_ERROR),  # no such member
        ("HumanEval_30_get_positive", "    return {l.at(l.size())};\n", Status.RUNTIME_ERROR),  # std::out_of_range: the harness's record of it
        ("HumanEval_13_greatest_common_divisor", "    long* p = nullptr;\n    return *p + a;\n", Status.RUNTIME_ERROR),  # SIGSEGV
        ("HumanEval_23_strlen", "    assert(string.size() > 1000);\n    return string.size();\n", Status.RUNTIME_ERROR),  # the sample's own assert aborts
        ("HumanEval_23_strlen", "    for (volatile long i = 0; ; i++) {}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    std::puts("tests passed");\n    std::exit(0);\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply=CHAT_REPLY,
    hostile_write=lambda target: f'    FILE* f = std::fopen("{target}", "w");\n    if (f) {{ std::fputs("x", f); std::fclose(f); }}\n    return string.size();\n',
    floods=("    while (true) std::cout << std::string(1000, 'x') << std::endl;\n",),
    whole_prefix="#include",
    hostile={
        # the old completion marker, read from the binary and printed, then exit 0 before any case
        "marker from binary": (STRLEN,
                               '    std::ifstream f("/proc/self/exe", std::ios::binary);\n'
                               "    std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());\n"
                               '    for (size_t at = data.find("ASSAY-DONE-"); at != std::string::npos; at = data.find("ASSAY-DONE-", at + 1))\n'
                               "        std::puts(data.substr(at, 43).c_str());\n    std::fflush(stdout);\n    std::_Exit(0);\n"),
        # the same from its own source
        "marker from source": (STRLEN,
                               '    std::ifstream f("main.cpp");\n    std::string line;\n'
                               '    while (std::getline(f, line)) if (line.find("ASSAY") != std::string::npos) std::puts(line.c_str());\n'
                               "    std::exit(0);\n"),
        "early exit": (STRLEN, '    std::puts("All tests passed");\n    std::exit(0);\n'),
        # records of its own on fd 3, a guess for every case, and the final line, then exit 0
        "forged records": (STRLEN, '    const char forged[] = "0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n";\n'
                                   "    ::write(3, forged, sizeof forged - 1);\n    std::_Exit(0);\n"),
        # the harness's writes sent to /dev/null, and a forged final line on the real channel at exit
        "silenced channel": (STRLEN,
                             "#include <bits/stdc++.h>\n#include <fcntl.h>\n#include <unistd.h>\n"
                             "long string_length(std::string string) {\n"
                             "    static int saved = ::dup(3);\n    ::dup2(::open(\"/dev/null\", O_WRONLY), 3);\n"
                             '    std::atexit([] { ::write(saved, "done 3\\n", 7); });\n    return 3;\n}\n'),
        # MultiPL-E's comparison made always true: an == for the result type, and assert turned off
        "always equal": ("HumanEval_30_get_positive",
                         "    return {};\n}\n"
                         "template <class T> bool operator==(const std::vector<T>&, const std::vector<T>&) { return true; }\n"
                         "#undef assert\n#define assert(...) ((void)0)\n"
                         "std::vector<long> unused_helper(std::vector<long> l) {\n    return l;\n"),
        # the harness's calls rewritten by a macro (a sample's macros reach the code after it)
        "macro on the calls": (STRLEN, "#define candidate(...) 9L\n    return 0;\n"),
        # main renamed by a macro, so that a main of the sample's own would run instead
        "macro renames main": (STRLEN, "#define main assay_not_main\n    return 0;\n"),
        # a crash handler that exits with status 0, then a crash
        "crash exits 0": (STRLEN, "    std::signal(SIGSEGV, [](int) { std::_Exit(0); });\n"
                                  "    volatile long* p = nullptr;\n    return *p;\n"),
        # code before main (a global constructor of a whole program): forged records, exit 0
        "global constructor": (STRLEN,
                               "#include <bits/stdc++.h>\n#include <unistd.h>\n"
                               'static struct Forge { Forge() { const char r[] = "0 v 1\\n1 v 1\\n2 v 1\\ndone 3\\n";'
                               " ::write(3, r, sizeof r - 1); std::_Exit(0); } } forge;\n"
                               "long string_length(std::string string) {\n    return 1;\n}\n"),
        # the build reading the channel (the build phase has no fd 3)
        "build reads fd 3": (STRLEN, '    #include "/proc/self/fd/3"\n    return 0;\n'),
        # the parent's descriptors (pidfd_getfd) and ptrace on the parent, then forged records on what it got
        "parent's descriptors": (STRLEN,
                                 "#include <bits/stdc++.h>\n#include <signal.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n"
                                 "long string_length(std::string string) {\n"
                                 "    long pid = ::getppid();\n    long pidfd = ::syscall(SYS_pidfd_open, pid, 0);\n"
                                 "    ::syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, pid, 0, 0);\n"
                                 "    for (long fd = 0; fd < 64 && pidfd >= 0; fd++) {\n"
                                 "        long got = ::syscall(SYS_pidfd_getfd, pidfd, fd, 0);\n"
                                 '        if (got >= 0) ::write(got, "done 3\\n", 7);\n    }\n'
                                 "    ::kill(pid, SIGKILL);\n    return -1;\n}\n"),
        # sleeps past the run's wall limit without using CPU
        "sleeps": (STRLEN, "    std::this_thread::sleep_for(std::chrono::seconds(600));\n    return string.size();\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED,
                    "macro renames main": Status.COMPILE_ERROR},
    # MultiPL-E's C++ unions have no tag: a result of one cannot be read by any harness.
    program_judged={pid: "could not be split" for pid in (
        "HumanEval_103_rounded_avg", "HumanEval_125_split_words", "HumanEval_137_compare_one", "mbpp_407_rearrange_bigger",
        "mbpp_413_extract_nth_element", "mbpp_462_combinations_list", "mbpp_585_expensive_items")},
    # 2299/2320: the rest are MultiPL-E literals that do not compile: unescaped quotes in strings, a number cast
    # to std::string in a mixed list ((std::string)3), a vector of std::any cast to std::vector<long>, a
    # std::map<std::string,std::string> holding std::nullopt (Assay: std::optional<std::string>)
    render_agreement=0.99,
    prejudge=True,
)


def test_the_test_section_maps_asserts_and_prints_the_marker_last() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = Cpp().program(problem, problem.prompt + "    return string.size();\n", "MARK")
    assert "int main() {\n    auto candidate" not in program and "void assay_tests_main() {" in program
    assert program.index("#undef assert") < program.index("assert(candidate(")
    assert program.rstrip().endswith("return 0;\n}") and program.index('puts("MARK")') > program.index("assay_tests_main();")


def test_a_mixed_list_of_strings_and_numbers_is_a_vector_of_any() -> None:
    """MultiPL-E casts every item to the first one's type: (std::string)6 does not compile."""
    from assay.values import Signature, Type

    signature = Signature("filter_integers", (("values", Type("list", (Type("any"),))),), Type("list", (Type("int"),)))
    call = Cpp().render_call(signature, ([1, [2, "3"], "4", ["5", 6], 7],))
    assert call == 'candidate((std::vector<std::any>({1, std::vector<std::any>({2, "3"}), "4", std::vector<std::any>({"5", 6}), 7})))'


def test_mixed_dicts_and_nones_have_types_that_compile() -> None:
    """Values of several kinds make a map to std::any, values and nullopts a map to std::optional; a list
    with None or bools among its items a vector of std::any ((long)true would be 1)."""
    from assay.values import Signature, Type

    signature = Signature("f", (("values", Type("list", (Type("any"),))),), Type("list", (Type("int"),)))
    call = Cpp().render_call(signature, ([{"one": 1, "two": "2"}, {"c1": "Red", "c3": None}, [None], [1, None, True]],))
    assert call == ('candidate((std::vector<std::any>({std::map<std::string,std::any>({{"one", 1}, {"two", "2"}}), '
                    'std::map<std::string,std::optional<std::string>>({{"c1", "Red"}, {"c3", std::nullopt}}), '
                    "std::vector<std::any>({std::nullopt}), std::vector<std::any>({1, std::nullopt, true})})))")


@pytest.mark.slow
def test_the_case_header_holds_the_harness_and_the_program_carries_it_when_turned_off(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With the case header (precompiled with <bits/stdc++.h>, force-included before the sample) and
    the harness's functions built once into an object file, a case program is the sample and its main
    only: the sample's macros cannot reach the harness. With the precompiled headers turned off, the
    harness follows the sample in its program, and judges the same."""
    from assay.execution import Executor
    from assay.languages.cpp import CASE_HARNESS, CASES_MARK
    from assay.sandbox import get_sandbox

    language_or_skip("cpp")
    bench = benchmark(SPEC.bench)
    problem = bench.problems[STRLEN]
    right, wrong = problem.prompt + "    return string.size();\n", problem.prompt + "    return string.size() + 1;\n"
    toolchain = Cpp.toolchain()
    Cpp().prepare(toolchain)
    files = Cpp().case_files(problem, right, ['candidate("ab")'])
    assert set(files) == {"main.cpp", CASES_MARK} and "assay_put_chars" not in files["main.cpp"].decode()
    executor = Executor(get_sandbox(ro_binds=toolchain.ro_binds), bench, workers=1)
    # A macro that would break the harness's writes if the harness came after it
    macro = problem.prompt.replace("long string_length(", "#define write(...) 0\nlong string_length(") + "    return string.size();\n"
    assert executor.judge(problem, macro).status is Status.PASSED
    assert executor.judge(problem, wrong).status is Status.FAILED
    monkeypatch.setenv("ASSAY_CPP_PCH", "0")
    Cpp.toolchain.cache_clear()
    try:
        inline = Cpp().case_files(problem, right, ['candidate("ab")'])
        assert set(inline) == {"main.cpp"} and CASE_HARNESS in inline["main.cpp"].decode()
        executor = Executor(get_sandbox(ro_binds=Cpp.toolchain().ro_binds), bench, workers=1)
        assert executor.judge(problem, right).status is Status.PASSED
        assert executor.judge(problem, wrong).status is Status.FAILED
    finally:
        Cpp.toolchain.cache_clear()
