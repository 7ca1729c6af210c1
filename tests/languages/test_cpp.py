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
from tests.languages._common import LanguageSpec, benchmark

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
        ("HumanEval_30_get_positive", "    return {l.at(l.size())};\n", Status.RUNTIME_ERROR),  # std::out_of_range: terminate, SIGABRT
        ("HumanEval_13_greatest_common_divisor", "    long* p = nullptr;\n    return *p + a;\n", Status.RUNTIME_ERROR),  # SIGSEGV
        ("HumanEval_23_strlen", "    assert(string.size() > 1000);\n    return string.size();\n", Status.RUNTIME_ERROR),  # the sample's own assert aborts
        ("HumanEval_23_strlen", "    for (volatile long i = 0; ; i++) {}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    std::puts("tests passed");\n    std::exit(0);\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply=CHAT_REPLY,
    hostile_write=lambda target: f'    FILE* f = std::fopen("{target}", "w");\n    if (f) {{ std::fputs("x", f); std::fclose(f); }}\n    return string.size();\n',
    floods=("    while (true) std::cout << std::string(1000, 'x') << std::endl;\n",),
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
