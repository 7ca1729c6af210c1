"""C#: Mono's mcs builds the program with DEBUG defined, mono runs it, as MultiPL-E runs it.

MultiPL-E's C# tests are Debug.Assert calls in `Problem.Main`. On Mono a failed Debug.Assert only
prints (MultiPL-E reads stderr for it). Here the build appends a class `AssayTestMain` and makes it
the entry point (-main:): it replaces the trace listeners with one whose Fail exits with
ASSERT_EXIT, calls Problem.Main, then prints the marker. An unhandled exception makes mono exit
with status 1 (a runtime error).

MultiPL-E's tests are judged as cases (assay.judging.cases): the test section's calls, each in a
method of class Problem, results encoded by AssayWire (the harness's own class in the program) and
written to fd 3 with write(2); expected values never enter the program. Floats compare at float32
precision, as MultiPL-E's `float` does.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, PhaseLimits, Toolchain, ToolchainMissing, Unrepresentable
from assay.languages.braces import BraceLanguage
from assay.languages.float32 import Float32Spelling, float32_scalar, float32_values
from assay.languages.harness import descriptor
from assay.languages.java import infer_type
from assay.languages.splice import ClassSplicer, assert_calls, tests_prefix
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type


class CSharp(ClassSplicer, BraceLanguage):
    """C# on Mono (mcs + mono)."""

    float32 = True  # MultiPL-E's floats are 32-bit here

    name = "csharp"
    aliases = ("cs", "c#")
    display = "C#"
    multipl_e = "cs"
    stops = ("\n    }\n",)
    typed_declarations = True
    source = "Problem.cs"
    tools = ("mcs", "mono")
    version_args = ("--version",)
    install_hint = "apt-get install -y mono-mcs mono-runtime libmono-system-numerics4.0-cil"
    build = "{mcs} -d:DEBUG -r:System.Numerics.dll -main:AssayTestMain -out:Problem.exe Problem.cs"
    run = "{mono} Problem.exe"
    env: ClassVar[dict[str, str]] = {"MONO_GC_PARAMS": "max-heap-size=1g"}  # the heap's cap, not an address-space limit
    stub = '        throw new NotImplementedException("stub");\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=4 * GiB, run_memory_bytes=None)
    config_dirs = ("/etc/mono",)  # Mono's configuration: dll maps, machine.config

    # whole programs from chat models: `namespace X { public class Solution { ... static void Main ... } }`
    import_re = re.compile(r"^[ \t]*using\s+(?:static\s+)?[\w.]+(?:\s*=\s*[\w.<>, ]+)?\s*;[ \t]*$", re.M)
    drop_re = re.compile(r"(?!x)x")  # nothing: namespaces are unwrapped
    type_re = re.compile(r"\b(class|struct|interface|enum|record)\s+(\w+)")
    container_re = re.compile(r"\bnamespace\b")
    main_re = re.compile(r"\bstatic\s+(?:async\s+)?(?:void|int|Task(?:\s*<\s*int\s*>)?)\s+Main\s*\(")
    decl_re = re.compile(r"\b(class|struct|interface|enum|record|public|private|protected|internal|static)\b")
    dummy_open = "    private static void AssayUnused() {\n"
    strip_public = False
    triple_quotes = False

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """mcs and mono, which must have System.Numerics (every MultiPL-E program references it)."""
        base = super().toolchain()
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(base.tools["mono"])))
        numerics = os.path.join(prefix, "lib", "mono", "4.5", "System.Numerics.dll")
        if not os.path.exists(numerics):
            raise ToolchainMissing(f"C#: {numerics} not found; install with: {cls.install_hint}")
        return base

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests unchanged; AssayTestMain (the entry point) routes Debug.Assert failures to ASSERT_EXIT."""
        return tests + "\n" + CS_RUNNER.replace("@MARKER@", marker).replace("@EXIT@", str(ASSERT_EXIT))

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `Debug.Assert(Name(...) == (x));` / `Debug.Assert(Name(...).Equals(x));` lines: the calls."""
        calls = assert_calls(tests, "Debug.Assert(")
        return None if calls is None else [(call, "") for call in calls]

    def render_value(self, value: Any, t: Type) -> str:
        """A value as MultiPL-E's C# translator writes an argument: `(5L)`, `(0.5f)`, `(float)2L`, `("s")`,
        `(new List<long>(new long[]{(long)1L, (long)2L}))`, `(Tuple.Create(1L, "a"))`,
        `(new Dictionary<string,long>(){{"a", 1L}})`, and for a nullable long `null` or `5L`."""
        if t.kind == "optional":
            if value is None:
                return "null"
            text = cs_literal(value, t.args[0])
            return text if t.args[0].kind in _CS_VALUE_TYPES else f"({text})"
        if t.kind == "float" and isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63:
            return f"(float){value}L"
        text = cs_literal(value, t)
        return text if t.kind == "any" and isinstance(value, tuple) else f"({text})"

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """The entry point called by its own name, as MultiPL-E's C# tests call it."""
        rendered = [self.render_value(a, t) for a, t in zip(args, signature.param_types, strict=True)]
        return f"{signature.name}({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample spliced as for its test program, the test section's prefix closing the prompt's
        function, the case methods (in class Problem, where MultiPL-E's Main calls the entry point),
        the end of Problem, the encoder AssayWire and AssayTestMain (the build's entry point), then
        the sample's other types."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        code, trailer = self.splice(problem, code)
        prefix = tests_prefix(test_program(problem).code, _CS_MAIN)
        members, rest = cs_harness(problem.tests.signature.returns, calls)
        return {self.source: (code + "\n" + prefix + members + "}\n\n" + rest + trailer).encode()}

    def normalize(self, value: Any, t: Type) -> Any:
        """Floats at float32 precision: MultiPL-E's C# has `float` for Python's float and compares float
        results with float literals (`== (0.5f)`). Lists and dicts compare by value, as Python's ==
        (MultiPL-E's `.Equals` on a List or Dictionary is reference equality: those asserts can never hold)."""
        return float32_values(value, t)


CS_RUNNER = """class AssayTestMain {
    sealed class AssayExitOnFail : System.Diagnostics.TraceListener {
        public override void Write(string message) { System.Console.Error.Write(message); }
        public override void WriteLine(string message) { System.Console.Error.WriteLine(message); }
        public override void Fail(string message) { Fail(message, null); }
        public override void Fail(string message, string detail) {
            System.Console.Out.Flush();
            System.Console.Error.WriteLine("Assertion failed. " + message + " " + detail);
            System.Console.Error.WriteLine(new System.Diagnostics.StackTrace(true));
            System.Console.Error.Flush();
            System.Environment.Exit(@EXIT@);
        }
    }
    public static void Main(string[] args) {
        System.Diagnostics.Trace.Listeners.Clear();
        System.Diagnostics.Trace.Listeners.Add(new AssayExitOnFail());
        Problem.Main(args);
        System.Console.Out.Flush();
        System.Console.WriteLine();
        System.Console.WriteLine("@MARKER@");
        System.Console.Out.Flush();
    }
}
"""


_CS_MAIN = re.compile(r"^[ \t]*public\s+static\s+void\s+Main\s*\(", re.M)
_CS_VALUE_TYPES = ("int", "float", "bool")

# ---------------------------------------------------------------------------------------------
# Values as C# literals, the way MultiPL-E's C# translator writes them (humaneval_to_cs.py on top of
# humaneval_to_cpp.py): longs `5L`, floats `0.5f`, List through an array with each element cast,
# tuples as Tuple.Create, Dictionary through a collection initializer, None as null. Typed where
# MultiPL-E's text would not compile (a long[] for a List<object>, `object("s")`) or means another value.


def cs_type(t: Type) -> str:
    """The C# type MultiPL-E declares for a value type."""
    k = t.kind
    if k == "int":
        return "long"
    if k == "float":
        return "float"
    if k == "bool":
        return "bool"
    if k == "str":
        return "string"
    if k in ("list", "vtuple"):
        return f"List<{cs_type(t.args[0])}>"
    if k == "set":
        return f"HashSet<{cs_type(t.args[0])}>"
    if k == "tuple":
        if not t.args:
            raise Unrepresentable("empty tuple: C# has no Tuple.Create()")
        return f"Tuple<{', '.join(cs_type(a) for a in t.args)}>"
    if k == "dict":
        return f"Dictionary<{cs_type(t.args[0])},{cs_type(t.args[1])}>"
    if k == "optional":
        inner = cs_type(t.args[0])
        return f"Nullable<{inner}>" if t.args[0].kind in _CS_VALUE_TYPES else inner
    if k == "any":
        return "object"
    if k == "union":
        raise Unrepresentable(f"union: C# has no union types ({t})")
    raise Unrepresentable(f"type {t}: no C# type")


def cs_string(text: str) -> str:
    """A C# string literal (MultiPL-E escapes only newlines: its quotes and backslashes would not compile)."""
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
        elif o < 0x20 or o == 0x7F or 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    return "".join(out) + '"'


def cs_literal(value: Any, t: Type, in_tuple: bool = False) -> str:
    """The C# expression of a value at type t, without the parentheses around an argument."""
    k = t.kind
    if k == "any":
        if value is None:
            return "null"
        inferred = infer_type(value)
        return cs_literal(value, inferred) if inferred.kind not in ("none", "any") else "null"
    if k == "optional":
        inner = t.args[0]
        nullable = inner.kind in _CS_VALUE_TYPES
        if value is None:
            return f"(Nullable<{cs_type(inner)}>)null" if in_tuple and nullable else "null"
        text = cs_literal(value, inner)
        return f"(Nullable<{cs_type(inner)}>){text}" if in_tuple and nullable else text
    if k == "none" and value is None:
        return "null"
    if value is None:
        raise Unrepresentable(f"None where {t} is expected (C#: only a nullable type holds null)")
    if k in ("int", "float", "bool", "str"):
        return float32_scalar(value, k, CS_SCALARS)
    if k in ("list", "vtuple", "set"):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        elem = t.args[0]
        head = f"new {'HashSet' if k == 'set' else 'List'}<{cs_type(elem)}>"
        if not items:
            return head + "()"
        at = elem
        if elem.kind == "any":  # items cast to their own type where they agree on a reference type (arrays are covariant)
            kinds = {infer_type(v) for v in items}
            common = kinds.pop() if len(kinds) == 1 else elem
            at = common if common.kind not in ("none", "any", *_CS_VALUE_TYPES) else elem
        cast = f"({cs_type(at)})" if at.kind != "any" else ""
        parts = []
        for item in items:
            text = cs_literal(item, at)
            parts.append(text if not cast or text.startswith(cast) else cast + text)
        return head + f"(new {cs_type(at)}[]{{{', '.join(parts)}}})"
    if k == "tuple":
        if not isinstance(value, (list, tuple)) or len(value) != len(t.args):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        if not t.args:
            raise Unrepresentable("empty tuple: C# has no Tuple.Create()")
        if len(t.args) > 7:
            raise Unrepresentable(f"a tuple of {len(t.args)}: Tuple.Create nests past 7")
        return f"Tuple.Create({', '.join(cs_literal(v, a, in_tuple=True) for v, a in zip(value, t.args, strict=True))})"
    if k == "dict":
        if not isinstance(value, dict):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        kt, vt = t.args
        head = f"new Dictionary<{cs_type(kt)},{cs_type(vt)}>()"
        if not value:
            return head
        return head + "{" + ", ".join(f"{{{cs_literal(a, kt)}, {cs_literal(b, vt)}}}" for a, b in value.items()) + "}"
    raise Unrepresentable(f"{t}: no C# literal for {value!r}"[:200])


# ---------------------------------------------------------------------------------------------
# The case harness (see assay.judging.records): one method per case in class Problem, where
# MultiPL-E's Main calls the entry point; a static class AssayWire, the encoder (every name in it and
# every use of it through global::, so that nothing of the sample's shadows it); AssayTestMain, the
# build's entry point, runs the cases in order. Each result is encoded under the declared type and
# written as one record to fd 3; then `done <n>` and Environment.Exit(0).

CS_WIRE = r"""static class AssayWire {
    // write(2) on fd 3 itself: Mono's FileStream refuses a descriptor its handle table did not open.
    [global::System.Runtime.InteropServices.DllImport("libc", EntryPoint = "write", SetLastError = true)]
    static extern global::System.IntPtr SysWrite(int fd, byte[] buffer, global::System.IntPtr count);

    static void Write(string line) {
        byte[] bytes = new global::System.Text.UTF8Encoding(false).GetBytes(line);
        int done = 0;
        while (done < bytes.Length) {
            byte[] rest = new byte[bytes.Length - done];
            global::System.Array.Copy(bytes, done, rest, 0, rest.Length);
            long n = (long)SysWrite(3, rest, (global::System.IntPtr)rest.Length);
            if (n <= 0) {
                if (n < 0 && global::System.Runtime.InteropServices.Marshal.GetLastWin32Error() == 4) continue;  // EINTR
                global::System.Console.Error.WriteLine("assay: the result channel cannot be written");
                global::System.Environment.Exit(3);
            }
            done += (int)n;
        }
    }

    public static void Value(int i, object v, object t) {
        global::System.Text.StringBuilder sb = new global::System.Text.StringBuilder();
        sb.Append(i.ToString(global::System.Globalization.CultureInfo.InvariantCulture)).Append(" v ");
        Enc(sb, v, t);
        Write(sb.Append('\n').ToString());
    }

    public static void Error(int i, global::System.Exception e) {
        string m;
        try { m = e.GetType().FullName + ": " + e.Message; } catch (global::System.Exception) { m = "exception"; }
        m = m.Replace('\r', ' ').Replace('\n', ' ');
        Write(i.ToString(global::System.Globalization.CultureInfo.InvariantCulture) + " e " + (m.Length > 300 ? m.Substring(0, 300) : m) + "\n");
    }

    public static void Done(int n) {
        Write("done " + n.ToString(global::System.Globalization.CultureInfo.InvariantCulture) + "\n");
        global::System.Console.Out.Flush();
        global::System.Console.Error.Flush();
        global::System.Environment.Exit(0);
    }

    static string Kind(object t) {
        return t is string ? (string)t : (string)((object[])t)[0];
    }

    static object Arg(object t, int i) {
        if (t is string) return "any";
        object[] a = (object[])t;
        return i + 1 < a.Length ? a[i + 1] : "any";
    }

    static void Str(global::System.Text.StringBuilder sb, string s) {
        sb.Append('"');
        foreach (char c in s) {
            if (c == '"' || c == '\\') sb.Append('\\').Append(c);
            else if (c >= ' ' && c < (char)0x7f) sb.Append(c);
            else sb.Append("\\u").Append(((int)c).ToString("x4", global::System.Globalization.CultureInfo.InvariantCulture));
        }
        sb.Append('"');
    }

    static void Real(global::System.Text.StringBuilder sb, double d, string text) {
        if (double.IsNaN(d)) sb.Append("NaN");
        else if (double.IsInfinity(d)) sb.Append(d > 0 ? "Infinity" : "-Infinity");
        else sb.Append(text);
    }

    static void Items(global::System.Text.StringBuilder sb, global::System.Collections.Generic.List<object> items, string k, object t) {
        sb.Append('[');
        for (int i = 0; i < items.Count; i++) {
            if (i > 0) sb.Append(',');
            Enc(sb, items[i], k == "tuple" ? Arg(t, i) : Arg(t, 0));
        }
        sb.Append(']');
    }

    static void Pair(global::System.Text.StringBuilder sb, object key, object value, object t, bool dict) {
        sb.Append('[');
        Enc(sb, key, dict ? Arg(t, 0) : "any");
        sb.Append(',');
        Enc(sb, value, dict ? Arg(t, 1) : "any");
        sb.Append(']');
    }

    // The items of a System.Tuple or System.ValueTuple (Item1..Item7, then those of Rest), or null.
    static global::System.Collections.Generic.List<object> TupleItems(object v) {
        global::System.Type type = v.GetType();
        if (!type.IsGenericType) return null;
        string name = type.GetGenericTypeDefinition().FullName;
        bool reference = name.StartsWith("System.Tuple`"), value = name.StartsWith("System.ValueTuple`");
        if (!reference && !value) return null;
        global::System.Collections.Generic.List<object> items = new global::System.Collections.Generic.List<object>();
        int n = type.GetGenericArguments().Length;
        for (int i = 1; i <= n; i++) {
            string member = i == 8 ? "Rest" : "Item" + i;
            object x = reference ? type.GetProperty(member).GetValue(v, null) : type.GetField(member).GetValue(v);
            if (i == 8) items.AddRange(TupleItems(x) ?? new global::System.Collections.Generic.List<object>());
            else items.Add(x);
        }
        return items;
    }

    static bool IsPair(object x) {
        if (x == null) return false;
        global::System.Type type = x.GetType();
        return type.IsGenericType && type.GetGenericTypeDefinition() == typeof(global::System.Collections.Generic.KeyValuePair<,>);
    }

    // v as wire JSON at the declared type t ("int", or {"list", "int"}...): the type picks tuple
    // positions and dict keys; the runtime type decides the rest.
    static void Enc(global::System.Text.StringBuilder sb, object v, object t) {
        string k = Kind(t);
        if (v == null) { sb.Append("null"); return; }
        if (k == "optional") { Enc(sb, v, Arg(t, 0)); return; }
        if (k == "union") { t = "any"; k = "any"; }
        global::System.IFormatProvider inv = global::System.Globalization.CultureInfo.InvariantCulture;
        if (v is bool) { sb.Append((bool)v ? "true" : "false"); return; }
        if (v is long || v is int || v is short || v is sbyte || v is byte || v is ushort || v is uint || v is ulong || v is global::System.Numerics.BigInteger) {
            sb.Append(((global::System.IFormattable)v).ToString(null, inv));
            return;
        }
        if (v is float) {
            float f = (float)v;
            string r = f.ToString("R", inv);
            if (float.Parse(r, inv) != f) r = f.ToString("G9", inv);
            Real(sb, f, r);
            return;
        }
        if (v is double) { double d = (double)v; Real(sb, d, d.ToString("G17", inv)); return; }
        if (v is decimal) { sb.Append(((decimal)v).ToString(inv)); return; }
        if (v is string) { Str(sb, (string)v); return; }
        if (v is char) { Str(sb, v.ToString()); return; }
        global::System.Collections.Generic.List<object> tuple = TupleItems(v);
        if (tuple != null) { Items(sb, tuple, k, t); return; }
        if (v is global::System.Collections.IDictionary) {
            sb.Append('[');
            bool first = true;
            foreach (global::System.Collections.DictionaryEntry e in (global::System.Collections.IDictionary)v) {
                if (!first) sb.Append(',');
                first = false;
                Pair(sb, e.Key, e.Value, t, k == "dict");
            }
            sb.Append(']');
            return;
        }
        if (v is global::System.Collections.IEnumerable) {
            global::System.Collections.Generic.List<object> items = new global::System.Collections.Generic.List<object>();
            foreach (object x in (global::System.Collections.IEnumerable)v) items.Add(x);
            if (k == "dict" || (k == "any" && items.Count > 0 && items.TrueForAll(IsPair))) {
                sb.Append('[');
                for (int i = 0; i < items.Count; i++) {
                    if (i > 0) sb.Append(',');
                    if (!IsPair(items[i])) throw new global::System.ArgumentException("a dict item is a " + (items[i] == null ? "null" : items[i].GetType().FullName));
                    global::System.Type pt = items[i].GetType();
                    Pair(sb, pt.GetProperty("Key").GetValue(items[i], null), pt.GetProperty("Value").GetValue(items[i], null), t, k == "dict");
                }
                sb.Append(']');
                return;
            }
            Items(sb, items, k, t);
            return;
        }
        throw new global::System.ArgumentException("the result is a " + v.GetType().FullName + ", which is not plain data");
    }
}
"""


def cs_descriptor(t: Type) -> str:
    """The declared type as AssayWire reads it: "int", or new object[]{"list", "int"}."""

    def text(d: object) -> str:
        if isinstance(d, str):
            return '"' + d + '"'
        assert isinstance(d, list)
        return "new object[]{" + ", ".join(text(x) for x in d) + "}"

    return text(descriptor(t))


def cs_harness(returns: Type, calls: Sequence[str]) -> tuple[str, str]:
    """The harness for these calls: (members of class Problem, what follows it). Inside Problem the
    calls see what MultiPL-E's own Main sees there (private members too); one method per case, all
    run in order from AssayTestMain.Main, the build's entry point; AssayWire encodes and writes."""
    cases = "".join(
        f"    static void AssayCase{i}__() {{\n"
        f"        try {{ global::AssayWire.Value({i}, (object)({call}), AssayType__); }} catch (global::System.Exception e) {{ global::AssayWire.Error({i}, e); }}\n"
        "    }\n"
        for i, call in enumerate(calls)
    )
    run = "".join(f"        AssayCase{i}__();\n" for i in range(len(calls)))
    members = (
        f"    static readonly object AssayType__ = {cs_descriptor(returns)};\n"
        + cases
        + "    internal static void AssayRun__() {\n"
        + run
        + f"        global::AssayWire.Done({len(calls)});\n"
        + "    }\n"
    )
    return members, CS_WIRE + "class AssayTestMain {\n    public static void Main(string[] args) {\n        Problem.AssayRun__();\n    }\n}\n"


CS_SCALARS = Float32Spelling("{}L", "(float){}L", "float.NaN", "float.PositiveInfinity", "float.NegativeInfinity", cs_string)
