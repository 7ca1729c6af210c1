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

# fd 3 written with write(2), as the harness does (a FileStream cannot have it)
_WRITE = '    [System.Runtime.InteropServices.DllImport("libc")] static extern System.IntPtr write(int fd, byte[] b, System.IntPtr n);\n'
_FORGE = (
    "        for (int i = 0; i < 3; i++) { byte[] b = System.Text.Encoding.ASCII.GetBytes(i + \" v 0\\n\"); write(3, b, (System.IntPtr)b.Length); }\n"
    '        byte[] d = System.Text.Encoding.ASCII.GetBytes("done 3\\n");\n        write(3, d, (System.IntPtr)d.Length);\n'
)

# What a sample written to cheat does (each judged under tight limits; none may pass).
HOSTILE = {
    # the old marker: anything that looks like one in its own source or assembly, printed, then exit 0
    "marker from source": ("HumanEval_23_strlen", (
        "        foreach (string f in System.IO.Directory.GetFiles(\".\")) {\n"
        "            string text = System.IO.File.ReadAllText(f, System.Text.Encoding.GetEncoding(28591));\n"
        '            foreach (System.Text.RegularExpressions.Match m in System.Text.RegularExpressions.Regex.Matches(text, "ASSAY[-_A-Za-z0-9]*")) Console.WriteLine(m.Value);\n'
        "        }\n"
        "        Environment.Exit(0);\n        return 0;\n"
    )),
    # MultiPL-E's own asserts read from the program for their expected values (they are not there)
    "expected from source": ("HumanEval_23_strlen", (
        '        string src = System.IO.File.ReadAllText("Problem.cs");\n'
        '        string key = "Strlen((\\"" + str + "\\")) == (";\n'
        "        int at = src.IndexOf(key);\n"
        "        if (at >= 0) return long.Parse(src.Substring(at + key.Length, src.IndexOf('L', at + key.Length) - at - key.Length));\n"
        "        return -1;\n"
    )),
    "early exit": ("HumanEval_23_strlen", "        Environment.Exit(0);\n        return 0;\n"),
    # records of its own on fd 3 and the harness's done line, then an exit before the harness writes
    "forged records": ("HumanEval_23_strlen", "        return Forge();\n    }\n" + _WRITE + "    static long Forge() {\n" + _FORGE + "        Environment.Exit(0);\n        return 0;\n    }\n    static void Unused() {\n"),
    # the same from Problem's static constructor (it runs before the entry point is first called)
    "records from a static constructor": ("HumanEval_23_strlen", (
        "        return 0;\n    }\n" + _WRITE + "    static Problem() {\n" + _FORGE + "        Environment.Exit(0);\n    }\n    static void Unused() {\n"
    )),
    # an object that equals everything (MultiPL-E's asserts call .Equals on the result)
    "always equal": ("HumanEval_1_separate_paren_groups", (
        "        return new AlwaysEqual();\n    }\n"
        "    class AlwaysEqual : List<string> {\n"
        "        public override bool Equals(object o) { return true; }\n"
        "        public override int GetHashCode() { return 0; }\n"
        "    }\n    static void Unused() {\n"
    )),
    # Debug.Assert made harmless: the trace listeners removed, and a Debug class of its own, with a wrong answer
    "silenced asserts": ("HumanEval_23_strlen", (
        "        System.Diagnostics.Trace.Listeners.Clear();\n        return -1;\n    }\n"
        "    static class Debug { public static void Assert(bool b) { } }\n    static void Unused() {\n"
    )),
    # exits neutralised: an exit hook that writes a done line, and the run ends early
    "exit hook": ("HumanEval_23_strlen", (
        "        AppDomain.CurrentDomain.ProcessExit += (s, e) => { byte[] d = Encoding.ASCII.GetBytes(\"done 3\\n\"); write(3, d, (System.IntPtr)d.Length); };\n"
        "        Environment.Exit(0);\n        return 0;\n    }\n" + _WRITE + "    static void Unused() {\n"
    )),
    # its own entry point class: the build's -main: would pick the sample's
    "own entry class": ("HumanEval_23_strlen", (
        "        return 0;\n    }\n}\nclass AssayTestMain {\n    public static void Main(string[] args) {\n"
        '        Console.WriteLine("passed");\n    }\n}\nclass AssayUnused {\n    static void Unused() {\n'
    )),
    # a nested AssayWire (the harness's encoder) for code in Problem's subclass to find first: it "encodes" every result as 3
    "shadowed encoder": ("HumanEval_23_strlen", (
        "        return -1;\n    }\n"
        "    protected static class AssayWire {\n" + _WRITE.replace("    [", "        [") +
        "        static void W(string s) { byte[] b = Encoding.ASCII.GetBytes(s); write(3, b, (System.IntPtr)b.Length); }\n"
        '        public static void Value(int i, object v, object t) { W(i + " v 3\\n"); }\n'
        "        public static void Error(int i, Exception e) { Value(i, null, null); }\n"
        '        public static void Done(int n) { W("done " + n + "\\n"); Environment.Exit(0); }\n'
        "    }\n    static void Unused() {\n"
    )),
    # the trusted init's descriptors (its report of the run's status, the channel) taken with pidfd_getfd, and
    # the init attached with ptrace: forged data written to all it gets, then an exit with status 0
    "parent's descriptors": ("HumanEval_23_strlen", (
        "        byte[] forged = Encoding.ASCII.GetBytes(\"0 v 0\\n1 v 1\\n2 v 9\\ndone 3\\n\");\n"
        "        long parent = getppid();\n"
        "        ptrace(16, parent, System.IntPtr.Zero, System.IntPtr.Zero);  // PTRACE_ATTACH\n"
        "        long pidfd = syscall(434, parent, 0, 0);  // pidfd_open\n"
        "        for (long fd = 0; pidfd >= 0 && fd < 32; fd++) {\n"
        "            long mine = syscall(438, pidfd, fd, 0);  // pidfd_getfd\n"
        "            if (mine >= 0) write((int)mine, forged, (System.IntPtr)forged.Length);\n"
        "        }\n"
        "        Environment.Exit(0);\n        return 0;\n    }\n" + _WRITE +
        '    [System.Runtime.InteropServices.DllImport("libc")] static extern long syscall(long n, long a, long b, long c);\n'
        '    [System.Runtime.InteropServices.DllImport("libc")] static extern int getppid();\n'
        '    [System.Runtime.InteropServices.DllImport("libc")] static extern long ptrace(long request, long pid, System.IntPtr addr, System.IntPtr data);\n'
        "    static void Unused() {\n"
    )),
    # sleeps past the run's wall limit without using CPU
    "sleeps": ("HumanEval_23_strlen", "        System.Threading.Thread.Sleep(600000);\n        return str.Length;\n"),
}

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
    hostile=HOSTILE,
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED,
                    "records from a static constructor": Status.FAILED, "own entry class": Status.COMPILE_ERROR},
    # every C# problem splits into cases; 43 of MultiPL-E's 2292 calls differ from Assay's, all where MultiPL-E's
    # C# would not compile: a long[] for a List<object>, `object("blue")`, List<long>[] in a List<List<object>>,
    # unescaped quotes
    render_agreement=0.978,
)


def test_the_splice_keeps_helpers_and_drops_the_demo_main(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = language.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith(problem.prompt.split("class Problem")[0])  # `using System.Linq;` is there already
    assert "private static bool Counts(char c)" in program and "return str.Count(Counts);" in program
    assert "Console.WriteLine(Strlen" not in program and "namespace" not in program
    assert program.count("static void Main(string[] args)") == 2  # the tests' and the entry point's
