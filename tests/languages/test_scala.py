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

# fd 3 made by number, the way the harness does (the run's JVM opens java.io to the class path)
_CHANNEL = (
    "        val fd = new java.io.FileDescriptor()\n"
    '        val f = classOf[java.io.FileDescriptor].getDeclaredField("fd")\n'
    "        f.setAccessible(true)\n        f.setInt(fd, 3)\n"
    "        val out = new java.io.FileOutputStream(fd)\n"
)
_FORGE = '        for (i <- 0 until 3) out.write((i + " v 0\\n").getBytes)\n        out.write("done 3\\n".getBytes)\n'

# What a sample written to cheat does (each judged under tight limits; none may pass). Few: scalac is slow.
HOSTILE = {
    # the old marker: anything that looks like one in its own source or class files, printed, then exit 0
    "marker from source": ("HumanEval_23_strlen", (
        '        for (f <- new java.io.File(".").listFiles ++ Option(new java.io.File("classes").listFiles).getOrElse(Array()) if f.isFile) {\n'
        '            val text = new String(java.nio.file.Files.readAllBytes(f.toPath), "ISO-8859-1")\n'
        '            for (m <- "ASSAY[-_A-Za-z0-9]*".r.findAllIn(text)) println(m)\n'
        "        }\n"
        "        sys.exit(0)\n"
    )),
    # records of its own on fd 3 and the harness's done line, then a halt before the harness writes
    "forged records": ("HumanEval_23_strlen", _CHANNEL + _FORGE + "        Runtime.getRuntime.halt(0)\n        0l\n"),
    # the same from object Problem's initializer (it runs before the entry point's first call)
    "records from an initializer": ("HumanEval_23_strlen", (
        "        0l\n    }\n    private val forged = {\n" + _CHANNEL + _FORGE + "        Runtime.getRuntime.halt(0)\n    }\n"
        "    def unused() : Unit = {\n"
    )),
    # MultiPL-E's assert replaced by an overload in Problem that holds for anything, and a wrong answer
    "assert overload": ("HumanEval_23_strlen", (
        "        -1l\n    }\n    def assert(b : Boolean) : Unit = ()\n    def unused() : Unit = {\n"
    )),
    "early exit": ("HumanEval_23_strlen", "        sys.exit(0)\n"),
    # its own AssayWire (the harness's encoder) nested in Problem, where the case methods find it first: it "encodes" every result as 3
    "own encoder": ("HumanEval_23_strlen", (
        "        -1l\n    }\n    object AssayWire {\n        private var out : java.io.FileOutputStream = null\n"
        "        def open() : Unit = {\n" + _CHANNEL.replace("val out", "out") + "        }\n"
        '        def value(i : Int, v : Any, t : AnyRef) : Unit = out.write((i + " v 3\\n").getBytes)\n'
        "        def error(i : Int, e : Throwable) : Unit = value(i, null, null)\n"
        '        def done(n : Int) : Unit = { out.write(("done " + n + "\\n").getBytes); Runtime.getRuntime.halt(0) }\n'
        "    }\n    def unused() : Unit = {\n"
    )),
    # sleeps past the run's wall limit without using CPU
    "sleeps": ("HumanEval_23_strlen", "        Thread.sleep(600000)\n        string.length\n"),
}

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
    hostile=HOSTILE,
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED,
                    "records from an initializer": Status.FAILED},
    # every Scala problem splits into cases; 47 of MultiPL-E's 2349 calls differ from Assay's, all where MultiPL-E's
    # Scala would not compile: bare values in a List of Either (Assay writes Left/Right), `Any("blue")`,
    # None in a Map[String,String], unescaped quotes
    render_agreement=0.975,
)


def test_the_splice_keeps_helpers_and_drops_the_demo_main(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = language.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith("import scala.collection.mutable.ListBuffer\n" + problem.prompt.split("object Problem")[0])
    assert "private def count(s: String)" in program and "def strlen(string: String): Long = count(string)" in program
    assert "case class Counter(n: Long)" in program.split("object AssayTestMain")[1]
    assert 'println(strlen("abc"))' not in program and "object Main" not in program
    assert program.count("def main(args: Array[String])") == 2  # the tests' and the runner's
