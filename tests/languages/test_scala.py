"""Scala on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

scalac takes about 4 s of CPU per program, so this file judges one program per kind of verdict, all
up front and two at a time, and its canary samples 4 problems."""

from __future__ import annotations

from assay.languages.base import Language
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark

CHAT_REPLY = """import scala.collection.mutable.ListBuffer

case class Counter(n: Long)

object Main {
  // counts characters; '{' and "}" must not confuse the splice
  private def count(s: String): Long = s.foldLeft(Counter(0))((c, ch) => if (ch != '{' || "}".nonEmpty) Counter(c.n + 1) else c).n

  def strlen(string: String): Long = count(string)

  def main(args: Array[String]): Unit = println(strlen("abc"))
}
"""

SPEC = LanguageSpec(
    language="scala",
    bench="multipl-e/humaneval-scala",
    correct={
        "HumanEval_0_has_close_elements": (
            "        numbers.indices.exists(i => numbers.indices.exists(j => i != j && abs(numbers(i) - numbers(j)) < threshold))\n"
        ),
        "HumanEval_8_sum_product": "        (numbers.sum, numbers.product)\n",
        "HumanEval_13_greatest_common_divisor": "        if (b == 0) a else greatestCommonDivisor(b, a % b)\n",
        "HumanEval_23_strlen": "        string.length\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "        string.length + 1\n", Status.FAILED),  # wrong answer
        ("HumanEval_23_strlen", "        string.lenght\n", Status.COMPILE_ERROR),  # no such member
        ("HumanEval_8_sum_product", "        (numbers(numbers.length), 1l)\n", Status.RUNTIME_ERROR),  # index out of range
        ("HumanEval_23_strlen", "        while (true) {}\n        0l\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '        println("tests passed")\n        sys.exit(0)\n', Status.FAILED),  # early exit 0
    ],
    chat_reply=CHAT_REPLY,  # spliced into the prompt's object
    hostile_write=lambda target: (
        f'        try {{ java.nio.file.Files.write(java.nio.file.Paths.get("{target}"), "x".getBytes) }} catch {{ case _ : Throwable => }}\n'
        "        string.length\n"
    ),
    floods=('        while (true) println("x" * 1000)\n        0l\n',),
    prejudge=True,
    tight_write=True,
    escape_path="/var/tmp/assay-scala-test-escaped",
    toolchain_cache=True,  # scalac's CDS archive
    canary_ids=4,
)


def test_the_splice_keeps_helpers_and_drops_the_demo_main(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = language.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith("import scala.collection.mutable.ListBuffer\n" + problem.prompt.split("object Problem")[0])
    assert "private def count(s: String)" in program and "def strlen(string: String): Long = count(string)" in program
    assert "case class Counter(n: Long)" in program.split("object AssayTestMain")[1]
    assert 'println(strlen("abc"))' not in program and "object Main" not in program
    assert program.count("def main(args: Array[String])") == 2  # the tests' and the runner's
