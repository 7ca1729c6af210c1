"""JavaScript on MultiPL-E (Node.js): correct programs pass, each kind of wrong one fails with the right status.

Every program of this file but the canary's is judged up front, two at a time."""

from __future__ import annotations

import pytest

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, Verdicts

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

SPEC = LanguageSpec(
    language="javascript",
    bench="multipl-e/humaneval-js",
    correct={
        "HumanEval_0_has_close_elements": (
            "  for (let i = 0; i < numbers.length; i++)\n    for (let j = 0; j < numbers.length; j++)\n"
            "      if (i !== j && Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n  return false;\n}\n"
        ),
        "HumanEval_8_sum_product": "  return [numbers.reduce((a, b) => a + b, 0), numbers.reduce((a, b) => a * b, 1)];\n}\n",
        "HumanEval_13_greatest_common_divisor": "  while (b) { [a, b] = [b, a % b]; }\n  return a;\n}\n",
        "HumanEval_23_strlen": "  return string.length;\n}\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "  return string.length + 1;\n}\n", Status.FAILED),  # wrong answer
        ("HumanEval_8_sum_product", "  return [0, 1];\n}\n", Status.FAILED),
        ("HumanEval_23_strlen", "  return string.length +;\n}\n", Status.COMPILE_ERROR),  # syntax error
        ("HumanEval_23_strlen", "  return lenght(string);\n}\n", Status.RUNTIME_ERROR),  # ReferenceError
        ("HumanEval_8_sum_product", "  return [numbers[numbers.length].value, 1];\n}\n", Status.RUNTIME_ERROR),  # past the end: TypeError
        ("HumanEval_23_strlen", '  throw "not an Error";\n}\n', Status.RUNTIME_ERROR),
        ("HumanEval_23_strlen", "  while (true) {}\n}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '  console.log("tests passed");\n  process.exit(0);\n}\n', Status.FAILED),  # early exit 0
    ],
    chat_reply=CHAT_REPLY,
    hostile_write=lambda target: f"  try {{ require('fs').writeFileSync({str(target)!r}, 'x'); }} catch (e) {{}}\n  return string.length;\n}}\n",
    # Node makes a stdout pipe non-blocking: once it is full, console.log queues in memory (the run
    # ends at its CPU limit) and fs.writeSync throws EAGAIN (an exception): floods end either way.
    floods=(
        "  while (true) console.log('x'.repeat(1000));\n}\n",
        "  while (true) require('fs').writeSync(1, 'x'.repeat(1000) + '\\n');\n}\n",
    ),
    flood_statuses=(Status.TIMEOUT, Status.RUNTIME_ERROR),
    flood_message=None,
    extra={"allocates": (STRLEN, "  const big = new Array(20000000).fill(1.5);\n  return big.length - 20000000 + string.length;\n}\n", False)},  # the memory limit is the point: default CPU
    hostile={
        # exit 0 before the harness runs: no records
        "early exit": ("HumanEval_23_strlen", "  process.exit(0);\n}\n"),
        # records of its own on fd 3, every case "right" as far as it can guess, then the harness's done line
        "forged records": ("HumanEval_23_strlen",
                           "  const fs = require('fs');\n  for (let i = 0; i < 3; i++) fs.writeSync(3, i + ' v 3\\n');\n"
                           "  fs.writeSync(3, 'done 3\\n');\n  process.exit(0);\n}\n"),
        # the harness's writes swallowed, then a forged final line
        "silenced channel": ("HumanEval_23_strlen",
                             "  const fs = require('fs');\n  const w = fs.writeSync;\n  fs.writeSync = (fd, s) => fd === 3 ? 0 : w(fd, s);\n"
                             "  process.on('exit', () => w(3, 'done 3\\n'));\n  return 3;\n}\n"),
        # an object that equals everything, and node:assert made to agree with anything
        "always equal": ("HumanEval_23_strlen",
                         "  require('node:assert').deepEqual = () => {};\n"
                         "  return {valueOf() { return 0; }, toString() { return '0'; }, toJSON() { return 0; }};\n}\n"),
        # process.exit stubbed, so a failing harness could not report
        "stubbed exit": ("HumanEval_23_strlen", "  process.exit = () => {};\n  return -1;\n}\n"),
        # reading its own source for anything that looks like a secret, and printing it
        "marker from source": ("HumanEval_23_strlen",
                               "  const src = require('fs').readFileSync(__filename, 'utf8');\n"
                               "  for (const m of src.match(/ASSAY[-_A-Z0-9a-f]*/g) || []) console.log(m);\n  process.exit(0);\n}\n"),
        # sleeps past the run's wall limit without using CPU
        "sleeps": ("HumanEval_23_strlen", "  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600000);\n  return string.length;\n}\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED},
    program_judged={"HumanEval_51_remove_vowels": "could not be split"},
    prejudge=True,
    tight_write=True,
    escape_path="/var/tmp/assay-javascript-test-escaped",
)


@pytest.mark.slow
def test_a_large_allocation_fits(verdicts: Verdicts) -> None:
    assert verdicts["allocates"].status is Status.PASSED, verdicts["allocates"]  # 160 MB fits the memory limit
