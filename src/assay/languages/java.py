"""Java: javac (OpenJDK 17) builds the program, `java -ea` runs it, as MultiPL-E runs it.

MultiPL-E's Java programs are one `class Problem` whose `main` holds the tests (`assert`s, so the
JVM runs with -ea) and import org.javatuples.*, a library Debian does not package: Assay compiles
its own javatuples-compatible classes (generated below) once per machine into a support directory
that the sandbox shows read-only. The same directory holds a class-data-sharing archive of javac,
which cuts the compiler's start-up by about a third; without it javac still runs, only slower.

MultiPL-E's tests are judged as cases (assay.judging.cases): the test section's calls, each in a
method of class Problem, results encoded by AssayWire (Assay's own encoder, compiled once into the
support directory next to javatuples) and written to fd 3; expected values never enter the program.
Floats compare at float32 precision, as MultiPL-E's `float` does.

What Java shares with other plugins lives in modules of its own: support directories in
assay.languages.support, and splicing a chat model's whole program (helpers, its own class name, a
demo `main`) into MultiPL-E's `class Problem` shape, for Java, C# and Scala, in
assay.languages.splice. Their names are still importable from here.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, PhaseLimits, Toolchain, ToolchainMissing, Unrepresentable
from assay.languages.braces import BraceLanguage
from assay.languages.float32 import FLOAT32_MAX, Float32Spelling, float32, float32_scalar, float32_values  # noqa: F401 - re-exported
from assay.languages.harness import descriptor
from assay.languages.javatuples import TUPLE_NAMES, javatuples_sources  # noqa: F401 - TUPLE_NAMES: re-exported
from assay.languages.splice import Block, ClassSplicer, assert_calls, tests_prefix  # noqa: F401 - Block: re-exported
from assay.languages.support import digest, dump_cds, etc_dirs, file_stamp, run_host, support_dir, support_root  # noqa: F401 - re-exported
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type, type_of

# A program like the ones javac compiles here, to record which of its classes the CDS archive holds.
_CDS_SAMPLE = """import java.util.*;
import java.util.function.*;
import java.util.stream.*;
import java.math.*;
import org.javatuples.*;
class Problem {
    interface Shape { double area(); }
    record Circle(double r) implements Shape { public double area() { return Math.PI * r * r; } }
    enum Color { RED, GREEN }
    public static Pair<Long, Long> sumProduct(ArrayList<Long> numbers) {
        long sum = 0, product = 1;
        for (long n : numbers) { sum += n; product *= n; }
        return Pair.with(sum, product);
    }
    public static ArrayList<String> words(String s) {
        StringBuilder sb = new StringBuilder();
        Map<Character, Integer> counts = new HashMap<>();
        for (char c : s.toCharArray()) { counts.merge(c, 1, Integer::sum); sb.append(Character.toUpperCase(c)); }
        List<String> parts = Arrays.stream(s.split("\\\\s+")).filter(w -> !w.isEmpty()).map(String::toLowerCase).sorted(Comparator.reverseOrder()).collect(Collectors.toList());
        Optional<String> first = parts.stream().findFirst();
        switch (parts.size()) { case 0: return new ArrayList<String>(); default: break; }
        String t = first.orElse("") + String.format("%d", counts.size()) + (s.length() > 2 ? "y" : "n");
        try { Integer.parseInt(t); } catch (NumberFormatException e) { t = t.trim(); }
        BigInteger big = BigInteger.valueOf(2).pow(70);
        Function<Integer, Integer> twice = x -> x * 2;
        int[] arr = new int[] {3, 1, 2};
        Arrays.sort(arr);
        var result = new ArrayList<String>(parts);
        result.add(t + big + twice.apply(arr[0]) + new Circle(1.0).area() + Color.RED);
        return result;
    }
    public static void main(String[] args) {
    assert(sumProduct((new ArrayList<Long>(Arrays.asList((long)1l, (long)2l)))).equals((Pair.with(3l, 2l))));
    assert(words(("a b")).size() == 3);
    }
}
class AssayTestMain {
    public static void main(String[] args) {
        try { Problem.main(args); } catch (AssertionError e) { Runtime.getRuntime().halt(97); }
        System.out.println("done");
    }
}
"""

# glibc gives each new thread a 64 MiB malloc arena, up to 8 per core: on a big machine the JIT's
# threads alone would reserve GiBs of the address space the JVM shares with its heap.
JVM_ENV = {"MALLOC_ARENA_MAX": "2"}

# The compiler's JVM: a small heap, the serial GC and the C1 JIT only (a short-lived program).
JAVAC_JVM = ("-J-Xmx768m", "-J-Xss8m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-J-XX:-UsePerfData")
JAVAC_ARGS = ("-proc:none", "-encoding", "UTF8")


def _build_java_support(work: Path, javac: str, java: str) -> None:
    src = work / "src"
    for rel, text in javatuples_sources().items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    run_host([javac, *JAVAC_JVM, *JAVAC_ARGS, "-nowarn", "-d", str(work / "javatuples"), *sorted(str(src / rel) for rel in javatuples_sources())], work)
    (src / "AssayWire.java").write_text(JAVA_WIRE)
    run_host([javac, *JAVAC_JVM, *JAVAC_ARGS, "-cp", str(work / "javatuples"), "-d", str(work / "harness"), str(src / "AssayWire.java")], work)
    shutil.rmtree(src)
    sample = work / "sample"
    sample.mkdir()
    (sample / "Problem.java").write_text(_CDS_SAMPLE)
    argv = [javac, *JAVAC_JVM, "{cds}", *JAVAC_ARGS, "-cp", str(work / "javatuples"), "-d", str(sample / "classes"), "Problem.java"]
    dump_cds(argv, work / "javac.jsa", sample, flag="-J-XX:")
    run_host([java, "-ea", "-cp", f"{sample / 'classes'}:{work / 'javatuples'}", "AssayTestMain"], sample)  # the tuples work
    shutil.rmtree(sample)


class Java(ClassSplicer, BraceLanguage):
    """Java 17 (OpenJDK): javac, then java -ea with a wrapper main that maps AssertionError to ASSERT_EXIT."""

    float32 = True  # MultiPL-E's floats are 32-bit here

    name = "java"
    display = "Java"
    multipl_e = "java"
    stops = ("\n    }\n",)
    typed_declarations = True
    source = "Problem.java"
    tools = ("javac", "java")
    version_args = ("-version",)
    install_hint = "apt-get install -y openjdk-17-jdk-headless"
    # $ASSAY_JAVAC_CDS: the class-data-sharing flag when the support dir has an archive (else empty).
    build = (
        "{javac} " + " ".join(JAVAC_JVM) + " $ASSAY_JAVAC_CDS " + " ".join(JAVAC_ARGS)
        + ' -cp "$ASSAY_JAVA_SUPPORT/javatuples:$ASSAY_JAVA_SUPPORT/harness" -d classes Problem.java'
    )
    # Heap capped by -Xmx (the JVM reserves far more address space than it uses: no ulimit -v).
    # java.io opened to the class path: the case harness makes a FileDescriptor of fd 3, the result channel
    # (/proc/self/fd/3 cannot be reopened: the channel's pipe belongs to the host).
    run = (
        '{java} -ea -Xmx1g -XX:+UseSerialGC -XX:-UsePerfData --add-opens java.base/java.io=ALL-UNNAMED'
        ' -cp "classes:$ASSAY_JAVA_SUPPORT/javatuples:$ASSAY_JAVA_SUPPORT/harness" AssayTestMain'
    )
    stub = '    throw new UnsupportedOperationException("stub");\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=4 * GiB, run_memory_bytes=None)
    env: ClassVar[dict[str, str]] = JVM_ENV

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """javac and java, plus the support directory (javatuples, javac's CDS archive) built once."""
        base = super().toolchain()
        javac, java = base.tools["javac"], base.tools["java"]
        jdk = os.path.dirname(os.path.dirname(os.path.realpath(javac)))
        key = digest(base.version, os.path.realpath(javac), file_stamp(os.path.join(jdk, "lib", "modules")),
                     sorted(javatuples_sources().items()), JAVA_WIRE, _CDS_SAMPLE, JAVAC_JVM, JAVAC_ARGS)
        try:
            support = support_dir("java", key, lambda work: _build_java_support(work, javac, java))
        except (OSError, subprocess.SubprocessError) as exc:
            raise ToolchainMissing(f"Java: could not build the javatuples support classes with {javac}: {exc}") from None
        archive = support / "javac.jsa"
        cds = f"-J-XX:SharedArchiveFile={archive}" if archive.exists() and not re.search(r"\s", str(archive)) else ""
        env = {**base.env, "ASSAY_JAVA_SUPPORT": str(support), "ASSAY_JAVAC_CDS": cds}
        binds = {*base.ro_binds, str(support), *etc_dirs(jdk)}
        return dataclasses.replace(base, ro_binds=tuple(sorted(binds)), env=env)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests unchanged; a second class's main runs Problem.main: AssertionError -> ASSERT_EXIT, then the marker."""
        return tests + "\n" + JAVA_RUNNER.replace("@MARKER@", marker).replace("@EXIT@", str(ASSERT_EXIT))

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `assert(name(...) == (x));` / `assert(name(...).equals(x));` lines: the calls, compared by equality."""
        calls = assert_calls(tests, "assert(")
        return None if calls is None else [(call, "") for call in calls]

    def render_value(self, value: Any, t: Type) -> str:
        """A value as MultiPL-E's Java translator writes an argument: `(5l)`, `(0.5f)`, `(float)2l`, `("s")`,
        `(new ArrayList<Long>(Arrays.asList((long)1l, (long)2l)))`, `(Pair.with(1l, "a"))`,
        `(new HashMap<String,Long>(Map.of("a", 1l)))`, `Optional.of(3l)`, `Optional.empty()`."""
        if t.kind == "optional":
            return "Optional.empty()" if value is None else f"Optional.of({java_literal(value, t.args[0])})"
        if t.kind == "float" and isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63:
            return f"(float){value}l"
        if t.kind == "dict" and value == {}:
            return f"(new {java_type(t)}())"
        text = java_literal(value, t)
        return text if t.kind == "any" and isinstance(value, tuple) else f"({text})"

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """The entry point called by its own name, as MultiPL-E's Java tests call it."""
        rendered = [self.render_value(a, t) for a, t in zip(args, signature.param_types, strict=True)]
        return f"{signature.name}({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample spliced as for its test program, the test section's prefix closing the prompt's
        function, the case methods (in class Problem, where MultiPL-E's main calls the entry point),
        the end of Problem, the runner class AssayTestMain, then the sample's other types."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        code, trailer = self.splice(problem, code)
        prefix = tests_prefix(test_program(problem).code, _JAVA_MAIN)
        members, runner = java_harness(problem.tests.signature.returns, calls)
        return {self.source: (code + "\n" + prefix + members + "}\n\n" + runner + trailer).encode()}

    def normalize(self, value: Any, t: Type) -> Any:
        """Floats at float32 precision: MultiPL-E's Java has `float` for Python's float, and its asserts
        compare float results with float literals (`== (0.5f)`, Float.equals in lists), so 0.1 and
        0.1f are one value there. Everything else compares as Python's ==."""
        return float32_values(value, t)


JAVA_RUNNER = """class AssayTestMain {
    public static void main(String[] args) throws Throwable {
        try {
            Problem.main(args);
        } catch (AssertionError e) {
            e.printStackTrace();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(@EXIT@);
        }
        System.out.println();
        System.out.println("@MARKER@");
        System.out.flush();
    }
}
"""


_JAVA_MAIN = re.compile(r"^[ \t]*public\s+static\s+void\s+main\s*\(", re.M)

# ---------------------------------------------------------------------------------------------
# Values as Java literals, the way MultiPL-E's Java translator writes them (humaneval_to_java.py on
# top of humaneval_to_cpp.py): longs `5l`, floats `0.5f`, ArrayList through Arrays.asList with each
# element cast to its type, every tuple as javatuples' Pair.with, HashMap through Map.of, None as
# Optional.empty(). Typed where MultiPL-E's text would not compile or would mean another value
# (an empty nested list keeps its element type, Optional elements are Optional.of, strings are escaped).

_MAP_OF_LIMIT = 10  # Map.of takes at most 10 pairs; Map.ofEntries beyond


def java_type(t: Type, boxed: bool = False) -> str:
    """The Java type MultiPL-E declares for a value type (boxed: as a type argument)."""
    k = t.kind
    if k in ("int", "float", "bool"):
        prim = {"int": "long", "float": "float", "bool": "boolean"}[k]
        return {"long": "Long", "float": "Float", "boolean": "Boolean"}[prim] if boxed else prim
    if k == "str":
        return "String"
    if k in ("list", "vtuple"):
        return f"ArrayList<{java_type(t.args[0], True)}>"
    if k == "set":
        return f"HashSet<{java_type(t.args[0], True)}>"
    if k == "tuple":
        if not t.args:
            raise Unrepresentable("empty tuple: javatuples has none")
        return f"Pair<{', '.join(java_type(a, True) for a in t.args)}>"  # MultiPL-E's name for a tuple of any size
    if k == "dict":
        return f"HashMap<{java_type(t.args[0], True)},{java_type(t.args[1], True)}>"
    if k == "optional":
        return f"Optional<{java_type(t.args[0], True)}>"
    if k == "any":
        return "Object"
    if k == "union":
        raise Unrepresentable(f"union: Java has no union types ({t})")
    raise Unrepresentable(f"type {t}: no Java type")


def infer_type(value: Any) -> Type:
    """The type MultiPL-E's translator gives an untyped value (a list of mixed items is a list of Object)."""
    if value is None:
        return Type("none")
    if isinstance(value, (bool, int, float, str)):
        return type_of(value)
    if isinstance(value, tuple):
        return Type("tuple", tuple(infer_type(v) for v in value))
    if isinstance(value, (list, set, frozenset)):
        kinds = {infer_type(v) for v in value} or {type_of(0)}  # an empty list is a list of longs there
        return Type("list" if isinstance(value, list) else "set", (kinds.pop() if len(kinds) == 1 else Type("any"),))
    if isinstance(value, dict):
        keys, vals = {infer_type(k) for k in value} or {type_of(0)}, {infer_type(v) for v in value.values()} or {type_of(0)}
        return Type("dict", (keys.pop() if len(keys) == 1 else Type("any"), vals.pop() if len(vals) == 1 else Type("any")))
    raise Unrepresentable(f"{type(value).__name__} values: {value!r}"[:200])


def java_string(text: str) -> str:
    """A Java string literal (MultiPL-E escapes only newlines: its quotes and backslashes would not compile)."""
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\{o:03o}")
        elif 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")  # a lone surrogate (a unicode escape is no line terminator here)
        else:
            out.append(ch)
    return "".join(out) + '"'


def java_literal(value: Any, t: Type) -> str:
    """The Java expression of a value at type t, without the parentheses around an argument."""
    k = t.kind
    if k == "any":
        if value is None:
            return "Optional.empty()"
        inferred = infer_type(value)
        return java_literal(value, inferred) if inferred.kind not in ("none", "any") else "Optional.empty()"
    if k == "optional":
        return "Optional.empty()" if value is None else f"Optional.of({java_literal(value, t.args[0])})"
    if k == "none" and value is None:
        return "Optional.empty()"
    if value is None:
        raise Unrepresentable(f"None where {t} is expected (Java: only Optional holds none)")
    if k in ("int", "float", "bool", "str"):
        return float32_scalar(value, k, JAVA_SCALARS)
    if k in ("list", "vtuple", "set"):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        elem = t.args[0]
        cls = "HashSet" if k == "set" else "ArrayList"
        box = java_type(elem, True)
        if not items:
            return f"new {cls}<{box}>(Arrays.asList())"
        parts = []
        for item in items:
            at = elem
            if elem.kind == "any":  # each item cast to its own type, as MultiPL-E does when they agree
                kinds = {infer_type(v) for v in items}
                at = kinds.pop() if len(kinds) == 1 else elem
            text = java_literal(item, at)
            cast = "" if at.kind in ("any", "none") else f"({java_type(at)})"
            parts.append(text if not cast or text.startswith(cast) else cast + text)
        return f"new {cls}<{box}>(Arrays.asList({', '.join(parts)}))"
    if k == "tuple":
        if not isinstance(value, (list, tuple)) or len(value) != len(t.args):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        if not t.args:
            raise Unrepresentable("empty tuple: javatuples has none")
        return f"Pair.with({', '.join(java_literal(v, a) for v, a in zip(value, t.args, strict=True))})"
    if k == "dict":
        if not isinstance(value, dict):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        kt, vt = t.args
        head = f"new HashMap<{java_type(kt, True)},{java_type(vt, True)}>"
        if not value:
            return head + "(Map.of())"
        pairs = [(java_literal(a, kt), java_literal(b, vt)) for a, b in value.items()]
        if len(pairs) <= _MAP_OF_LIMIT:
            return head + f"(Map.of({', '.join(f'{a}, {b}' for a, b in pairs)}))"
        return head + f"(Map.ofEntries({', '.join(f'Map.entry({a}, {b})' for a, b in pairs)}))"
    raise Unrepresentable(f"{t}: no Java literal for {value!r}"[:200])



# ---------------------------------------------------------------------------------------------
# The case harness (see assay.judging.records). Its encoder, class AssayWire, is Assay's own code,
# compiled once per machine into the support directory (the sample is compiled against it, never
# with it: its names cannot shadow the encoder's, and javac has less to compile). Each program gets
# one method per case in class Problem, where MultiPL-E's main calls the entry point (a method's code
# is at most 64 KiB), run in order by a small class AssayTestMain after it; each result is encoded
# under the declared type and written as one record to fd 3, unbuffered; then `done <n>`, and the
# JVM halts (no shutdown hook of the sample's runs after it).

JAVA_WIRE = r"""public final class AssayWire {
    private static java.io.FileOutputStream out;

    private AssayWire() { }

    /** fd 3 by number, through java.io's own field (the run's JVM opens java.io to the class path). */
    public static void open() {
        try {
            java.io.FileDescriptor channel = new java.io.FileDescriptor();
            java.lang.reflect.Field number = java.io.FileDescriptor.class.getDeclaredField("fd");
            number.setAccessible(true);
            number.setInt(channel, 3);
            out = new java.io.FileOutputStream(channel);
        } catch (Exception e) {
            System.err.println("assay: no result channel: " + e);
            Runtime.getRuntime().halt(3);
        }
    }

    private static void write(String line) {
        try {
            out.write(line.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (Exception e) {
            Runtime.getRuntime().halt(3);
        }
    }

    public static void value(int i, Object v, Object type) {
        StringBuilder sb = new StringBuilder();
        sb.append(i).append(" v ");
        enc(sb, v, type);
        write(sb.append('\n').toString());
    }

    public static void error(int i, Throwable e) {
        String m;
        try { m = String.valueOf(e); } catch (Throwable x) { m = e.getClass().getName(); }
        m = m.replace('\r', ' ').replace('\n', ' ');
        write(i + " e " + (m.length() > 300 ? m.substring(0, 300) : m) + "\n");
    }

    public static void done(int n) {
        write("done " + n + "\n");
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    private static String kind(Object t) {
        return t instanceof String ? (String) t : (String) ((Object[]) t)[0];
    }

    private static Object arg(Object t, int i) {
        if (t instanceof String) return "any";
        Object[] a = (Object[]) t;
        return i + 1 < a.length ? a[i + 1] : "any";
    }

    private static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c >= 0x20 && c < 0x7f) sb.append(c);
            else {
                String h = Integer.toHexString(c);
                sb.append("\\u0000", 0, 6 - h.length()).append(h);
            }
        }
        sb.append('"');
    }

    private static void real(StringBuilder sb, double d, String text) {
        if (Double.isNaN(d)) sb.append("NaN");
        else if (Double.isInfinite(d)) sb.append(d > 0 ? "Infinity" : "-Infinity");
        else sb.append(text);
    }

    private static void items(StringBuilder sb, java.util.List<?> items, String k, Object t) {
        sb.append('[');
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) sb.append(',');
            enc(sb, items.get(i), k.equals("tuple") ? arg(t, i) : arg(t, 0));
        }
        sb.append(']');
    }

    /** v as wire JSON at the declared type t ("int", or {"list", "int"}...): the type picks tuple
     *  positions and dict keys; the runtime class decides the rest (Optional empty: null). */
    static void enc(StringBuilder sb, Object v, Object t) {
        String k = kind(t);
        if (v instanceof java.util.Optional) {
            java.util.Optional<?> o = (java.util.Optional<?>) v;
            v = o.isPresent() ? o.get() : null;
        }
        if (v == null) { sb.append("null"); return; }
        if (k.equals("optional")) { enc(sb, v, arg(t, 0)); return; }
        if (k.equals("union")) { t = "any"; k = "any"; }
        if (v instanceof Boolean) { sb.append(((Boolean) v).booleanValue() ? "true" : "false"); return; }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte || v instanceof java.math.BigInteger) {
            sb.append(v.toString());
            return;
        }
        if (v instanceof Float) { float f = (Float) v; real(sb, f, Float.toString(f)); return; }
        if (v instanceof Double) { double d = (Double) v; real(sb, d, Double.toString(d)); return; }
        if (v instanceof String) { str(sb, (String) v); return; }
        if (v instanceof Character) { str(sb, v.toString()); return; }
        if (v instanceof org.javatuples.Tuple) { items(sb, java.util.Arrays.asList(((org.javatuples.Tuple) v).toArray()), k, t); return; }
        if (v instanceof java.util.Map) {
            Object kt = k.equals("dict") ? arg(t, 0) : "any", vt = k.equals("dict") ? arg(t, 1) : "any";
            sb.append('[');
            boolean first = true;
            for (java.util.Map.Entry<?, ?> e : ((java.util.Map<?, ?>) v).entrySet()) {
                sb.append(first ? "[" : ",[");
                first = false;
                enc(sb, e.getKey(), kt);
                sb.append(',');
                enc(sb, e.getValue(), vt);
                sb.append(']');
            }
            sb.append(']');
            return;
        }
        if (v instanceof Iterable) {
            java.util.List<Object> list = new java.util.ArrayList<Object>();
            for (Object x : (Iterable<?>) v) list.add(x);
            items(sb, list, k, t);
            return;
        }
        if (v.getClass().isArray()) {
            java.util.List<Object> list = new java.util.ArrayList<Object>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) list.add(java.lang.reflect.Array.get(v, i));
            items(sb, list, k, t);
            return;
        }
        throw new IllegalArgumentException("the result is a " + v.getClass().getName() + ", which is not plain data");
    }
}
"""


def java_descriptor(t: Type) -> str:
    """The declared type as AssayWire reads it: "int", or new Object[]{"list", "int"}."""

    def text(d: object) -> str:
        if isinstance(d, str):
            return '"' + d + '"'
        assert isinstance(d, list)
        return "new Object[]{" + ", ".join(text(x) for x in d) + "}"

    return text(descriptor(t))


def java_harness(returns: Type, calls: Sequence[str]) -> tuple[str, str]:
    """The harness for these calls: (members of class Problem, the class after it). Inside Problem
    the calls see what MultiPL-E's own main sees there (private members too); one method per case,
    all run in order from AssayTestMain's main."""
    cases = "".join(
        f"    static void assay$case{i}() {{\n"
        f"        try {{ AssayWire.value({i}, (Object) ({call}), assay$type); }} catch (Throwable e) {{ AssayWire.error({i}, e); }}\n"
        "    }\n"
        for i, call in enumerate(calls)
    )
    run = "".join(f"        assay$case{i}();\n" for i in range(len(calls)))
    members = (
        f"    static final Object assay$type = {java_descriptor(returns)};\n"
        f"{cases}"
        "    static void assay$run() {\n"
        "        AssayWire.open();\n"
        f"{run}"
        f"        AssayWire.done({len(calls)});\n"
        "    }\n"
    )
    return members, "final class AssayTestMain {\n    public static void main(String[] args) {\n        Problem.assay$run();\n    }\n}\n"


JAVA_SCALARS = Float32Spelling("{}l", "(float){}l", "Float.NaN", "Float.POSITIVE_INFINITY", "Float.NEGATIVE_INFINITY", java_string)
