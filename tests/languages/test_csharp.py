"""C# on MultiPL-E (Mono): correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-cs"
ESCAPED = "/var/tmp/assay-csharp-test-escaped"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "        for (int i = 0; i < numbers.Count; i++)\n            for (int j = 0; j < numbers.Count; j++)\n"
        "                if (i != j && Math.Abs(numbers[i] - numbers[j]) < threshold) return true;\n        return false;\n"
    ),
    "HumanEval_8_sum_product": "        long sum = 0, product = 1;\n        foreach (long n in numbers) { sum += n; product *= n; }\n        return Tuple.Create(sum, product);\n",
    "HumanEval_13_greatest_common_divisor": "        while (b != 0) { long t = a % b; a = b; b = t; }\n        return a;\n",
    "HumanEval_23_strlen": "        return str.Length;\n",
}

WRONG = [
    ("HumanEval_23_strlen", "        return str.Length + 1;\n", Status.FAILED),  # wrong answer (a Debug.Assert fails)
    ("HumanEval_8_sum_product", "        return Tuple.Create(0L, 1L);\n", Status.FAILED),
    ("HumanEval_23_strlen", "        return str.Size();\n", Status.COMPILE_ERROR),  # no such method
    ("HumanEval_23_strlen", "        string s = null;\n        return s.Length;\n", Status.RUNTIME_ERROR),  # NullReferenceException
    ("HumanEval_8_sum_product", "        return Tuple.Create(numbers[numbers.Count], 1L);\n", Status.RUNTIME_ERROR),  # index out of range
    ("HumanEval_23_strlen", "        while (true) {}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '        Console.WriteLine("tests passed");\n        Environment.Exit(0);\n        return 0;\n', Status.FAILED),  # early exit 0
]

CHAT_REPLY = """using System;
using System.Linq;

namespace Solution
{
    public class Program
    {
        // '{' and "}" must not confuse the splice
        private static bool Counts(char c) => c != '{' || "}".Length == 1;

        public static long Strlen(string str)
        {
            return str.Count(Counts);
        }

        static void Main(string[] args)
        {
            Console.WriteLine(Strlen("abc"));
        }
    }
}
"""

HOSTILE = {
    "writes": f'        try {{ System.IO.File.WriteAllText("{ESCAPED}", "x"); }} catch (Exception) {{ }}\n        return str.Length;\n',
    "floods": "        while (true) Console.WriteLine(new string('x', 1000));\n",
}


@pytest.fixture(scope="module")
def csharp():  # type: ignore[no-untyped-def]
    return language_or_skip("csharp")


@pytest.fixture(scope="module")
def verdicts(csharp):  # type: ignore[no-untyped-def]
    """Every program of this file but the canary's, judged two at a time."""
    problems = benchmark(BENCH).problems
    strlen = problems["HumanEval_23_strlen"]
    tight = {"run_cpu": 2, "run_wall": 10}
    jobs = {("correct", pid): (problems[pid], problems[pid].prompt + body, {}) for pid, body in CORRECT.items()}
    jobs |= {("wrong", pid, body): (problems[pid], problems[pid].prompt + body, tight) for pid, body, _ in WRONG}
    jobs |= {("chat",): (strlen, CHAT_REPLY, {})}
    jobs |= {("hostile", kind): (strlen, strlen.prompt + body, tight) for kind, body in HOSTILE.items()}
    if os.path.exists(ESCAPED):
        os.unlink(ESCAPED)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(judge, csharp, problem, code, **limits) for key, (problem, code, limits) in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.slow
@pytest.mark.parametrize("pid", sorted(CORRECT))
def test_correct_completions_pass(verdicts, pid: str) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts[("correct", pid)]
    assert verdict.status is Status.PASSED, verdict


@pytest.mark.slow
@pytest.mark.parametrize(("pid", "body", "status"), WRONG)
def test_wrong_completions_fail_with_the_right_status(verdicts, pid: str, body: str, status: Status) -> None:  # type: ignore[no-untyped-def]
    verdict = verdicts[("wrong", pid, body)]
    assert verdict.status is status, verdict


@pytest.mark.slow
def test_a_whole_program_from_a_chat_model_is_spliced(verdicts) -> None:  # type: ignore[no-untyped-def]
    assert verdicts[("chat",)].status is Status.PASSED, verdicts[("chat",)]


def test_the_splice_keeps_helpers_and_drops_the_demo_main(csharp) -> None:  # type: ignore[no-untyped-def]
    problem = benchmark(BENCH).problems["HumanEval_23_strlen"]
    program = csharp.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith(problem.prompt.split("class Problem")[0])  # `using System.Linq;` is there already
    assert "private static bool Counts(char c)" in program and "return str.Count(Counts);" in program
    assert "Console.WriteLine(Strlen" not in program and "namespace" not in program
    assert program.count("static void Main(string[] args)") == 2  # the tests' and the entry point's


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts) -> None:  # type: ignore[no-untyped-def]
    assert verdicts[("hostile", "writes")].status is Status.PASSED and not os.path.exists(ESCAPED)
    verdict = verdicts[("hostile", "floods")]
    assert verdict.status is Status.RUNTIME_ERROR and "output limit" in verdict.message and len(verdict.stdout) <= 8000


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(csharp) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("csharp"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
