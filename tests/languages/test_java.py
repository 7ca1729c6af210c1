"""Java on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-java"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "        for (int i = 0; i < numbers.size(); i++)\n            for (int j = 0; j < numbers.size(); j++)\n"
        "                if (i != j && Math.abs(numbers.get(i) - numbers.get(j)) < threshold) return true;\n        return false;\n"
    ),
    "HumanEval_8_sum_product": (  # org.javatuples.Pair: Assay's compatible implementation
        "        long sum = 0, product = 1;\n        for (long n : numbers) { sum += n; product *= n; }\n        return Pair.with(sum, product);\n"
    ),
    "HumanEval_13_greatest_common_divisor": "        while (b != 0) { long t = a % b; a = b; b = t; }\n        return a;\n",
    "HumanEval_23_strlen": "        return string.length();\n",
}

WRONG = [
    ("HumanEval_23_strlen", "        return string.length() + 1;\n", Status.FAILED),  # wrong answer
    ("HumanEval_8_sum_product", "        return Pair.with(0l, 1l);\n", Status.FAILED),
    ("HumanEval_23_strlen", "        return string.size();\n", Status.COMPILE_ERROR),  # no such method
    ("HumanEval_23_strlen", "        String s = null;\n        return s.length();\n", Status.RUNTIME_ERROR),  # NullPointerException
    ("HumanEval_8_sum_product", "        return Pair.with(numbers.get(numbers.size()), 1l);\n", Status.RUNTIME_ERROR),  # index out of range
    ("HumanEval_23_strlen", "        while (true) {}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '        System.out.println("tests passed");\n        System.exit(0);\n        return 0;\n', Status.FAILED),  # early exit 0
]

CHAT_REPLY = """import java.util.*;
import java.util.function.Function;

public class Main {
    // counts characters; '{' and "}" must not confuse the splice
    private static boolean counts(char c) { return c != '{' || "}".length() == 1; }

    public static long strlen(String s)
    {
        long n = 0;
        for (char c : s.toCharArray()) if (counts(c)) n++;
        return n;
    }

    public static void main(String[] args) {
        System.out.println(strlen("abc")); // 3
    }
}

class Unused { static int x = 1; }
"""


@pytest.fixture(scope="module")
def java():  # type: ignore[no-untyped-def]
    # Support files (javatuples, javac's CDS archive) are built once per machine, not per test session.
    os.environ.setdefault("ASSAY_TOOLCHAIN_CACHE", f"/var/tmp/assay-test-toolchains-{os.getuid()}")
    return language_or_skip("java")


@pytest.fixture(scope="module")
def verdicts(java):  # type: ignore[no-untyped-def]
    """Every correct and wrong program, judged two at a time (javac is the slow part)."""
    problems = benchmark(BENCH).problems
    jobs = [(pid, body, {}) for pid, body in CORRECT.items()] + [(pid, body, {"run_cpu": 2, "run_wall": 10}) for pid, body, _ in WRONG]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda job: judge(java, problems[job[0]], problems[job[0]].prompt + job[1], **job[2]), jobs)
        return {(pid, body): verdict for (pid, body, _), verdict in zip(jobs, results)}


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(verdicts, pid: str) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts[(pid, CORRECT[pid])]
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(verdicts, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts[(pid, body)]
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_is_spliced(java) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    verdict = judge(java, problem, CHAT_REPLY)
    assert verdict.status is Status.PASSED, verdict


def test_the_splice_keeps_helpers_and_drops_the_demo_main(java) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    program = java.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith("import java.util.function.Function;\n" + problem.prompt.split("class Problem")[0])
    assert "private static boolean counts(char c)" in program and "class Unused" in program
    assert 'System.out.println(strlen("abc"))' not in program and "public class" not in program
    assert program.count("public static void main") == 2 and program.rstrip().endswith("}")  # the tests' and the runner's
    assert java.program(problem, problem.prompt + CORRECT["HumanEval_23_strlen"], "MARK").startswith(problem.prompt + CORRECT["HumanEval_23_strlen"])


@pytest.mark.slow
def test_hostile_programs_are_contained(java, tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    target = tmp_path / "escaped"
    writes = f'        try {{ java.nio.file.Files.writeString(java.nio.file.Path.of("{target}"), "x"); }} catch (Exception e) {{ }}\n        return string.length();\n'
    flood = '        while (true) System.out.println("x".repeat(1000));\n'
    with ThreadPoolExecutor(max_workers=2) as pool:
        escaped = pool.submit(judge, java, problem, problem.prompt + writes)
        flooded = pool.submit(judge, java, problem, problem.prompt + flood, run_cpu=2, run_wall=10)
        assert escaped.result().status is Status.PASSED and not target.exists()
        verdict = flooded.result()
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(java) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("java"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
