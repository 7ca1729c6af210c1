"""C# on MultiPL-E (Mono): correct programs pass, each kind of wrong one fails with the right status.

Every program of this file but the canary's is judged up front, two at a time."""

from __future__ import annotations

from assay.languages.base import Language
from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark

CHAT_REPLY = """using System;
using System.Linq;

namespace Solution
{
    public class Program
    {
        // '{' and "}" must not confuse the splice
        private static bool Counts(char c) => c != '{' || "}".Length == 1;

        public static long Strlen(string str)
        {
            return str.Count(Counts);
        }

        static void Main(string[] args)
        {
            Console.WriteLine(Strlen("abc"));
        }
    }
}
"""

SPEC = LanguageSpec(
    language="csharp",
    bench="multipl-e/humaneval-cs",
    correct={
        "HumanEval_0_has_close_elements": (
            "        for (int i = 0; i < numbers.Count; i++)\n            for (int j = 0; j < numbers.Count; j++)\n"
            "                if (i != j && Math.Abs(numbers[i] - numbers[j]) < threshold) return true;\n        return false;\n"
        ),
        "HumanEval_8_sum_product": (
            "        long sum = 0, product = 1;\n        foreach (long n in numbers) { sum += n; product *= n; }\n        return Tuple.Create(sum, product);\n"
        ),
        "HumanEval_13_greatest_common_divisor": "        while (b != 0) { long t = a % b; a = b; b = t; }\n        return a;\n",
        "HumanEval_23_strlen": "        return str.Length;\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "        return str.Length + 1;\n", Status.FAILED),  # wrong answer (a Debug.Assert fails)
        ("HumanEval_8_sum_product", "        return Tuple.Create(0L, 1L);\n", Status.FAILED),
        ("HumanEval_23_strlen", "        return str.Size();\n", Status.COMPILE_ERROR),  # no such method
        ("HumanEval_23_strlen", "        string s = null;\n        return s.Length;\n", Status.RUNTIME_ERROR),  # NullReferenceException
        ("HumanEval_8_sum_product", "        return Tuple.Create(numbers[numbers.Count], 1L);\n", Status.RUNTIME_ERROR),  # index out of range
        ("HumanEval_23_strlen", "        while (true) {}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '        Console.WriteLine("tests passed");\n        Environment.Exit(0);\n        return 0;\n', Status.FAILED),  # early exit 0
    ],
    chat_reply=CHAT_REPLY,  # spliced into the prompt's class
    hostile_write=lambda target: f'        try {{ System.IO.File.WriteAllText("{target}", "x"); }} catch (Exception) {{ }}\n        return str.Length;\n',
    floods=("        while (true) Console.WriteLine(new string('x', 1000));\n",),
    prejudge=True,
    tight_write=True,
    escape_path="/var/tmp/assay-csharp-test-escaped",
)


def test_the_splice_keeps_helpers_and_drops_the_demo_main(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = language.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith(problem.prompt.split("class Problem")[0])  # `using System.Linq;` is there already
    assert "private static bool Counts(char c)" in program and "return str.Count(Counts);" in program
    assert "Console.WriteLine(Strlen" not in program and "namespace" not in program
    assert program.count("static void Main(string[] args)") == 2  # the tests' and the entry point's
