"""Java: javac (OpenJDK 17) builds the program, `java -ea` runs it, as MultiPL-E runs it.

MultiPL-E's Java programs are one `class Problem` whose `main` holds the tests (`assert`s, so the
JVM runs with -ea) and import org.javatuples.*, a library Debian does not package: Assay compiles
its own javatuples-compatible classes (generated below) once per machine into a support directory
that the sandbox shows read-only. The same directory holds a class-data-sharing archive of javac,
which cuts the compiler's start-up by about a third; without it javac still runs, only slower.

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
from pathlib import Path
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, GiB, RunLimits, Toolchain, ToolchainMissing
from assay.languages.splice import Block, ClassSplicer  # noqa: F401 - Block: re-exported
from assay.languages.support import digest, dump_cds, etc_dirs, file_stamp, run_host, support_dir, support_root  # noqa: F401 - re-exported

# ---------------------------------------------------------------------------------------------
# javatuples: a compatible implementation of the classes MultiPL-E's Java prompts import
# (org.javatuples, javatuples 1.2's API: with/fromArray/fromCollection/fromIterable, getValueN,
# setAtN, add/addAtN, removeFromN, equals/hashCode/compareTo, toString as "[a, b]").

TUPLE_NAMES = ("Unit", "Pair", "Triplet", "Quartet", "Quintet", "Sextet", "Septet", "Octet", "Ennead", "Decade")
_TYPE_VARS = "ABCDEFGHIJ"

_TUPLE_BASE = """package org.javatuples;
import java.util.*;
public abstract class Tuple implements Iterable<Object>, java.io.Serializable, Comparable<Tuple> {
    private static final long serialVersionUID = 1L;
    private final Object[] values;
    protected Tuple(final Object... values) { this.values = values; }
    public abstract int getSize();
    public final Object getValue(final int pos) {
        if (pos < 0 || pos >= values.length) throw new IllegalArgumentException("Cannot retrieve position " + pos + " in " + getClass().getSimpleName() + ". Positions for this class start with 0 and end with " + (values.length - 1));
        return values[pos];
    }
    public final Iterator<Object> iterator() { return toList().iterator(); }
    public final boolean contains(final Object value) { return Arrays.asList(values).contains(value); }
    public final boolean containsAll(final Collection<?> collection) { return Arrays.asList(values).containsAll(collection); }
    public final boolean containsAll(final Object... vs) { return Arrays.asList(values).containsAll(Arrays.asList(vs)); }
    public final int indexOf(final Object value) { return Arrays.asList(values).indexOf(value); }
    public final int lastIndexOf(final Object value) { return Arrays.asList(values).lastIndexOf(value); }
    public final List<Object> toList() { return Collections.unmodifiableList(new ArrayList<Object>(Arrays.asList(values))); }
    public final Object[] toArray() { return values.clone(); }
    @Override public final String toString() { return Arrays.asList(values).toString(); }
    @Override public final int hashCode() { return 31 + Arrays.hashCode(values); }
    @Override public final boolean equals(final Object obj) {
        if (this == obj) return true;
        if (obj == null || getClass() != obj.getClass()) return false;
        return Arrays.equals(values, ((Tuple) obj).values);
    }
    @SuppressWarnings({"unchecked", "rawtypes"})
    public int compareTo(final Tuple o) {
        final int n = Math.min(values.length, o.values.length);
        for (int i = 0; i < n; i++) {
            final int c = ((Comparable) values[i]).compareTo(o.values[i]);
            if (c != 0) return c;
        }
        return Integer.compare(values.length, o.values.length);
    }
    static <X> List<X> take(final Iterable<X> iterable, final int index, final int size, final String what) {
        if (iterable == null) throw new IllegalArgumentException("Iterable cannot be null");
        final List<X> out = new ArrayList<X>(size);
        int i = 0;
        for (final X x : iterable) {
            if (i++ < index) continue;
            if (out.size() == size) break;
            out.add(x);
        }
        if (out.size() < size) throw new IllegalArgumentException("Not enough elements for creating a " + what + " (" + size + " needed)");
        return out;
    }
}
"""

_KEY_VALUE = """package org.javatuples;
public final class {name}<A,B> extends Tuple {{
    private static final long serialVersionUID = 1L;
    private final A {a};
    private final B {b};
    public {name}(final A {a}, final B {b}) {{ super({a}, {b}); this.{a} = {a}; this.{b} = {b}; }}
    public static <A,B> {name}<A,B> with(final A {a}, final B {b}) {{ return new {name}<A,B>({a}, {b}); }}
    public static <X> {name}<X,X> fromArray(final X[] array) {{
        if (array == null || array.length != 2) throw new IllegalArgumentException("Array must have exactly 2 elements in order to create a {name}");
        return new {name}<X,X>(array[0], array[1]);
    }}
    public static <X> {name}<X,X> fromCollection(final java.util.Collection<X> collection) {{ return fromIterable(collection); }}
    public static <X> {name}<X,X> fromIterable(final Iterable<X> iterable) {{ return fromIterable(iterable, 0); }}
    public static <X> {name}<X,X> fromIterable(final Iterable<X> iterable, final int index) {{
        final java.util.List<X> l = Tuple.take(iterable, index, 2, "{name}"); return new {name}<X,X>(l.get(0), l.get(1));
    }}
    public int getSize() {{ return 2; }}
    public A get{A}() {{ return {a}; }}
    public B get{B}() {{ return {b}; }}
    public <X> {name}<X,B> set{A}(final X {a}) {{ return new {name}<X,B>({a}, this.{b}); }}
    public <Y> {name}<A,Y> set{B}(final Y {b}) {{ return new {name}<A,Y>(this.{a}, {b}); }}
}}
"""


def _tuple_class(n: int) -> str:
    name = TUPLE_NAMES[n - 1]
    tv = list(_TYPE_VARS[:n])
    gen = f"<{','.join(tv)}>"
    same = f"<{','.join(['X'] * n)}>"
    params = ", ".join(f"final {t} value{i}" for i, t in enumerate(tv))
    args = ", ".join(f"value{i}" for i in range(n))
    from_list = ", ".join(f"l.get({i})" for i in range(n))
    out = [
        "package org.javatuples;\nimport java.util.*;\n",
        f"public final class {name}{gen} extends Tuple {{\n",
        "    private static final long serialVersionUID = 1L;\n",
        f"    private static final int SIZE = {n};\n",
        *(f"    private final {t} val{i};\n" for i, t in enumerate(tv)),
        f"    public {name}({params}) {{ super({args}); {' '.join(f'this.val{i} = value{i};' for i in range(n))} }}\n",
        f"    public static {gen} {name}{gen} with({params}) {{ return new {name}{gen}({args}); }}\n",
        f"    public static <X> {name}{same} fromArray(final X[] array) {{\n"
        f'        if (array == null) throw new IllegalArgumentException("Array cannot be null");\n'
        f'        if (array.length != SIZE) throw new IllegalArgumentException("Array must have exactly {n} elements in order to create a {name}. Size is " + array.length);\n'
        f"        final List<X> l = Arrays.asList(array); return new {name}{same}({from_list});\n    }}\n",
        f"    public static <X> {name}{same} fromCollection(final Collection<X> collection) {{\n"
        f'        if (collection == null) throw new IllegalArgumentException("Collection cannot be null");\n'
        f'        if (collection.size() != SIZE) throw new IllegalArgumentException("Collection must have exactly {n} elements in order to create a {name}. Size is " + collection.size());\n'
        f"        final List<X> l = new ArrayList<X>(collection); return new {name}{same}({from_list});\n    }}\n",
        f"    public static <X> {name}{same} fromIterable(final Iterable<X> iterable) {{ return fromIterable(iterable, 0); }}\n",
        f"    public static <X> {name}{same} fromIterable(final Iterable<X> iterable, final int index) {{\n"
        f'        final List<X> l = Tuple.take(iterable, index, SIZE, "{name}"); return new {name}{same}({from_list});\n    }}\n',
        "    public int getSize() { return SIZE; }\n",
        *(f"    public {t} getValue{i}() {{ return val{i}; }}\n" for i, t in enumerate(tv)),
    ]
    if n == 2:  # Pair: also the IValueKey/IValueLabel-style accessors some code uses
        out.append("    public A getKey() { return val0; }\n    public B getValue() { return val1; }\n")
    for i in range(n):
        ntv = ["X" if j == i else tv[j] for j in range(n)]
        a = ", ".join("value" if j == i else f"val{j}" for j in range(n))
        out.append(f"    public <X> {name}<{','.join(ntv)}> setAt{i}(final X value) {{ return new {name}<{','.join(ntv)}>({a}); }}\n")
    if n > 1:
        small = TUPLE_NAMES[n - 2]
        for i in range(n):
            rtv = [tv[j] for j in range(n) if j != i]
            a = ", ".join(f"val{j}" for j in range(n) if j != i)
            out.append(f"    public {small}<{','.join(rtv)}> removeFrom{i}() {{ return new {small}<{','.join(rtv)}>({a}); }}\n")
    for k in range(1, len(TUPLE_NAMES) + 1 - n):
        big = TUPLE_NAMES[n + k - 1]
        xv = [f"X{j}" for j in range(k)]
        xp = ", ".join(f"final X{j} value{j}" for j in range(k))
        for pos in range(n + 1):
            ntv = tv[:pos] + xv + tv[pos:]
            meth = "add" if pos == n else f"addAt{pos}"
            vals = [f"val{j}" for j in range(pos)] + [f"value{j}" for j in range(k)] + [f"val{j}" for j in range(pos, n)]
            from_tuple = [f"val{j}" for j in range(pos)] + [f"tuple.getValue{j}()" for j in range(k)] + [f"val{j}" for j in range(pos, n)]
            generic = f"<{','.join(xv)}> {big}<{','.join(ntv)}>"
            out.append(f"    public {generic} {meth}({xp}) {{ return new {big}<{','.join(ntv)}>({', '.join(vals)}); }}\n")
            out.append(f"    public {generic} {meth}(final {TUPLE_NAMES[k - 1]}<{','.join(xv)}> tuple) {{ return new {big}<{','.join(ntv)}>({', '.join(from_tuple)}); }}\n")
    out.append("}\n")
    return "".join(out)


@functools.cache
def javatuples_sources() -> dict[str, str]:
    """org/javatuples/*.java of the compatible implementation."""
    files = {"org/javatuples/Tuple.java": _TUPLE_BASE}
    for n in range(1, len(TUPLE_NAMES) + 1):
        files[f"org/javatuples/{TUPLE_NAMES[n - 1]}.java"] = _tuple_class(n)
    files["org/javatuples/KeyValue.java"] = _KEY_VALUE.format(name="KeyValue", a="key", b="value", A="Key", B="Value")
    files["org/javatuples/LabelValue.java"] = _KEY_VALUE.format(name="LabelValue", a="label", b="value", A="Label", B="Value")
    return files


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

    name = "java"
    display = "Java"
    source = "Problem.java"
    tools = ("javac", "java")
    version_args = ("-version",)
    install_hint = "apt-get install -y openjdk-17-jdk-headless"
    # $ASSAY_JAVAC_CDS: the class-data-sharing flag when the support dir has an archive (else empty).
    build = (
        "{javac} " + " ".join(JAVAC_JVM) + " $ASSAY_JAVAC_CDS " + " ".join(JAVAC_ARGS)
        + ' -cp "$ASSAY_JAVA_SUPPORT/javatuples" -d classes Problem.java'
    )
    # Heap capped by -Xmx (the JVM reserves far more address space than it uses: no ulimit -v).
    run = '{java} -ea -Xmx1g -XX:+UseSerialGC -XX:-UsePerfData -cp "classes:$ASSAY_JAVA_SUPPORT/javatuples" AssayTestMain'
    stub = '    throw new UnsupportedOperationException("stub");\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=4 * GiB, run_memory_bytes=None)
    env: ClassVar[dict[str, str]] = JVM_ENV

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """javac and java, plus the support directory (javatuples, javac's CDS archive) built once."""
        base = super().toolchain()
        javac, java = base.tools["javac"], base.tools["java"]
        jdk = os.path.dirname(os.path.dirname(os.path.realpath(javac)))
        key = digest(base.version, os.path.realpath(javac), file_stamp(os.path.join(jdk, "lib", "modules")),
                     sorted(javatuples_sources().items()), _CDS_SAMPLE, JAVAC_JVM, JAVAC_ARGS)
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
