"""TypeScript on MultiPL-E (tsc, Node.js): correct programs pass, each kind of wrong one fails with the right status.

Every program of this file but the canary's is judged up front, two at a time."""

from __future__ import annotations

from assay.languages.base import Language
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec
from tests.languages.test_javascript import SPEC as JAVASCRIPT

# A module (export) with its own helpers and a demo call.
CHAT_REPLY = """/**
 * Returns the length of a string.
 */
export function strlen(string: string): number {
  return chars(string).length;
}

const chars = (s: string): string[] => Array.from(s);

console.log(strlen("abc"));
"""

def _typescript(body: str) -> str:
    """A JavaScript body as TypeScript that type-checks: node's globals through globalThis, values as any."""
    body = body.replace("process.", "(globalThis as any).process.").replace("__filename", "(globalThis as any).__assayFile")
    body = body.replace("const fs = ", "const fs: any = ").replace("(fd, s)", "(fd: any, s: any)")
    body = body.replace("return {valueOf()", "return <any>{valueOf()").replace("return 3;", "return 3 as any;")
    return body.replace(".exit(0);\n}\n", ".exit(0);\n  return 0 as any;\n}\n")


SPEC = LanguageSpec(
    language="typescript",
    bench="multipl-e/humaneval-ts",
    correct=JAVASCRIPT.correct,  # JavaScript's completions are TypeScript too
    wrong=[
        ("HumanEval_23_strlen", "  return string.length + 1;\n}\n", Status.FAILED),  # wrong answer
        ("HumanEval_8_sum_product", "  return [0, 1];\n}\n", Status.FAILED),
        ("HumanEval_23_strlen", '  return "3";\n}\n', Status.COMPILE_ERROR),  # a type error (TS2322)
        ("HumanEval_23_strlen", "  return string.length +;\n}\n", Status.COMPILE_ERROR),  # a syntax error
        ("HumanEval_23_strlen", "  let s: any = null;\n  return s.length;\n}\n", Status.RUNTIME_ERROR),  # TypeError
        ("HumanEval_8_sum_product", "  return [(numbers[numbers.length] as any).value, 1];\n}\n", Status.RUNTIME_ERROR),  # past the end
        ("HumanEval_23_strlen", "  while (true) {}\n}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '  console.log("tests passed");\n  (globalThis as any).process.exit(0);\n  return 0;\n}\n', Status.FAILED),  # early exit 0
    ],
    chat_reply=CHAT_REPLY,
    hostile_write=JAVASCRIPT.hostile_write,
    floods=("  while (true) console.log('x'.repeat(1000));\n}\n",),  # queued in memory by node: ends at its CPU limit
    flood_statuses=(Status.TIMEOUT, Status.RUNTIME_ERROR),
    flood_message=None,
    hostile={name: (pid, _typescript(body)) for name, (pid, body) in JAVASCRIPT.hostile.items()},
    hostile_status=JAVASCRIPT.hostile_status,
    prejudge=True,
    tight_write=True,
    escape_path="/var/tmp/assay-typescript-test-escaped",
    toolchain_cache=True,  # the compiler's start-up snapshot
)


def test_the_compiler_snapshot_is_used(language: Language) -> None:
    assert language.toolchain().env["ASSAY_TSC"].startswith("--snapshot-blob ")
