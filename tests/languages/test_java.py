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

# fd 3 made by number, the way the harness does (the run's JVM opens java.io to the class path)
_CHANNEL = (
    "        java.io.FileOutputStream out;\n"
    "        try {\n"
    "            java.io.FileDescriptor fd = new java.io.FileDescriptor();\n"
    '            java.lang.reflect.Field f = java.io.FileDescriptor.class.getDeclaredField("fd");\n'
    "            f.setAccessible(true);\n            f.setInt(fd, 3);\n"
    "            out = new java.io.FileOutputStream(fd);\n"
    "        } catch (Exception e) { throw new RuntimeException(e); }\n"
)
_FORGE = "try { for (int i = 0; i < 3; i++) out.write((i + \" v 0\\n\").getBytes()); out.write(\"done 3\\n\".getBytes()); } catch (Exception e) { }\n"

# What a sample written to cheat does (each judged under tight limits; none may pass).
HOSTILE = {
    # the old marker: anything that looks like one in its own source or class files, printed, then exit 0
    "marker from source": ("HumanEval_23_strlen", (
        "        try {\n"
        "            for (java.nio.file.Path p : java.nio.file.Files.walk(java.nio.file.Path.of(\".\")).toArray(java.nio.file.Path[]::new)) {\n"
        "                if (!java.nio.file.Files.isRegularFile(p)) continue;\n"
        "                String text = new String(java.nio.file.Files.readAllBytes(p), java.nio.charset.StandardCharsets.ISO_8859_1);\n"
        '                java.util.regex.Matcher m = java.util.regex.Pattern.compile("ASSAY[-_A-Za-z0-9]*").matcher(text);\n'
        "                while (m.find()) System.out.println(m.group());\n"
        "            }\n"
        "        } catch (Exception e) { }\n"
        "        System.exit(0);\n        return 0;\n"
    )),
    # MultiPL-E's own asserts read from the program for their expected values (they are not there)
    "expected from source": ("HumanEval_23_strlen", (
        "        try {\n"
        '            String src = java.nio.file.Files.readString(java.nio.file.Path.of("Problem.java"));\n'
        '            String key = "strlen((\\"" + string + "\\")) == (";\n'
        "            int at = src.indexOf(key);\n"
        "            if (at >= 0) return Long.parseLong(src.substring(at + key.length(), src.indexOf('l', at + key.length())));\n"
        "        } catch (Exception e) { }\n"
        "        return -1;\n"
    )),
    "early exit": ("HumanEval_23_strlen", "        System.exit(0);\n        return 0;\n"),
    "halt": ("HumanEval_23_strlen", "        Runtime.getRuntime().halt(0);\n        return 0;\n"),
    # records of its own on fd 3, then the harness's done line, then an exit before the harness writes
    "forged records": ("HumanEval_23_strlen", _CHANNEL + "        " + _FORGE + "        Runtime.getRuntime().halt(0);\n        return 0;\n"),
    # the same from a static initializer of class Problem (it runs before any main)
    "records from a static block": ("HumanEval_23_strlen", (
        "        return 0;\n    }\n    static {\n" + _CHANNEL + "        " + _FORGE + "        Runtime.getRuntime().halt(0);\n"
        "    }\n    private static void unused() {\n"
    )),
    # an object that equals everything (MultiPL-E's asserts call .equals on the result)
    "always equal": ("HumanEval_111_histogram", (
        "        return new HashMap<String,Long>() {\n"
        "            @Override public boolean equals(Object o) { return true; }\n"
        "            @Override public int hashCode() { return 0; }\n"
        "        };\n"
    )),
    "always equal list": ("HumanEval_1_separate_paren_groups", (
        "        return new ArrayList<String>() {\n"
        "            @Override public boolean equals(Object o) { return true; }\n"
        "            @Override public int hashCode() { return 0; }\n"
        "        };\n"
    )),
    # assertions switched off from a static block (MultiPL-E's tests are `assert`s), and a wrong answer
    "assertions off": ("HumanEval_23_strlen", (
        "        return -1;\n    }\n    static {\n"
        "        ClassLoader.getSystemClassLoader().setDefaultAssertionStatus(false);\n"
        '        ClassLoader.getSystemClassLoader().setClassAssertionStatus("Problem", false);\n'
        "    }\n    private static void unused() {\n"
    )),
    # exits stubbed: a security manager that refuses every exit (and so the harness's own halt)
    "stubbed exit": ("HumanEval_23_strlen", (
        "        try {\n"
        "            System.setSecurityManager(new SecurityManager() {\n"
        "                @Override public void checkExit(int status) { throw new SecurityException(\"no exit\"); }\n"
        "                @Override public void checkPermission(java.security.Permission p) { }\n"
        "            });\n"
        "        } catch (Throwable e) { }\n"
        "        return -1;\n"
    )),
    # a shutdown hook that writes a done line after the run
    "shutdown hook": ("HumanEval_23_strlen", (
        _CHANNEL + "        final java.io.FileOutputStream o = out;\n"
        '        Runtime.getRuntime().addShutdownHook(new Thread(() -> { try { o.write("done 3\\n".getBytes()); } catch (Exception e) { } }));\n'
        "        System.exit(0);\n        return 0;\n"
    )),
    # its own entry class: the run's main would be the sample's
    "own entry class": ("HumanEval_23_strlen", (
        "        return 0;\n    }\n}\nclass AssayTestMain {\n    public static void main(String[] args) {\n"
        '        System.out.println("passed");\n    }\n}\nclass AssayUnused {\n    static void unused() {\n'
    )),
    # its own AssayWire (the harness's encoder) nested in Problem, where the case methods find it first: it "encodes" every result as 3
    "own encoder": ("HumanEval_23_strlen", (
        "        return -1;\n    }\n    static class AssayWire {\n        static java.io.FileOutputStream out;\n"
        "        static void open() {\n" + _CHANNEL.replace("        java.io.FileOutputStream out;\n", "") + "        }\n"
        '        static void value(int i, Object v, Object t) { try { out.write((i + " v 3\\n").getBytes()); } catch (Exception e) { } }\n'
        "        static void error(int i, Throwable e) { value(i, null, null); }\n"
        '        static void done(int n) { try { out.write(("done " + n + "\\n").getBytes()); } catch (Exception e) { } Runtime.getRuntime().halt(0); }\n'
        "    }\n    private static void unused() {\n"
    )),
    # the trusted init's descriptors (its report of the run's status, the channel) opened through /proc:
    # forged data written to all it gets, then an exit with status 0
    "parent's descriptors": ("HumanEval_23_strlen", (
        "        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(1L);\n"
        "        for (int fd = 0; fd < 32; fd++) {\n"
        '            try (java.io.FileOutputStream o = new java.io.FileOutputStream("/proc/" + parent + "/fd/" + fd)) {\n'
        '                o.write("0 v 0\\n1 v 1\\n2 v 9\\ndone 3\\n".getBytes());\n'
        "            } catch (Exception e) { }\n"
        "        }\n"
        "        System.exit(0);\n        return 0;\n"
    )),
    # sleeps past the run's wall limit without using CPU
    "sleeps": ("HumanEval_23_strlen", "        try { Thread.sleep(600000); } catch (InterruptedException e) { }\n        return string.length();\n"),
}

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
    hostile=HOSTILE,
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED,
                    "records from a static block": Status.FAILED, "own entry class": Status.COMPILE_ERROR},
    # every Java problem splits into cases; 25 of MultiPL-E's 2292 calls differ from Assay's, all where
    # MultiPL-E's Java would not compile or means another value: `Object("blue")`, unescaped quotes,
    # `(ArrayList<Long>)` elements of an ArrayList<ArrayList<Object>>, None in a HashMap<String,String>
    render_agreement=0.985,
)


def test_the_splice_keeps_helpers_and_drops_the_demo_main(language: Language) -> None:
    problem = benchmark(SPEC.bench).problems["HumanEval_23_strlen"]
    program = language.program(problem, CHAT_REPLY, "MARK")
    assert program.startswith("import java.util.function.Function;\n" + problem.prompt.split("class Problem")[0])
    assert "private static boolean counts(char c)" in program and "class Unused" in program
    assert 'System.out.println(strlen("abc"))' not in program and "public class" not in program
    assert program.count("public static void main") == 2 and program.rstrip().endswith("}")  # the tests' and the runner's
    assert language.program(problem, problem.prompt + CORRECT["HumanEval_23_strlen"], "MARK").startswith(problem.prompt + CORRECT["HumanEval_23_strlen"])
