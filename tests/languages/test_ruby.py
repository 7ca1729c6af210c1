"""Ruby on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

SPEC = LanguageSpec(
    language="ruby",
    bench="multipl-e/humaneval-rb",
    correct={
        "HumanEval_0_has_close_elements": "  numbers.combination(2).any? { |a, b| (a - b).abs < threshold }\nend\n",
        "HumanEval_13_greatest_common_divisor": "  a.gcd(b)\nend\n",
        "HumanEval_23_strlen": "  string.length\nend\n",
        "HumanEval_30_get_positive": "  l.select { |x| x > 0 }\nend\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "  string.length + 1\nend\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "  l.select { |x| x >= 0 }\nend\n", Status.FAILED),
        ("HumanEval_23_strlen", "  string.length\n", Status.COMPILE_ERROR),  # missing `end`
        ("HumanEval_23_strlen", "  nil.length\nend\n", Status.RUNTIME_ERROR),  # NoMethodError on nil
        ("HumanEval_30_get_positive", "  l.fetch(l.length)\nend\n", Status.RUNTIME_ERROR),  # IndexError
        ("HumanEval_23_strlen", "  loop {}\nend\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '  puts "tests passed"\n  exit 0\nend\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply="# Length of a string\ndef strlen(string)\n  string.length\nend\n\nif __FILE__ == $0\n  puts strlen('abc')\nend\n",
    hostile_write=lambda target: f'  File.write("{target}", "x") rescue nil\n  string.length\nend\n',
    floods=('  loop { puts "x" * 1000 }\nend\n',),
)
