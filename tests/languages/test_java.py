"""Java on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program of this file but the canary's is judged up front, two at a time (javac is the slow part).
"""

from __future__ import annotations

from assay.languages.base import Language
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark

CORRECT = {
    "HumanEval_0_has_close_elements": (
        "        for (int i = 0; i < numbers.size(); i++)\n            for (int j = 0; j < numbers.size(); j++)\n"
        "                if (i != j && Math.abs(numbers.get(i) - numbers.get(j)) < threshold) return true;\n        return false;\n"
    ),
    "HumanEval_8_sum_product": (  # org.javatuples.Pair: Assay's compatible implementation
        "        long sum = 0, product = 1;\n        for (long n : numbers) { sum += n; product *= n; }\n        return Pair.with(sum, product);\n"
    ),
    "HumanEval_13_greatest_common_divisor": "        while (b != 0) { long t = a % b; a = b; b = t; }\n        return a;\n",
    "HumanEval_23_strlen": "        return string.length();\n",
}

CHAT_REPLY = """import java.util.*;
import java.util.function.Function;

public class Main {
    // counts characters; '{' and "}" must not confuse the splice
    private static boolean counts(char c) { return c != '{' || "}".length() == 1; }

    public static long strlen(String s)
    {
        long n = 0;
        for (char c : s.toCharArray()) if (counts(c)) n++;
        return n;
    }

    public static void main(String[] args) {
        System.out.println(strlen("abc")); // 3
    }
}

class Unused { static int x = 1; }
"""

SPEC = LanguageSpec(
    language="java",
    bench="multipl-e/humaneval-java",
    correct=CORRECT,
    wrong=[
        ("HumanEval_23_strlen", "        return string.length() + 1;\n", Status.FAILED),  # wrong answer
        ("HumanEval_8_sum_product", "        return Pair.with(0l, 1l);\n", Status.FAILED),
        ("HumanEval_23_strlen", "        return string.size();\n", Status.COMPILE_ERROR),  # no such method
        ("HumanEval_23_strlen", "        String s = null;\n        return s.length();\n", Status.RUNTIME_ERROR),  # NullPointerException
        ("HumanEval_8_sum_product", "        return Pair.with(numbers.get(numbers.size()), 1l);\n", Status.RUNTIME_ERROR),  # index out of range
        ("HumanEval_23_strlen", "        while (true) {}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '        System.out.println("tests passed");\n        System.exit(0);\n        return 0;\n', Status.FAILED),  # early exit 0
    ],
    chat_reply=CHAT_REPLY,  # spliced into the prompt's class
    hostile_write=lambda target: (
        f'        try {{ java.nio.file.Files.writeString(java.nio.file.Path.of("{target}"), "x"); }} catch (Exception e) {{ }}\n'
        "        return string.length();\n"
    ),
    floods=('        while (true) System.out.println("x".repeat(1000));\n',),
    prejudge=True,
    toolchain_cache=True,  # javatuples and javac's CDS archive
)


def test_the_splice_keeps_helpers_and_drops_the_demo_main(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = language.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith("import java.util.function.Function;\n" + problem.prompt.split("class Problem")[0])
    assert "private static boolean counts(char c)" in program and "class Unused" in program
    assert 'System.out.println(strlen("abc"))' not in program and "public class" not in program
    assert program.count("public static void main") == 2 and program.rstrip().endswith("}")  # the tests' and the runner's
    assert language.program(problem, problem.prompt + CORRECT["HumanEval_23_strlen"], "MARK").startswith(problem.prompt + CORRECT["HumanEval_23_strlen"])
