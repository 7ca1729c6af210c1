"""Swift on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

SPEC = LanguageSpec(
    language="swift",
    bench="multipl-e/humaneval-swift",
    correct={
        "HumanEval_0_has_close_elements": (
            "    for i in 0..<numbers.count {\n        for j in 0..<numbers.count where i != j {\n"
            "            if abs(numbers[i] - numbers[j]) < threshold { return true }\n        }\n    }\n    return false\n"
        ),
        "HumanEval_13_greatest_common_divisor": "    var (a, b) = (a, b)\n    while b != 0 { (a, b) = (b, a % b) }\n    return a\n",
        "HumanEval_23_strlen": "    return string.count\n",
        "HumanEval_30_get_positive": "    return l.filter { $0 > 0 }\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "    return string.count + 1\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    return l.filter { $0 >= 0 }\n", Status.FAILED),
        ("HumanEval_23_strlen", "    return string.length\n", Status.COMPILE_ERROR),  # no such member
        ("HumanEval_13_greatest_common_divisor", "    let x: Int? = nil\n    return x! + a\n", Status.RUNTIME_ERROR),  # nil unwrap traps
        ("HumanEval_30_get_positive", "    return [l[l.count]]\n", Status.RUNTIME_ERROR),  # index out of range
        ("HumanEval_23_strlen", "    while true {}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    print("tests passed")\n    exit(0)\n', Status.FAILED),  # early exit with status 0
    ],
    # Its function is spliced in; its demo call is dropped.
    chat_reply='import Foundation\n\n/// Length\nfunc strlen(string: String) -> Int {\n    return string.count\n}\n\nprint(strlen(string: "abc"))\n',
    # Glibc's fopen (the tests import Glibc): String.write needs Foundation, whose import a splice would drop.
    hostile_write=lambda target: f'    if let f = fopen("{target}", "w") {{ fputs("x", f); fclose(f) }}\n    return string.count\n',
    floods=('    while true { print(String(repeating: "x", count: 1000)) }\n',),
)
