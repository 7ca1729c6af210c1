"""JavaScript on MultiPL-E (Node.js): correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.canary import run_canary
from assay.problems import Status
from tests.languages._common import benchmark, judge, language_or_skip, sandbox_for

BENCH = "multipl-e/humaneval-js"
ESCAPED = "/var/tmp/assay-javascript-test-escaped"

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "  for (let i = 0; i < numbers.length; i++)\n    for (let j = 0; j < numbers.length; j++)\n"
        "      if (i !== j && Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n  return false;\n}\n"
    ),
    "HumanEval_8_sum_product": "  return [numbers.reduce((a, b) => a + b, 0), numbers.reduce((a, b) => a * b, 1)];\n}\n",
    "HumanEval_13_greatest_common_divisor": "  while (b) { [a, b] = [b, a % b]; }\n  return a;\n}\n",
    "HumanEval_23_strlen": "  return string.length;\n}\n",
}

WRONG = [
    ("HumanEval_23_strlen", "  return string.length + 1;\n}\n", Status.FAILED),  # wrong answer
    ("HumanEval_8_sum_product", "  return [0, 1];\n}\n", Status.FAILED),
    ("HumanEval_23_strlen", "  return string.length +;\n}\n", Status.COMPILE_ERROR),  # syntax error
    ("HumanEval_23_strlen", "  return lenght(string);\n}\n", Status.RUNTIME_ERROR),  # ReferenceError
    ("HumanEval_8_sum_product", "  return [numbers[numbers.length].value, 1];\n}\n", Status.RUNTIME_ERROR),  # past the end: TypeError
    ("HumanEval_23_strlen", '  throw "not an Error";\n}\n', Status.RUNTIME_ERROR),
    ("HumanEval_23_strlen", "  while (true) {}\n}\n", Status.TIMEOUT),
    ("HumanEval_23_strlen", '  console.log("tests passed");\n  process.exit(0);\n}\n', Status.FAILED),  # early exit 0
]

# Its own `assert` and `test` would clash with the tests' were they not in a block of their own.
CHAT_REPLY = """const assert = require('assert');

/**
 * Returns the length of a string.
 */
export function strlen(string) {
  return [...string].length;
}

function test() { assert.strictEqual(strlen("abc"), 3); }
test();
console.log(strlen("abc"));
"""

HOSTILE = {
    "writes": f"  try {{ require('fs').writeFileSync({ESCAPED!r}, 'x'); }} catch (e) {{}}\n  return string.length;\n}}\n",
    # Node makes a stdout pipe non-blocking: once it is full, console.log queues in memory (the run
    # ends at its CPU limit) and fs.writeSync throws EAGAIN (an exception): floods end either way.
    "floods": "  while (true) console.log('x'.repeat(1000));\n}\n",
    "writes_sync": "  while (true) require('fs').writeSync(1, 'x'.repeat(1000) + '\\n');\n}\n",
    "allocates": "  const big = new Array(20000000).fill(1.5);\n  return big.length - 20000000 + string.length;\n}\n",  # 160 MB: fits
}


@pytest.fixture(scope="module")
def javascript():  # type: ignore[no-untyped-def]
    return language_or_skip("javascript")


@pytest.fixture(scope="module")
def verdicts(javascript):  # type: ignore[no-untyped-def]
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
        futures = {key: pool.submit(judge, javascript, problem, code, **limits) for key, (problem, code, limits) in jobs.items()}
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
def test_a_whole_program_from_a_chat_model_passes(verdicts) -> None:  # type: ignore[no-untyped-def]
    assert verdicts[("chat",)].status is Status.PASSED, verdicts[("chat",)]


@pytest.mark.slow
def test_hostile_programs_are_contained(verdicts) -> None:  # type: ignore[no-untyped-def]
    assert verdicts[("hostile", "writes")].status is Status.PASSED and not os.path.exists(ESCAPED)
    for flood in ("floods", "writes_sync"):
        verdict = verdicts[("hostile", flood)]
        assert verdict.status in (Status.TIMEOUT, Status.RUNTIME_ERROR) and len(verdict.stdout) <= 8000, verdict
    assert verdicts[("hostile", "allocates")].status is Status.PASSED, verdicts[("hostile", "allocates")]


@pytest.mark.slow
def test_canary_builds_every_sampled_problem_with_a_stub(javascript) -> None:  # type: ignore[no-untyped-def]
    bench = benchmark(BENCH)
    ids = list(bench.problems)[:6]
    result = run_canary(bench, sandbox_for("javascript"), workers=2, task_ids=ids)
    assert not result.broken, {k: v.message for k, v in result.broken.items()}
    assert not result.stub_passes
    assert all(v.status is Status.RUNTIME_ERROR for v in result.verdicts.values())
