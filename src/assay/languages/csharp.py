"""C#: Mono's mcs builds the program with DEBUG defined, mono runs it, as MultiPL-E runs it.

MultiPL-E's C# tests are Debug.Assert calls in `Problem.Main`. On Mono a failed Debug.Assert only
prints (MultiPL-E reads stderr for it). Here the build appends a class `AssayTestMain` and makes it
the entry point (-main:): it replaces the trace listeners with one whose Fail exits with
ASSERT_EXIT, calls Problem.Main, then prints the marker. An unhandled exception makes mono exit
with status 1 (a runtime error).
"""

from __future__ import annotations

import functools
import os
import re
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, BraceLanguage, GiB, RunLimits, Toolchain, ToolchainMissing
from assay.languages.splice import ClassSplicer


class CSharp(ClassSplicer, BraceLanguage):
    """C# on Mono (mcs + mono)."""

    name = "csharp"
    aliases = ("cs",)
    display = "C#"
    source = "Problem.cs"
    tools = ("mcs", "mono")
    version_args = ("--version",)
    install_hint = "apt-get install -y mono-mcs mono-runtime libmono-system-numerics4.0-cil"
    build = "{mcs} -d:DEBUG -r:System.Numerics.dll -main:AssayTestMain -out:Problem.exe Problem.cs"
    run = "{mono} Problem.exe"
    env: ClassVar[dict[str, str]] = {"MONO_GC_PARAMS": "max-heap-size=1g"}  # the heap's cap, not an address-space limit
    stub = '        throw new NotImplementedException("stub");\n'
    limits: ClassVar[RunLimits] = RunLimits(memory_bytes=4 * GiB, run_memory_bytes=None)
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
