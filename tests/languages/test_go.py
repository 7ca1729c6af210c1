"""Go on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.languages.go import HARNESS_FILE, MAIN_FILE, Go, fix_header
from assay.problems import Status
from assay.problems import test_program as program_of
from tests.conftest import shared_data
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "    for i := range numbers {\n        for j := range numbers {\n            d := numbers[i] - numbers[j]\n"
        "            if i != j && d < threshold && -d < threshold {\n                return true\n            }\n        }\n    }\n    return false\n}\n"
    ),
    "HumanEval_13_greatest_common_divisor": "    for b != 0 {\n        a, b = b, a%b\n    }\n    return a\n}\n",
    "HumanEval_23_strlen": "    return len(myString)\n}\n",
    "HumanEval_30_get_positive": "    out := []int{}\n    for _, x := range l {\n        if x > 0 {\n            out = append(out, x)\n        }\n    }\n    return out\n}\n",
}

# An early exit needs os, which the prompt does not import: that sample is a whole program.
EARLY_EXIT = """package strlen_test

import (
    "fmt"
    "os"
    "testing"
)

func strlen(myString string) int {
    fmt.Println("tests passed")
    os.Exit(0)
    return 0
}
"""

# package main, its own main and imports; "testing" is added for the tests.
CHAT_REPLY = """package main

import (
\t"fmt"
\t"strings"
)

// strlen returns the number of characters of a string.
func strlen(myString string) int {
\treturn strings.Count(myString, "") - 1
}

func main() {
\tfmt.Println(strlen("abc"))
}
"""


def hostile_write(target: Path) -> str:
    return f"""package strlen_test

import (
    "os"
    "testing"
)

func strlen(myString string) int {{
    _ = os.WriteFile("{target}", []byte("x"), 0o644)
    return len(myString)
}}
"""




def whole(imports: str, body: str, extra: str = "") -> str:
    """A whole program for strlen: the prompt's package and imports, more imports, the function, more code."""
    lines = "".join(f'    "{i}"\n' for i in imports.split())
    return f'package strlen_test\n\nimport (\n    "fmt"\n    "testing"\n{lines})\n\n{extra}func strlen(myString string) int {{\n{body}}}\n'


FORGE = '    os.NewFile(3, "channel").Write([]byte("0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n"))\n    os.Exit(0)\n'

HOSTILE = {
    # the old completion marker, read from the test binary and printed, then exit 0 before any case
    "marker from binary": (STRLEN, whole("bytes os", '    data, _ := os.ReadFile("/proc/self/exe")\n'
                                     '    for at := bytes.Index(data, []byte("ASSAY-DONE-")); at >= 0 && at+43 <= len(data); {\n'
                                     "        fmt.Println(string(data[at : at+43]))\n"
                                     '        next := bytes.Index(data[at+1:], []byte("ASSAY-DONE-"))\n'
                                     "        if next < 0 {\n            break\n        }\n        at += next + 1\n    }\n"
                                     "    os.Exit(0)\n    return 0\n")),
    # the same from its own source
    "marker from source": (STRLEN, whole("os strings", '    data, _ := os.ReadFile("main_test.go")\n'
                                     '    for _, line := range strings.Split(string(data), "\\n") {\n'
                                     '        if strings.Contains(line, "ASSAY") {\n            fmt.Println(line)\n        }\n    }\n'
                                     "    os.Exit(0)\n    return 0\n")),
    "early exit": (STRLEN, EARLY_EXIT),
    # records of its own on fd 3, a guess for every case, and the final line, then exit 0
    "forged records": (STRLEN, whole("os", FORGE + "    return 0\n")),
    # code before main: init() hides every test from m.Run, and forges the records besides
    "init skips the tests": (STRLEN, whole("os", "    return -1\n", 'func init() {\n    os.Args = append(os.Args, "-test.run=^$", "-test.count=0")\n}\n\n')),
    "init forges the records": (STRLEN, whole("os", "    return -1\n", "func init() {\n" + FORGE + "}\n\n")),
    # a result that prints as the expected one under MultiPL-E's fmt.Sprintf("%v") comparison
    "stringer result": ("HumanEval_8_sum_product",
                        '    return []interface{}{liar{}}\n}\n\ntype liar struct{}\n\nfunc (liar) String() string { return "0 1" }\n'),
    # recover and panic shadowed in the package, for a harness that catches panics
    "shadowed recover": (STRLEN, whole("", '    panic("no")\n', "func recover() interface{} { return nil }\n\n")),
    # a deferred recover that exits with status 0 from a panic
    "panic exits 0": (STRLEN, whole("os", '    defer func() {\n        recover()\n        os.Exit(0)\n    }()\n    panic("no")\n')),
    # a TestMain of its own, to run instead of the harness's
    "own TestMain": (STRLEN, whole("os", "    return -1\n", "func TestMain(m *testing.M) {\n" + FORGE + "}\n\n")),
    # the build reading the channel: go:embed of fd 3 (the build phase has no fd 3, and embed takes no absolute path)
    "build embeds fd 3": (STRLEN, whole("embed", "    return len(forged)\n", "//go:embed /proc/self/fd/3\nvar forged string\n\n")),
    # the parent's descriptors (pidfd_getfd), ptrace and a kill on the parent
    "parent's descriptors": (STRLEN, whole("os syscall",
                                       "    parent := uintptr(os.Getppid())\n    _ = syscall.PtraceAttach(int(parent))\n"
                                       "    pidfd, _, _ := syscall.Syscall(434, parent, 0, 0) // pidfd_open\n"
                                       "    for fd := uintptr(0); fd < 64; fd++ {\n"
                                       "        if got, _, err := syscall.Syscall(438, pidfd, fd, 0); err == 0 { // pidfd_getfd\n"
                                       '            syscall.Write(int(got), []byte("done 3\\n"))\n        }\n    }\n'
                                       "    _ = syscall.Kill(int(parent), syscall.SIGKILL)\n    return -1\n")),
    # sleeps past the run's wall limit without using CPU
    "sleeps": (STRLEN, whole("time", "    time.Sleep(600 * time.Second)\n    return len(myString)\n")),
}

SPEC = LanguageSpec(
    language="go",
    bench="multipl-e/humaneval-go",
    correct=CORRECT,
    wrong=[
        ("HumanEval_23_strlen", "    return len(myString) + 1\n}\n", Status.FAILED),  # wrong answer: t.Errorf
        ("HumanEval_23_strlen", "    return myString.Len()\n}\n", Status.COMPILE_ERROR),  # no such method
        ("HumanEval_23_strlen", '    return len(fmt.Sprintf("%d", myString))\n}\n', Status.COMPILE_ERROR),  # vet's printf check, as `go test` runs it
        ("HumanEval_13_greatest_common_divisor", "    var m map[int]int\n    m[a] = b\n    return a\n}\n", Status.RUNTIME_ERROR),  # nil map: panic
        ("HumanEval_30_get_positive", "    return []int{l[len(l)]}\n}\n", Status.RUNTIME_ERROR),  # index out of range
        ("HumanEval_23_strlen", "    for {\n    }\n}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", EARLY_EXIT, Status.FAILED),  # early exit with status 0
    ],
    chat_reply=CHAT_REPLY,
    hostile_write=hostile_write,
    floods=('    for {\n        fmt.Println(fmt.Sprintf("%01000d", 0))\n    }\n}\n',),
    whole_prefix="package ",
    hostile=HOSTILE,
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED,
                    "init skips the tests": Status.FAILED, "own TestMain": Status.COMPILE_ERROR},
    render_agreement=0.95,  # 2132/2233: the rest are MultiPL-E's own literals that do not compile ([][]int of tuples, []UNKNOWN, ...)
    prejudge=True,
)


def test_the_harness_is_a_testmain_of_the_same_package() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    files = Go().files(problem, problem.prompt + CORRECT["HumanEval_23_strlen"], "MARK")
    assert files[MAIN_FILE].decode().endswith(program_of(problem).code)
    harness = files[HARNESS_FILE].decode()
    assert harness.startswith("package strlen_test\n") and "func TestMain(" in harness and "MARK" in harness


def test_a_whole_program_gets_a_package_clause_and_the_missing_imports() -> None:
    prompt = 'package f_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nfunc f() int {\n'
    assert fix_header(prompt + "    return 1\n}\n", prompt) == prompt + "    return 1\n}\n"
    fixed = fix_header('import "strings"\n\nfunc f() int { return len(strings.Fields("a")) }\n', prompt)
    assert fixed.startswith('package f_test\n\nimport "fmt"\nimport "testing"\n')
    fixed = fix_header('package main\n\nimport (\n\t"fmt"\n)\n\nfunc f() int { return 1 }\n', prompt)
    assert fixed.startswith('package main\n\nimport "testing"\n') and fixed.count('"fmt"') == 1


def test_any_lists_are_typed_by_all_their_items() -> None:
    """MultiPL-E types an Any list by its first item ([]float64{"5", 6} does not compile); Assay's literals type-check."""
    from assay.languages.go import go_literal
    from assay.values import Type

    any_type = Type("any", ())
    assert go_literal(["5", 6], any_type) == '[]interface{}{"5", 6}'
    assert go_literal([1, 2.5], any_type) == "[]float64{1, 2.5}"
    assert go_literal({"three": [3, "four"]}, any_type) == 'map[string][]interface{}{"three": []interface{}{3, "four"}}'
    assert go_literal([[1, "a"], [2]], any_type) == '[]interface{}{[]interface{}{1, "a"}, []int{2}}'
