"""A crashed run's verdict keeps the language's own error line, not the tail of a crash dump."""

from __future__ import annotations

import pytest

from assay.languages.base import error_line
from assay.problems import Status
from tests.languages._common import benchmark, language_or_skip

SWIFT_DUMP = """Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range

*** Signal 4: Backtracing from 0x7f8ee70f9361... done ***

*** Program crashed: Illegal instruction at 0x00007f8ee70f9361 ***

Thread 0 "main" crashed:
  0      0x00007f8ee70f9361 _assertionFailure(_:_:file:line:flags:) + 225 in libswiftCore.so
"""


@pytest.mark.parametrize(("text", "line"), [
    (SWIFT_DUMP, "Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range"),
    ("\nthread 'main' panicked at main.rs:3:5:\nindex out of bounds: the len is 1 but the index is 5\nnote: run with `RUST_BACKTRACE=1`\n",
     "thread 'main' panicked at main.rs:3:5: index out of bounds: the len is 1 but the index is 5"),
    ("panic: runtime error: index out of range [5] with length 1\n\ngoroutine 1 [running]:\nmain.f(...)\n", "panic: runtime error: index out of range [5] with length 1"),
    ('Exception in thread "main" java.lang.ArithmeticException: / by zero\n\tat Problem.f(Problem.java:5)\n',
     'Exception in thread "main" java.lang.ArithmeticException: / by zero'),
    ('Traceback (most recent call last):\n  File "main.py", line 3, in <module>\n    1 / 0\nZeroDivisionError: division by zero\n',
     "ZeroDivisionError: division by zero"),
    ("all good\n", ""),
])
def test_the_error_line_of_each_language(text: str, line: str) -> None:
    assert error_line("", text) == line


@pytest.mark.slow
def test_a_swift_crash_says_fatal_error_in_its_verdict() -> None:
    from assay.execution import Executor
    from assay.sandbox import get_sandbox

    swift = language_or_skip("swift")
    bench = benchmark("multipl-e/humaneval-swift")
    problem = bench.problems["HumanEval_23_strlen"]
    verdict = Executor(get_sandbox(ro_binds=swift.toolchain().ro_binds), bench, workers=1).judge(
        problem, problem.prompt + "    let a = [1]\n    return a[string.count + 5]\n")
    assert verdict.status is Status.RUNTIME_ERROR
    assert "Fatal error: Index out of range" in verdict.message, verdict.message
