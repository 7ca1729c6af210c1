"""Go on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.languages.go import HARNESS_FILE, MAIN_FILE, Go, fix_header
from assay.problems import Status
from tests.conftest import shared_data
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark

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
    prejudge=True,
)


def test_the_harness_is_a_testmain_of_the_same_package() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    files = Go().files(problem, problem.prompt + CORRECT["HumanEval_23_strlen"], "MARK")
    assert files[MAIN_FILE].decode().endswith(problem.tests.code)  # type: ignore[union-attr]
    harness = files[HARNESS_FILE].decode()
    assert harness.startswith("package strlen_test\n") and "func TestMain(" in harness and "MARK" in harness


def test_a_whole_program_gets_a_package_clause_and_the_missing_imports() -> None:
    prompt = 'package f_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nfunc f() int {\n'
    assert fix_header(prompt + "    return 1\n}\n", prompt) == prompt + "    return 1\n}\n"
    fixed = fix_header('import "strings"\n\nfunc f() int { return len(strings.Fields("a")) }\n', prompt)
    assert fixed.startswith('package f_test\n\nimport "fmt"\nimport "testing"\n')
    fixed = fix_header('package main\n\nimport (\n\t"fmt"\n)\n\nfunc f() int { return 1 }\n', prompt)
    assert fixed.startswith('package main\n\nimport "testing"\n') and fixed.count('"fmt"') == 1
