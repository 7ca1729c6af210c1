"""Scala 2.11 (Debian's scala package) on OpenJDK 17: scalac builds, the JVM runs, as MultiPL-E runs it.

scalac is the `scala.tools.nsc.Main` of the package's jars, started directly on the JVM (not through
the scalac shell script) with a small heap, the C1 JIT only and a class-data-sharing archive of the
compiler recorded once per machine: that halves the compiler's start-up, its biggest cost. The
program runs on plain `java` with scala-library on the class path (MultiPL-E uses the `scala`
runner, which does the same plus the compiler's jars). Scala's `assert` throws
java.lang.AssertionError whatever -ea says; a wrapper object maps it to ASSERT_EXIT.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import subprocess
import zipfile
from pathlib import Path
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, GiB, RunLimits, Toolchain, ToolchainMissing
from assay.languages.java import JVM_ENV
from assay.languages.splice import ClassSplicer
from assay.languages.support import digest, dump_cds, etc_dirs, file_stamp, run_host, support_dir

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
    sample = work / "sample"
    (sample / "classes").mkdir(parents=True)
    (sample / "Problem.scala").write_text(_CDS_SAMPLE)
    argv = [java, *SCALAC_JVM, "{cds}", "-Dscala.usejavacp=true", "-cp", compiler_cp, "scala.tools.nsc.Main", "-d", "classes", "Problem.scala"]
    if dump_cds(argv, work / "scalac.jsa", sample):
        run_host([java, "-cp", f"classes:{library_cp}", "AssayTestMain"], sample)
    for path in sorted(sample.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    sample.rmdir()


class Scala(ClassSplicer, BraceLanguage):
    """Scala 2.11 on the JDK: scalac, then java with scala-library; assertion failures exit ASSERT_EXIT."""

    name = "scala"
    display = "Scala"
    source = "Problem.scala"
    tools = ("scalac", "java")
    version_args = ("-version",)
    install_hint = "apt-get install -y scala"
    build = (
        "mkdir -p classes && {java} " + " ".join(SCALAC_JVM) + " $ASSAY_SCALAC_CDS -Dscala.usejavacp=true"
        ' -cp "$ASSAY_SCALAC_CP" scala.tools.nsc.Main -d classes Problem.scala'
    )
    run = '{java} -Xmx1g -XX:+UseSerialGC -XX:-UsePerfData -cp "classes:$ASSAY_SCALA_CP" AssayTestMain'
    stub = '        throw new UnsupportedOperationException("stub")\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=4 * GiB, run_memory_bytes=None)
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
        """java and the scala jars (next to the scalac script), plus scalac's CDS archive built once."""
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
                     *(file_stamp(os.path.realpath(os.path.join(lib, jar))) for jar in COMPILER_JARS), _CDS_SAMPLE, SCALAC_JVM)
        env = {**base.env, "ASSAY_SCALAC_CP": compiler_cp, "ASSAY_SCALA_CP": library_cp, "ASSAY_SCALAC_CDS": ""}
        binds = {*base.ro_binds, *etc_dirs(jdk)}
        try:
            support = support_dir("scala", key, lambda work: _build_scala_support(work, java, compiler_cp, library_cp))
        except (OSError, subprocess.SubprocessError):
            support = None  # no archive: scalac only starts slower
        if support is not None and (support / "scalac.jsa").exists() and not re.search(r"\s", str(support)):
            env["ASSAY_SCALAC_CDS"] = f"-XX:SharedArchiveFile={support / 'scalac.jsa'}"
            binds.add(str(support))
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
