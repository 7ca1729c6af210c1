"""Go on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file is judged up front, two at a time; the tests then check their verdicts.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.canary import run_canary
from assay.languages.go import HARNESS_FILE, MAIN_FILE, Go, fix_header
from assay.problems import Status, Verdict
from tests.conftest import shared_data
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-go"
TIGHT = {"run_cpu": 2, "run_wall": 10}

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

WRONG = [
    ("HumanEval_23_strlen", "    return len(myString) + 1\n}\n", Status.FAILED),  # wrong answer: t.Errorf
    ("HumanEval_23_strlen", "    return myString.Len()\n}\n", Status.COMPILE_ERROR),  # no such method
    ("HumanEval_23_strlen", '    return len(fmt.Sprintf("%d", myString))\n}\n', Status.COMPILE_ERROR),  # vet's printf check, as `go test` runs it
    ("HumanEval_13_greatest_common_divisor", "    var m map[int]int\n    m[a] = b\n    return a\n}\n", Status.RUNTIME_ERROR),  # nil map: panic
    ("HumanEval_30_get_positive", "    return []int{l[len(l)]}\n}\n", Status.RUNTIME_ERROR),  # index out of range
    ("HumanEval_23_strlen", "    for {\n    }\n}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", EARLY_EXIT, Status.FAILED),  # early exit with status 0
]

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

FLOOD = '    for {\n        fmt.Println(fmt.Sprintf("%01000d", 0))\n    }\n}\n'


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


def code_for(prompt: str, body: str) -> str:
    return body if body.startswith("package ") else prompt + body


@pytest.fixture(scope="module")
def go() -> Go:
    return language_or_skip("go")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def escape_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("go-hostile") / "escaped"


@pytest.fixture(scope="module")
def verdicts(go: Go, escape_target: Path) -> dict[str, Verdict]:
    """Every program of this file, judged two at a time: name -> verdict."""
    bench = benchmark(BENCH)
    jobs: dict[str, tuple[str, str, dict[str, float]]] = {}
    for pid, body in CORRECT.items():
        jobs[f"correct:{pid}"] = (pid, bench.problems[pid].prompt + body, {})
    for i, (pid, body, _) in enumerate(WRONG):
        jobs[f"wrong:{i}"] = (pid, code_for(bench.problems[pid].prompt, body), TIGHT)
    jobs["chat"] = ("HumanEval_23_strlen", CHAT_REPLY, {})
    jobs["write"] = ("HumanEval_23_strlen", hostile_write(escape_target), {})
    jobs["flood"] = ("HumanEval_23_strlen", bench.problems["HumanEval_23_strlen"].prompt + FLOOD, TIGHT)

    def one(item: tuple[str, tuple[str, str, dict[str, float]]]) -> tuple[str, Verdict]:
        name, (pid, code, limits) = item
        return name, judge(go, bench.problems[pid], code, **limits)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, jobs.items()))


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(verdicts: dict[str, Verdict], pid: str) -> None:
    verdict = verdicts[f"correct:{pid}"]
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("index", "status"), [(i, status) for i, (_, _, status) in enumerate(WRONG)], ids=[f"{p}-{s.value}" for p, _, s in WRONG])
def test_wrong_completions_fail_with_the_right_status(verdicts: dict[str, Verdict], index: int, status: Status) -> None:
    verdict = verdicts[f"wrong:{index}"]
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_gets_the_imports_the_tests_need(verdicts: dict[str, Verdict]) -> None:
    # package main, its own main and imports; "testing" is added for the tests.
    assert verdicts["chat"].status is Status.PASSED, verdicts["chat"]


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts: dict[str, Verdict], escape_target: Path) -> None:
    assert verdicts["write"].status is Status.PASSED, verdicts["write"]  # the write failed quietly
    assert not escape_target.exists()
    flood = verdicts["flood"]
    assert flood.status is Status.RUNTIME_ERROR and "output limit" in flood.message and len(flood.stdout) <= 8000, flood


def test_the_harness_is_a_testmain_of_the_same_package() -> None:
    if not (shared_data() / "multipl-e").is_dir():
        pytest.skip("needs the shared data directory")
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
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


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(go: Go) -> None:
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("go"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
