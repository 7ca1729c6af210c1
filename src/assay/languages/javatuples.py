"""javatuples: a compatible implementation of the classes MultiPL-E's Java prompts import
(org.javatuples, javatuples 1.2's API: with/fromArray/fromCollection/fromIterable, getValueN,
setAtN, add/addAtN, removeFromN, equals/hashCode/compareTo, toString as "[a, b]"). Debian does not
package the library; `assay.languages.java` compiles these sources once per machine."""

from __future__ import annotations

import functools

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
