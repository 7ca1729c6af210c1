"""Java: HumanEval-X's `class Solution { public List<Integer> f(List<Integer> l, int n) {...} }` (instance
methods; int, double, List, Map<Object, Object>, Optional, List<Object>); MultiPL-E's
`public static ArrayList<Long> f(ArrayList<Long> l, long n)` in class Problem (long, float, ArrayList,
HashMap, Optional, javatuples' Pair) forwards to it.

The program, as a chat model would write it: HumanEval-X's imports, then `class Problem` holding
MultiPL-E's signature line with a body that calls `new Solution().name(...)` (HumanEval-X's own name,
which is not always MultiPL-E's) and a few static helpers, then HumanEval-X's `class Solution` as it is.
The conversions are generic and recursive, driven by reflection on both methods' generic types (the
wrapper finds its own Method through an anonymous class's enclosing method):

- arguments, to HumanEval-X's parameter types: a long to an int only where it fits (else it throws
  "adapter: ... does not fit int": HumanEval-X's narrower type cannot hold the input); a float to a
  double exactly (MultiPL-E's `0.1f` holds 0.10000000149011612, and Assay labels the
  case with the Python reference on that float32 value); lists, maps, Optional element by
  element; javatuples' Pair to a List; under Object, a value as HumanEval-X holds a Python value there
  (Integer for an int, Double for a float). MultiPL-E's `float` parameters hold Python's ints and
  floats alike (HumanEval_92, 151): under Object, a whole float is an Integer, as MultiPL-E's own
  tests read it (`anyInt((float)2l, (float)3l, (float)1l) == true`).
- the result, to MultiPL-E's return type: numbers widened or narrowed (double to float), lists and
  maps element by element, a List to a javatuples Pair (MultiPL-E's tuples), Optional kept.

A solution that declares a checked exception (`throws NoSuchAlgorithmException`) is called in a try
that rethrows it unchecked, since MultiPL-E's signature declares none.
"""

from __future__ import annotations

import re
from typing import Any

from assay.problems import Problem

HELPERS = r"""
    private static java.lang.reflect.Method hxMethod(String name, int arity) {
        for (java.lang.reflect.Method m : Solution.class.getDeclaredMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == arity && !java.lang.reflect.Modifier.isStatic(m.getModifiers())) return m;
        }
        throw new IllegalStateException("adapter: Solution has no method " + name + " of " + arity + " parameters");
    }

    private static Class<?> hxRaw(java.lang.reflect.Type t) {
        if (t instanceof Class) return (Class<?>) t;
        if (t instanceof java.lang.reflect.ParameterizedType) return (Class<?>) ((java.lang.reflect.ParameterizedType) t).getRawType();
        if (t instanceof java.lang.reflect.WildcardType) return hxRaw(((java.lang.reflect.WildcardType) t).getUpperBounds()[0]);
        if (t instanceof java.lang.reflect.TypeVariable) return hxRaw(((java.lang.reflect.TypeVariable<?>) t).getBounds()[0]);
        return Object.class;
    }

    private static java.lang.reflect.Type hxParam(java.lang.reflect.Type t, int i) {
        if (t instanceof java.lang.reflect.ParameterizedType) {
            java.lang.reflect.Type[] a = ((java.lang.reflect.ParameterizedType) t).getActualTypeArguments();
            if (a.length > 0) return a[Math.min(i, a.length - 1)];
        }
        return Object.class;
    }

    private static List<Object> hxItems(Object v) {
        if (v instanceof org.javatuples.Tuple) return new ArrayList<Object>(((org.javatuples.Tuple) v).toList());
        if (v instanceof Collection) return new ArrayList<Object>((Collection<?>) v);
        if (v != null && v.getClass().isArray()) {
            List<Object> out = new ArrayList<Object>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) out.add(java.lang.reflect.Array.get(v, i));
            return out;
        }
        return null;
    }

    private static Object hxInt(Object v) {
        if (v instanceof Integer) return v;
        if (v instanceof Character) return (int) (Character) v;
        double d = ((Number) v).doubleValue();
        long l = ((Number) v).longValue();
        if ((v instanceof Float || v instanceof Double) && d != Math.rint(d)) throw new IllegalArgumentException("adapter: " + v + " is not an int");
        if (l != (int) l || ((v instanceof Float || v instanceof Double) && Math.abs(d) > Integer.MAX_VALUE)) throw new ArithmeticException("adapter: " + v + " does not fit int");
        return (int) l;
    }

    private static double hxDouble(Object v) {
        return ((Number) v).doubleValue();  // a float widened exactly: 0.1f is 0.10000000149011612, the value the reference is labelled on
    }

    /** A MultiPL-E value (static type `from`) as HumanEval-X's parameter type `to`. */
    @SuppressWarnings("unchecked")
    private static Object hxArg(Object v, java.lang.reflect.Type from, java.lang.reflect.Type to) {
        Class<?> raw = hxRaw(to);
        if (v instanceof Optional) {
            Optional<Object> o = (Optional<Object>) v;
            if (raw == Optional.class) return o.map(x -> hxArg(x, hxParam(from, 0), hxParam(to, 0)));
            return o.isPresent() ? hxArg(o.get(), hxParam(from, 0), to) : null;
        }
        if (v == null) return raw == Optional.class ? Optional.empty() : null;
        if (raw == Optional.class) return Optional.of(hxArg(v, from, hxParam(to, 0)));
        if (raw == int.class || raw == Integer.class) return hxInt(v);
        if (raw == long.class || raw == Long.class) return ((Number) v).longValue();
        if (raw == double.class || raw == Double.class) return hxDouble(v);
        if (raw == float.class || raw == Float.class) return ((Number) v).floatValue();
        if (raw == String.class && v instanceof Character) return v.toString();
        if (raw == Object.class) return hxNatural(v, from);
        List<Object> items = hxItems(v);
        if (items != null && (Collection.class.isAssignableFrom(raw) || raw == Iterable.class)) {
            Collection<Object> out = Set.class.isAssignableFrom(raw) ? new LinkedHashSet<Object>() : new ArrayList<Object>();
            boolean tuple = v instanceof org.javatuples.Tuple;
            for (int i = 0; i < items.size(); i++) out.add(hxArg(items.get(i), hxParam(from, tuple ? i : 0), hxParam(to, 0)));
            return out;
        }
        if (v instanceof Map && Map.class.isAssignableFrom(raw)) {
            Map<Object, Object> out = raw == TreeMap.class || raw == SortedMap.class ? new TreeMap<Object, Object>() : new HashMap<Object, Object>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) out.put(hxArg(e.getKey(), hxParam(from, 0), hxParam(to, 0)), hxArg(e.getValue(), hxParam(from, 1), hxParam(to, 1)));
            return out;
        }
        return v;
    }

    /** A value under Object, as HumanEval-X holds a Python value there: Integer, Double, String, List, Map. */
    private static Object hxNatural(Object v, java.lang.reflect.Type from) {
        if (v instanceof Optional) return ((Optional<?>) v).map(x -> hxNatural(x, hxParam(from, 0))).orElse(null);
        Class<?> raw = hxRaw(from);
        if (v instanceof Long) {
            long l = (Long) v;
            return l == (int) l ? (Object) (int) l : v;  // an int beyond 32 bits stays a Long (HumanEval-X has no type for it)
        }
        if (v instanceof Float) {
            float f = (Float) v;
            boolean erased = raw == float.class || raw == Float.class;  // MultiPL-E's float holds Python's ints too
            if (erased && !Float.isInfinite(f) && f == Math.rint(f) && Math.abs(f) <= Integer.MAX_VALUE) return (int) f;
            return hxDouble(v);
        }
        if (v instanceof Map) {
            Map<Object, Object> out = new HashMap<Object, Object>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) out.put(hxNatural(e.getKey(), hxParam(from, 0)), hxNatural(e.getValue(), hxParam(from, 1)));
            return out;
        }
        List<Object> items = hxItems(v);
        if (items != null) {
            List<Object> out = new ArrayList<Object>();
            boolean tuple = v instanceof org.javatuples.Tuple;
            for (int i = 0; i < items.size(); i++) out.add(hxNatural(items.get(i), hxParam(from, tuple ? i : 0)));
            return out;
        }
        return v;
    }

    /** HumanEval-X's result as MultiPL-E's return type `to`. */
    private static Object hxResult(Object r, java.lang.reflect.Type to) {
        Class<?> raw = hxRaw(to);
        if (raw == Optional.class) {
            if (r instanceof Optional) return ((Optional<?>) r).map(x -> hxResult(x, hxParam(to, 0)));
            return r == null ? Optional.empty() : Optional.of(hxResult(r, hxParam(to, 0)));
        }
        if (r instanceof Optional) r = ((Optional<?>) r).orElse(null);
        if (r == null) return null;
        if (raw == long.class || raw == Long.class) {
            if (r instanceof Character) return (long) (Character) r;
            if ((r instanceof Double || r instanceof Float) && ((Number) r).doubleValue() != Math.rint(((Number) r).doubleValue())) return r;
            return ((Number) r).longValue();
        }
        if (raw == float.class || raw == Float.class) return ((Number) r).floatValue();
        if (raw == double.class || raw == Double.class) return ((Number) r).doubleValue();
        if (raw == String.class && r instanceof Character) return r.toString();
        List<Object> items = hxItems(r);
        if (items != null && org.javatuples.Tuple.class.isAssignableFrom(raw)) {
            Object[] a = new Object[items.size()];
            for (int i = 0; i < a.length; i++) a[i] = hxResult(items.get(i), hxParam(to, i));
            switch (a.length) {
                case 1: return org.javatuples.Unit.with(a[0]);
                case 2: return org.javatuples.Pair.with(a[0], a[1]);
                case 3: return org.javatuples.Triplet.with(a[0], a[1], a[2]);
                case 4: return org.javatuples.Quartet.with(a[0], a[1], a[2], a[3]);
                default: throw new IllegalArgumentException("adapter: a tuple of " + a.length + " items: " + r);
            }
        }
        if (items != null && Collection.class.isAssignableFrom(raw)) {
            Collection<Object> out = Set.class.isAssignableFrom(raw) ? new HashSet<Object>() : new ArrayList<Object>();
            for (Object x : items) out.add(hxResult(x, hxParam(to, 0)));
            return out;
        }
        if (r instanceof Map && Map.class.isAssignableFrom(raw)) {
            HashMap<Object, Object> out = new HashMap<Object, Object>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) r).entrySet()) out.put(hxResult(e.getKey(), hxParam(to, 0)), hxResult(e.getValue(), hxParam(to, 1)));
            return out;
        }
        if (raw == Object.class) {  // MultiPL-E's Object: its ints are Longs, its floats Floats
            if (r instanceof Integer || r instanceof Short || r instanceof Byte) return ((Number) r).longValue();
            if (r instanceof Double) return ((Double) r).floatValue();
            if (r instanceof Map) return hxResult(r, HashMap.class);
            if (items != null) return hxResult(r, ArrayList.class);
        }
        return r;
    }
"""

HEADER = re.compile(
    r"public\s+(?:static\s+)?(?P<ret>[\w.<>\[\], ?]+?)\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)\s*(?P<throws>throws\s+[\w., ]+?)?\s*\{\s*$"
)


def _split(text: str) -> list[str]:
    """Comma-separated parts at depth 0 of <...>."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _params(text: str) -> list[tuple[str, str]]:
    """[(type, name)] of a Java parameter list."""
    out = []
    for part in _split(text):
        part = re.sub(r"^(?:final\s+|@\w+\s+)*", "", part)
        found = re.match(r"(.*\S)\s+(\w+)$", part, re.S)
        assert found, part
        out.append((found.group(1), found.group(2)))
    return out


def adapt(problem: Problem, row: dict[str, Any]) -> str:
    """HumanEval-X's imports; class Problem with MultiPL-E's entry point forwarding to HumanEval-X's
    method (and the converters); HumanEval-X's class Solution."""
    declaration, solution = row["declaration"], row["canonical_solution"]
    imports = [line.strip() for line in declaration.splitlines() if line.strip().startswith("import ")]
    body = "\n".join(line for line in declaration.splitlines() if not line.strip().startswith("import ")).strip("\n")
    hx = HEADER.search(declaration.rstrip())
    assert hx, declaration[-300:]
    sig_line = problem.prompt.rstrip().splitlines()[-1]
    mp = HEADER.search(sig_line.strip())
    assert mp, sig_line
    params, hx_params = _params(mp.group("params")), _params(hx.group("params"))
    if len(params) != len(hx_params):
        raise ValueError(f"adapter: MultiPL-E's {len(params)} parameters, HumanEval-X's {len(hx_params)}")
    name, ret = hx.group("name"), mp.group("ret")
    args = ", ".join(f"({htype}) hxArg({pname}, from[{i}], to[{i}])"
                     for i, ((_, pname), (htype, _)) in enumerate(zip(params, hx_params, strict=True)))
    call = f"new Solution().{name}({args})"
    if hx.group("throws"):
        invoke = (f"        Object result;\n        try {{\n            result = {call};\n"
                  "        } catch (RuntimeException e) {\n            throw e;\n"
                  "        } catch (Exception e) {\n            throw new RuntimeException(e);\n        }\n")
    else:
        invoke = f"        Object result = {call};\n"
    wrapper = (
        '    @SuppressWarnings("unchecked")\n'
        f"    {sig_line.strip()}\n"
        "        java.lang.reflect.Method self = new Object() { }.getClass().getEnclosingMethod();\n"
        "        java.lang.reflect.Type[] from = self.getGenericParameterTypes();\n"
        f'        java.lang.reflect.Type[] to = hxMethod("{name}", {len(hx_params)}).getGenericParameterTypes();\n'
        f"{invoke}"
        f"        return ({ret}) hxResult(result, self.getGenericReturnType());\n"
        "    }\n"
    )
    head = "".join(line + "\n" for line in dict.fromkeys(imports))
    return f"{head}\nclass Problem {{\n{wrapper}{HELPERS}}}\n\n{body}\n{solution.rstrip()}\n"
