"""TypeScript on MultiPL-E (tsc, Node.js): correct programs pass, each kind of wrong one fails with the right status.

Every program of this file but the canary's is judged up front, two at a time."""

from __future__ import annotations

import json

from assay.languages.base import Language
from assay.languages.typescript import TypeScript
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark, language_or_skip
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


def test_the_case_harness_is_a_module_written_once_and_inline_when_turned_off(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A case program holds the sample and its calls (type-checked, as in the tests), which it hands to
    the harness module; with the module turned off the harness is in the program, and judges the same."""
    from assay.execution import Executor
    from assay.sandbox import get_sandbox

    language_or_skip("typescript")
    bench = benchmark(SPEC.bench)
    problem = bench.problems["HumanEval_23_strlen"]
    samples = {
        problem.prompt + "  return string.length;\n}\n": Status.PASSED,
        problem.prompt + "  return string.length + 1;\n}\n": Status.FAILED,
        problem.prompt + '  return "3";\n}\n': Status.COMPILE_ERROR,  # a type error in the sample
        "function strlen(n: number): number {\n  return n;\n}\n": Status.COMPILE_ERROR,  # the calls' strings do not type-check
        problem.prompt + "  let s: any = null;\n  return s.length;\n}\n": Status.RUNTIME_ERROR,
    }
    module = TypeScript.toolchain().env["ASSAY_TS_HARNESS"]
    assert module.endswith("/harness.js") and any(module.startswith(b + "/") for b in TypeScript.toolchain().ro_binds)
    text = TypeScript().case_files(problem, next(iter(samples)), ['candidate("ab")'])["main.ts"].decode()
    assert f"require({json.dumps(module)})(" in text and 'assayCase(0, () => (candidate("ab")));' in text
    assert "function assayEnc" not in text

    def judged() -> dict[str, Status]:
        executor = Executor(get_sandbox(ro_binds=TypeScript.toolchain().ro_binds), bench, workers=2)
        verdicts = {code: executor.judge(problem, code) for code in samples}
        assert 'candidate(""): expected 0, got 1' in verdicts[list(samples)[1]].message  # judged as cases
        assert "TS2345" in verdicts[list(samples)[3]].tests[0].message  # a call's argument type-checked against the sample
        return {code: v.status for code, v in verdicts.items()}

    assert judged() == samples
    monkeypatch.setenv("ASSAY_TS_HARNESS_MODULE", "0")
    TypeScript.toolchain.cache_clear()
    try:
        assert "ASSAY_TS_HARNESS" not in TypeScript.toolchain().env
        assert "function assayEnc" in TypeScript().case_files(problem, next(iter(samples)), ['candidate("ab")'])["main.ts"].decode()
        assert judged() == samples
    finally:
        TypeScript.toolchain.cache_clear()


def test_a_harness_module_that_does_not_run_is_not_used(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The module is run once before it is used; where it writes no records, cases keep the harness inline."""
    from assay.languages import typescript

    language_or_skip("typescript")
    node, version = TypeScript.toolchain().tools["node"], TypeScript.toolchain().version
    assert TypeScript._harness_module(node, version) is not None
    monkeypatch.setattr(typescript, "HARNESS_MODULE", "module.exports = () => { process.exit(0); };\n")
    assert TypeScript._harness_module(node, version) is None
