"""Scala 2.11 (Debian's scala package) on OpenJDK 17: scalac builds, the JVM runs, as MultiPL-E runs it.

scalac is the `scala.tools.nsc.Main` of the package's jars, started directly on the JVM (not through
the scalac shell script) with a small heap, the C1 JIT only and a class-data-sharing archive of the
compiler recorded once per machine: that halves the compiler's start-up, its biggest cost. The
program runs on plain `java` with scala-library on the class path (MultiPL-E uses the `scala`
runner, which does the same plus the compiler's jars). Scala's `assert` throws
java.lang.AssertionError whatever -ea says; a wrapper object maps it to ASSERT_EXIT.

MultiPL-E's tests are judged as cases (assay.judging.cases): the test section's calls, each in a
method of object Problem, results encoded by AssayWire (Assay's own encoder, compiled once into the
support directory) and written to fd 3; expected values never enter the program. Floats compare at
float32 precision, as MultiPL-E's `Float` does; a union is MultiPL-E's Either, written as Left or Right.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import subprocess
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, PhaseLimits, Toolchain, ToolchainMissing, Unrepresentable
from assay.languages.braces import BraceLanguage
from assay.languages.float32 import Float32Spelling, float32_scalar, float32_values
from assay.languages.harness import descriptor
from assay.languages.java import JVM_ENV, infer_type
from assay.languages.splice import ClassSplicer, assert_calls, tests_prefix
from assay.languages.support import digest, dump_cds, etc_dirs, file_stamp, run_host, support_dir
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type, fits

# The compiler's JVM: the heap scalac's own script uses is too small for some programs; C1 only.
SCALAC_JVM = ("-Xmx1g", "-Xss8m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData")
COMPILER_JARS = ("scala-compiler.jar", "scala-library.jar", "scala-reflect.jar")
LIBRARY_JARS = ("scala-library.jar", "scala-reflect.jar")

_CDS_SAMPLE = """import scala.math._
import scala.collection.mutable._
object Problem {
    case class Point(x : Long, y : Long)
    def sortEven(l : List[Long]) : List[Long] = {
        val evens = l.zipWithIndex.filter(_._2 % 2 == 0).map(_._1).sorted
        val buf = ArrayBuffer[Long]()
        var i = 0
        for ((x, j) <- l.zipWithIndex) { if (j % 2 == 0) { buf += evens(i); i += 1 } else buf += x }
        val m = HashMap[String, Int]()
        m("a") = 1
        val s = "abc".map(c => c.toUpper).mkString(",") + m.getOrElse("b", 0) + Point(1, 2).x
        val o : Option[Long] = l.headOption
        o match { case Some(v) if v > 0 => buf.toList; case _ => buf.toList.reverse }
    }
    def words(s : String) : (Long, String) = {
        val parts = s.split(" ").toList.filter(_.nonEmpty)
        (parts.length.toLong, parts.foldLeft("")(_ + _) + abs(-1) + max(1, 2) + pow(2, 3))
    }
    def main(args: Array[String]) = {
    assert(sortEven((List[Long](1l.toLong, 2l.toLong, 3l.toLong))).equals((List[Long](1l.toLong, 2l.toLong, 3l.toLong))));
    assert(words(("a b"))._1 == 2l);
    }

}
object AssayTestMain {
    def main(args: Array[String]): Unit = {
        try { Problem.main(args) } catch { case e: AssertionError => Runtime.getRuntime.halt(97) }
        println("done")
    }
}
"""


def _build_scala_support(work: Path, java: str, compiler_cp: str, library_cp: str) -> None:
    """harness/: the case harness's encoder (required); scalac.jsa: scalac's CDS archive (optional)."""
    (work / "harness").mkdir()
    (work / "AssayWire.scala").write_text(SCALA_WIRE)
    run_host([java, *SCALAC_JVM, "-Dscala.usejavacp=true", "-cp", compiler_cp, "scala.tools.nsc.Main", "-d", "harness", "AssayWire.scala"], work)
    (work / "AssayWire.scala").unlink()
    sample = work / "sample"
    (sample / "classes").mkdir(parents=True)
    (sample / "Problem.scala").write_text(_CDS_SAMPLE)
    argv = [java, *SCALAC_JVM, "{cds}", "-Dscala.usejavacp=true", "-cp", compiler_cp, "scala.tools.nsc.Main", "-d", "classes", "Problem.scala"]
    try:
        if dump_cds(argv, work / "scalac.jsa", sample):
            run_host([java, "-cp", f"classes:{library_cp}", "AssayTestMain"], sample)
    except (OSError, subprocess.SubprocessError):
        (work / "scalac.jsa").unlink(missing_ok=True)  # no archive: scalac only starts slower
    for path in sorted(sample.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    sample.rmdir()


class Scala(ClassSplicer, BraceLanguage):
    """Scala 2.11 on the JDK: scalac, then java with scala-library; assertion failures exit ASSERT_EXIT."""

    float32 = True  # MultiPL-E's floats are 32-bit here

    name = "scala"
    display = "Scala"
    multipl_e = "scala"
    stops = ("\n    }\n",)
    source = "Problem.scala"
    tools = ("scalac", "java")
    version_args = ("-version",)
    install_hint = "apt-get install -y scala"
    build = (
        "mkdir -p classes && {java} " + " ".join(SCALAC_JVM) + " $ASSAY_SCALAC_CDS -Dscala.usejavacp=true"
        ' -cp "$ASSAY_SCALAC_CP" scala.tools.nsc.Main -d classes Problem.scala'
    )
    # java.io opened to the class path: the case harness makes a FileDescriptor of fd 3, the result channel.
    run = '{java} -Xmx1g -XX:+UseSerialGC -XX:-UsePerfData --add-opens java.base/java.io=ALL-UNNAMED -cp "classes:$ASSAY_SCALA_CP" AssayTestMain'
    stub = '        throw new UnsupportedOperationException("stub")\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=4 * GiB, run_memory_bytes=None)
    env: ClassVar[dict[str, str]] = JVM_ENV

    # whole programs from chat models: `object Main { def f(...) = ...; def main(...) }`
    import_re = re.compile(r"^[ \t]*import\s+[\w.{}, =>*]+;?[ \t]*$", re.M)
    drop_re = re.compile(r"^[ \t]*package\s+[\w.]+\s*;?[ \t]*$", re.M)
    type_re = re.compile(r"\b(class|object|trait)\s+(\w+)")
    main_re = re.compile(r"\bdef\s+main\s*\(")
    decl_re = re.compile(r"\b(def|val|var|class|object|trait|type)\b")
    statement_end = "\n"
    method_re = r"\b{name}\s*[\[(:=]"
    dummy_open = "    def assayUnused() : Unit = {\n"
    strip_public = False

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """java and the scala jars (next to the scalac script), plus a support directory built once:
        the case harness's encoder (compiled once, on both class paths) and scalac's CDS archive."""
        base = super().toolchain()
        java = base.tools["java"]
        lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(base.tools["scalac"]))), "lib")
        missing = [jar for jar in COMPILER_JARS if not os.path.exists(os.path.join(lib, jar))]
        if missing:
            raise ToolchainMissing(f"Scala: {', '.join(missing)} not found in {lib}; install with: {cls.install_hint}")
        compiler_cp = ":".join(os.path.join(lib, jar) for jar in COMPILER_JARS)
        library_cp = ":".join(os.path.join(lib, jar) for jar in LIBRARY_JARS)
        jdk = os.path.dirname(os.path.dirname(os.path.realpath(java)))
        key = digest(base.version, os.path.realpath(java), file_stamp(os.path.join(jdk, "lib", "modules")),
                     *(file_stamp(os.path.realpath(os.path.join(lib, jar))) for jar in COMPILER_JARS), _CDS_SAMPLE, SCALA_WIRE, SCALAC_JVM)
        try:
            support = support_dir("scala", key, lambda work: _build_scala_support(work, java, compiler_cp, library_cp))
        except (OSError, subprocess.SubprocessError) as exc:
            raise ToolchainMissing(f"Scala: could not compile the case harness's encoder with scalac: {exc}") from None
        harness = str(support / "harness")  # after the archive's class path: a CDS archive takes a longer one
        env = {**base.env, "ASSAY_SCALAC_CP": f"{compiler_cp}:{harness}", "ASSAY_SCALA_CP": f"{library_cp}:{harness}", "ASSAY_SCALAC_CDS": ""}
        binds = {*base.ro_binds, *etc_dirs(jdk), str(support)}
        if (support / "scalac.jsa").exists() and not re.search(r"\s", str(support)):
            env["ASSAY_SCALAC_CDS"] = f"-XX:SharedArchiveFile={support / 'scalac.jsa'}"
        for jar in COMPILER_JARS:  # jars may be links into /usr/share/java or elsewhere
            real = os.path.dirname(os.path.realpath(os.path.join(lib, jar)))
            if not real.startswith("/usr/"):
                binds.add(real)
        return dataclasses.replace(base, ro_binds=tuple(sorted(binds)), env=env)

    @classmethod
    def read_version(cls, tool_path: str) -> str:
        """The compiler's version from scala-compiler.jar (no JVM start, unlike `scalac -version`)."""
        lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(tool_path))), "lib")
        try:
            with zipfile.ZipFile(os.path.join(lib, "scala-compiler.jar")) as jar:
                text = jar.read("compiler.properties").decode("utf-8", "replace")
        except (OSError, KeyError, zipfile.BadZipFile):
            return super().read_version(tool_path)
        match = re.search(r"^version\.number=(\S+)", text, re.M)
        return f"Scala compiler version {match.group(1)}" if match else super().read_version(tool_path)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests unchanged; a second object's main runs Problem.main: AssertionError -> ASSERT_EXIT, then the marker."""
        return tests + "\n" + SCALA_RUNNER.replace("@MARKER@", marker).replace("@EXIT@", str(ASSERT_EXIT))

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `assert(name(...) == (x));` / `assert(name(...).equals(x));` lines: the calls."""
        calls = assert_calls(tests, "assert(")
        return None if calls is None else [(call, "") for call in calls]

    def render_value(self, value: Any, t: Type) -> str:
        """A value as MultiPL-E's Scala translator writes an argument: `(5l)`, `(0.5f)`, `("s")`,
        `(List[Long](1l.toLong, 2l.toLong))`, `((1l, "a"))`, `(Map[String,Long]("a" -> 1l))`,
        `Some(3l)`, `None`; a union (Either) as Left or Right."""
        if t.kind == "optional":
            return "None" if value is None else f"Some({scala_literal(value, t.args[0], top=True)})"
        if t.kind == "float" and isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63:
            return f"{value}l"  # a Long widens to a Float parameter
        return f"({scala_literal(value, t, top=True)})"

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """The entry point called by its own name, as MultiPL-E's Scala tests call it."""
        rendered = [self.render_value(a, t) for a, t in zip(args, signature.param_types, strict=True)]
        return f"{signature.name}({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample spliced as for its test program, the test section's prefix closing the prompt's
        function, the case methods (in object Problem, where MultiPL-E's main calls the entry point),
        the end of Problem, the runner object AssayTestMain, then the sample's other top-level types."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        code, trailer = self.splice(problem, code)
        prefix = tests_prefix(test_program(problem).code, _SCALA_MAIN)
        members, runner = scala_harness(problem.tests.signature.returns, calls)
        return {self.source: (code + "\n" + prefix + members + "}\n\n" + runner + trailer).encode()}

    def normalize(self, value: Any, t: Type) -> Any:
        """Floats at float32 precision: MultiPL-E's Scala has `Float` for Python's float and compares
        float results with Float literals (`== (0.5f)`). Everything else compares as Python's ==."""
        return float32_values(value, t)


SCALA_RUNNER = """object AssayTestMain {
    def main(args: Array[String]): Unit = {
        try {
            Problem.main(args)
        } catch {
            case e: AssertionError =>
                e.printStackTrace()
                Console.out.flush()
                System.out.flush()
                System.err.flush()
                Runtime.getRuntime.halt(@EXIT@)
        }
        Console.out.flush()
        System.out.println()
        System.out.println("@MARKER@")
        System.out.flush()
    }
}
"""


_SCALA_MAIN = re.compile(r"^[ \t]*def\s+main\s*\(", re.M)
_SCALA_CAST = {"int": ".toLong", "float": ".toFloat", "bool": ".toBoolean"}

# ---------------------------------------------------------------------------------------------
# Values as Scala literals, the way MultiPL-E's Scala translator writes them (humaneval_to_scala.py
# on top of humaneval_to_cpp.py): longs `5l`, floats `0.5f`, `List[T](...)` with primitive items
# converted (`1l.toLong`), tuples in parentheses, `Map[K,V](k -> v)`, None and Some. Typed where
# MultiPL-E's text would not compile: a union's values (its Either) as Left or Right, escaped strings.


def scala_type(t: Type) -> str:
    """The Scala type MultiPL-E declares for a value type."""
    k = t.kind
    simple = {"int": "Long", "float": "Float", "bool": "Boolean", "str": "String", "any": "Any"}
    if k in simple:
        return simple[k]
    if k in ("list", "vtuple"):
        return f"List[{scala_type(t.args[0])}]"
    if k == "set":
        return f"Set[{scala_type(t.args[0])}]"
    if k == "tuple":
        if not t.args:
            raise Unrepresentable("empty tuple: Scala has no Tuple0 literal")
        return f"Tuple2[{', '.join(scala_type(a) for a in t.args)}]"  # MultiPL-E's name for a tuple of any size
    if k == "dict":
        return f"Map[{scala_type(t.args[0])},{scala_type(t.args[1])}]"
    if k == "optional":
        return f"Option[{scala_type(t.args[0])}]"
    if k == "union":
        if len(t.args) != 2:
            raise Unrepresentable(f"union of {len(t.args)}: MultiPL-E's Scala has Either for two")
        return f"Either[{scala_type(t.args[0])}, {scala_type(t.args[1])}]"
    raise Unrepresentable(f"type {t}: no Scala type")


def scala_string(text: str) -> str:
    """A Scala string literal (MultiPL-E escapes only newlines: its quotes and backslashes would not compile)."""
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
            out.append(f"\\u{o:04x}")  # a unicode escape, read before the lexer: never a line end or a quote here
        else:
            out.append(ch)
    return "".join(out) + '"'


def scala_literal(value: Any, t: Type, item: bool = False, top: bool = False) -> str:
    """The Scala expression of a value at type t, without the parentheses around an argument;
    item: as a List's element (primitives converted as MultiPL-E does, `1l.toLong`); top: an
    argument itself (a nested List of Any is a List of what its items are, as MultiPL-E writes it:
    Scala's List is covariant)."""
    k = t.kind
    if k == "any":
        if value is None:
            return "None"
        inferred = infer_type(value)
        return scala_literal(value, inferred, item) if inferred.kind not in ("none", "any") else "None"
    if k == "optional":
        return "None" if value is None else f"Some({scala_literal(value, t.args[0])})"
    if k == "union":
        if len(t.args) != 2:
            raise Unrepresentable(f"union of {len(t.args)}: MultiPL-E's Scala has Either for two")
        for side, alt in zip(("Left", "Right"), t.args, strict=True):
            if fits(value, alt) and not (alt.kind == "float" and isinstance(value, int)):
                return f"{side}({scala_literal(value, alt)})"
        for side, alt in zip(("Left", "Right"), t.args, strict=True):
            if fits(value, alt):
                return f"{side}({scala_literal(value, alt)})"
        raise Unrepresentable(f"{value!r} is not a {t}"[:200])
    if k == "none" and value is None:
        return "None"
    if value is None:
        raise Unrepresentable(f"None where {t} is expected (Scala: only Option holds None)")
    cast = _SCALA_CAST.get(k, "") if item else ""
    if k in ("int", "float", "bool", "str"):
        return float32_scalar(value, k, SCALA_SCALARS, cast)
    if k in ("list", "vtuple", "set"):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        elem = t.args[0]
        at = elem
        if elem.kind == "any":  # items converted to their own type where they agree, as MultiPL-E does
            kinds = {infer_type(v) for v in items}
            at = kinds.pop() if len(kinds) == 1 else elem
        head = f"{'Set' if k == 'set' else 'List'}[{scala_type(elem if top or k == 'set' or not items else at)}]"
        return head + "(" + ", ".join(scala_literal(v, at, item=at.kind != "any") for v in items) + ")"
    if k == "tuple":
        if not isinstance(value, (list, tuple)) or len(value) != len(t.args):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        if len(t.args) < 2:
            raise Unrepresentable(f"a tuple of {len(t.args)}: Scala has no literal for it")
        return "(" + ", ".join(scala_literal(v, a) for v, a in zip(value, t.args, strict=True)) + ")"
    if k == "dict":
        if not isinstance(value, dict):
            raise Unrepresentable(f"{value!r} is not a {t}"[:200])
        kt, vt = t.args
        return f"{scala_type(t)}(" + ", ".join(f"{scala_literal(a, kt)} -> {scala_literal(b, vt)}" for a, b in value.items()) + ")"
    raise Unrepresentable(f"{t}: no Scala literal for {value!r}"[:200])


# ---------------------------------------------------------------------------------------------
# The case harness (see assay.judging.records). Its encoder, object AssayWire, is Assay's own code,
# compiled once per machine into the support directory (scalac would take half as long again to
# compile it with every program; and the sample's names cannot shadow the encoder's). Each program
# gets one method per case in object Problem, where MultiPL-E's main calls the entry point, run in
# order by object AssayTestMain after it; each result is encoded under the declared type and
# written as one record to fd 3, unbuffered; then `done <n>`, and the JVM halts.

SCALA_WIRE = r"""object AssayWire {
    private var out: java.io.FileOutputStream = null

    /** fd 3 by number, through java.io's own field (the run's JVM opens java.io to the class path). */
    def open(): Unit = {
        try {
            val channel = new java.io.FileDescriptor()
            val number = classOf[java.io.FileDescriptor].getDeclaredField("fd")
            number.setAccessible(true)
            number.setInt(channel, 3)
            out = new java.io.FileOutputStream(channel)
        } catch {
            case e: Throwable =>
                System.err.println("assay: no result channel: " + e)
                Runtime.getRuntime.halt(3)
        }
    }

    private def write(line: String): Unit = {
        try out.write(line.getBytes("UTF-8")) catch { case _: Throwable => Runtime.getRuntime.halt(3) }
    }

    def value(i: Int, v: Any, t: AnyRef): Unit = {
        val sb = new java.lang.StringBuilder()
        sb.append(i).append(" v ")
        enc(sb, v, t)
        write(sb.append('\n').toString)
    }

    def error(i: Int, e: Throwable): Unit = {
        var m = try String.valueOf(e) catch { case _: Throwable => e.getClass.getName }
        m = m.replace('\r', ' ').replace('\n', ' ')
        write(i + " e " + (if (m.length > 300) m.substring(0, 300) else m) + "\n")
    }

    def done(n: Int): Unit = {
        write("done " + n + "\n")
        Console.out.flush()
        System.out.flush()
        System.err.flush()
        Runtime.getRuntime.halt(0)
    }

    private def kind(t: AnyRef): String = t match {
        case s: String => s
        case a: Array[AnyRef] => a(0).asInstanceOf[String]
    }

    private def arg(t: AnyRef, i: Int): AnyRef = t match {
        case a: Array[AnyRef] if i + 1 < a.length => a(i + 1)
        case _ => "any"
    }

    private def str(sb: java.lang.StringBuilder, s: String): Unit = {
        sb.append('"')
        var i = 0
        while (i < s.length) {
            val c = s.charAt(i)
            if (c == '"' || c == '\\') sb.append('\\').append(c)
            else if (c >= 0x20 && c < 0x7f) sb.append(c)
            else {
                val h = Integer.toHexString(c.toInt)
                sb.append("\\u0000", 0, 6 - h.length).append(h)
            }
            i += 1
        }
        sb.append('"')
    }

    private def real(sb: java.lang.StringBuilder, d: Double, text: String): Unit = {
        if (java.lang.Double.isNaN(d)) sb.append("NaN")
        else if (java.lang.Double.isInfinite(d)) sb.append(if (d > 0) "Infinity" else "-Infinity")
        else sb.append(text)
    }

    private def items(sb: java.lang.StringBuilder, xs: scala.collection.immutable.List[Any], k: String, t: AnyRef): Unit = {
        sb.append('[')
        var i = 0
        var rest = xs
        while (rest.nonEmpty) {
            if (i > 0) sb.append(',')
            enc(sb, rest.head, if (k == "tuple") arg(t, i) else arg(t, 0))
            rest = rest.tail
            i += 1
        }
        sb.append(']')
    }

    private def pairs(sb: java.lang.StringBuilder, xs: scala.collection.immutable.List[(Any, Any)], k: String, t: AnyRef): Unit = {
        val (kt, vt) = if (k == "dict") (arg(t, 0), arg(t, 1)) else ("any", "any")
        sb.append('[')
        var first = true
        for ((a, b) <- xs) {
            if (!first) sb.append(',')
            first = false
            sb.append('[')
            enc(sb, a, kt)
            sb.append(',')
            enc(sb, b, vt)
            sb.append(']')
        }
        sb.append(']')
    }

    /** v as wire JSON at the declared type t ("int", or Array("list", "int")...): the type picks tuple
     *  positions, dict keys and an Either's side; the runtime class decides the rest. */
    def enc(sb: java.lang.StringBuilder, v: Any, t: AnyRef): Unit = {
        val k = kind(t)
        v match {
            case null => sb.append("null")
            case None => sb.append("null")
            case Some(x) => enc(sb, x, if (k == "optional") arg(t, 0) else t)
            case _ if k == "optional" => enc(sb, v, arg(t, 0))
            case Left(x) => enc(sb, x, if (k == "union") arg(t, 0) else "any")
            case Right(x) => enc(sb, x, if (k == "union") arg(t, 1) else "any")
            case _ if k == "union" => enc(sb, v, "any")
            case b: Boolean => sb.append(if (b) "true" else "false")
            case x: Long => sb.append(x)
            case x: Int => sb.append(x)
            case x: Short => sb.append(x)
            case x: Byte => sb.append(x)
            case x: scala.math.BigInt => sb.append(x.toString)
            case x: java.math.BigInteger => sb.append(x.toString)
            case f: Float => real(sb, f.toDouble, java.lang.Float.toString(f))
            case d: Double => real(sb, d, java.lang.Double.toString(d))
            case s: String => str(sb, s)
            case c: Char => str(sb, c.toString)
            case m: scala.collection.Map[_, _] => pairs(sb, m.toList.asInstanceOf[scala.collection.immutable.List[(Any, Any)]], k, t)
            case p: Product if p.getClass.getName.startsWith("scala.Tuple") => items(sb, p.productIterator.toList, k, t)
            case xs: scala.collection.TraversableOnce[_] =>
                val list = xs.toList
                if (k == "dict") pairs(sb, list.asInstanceOf[scala.collection.immutable.List[(Any, Any)]], k, t)
                else items(sb, list, k, t)
            case a: Array[_] => items(sb, a.toList, k, t)
            case m: java.util.Map[_, _] =>
                val list = new java.util.ArrayList[(Any, Any)]()
                val it = m.entrySet.iterator
                while (it.hasNext) { val e = it.next(); list.add((e.getKey, e.getValue)) }
                pairs(sb, scala.collection.JavaConversions.asScalaBuffer(list).toList, k, t)
            case xs: java.lang.Iterable[_] =>
                val list = new java.util.ArrayList[Any]()
                val it = xs.iterator
                while (it.hasNext) list.add(it.next())
                items(sb, scala.collection.JavaConversions.asScalaBuffer(list).toList, k, t)
            case other => throw new IllegalArgumentException("the result is a " + other.getClass.getName + ", which is not plain data")
        }
    }
}
"""


def scala_descriptor(t: Type) -> str:
    """The declared type as AssayWire reads it: "int", or Array[AnyRef]("list", "int")."""

    def text(d: object) -> str:
        if isinstance(d, str):
            return '"' + d + '"'
        assert isinstance(d, list)
        return "Array[AnyRef](" + ", ".join(text(x) for x in d) + ")"

    return text(descriptor(t))


def scala_harness(returns: Type, calls: Sequence[str]) -> tuple[str, str]:
    """The harness for these calls: (members of object Problem, the object after it). Inside Problem
    the calls see what MultiPL-E's own main sees there (private members too); one method per case,
    all run in order from AssayTestMain's main (AssayWire, the encoder, is on the class path)."""
    cases = "".join(
        f"    private def assayCase{i}() : Unit = {{\n"
        f"        try AssayWire.value({i}, ({call}), assayType) catch {{ case e: Throwable => AssayWire.error({i}, e) }}\n"
        "    }\n"
        for i, call in enumerate(calls)
    )
    run = "".join(f"        assayCase{i}()\n" for i in range(len(calls)))
    members = (
        f"    private val assayType : AnyRef = {scala_descriptor(returns)}\n"
        + cases
        + "    def assayRun() : Unit = {\n"
        + "        AssayWire.open()\n"
        + run
        + f"        AssayWire.done({len(calls)})\n"
        + "    }\n"
    )
    return members, "object AssayTestMain {\n    def main(args: Array[String]): Unit = Problem.assayRun()\n}\n"


SCALA_SCALARS = Float32Spelling("{}l", "{}l.toFloat", "Float.NaN", "Float.PositiveInfinity", "Float.NegativeInfinity", scala_string)
