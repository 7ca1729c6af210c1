"""McEval's test programs (runner "mceval"), one row a language: how the sample and the tests make one
program, how it is built and run, and where Assay's completion marker goes.

Upstream (MCEVAL/McEval eval/excute.py) writes the extracted code, "\\n\\n" and the row's `test` to a file,
runs it, and passes on exit status 0 (for some languages also when the output lacks "failed" or
"FAILURE"). Here the same program runs in Assay's sandbox with Assay's limits, and a pass needs exit
status 0 *and* the run's completion marker, printed by code Assay places after the tests' own code
(after the tests' last statement, or in a `main` of Assay's that calls the tests' renamed one), so a
sample that exits early with status 0 has not passed. Where upstream also reads the output ("failed"
in C++'s), so does the verdict here: a run that says so fails. Assertions that only print (JavaScript's
console.assert) are Assay's and exit with ASSERT_EXIT. C++, Go and Rust tests have HumanEval-X's shape
and run through its native shapes (assay.languages.native_tests).

Languages without an Assay plugin are rows of TABLE: tools, install hint, file, build and run; their
Language objects are made here (table_language) and reached through assay.languages.get_language.
Rows whose toolchain is not in Debian 12, or whose tests are not in the data, say why they are skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import secrets
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language, PhaseLimits, Toolchain, ToolchainMissing, _path_for, classify, phase_argv
from assay.languages.elixir import ERL_FLAGS
from assay.languages.support import etc_dirs
from assay.problems import Problem, Status, Verdict, test_program
from assay.sandbox.base import Phase, Sandbox, SandboxLimits

Assemble = Callable[[Problem, str, str, str], str]  # (problem, code, tests, marker) -> the program's text


@dataclass(frozen=True)
class Row:
    """One language's program: its file, build and run commands ({tool} placeholders) and assembly."""

    source: str
    run: str
    assemble: Assemble
    build: str = ""
    fail_words: tuple[str, ...] = ()  # upstream's rule: a run whose output holds one of these failed
    native: bool = False  # HumanEval-X's shapes (assay.languages.native_tests) build and run it


# ------------------------------------------------------------------ assembly


def appended(statement: str, prelude: str = "") -> Assemble:
    """code, the tests, then `statement` (with {marker}): for tests that are top-level code run in order."""

    def assemble(problem: Problem, code: str, tests: str, marker: str) -> str:
        return prelude + code + "\n\n" + tests.rstrip() + "\n" + statement.replace("{marker}", marker) + "\n"

    return assemble


_UNITTEST_MAIN = re.compile(r"^([ \t]*)unittest\.main\(\)[ \t]*$", re.M)


def python_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """code, the tests, the marker; `unittest.main()` (which exits) returns instead, and a failure exits ASSERT_EXIT."""
    tests = _UNITTEST_MAIN.sub(lambda m: f"{m.group(1)}if not unittest.main(exit=False).result.wasSuccessful():\n"
                                         f"{m.group(1)}    raise SystemExit({ASSERT_EXIT})", tests)
    return appended('print("\\n{marker}")')(problem, code, tests, marker)


def _before_last(pattern: str, statement: str, flags: int = re.M) -> Assemble:
    """code + tests with `statement` inserted before the last match of `pattern` in the tests (a program's end)."""
    regex = re.compile(pattern, flags)

    def assemble(problem: Problem, code: str, tests: str, marker: str) -> str:
        found = list(regex.finditer(tests))
        line = statement.replace("{marker}", marker)
        if not found:
            return code + "\n\n" + tests.rstrip() + "\n" + line + "\n"
        at = found[-1].start()
        return code + "\n\n" + tests[:at] + line + "\n" + tests[at:]

    return assemble


_C_MAIN = re.compile(r"\bint\s+main\s*\(\s*(?:void\s*)?\)")


def c_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """The tests' main renamed; Assay's main calls it, then prints the marker."""
    renamed = _C_MAIN.sub("int assay_tests_main(void)", tests)
    main = ("\n#include <stdio.h>\nint main(void) {\n    assay_tests_main();\n    fflush(stdout);\n"
            f'    puts("\\n{marker}");\n    fflush(stdout);\n    return 0;\n}}\n')
    return code + "\n\n" + renamed + main


# console.assert only prints; Assay's exits. Tests see copies taken before the sample ran.
JS_PRELUDE = """const __ASSAY__ = (() => {
  const exit = process.exit.bind(process), error = console.error.bind(console), log = console.log.bind(console);
  const fake = Object.create(console);
  fake.assert = (ok, ...what) => { if (!ok) { error("Assertion failed:", ...what); exit(__EXIT__); } };
  return { console: Object.freeze(fake), done: () => { log("\\n__MARKER__"); exit(0); } };
})();
"""


def js_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """Assay's prelude, the code, the tests in a scope whose console is the prelude's, then the marker."""
    name = "__assay_" + secrets.token_hex(6)
    prelude = JS_PRELUDE.replace("__ASSAY__", name).replace("__EXIT__", str(ASSERT_EXIT)).replace("__MARKER__", marker)
    code = re.sub(r"^export\s+(?:default\s+)?", "", code, flags=re.M)
    return f"{prelude}{code}\n\n;((console) => {{\n{tests.rstrip()}\n}})({name}.console);\n{name}.done();\n"


def _code_prompt(problem: Problem, code: str) -> str:
    """The task's code prompt, which names the class (object) the tests' main belongs to (problem.prompt is the instruction)."""
    return str(problem.extra.get("code_prompt") or code)


def java_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """The tests' main (in the prompt's class) runs under Assay's main: AssertionError exits ASSERT_EXIT, then the marker."""
    classes = re.findall(r"\bclass\s+(\w+)", _code_prompt(problem, code))
    owner = classes[-1] if classes else "Main"
    runner = (f"\nclass AssayMcEvalMain {{\n    public static void main(String[] args) throws Throwable {{\n"
              f"        try {{\n            {owner}.main(args);\n        }} catch (AssertionError e) {{\n"
              f'            System.out.flush();\n            System.err.println("assertion failed: " + e);\n'
              f"            System.exit({ASSERT_EXIT});\n        }}\n        System.out.flush();\n"
              f'        System.out.println("\\n{marker}");\n        System.out.flush();\n        System.exit(0);\n    }}\n}}\n')
    return re.sub(r"^public\s+(?=(?:final\s+)?class\b)", "", code + "\n\n" + tests, flags=re.M) + runner


def erlang_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """The module: code then its test/0 (the marker is printed by the run line, after test/0 returned ok)."""
    return code + "\n\n" + tests.rstrip() + "\n"


def fortran_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """Upstream's order: the tests' program first (its body, then `contains` and its assert), then the code,
    whose last line ends the program. The marker is printed at the end of the body, before `contains`."""
    line = f"  print '(A)', ''\n  print '(A)', '{marker}'\n"
    found = re.search(r"^[ \t]*contains[ \t]*$", tests, flags=re.M | re.I)
    body = tests.rstrip() + "\n" + line + "contains\n" if found is None else tests[: found.start()] + line + tests[found.start() :]
    return body + "\n" + code + "\n"


def haskell_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """The tests' main renamed; Assay's main runs it, then prints the marker."""
    renamed = re.sub(r"^main(?=\s*(?:::|=))", "assayTestsMain", tests, flags=re.M)
    return code + "\n\n" + renamed.rstrip() + f'\n\nmain :: IO ()\nmain = assayTestsMain >> putStrLn "\\n{marker}"\n'


def elixir_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """ExUnit started without autorun and run by Assay: every test must pass, and at least one must run."""
    tests = re.sub(r"ExUnit\.start\((.*?)\)", "ExUnit.start(autorun: false)", tests, count=1)
    tail = ("\ncase ExUnit.run() do\n  %{failures: 0, total: total} when total > 0 -> IO.puts(\"\\n" + marker + "\")\n"
            f"  _ -> System.halt({ASSERT_EXIT})\nend\n")
    return code + "\n\n" + tests.rstrip() + "\n" + tail


def scala_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """The prompt's object's main runs under Assay's: AssertionError exits ASSERT_EXIT, then the marker."""
    objects = re.findall(r"\bobject\s+(\w+)", _code_prompt(problem, code))
    owner = objects[-1] if objects else "Main"
    runner = (f"\nobject AssayMcEvalMain {{\n  def main(args: Array[String]): Unit = {{\n"
              f"    try {owner}.main(args) catch {{ case e: AssertionError =>\n"
              f'      System.err.println("assertion failed: " + e); System.exit({ASSERT_EXIT}) }}\n'
              f'    System.out.flush(); println("\\n{marker}"); System.out.flush(); System.exit(0)\n  }}\n}}\n')
    return code + "\n\n" + tests + runner


CS_RUNNER = """
class AssayMcEvalMain
{
    class Listener : System.Diagnostics.TraceListener
    {
        public override void Write(string message) {}
        public override void WriteLine(string message) {}
        public override void Fail(string message, string detail)
        {
            System.Console.Out.Flush();
            System.Console.Error.WriteLine("assertion failed: " + message);
            System.Environment.Exit(@EXIT@);
        }
    }

    static void Main(string[] args)
    {
        System.Diagnostics.Trace.Listeners.Clear();
        System.Diagnostics.Trace.Listeners.Add(new Listener());
        var flags = System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic;
        System.Reflection.MethodInfo main = null;
        foreach (var type in typeof(AssayMcEvalMain).Assembly.GetTypes())
            if (type != typeof(AssayMcEvalMain) && type.GetMethod("Main", flags) != null) main = type.GetMethod("Main", flags);
        if (main == null) { System.Console.Error.WriteLine("the tests have no Main"); System.Environment.Exit(@EXIT@); }
        try { main.Invoke(null, main.GetParameters().Length == 0 ? null : new object[] { args }); }
        catch (System.Reflection.TargetInvocationException e) { System.Console.Error.WriteLine(e.InnerException); System.Environment.Exit(1); }
        System.Console.Out.Flush();
        System.Console.WriteLine("\\n@MARKER@");
        System.Console.Out.Flush();
        System.Environment.Exit(0);
    }
}
"""


# What .NET 6's console template imports implicitly (<ImplicitUsings>), which upstream's projects build with and
# mcs lacks: without System.Linq, `list.SequenceEqual(other)` finds only System.MemoryExtensions' Span overload.
# (System.Net.Http too, whose assembly Debian's mono-mcs does not install, and no task uses.)
CS_IMPLICIT_USINGS = ("System", "System.Collections.Generic", "System.IO", "System.Linq", "System.Threading", "System.Threading.Tasks")


def csharp_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """.NET's implicit usings, then the program. The tests' Main (found by reflection: it is private) runs under
    Assay's, whose trace listener turns a failed Debug.Assert into ASSERT_EXIT; then the marker."""
    usings = "".join(f"using {name};\n" for name in CS_IMPLICIT_USINGS)
    return usings + code + "\n\n" + tests + CS_RUNNER.replace("@EXIT@", str(ASSERT_EXIT)).replace("@MARKER@", marker)


def vim_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """The tests' closing `exit(0)` (or `exit 0`: Vim's :exit, which quits) becomes the marker's lines in a fresh buffer, printed (in silent Ex mode
    `:print` writes to stdout; /dev/stdout cannot be opened: the sandbox's pipe belongs to another user), and a quit."""
    line = f"enew!\ncall setline(1, ['', '{marker}'])\n%print\nqall!"
    lines = tests.rstrip().splitlines()
    if lines and re.fullmatch(r"\s*exit\s*(?:\(\s*0\s*\)|0)\s*", lines[-1]):  # `exit(0)` or `exit 0`
        lines = lines[:-1]
    return code + "\n\n" + "\n".join(lines) + "\n" + line + "\n"


def php_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """The closing `?>` dropped (text after it is output, not code), then the marker's echo."""
    body = re.sub(r"\?>\s*$", "", code + "\n\n" + tests.rstrip())
    return body + f'\necho PHP_EOL, "{marker}", PHP_EOL;\n'


def pascal_program(problem: Problem, code: str, tests: str, marker: str) -> str:
    """The marker is written before the main block's closing `end.`."""
    return _before_last(r"^end\.", f"  WriteLn; WriteLn('{marker}');")(problem, code, tests, marker)


# ------------------------------------------------------------------ the languages

ROWS: dict[str, Row] = {
    "python": Row("main.py", "{python3} main.py", python_program),
    "swift": Row("main.swift", "./main", appended('print("\\n{marker}")'), build="{swiftc} -Onone -o main main.swift"),
    "cpp": Row("main.cpp", "./main", c_program, native=True),
    "go": Row("main_test.go", "./main.test", c_program, native=True),
    "rust": Row("main.rs", "./main", c_program, native=True),
    "c": Row("main.c", "./main", c_program, build="{gcc} -o main main.c -lm"),
    "java": Row("Main.java", "{java} -ea -Xmx1g -XX:+UseSerialGC -cp classes AssayMcEvalMain", java_program,
                build="{javac} -nowarn -encoding UTF-8 -d classes Main.java"),
    "javascript": Row("main.js", "{node} main.js", js_program, build="{node} --check main.js"),
    # Upstream runs node on what `tsc --lib es2015,dom` emitted, type errors or not; the plugin's compiler
    # ($ASSAY_TSC: a snapshot of tsc, five times faster) emits the same JavaScript.
    "typescript": Row("main.ts", "{node} main.js", js_program, build="{node} $ASSAY_TSC main.ts; test -f main.js"),
    "coffeescript": Row("main.coffee", "{coffee} main.coffee", appended('console.log "\\n{marker}"')),
    "php": Row("main.php", "{php} -d zend.assertions=1 -d assert.exception=1 main.php", php_program),
    "ruby": Row("main.rb", "{ruby} main.rb", appended('puts "\\n{marker}"')),
    "perl": Row("main.pl", "{perl} main.pl", appended('print "\\n{marker}\\n";')),
    "lua": Row("main.lua", "{lua5_4} main.lua", appended('print("\\n{marker}")'), fail_words=("failed",)),
    "r": Row("main.R", "{Rscript} main.R", appended('cat("\\n{marker}\\n", sep = "")')),
    "racket": Row("main.rkt", "{racket} main.rkt", appended('(display "\\n{marker}\\n")'), fail_words=("FAILURE",)),
    "bash": Row("main.sh", "{bash} main.sh", appended('echo; echo "{marker}"')),
    "tcl": Row("main.tcl", "{tclsh} main.tcl", appended('puts "\\n{marker}"')),
    "common-lisp": Row("main.lisp", "{sbcl} --script main.lisp", appended('(format t "~%{marker}~%")')),
    "emacs-lisp": Row("main.el", "{emacs} --batch -Q -l main.el", appended('(princ "\\n{marker}\\n")')),
    "erlang": Row("{module}.erl", "{erl} -noshell -eval 'ok = {module}:test(), io:format(\"~n{marker}~n\"), halt(0).'",
                  erlang_program, build="{erlc} {module}.erl"),
    "fortran": Row("main.f95", "./main", fortran_program, build="{gfortran} -o main main.f95", fail_words=("failed",)),
    "pascal": Row("main.pas", "./main", pascal_program, build="{fpc} -n @$ASSAY_FPC_CFG -MObjfpc -v0 main.pas", fail_words=("failed",)),
    "haskell": Row("Main.hs", "./main", haskell_program, build="{ghc} -O0 -v0 -outputdir build -o main Main.hs"),
    "elixir": Row("main.exs", f'{{elixir}} --erl "{ERL_FLAGS}" main.exs', elixir_program),  # the plugin's flags: BEAM segfaults under ulimit -v without them
    "scala": Row("main.scala", "{java} -Xmx1g -XX:+UseSerialGC -cp classes:$ASSAY_MCEVAL_SCALA_LIB AssayMcEvalMain", scala_program,
                 build="mkdir -p classes && {scalac} -nowarn -d classes main.scala"),
    "csharp": Row("main.cs", "{mono} main.exe", csharp_program,
                  build="{mcs} -d:DEBUG -nowarn:105,162,168,219,414 -r:System.Numerics.dll -main:AssayMcEvalMain -out:main.exe"
                        " main.cs"),
    "groovy": Row("main.groovy", "{groovy} main.groovy", appended('println ""\nprintln "{marker}"')),
    "vimscript": Row("main.vim", "{vim} -es -u NONE -i NONE -n -N -S main.vim", vim_program),
}


TABLE_LIMITS = PhaseLimits(run_cpu=15.0, run_wall=45.0)


@dataclass(frozen=True)
class Entry:
    """A language Assay has no plugin for: its tools, or why it cannot run here."""

    display: str
    tools: tuple[str, ...] = ()
    install_hint: str = ""
    skip: str = ""  # why it never runs here (no tests in the data, no toolchain in Debian 12)
    version_args: tuple[str, ...] = ("--version",)
    # Host configuration the sandbox shows read-only (it shows only a few files of /etc): (variable, file), the
    # file's real path in $variable for the row's commands; and whether the tools' installation trees (two levels
    # up from their real paths: Debian's JDK, Groovy's) link into /etc, whose targets are shown too.
    config_files: tuple[tuple[str, str], ...] = ()
    etc_links: bool = False
    env: tuple[tuple[str, str], ...] = ()
    limits: PhaseLimits = TABLE_LIMITS


NO_TESTS = "McEval's {lang} tasks have no test in the data: upstream grades them against its own reference files, not copied"
TABLE: dict[str, Entry] = {
    "c": Entry("C", ("gcc",), "apt-get install -y gcc"),
    "coffeescript": Entry("CoffeeScript", ("coffee",), "apt-get install -y coffeescript"),
    "common-lisp": Entry("Common Lisp", ("sbcl",), "apt-get install -y sbcl"),
    "emacs-lisp": Entry("Emacs Lisp", ("emacs",), "apt-get install -y emacs-nox"),
    "erlang": Entry("Erlang", ("erlc", "erl"), "apt-get install -y erlang-nox", version_args=("-noshell", "-eval",
                    "io:format(\"~s~n\", [erlang:system_info(otp_release)]), halt().")),
    "fortran": Entry("Fortran", ("gfortran",), "apt-get install -y gfortran"),
    # The JVM reserves far more address space than it uses (compressed class space: 1 GiB): no ulimit -v on the run;
    # the heap is capped by JAVA_OPTS instead.
    "groovy": Entry("Groovy", ("groovy", "java"), "apt-get install -y groovy", etc_links=True,
                    env=(("JAVA_OPTS", "-Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1"), ("MALLOC_ARENA_MAX", "2")),
                    limits=PhaseLimits(run_cpu=20.0, run_wall=60.0, run_memory_bytes=None)),
    # fpc reads its unit paths from /etc/fpc.cfg (a link, through /etc/alternatives, to /etc/fpc-<version>.cfg).
    "pascal": Entry("Pascal", ("fpc",), "apt-get install -y fp-compiler", version_args=("-iV",),
                    config_files=(("ASSAY_FPC_CFG", "/etc/fpc.cfg"),)),
    "tcl": Entry("Tcl", ("tclsh",), "apt-get install -y tcl"),
    "vimscript": Entry("VimScript", ("vim",), "apt-get install -y vim-nox"),
    "awk": Entry("AWK", skip="McEval's AWK tasks have no test: upstream compares a sample's output with the reference's on"
                 " its own machine's files (/etc/passwd, ...)"),
    "html": Entry("HTML", skip=NO_TESTS.format(lang="HTML")),
    "json": Entry("JSON", skip=NO_TESTS.format(lang="JSON")),
    "markdown": Entry("Markdown", skip=NO_TESTS.format(lang="Markdown")),
    "kotlin": Entry("Kotlin", skip="Debian 12's kotlin (1.3.31) installs 74 packages, 341 MB: not installed here"),
    "dart": Entry("Dart", skip="no Dart toolchain in Debian 12"),
    "julia": Entry("Julia", skip="no Julia in Debian 12"),
    "powershell": Entry("PowerShell", skip="no PowerShell in Debian 12"),
    "fsharp": Entry("F#", skip="no F# (.NET SDK) in Debian 12"),
    "visual-basic": Entry("Visual Basic", skip="no Visual Basic compiler (.NET SDK, mono-vbnc) in Debian 12"),
}


class TableLanguage(Language):
    """A language of McEval's table: only its test programs run (runner "mceval"), through judge_mceval."""

    skip: ClassVar[str] = ""
    config_files: ClassVar[tuple[tuple[str, str], ...]] = ()
    etc_links: ClassVar[bool] = False
    run = ""

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """The row's tools, or ToolchainMissing saying why the language cannot run here."""
        if cls.skip:
            raise ToolchainMissing(f"{cls.display}: {cls.skip}")
        base = super().toolchain()
        binds, env = set(base.ro_binds), dict(base.env)
        for variable, path in cls.config_files:
            if not os.path.isfile(path):
                raise ToolchainMissing(f"{cls.display}: {path} not found; install with: {cls.install_hint}")
            env[variable] = os.path.realpath(path)
            binds.add(env[variable])
        if cls.etc_links:
            binds.update(etc_dirs(*{os.path.dirname(os.path.dirname(os.path.realpath(p))) for p in base.tools.values()}))
        return dataclasses.replace(base, ro_binds=tuple(sorted(binds)), env=env)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """McEval-only languages run McEval's programs only (assay.languages.mceval_shapes.judge_mceval)."""
        raise ToolchainMissing(f"{self.display} runs McEval's test programs only")


_CLASSES: dict[str, type[TableLanguage]] = {}


def table_language(name: str) -> Language:
    """The Language object of a row of TABLE (one class a row, made once)."""
    if name not in _CLASSES:
        entry = TABLE[name]
        row = ROWS.get(name)
        attrs = {"name": name, "display": entry.display, "tools": entry.tools, "install_hint": entry.install_hint,
                 "skip": entry.skip, "version_args": entry.version_args, "source": row.source if row else "main.txt",
                 "config_files": entry.config_files, "etc_links": entry.etc_links, "env": dict(entry.env), "limits": entry.limits}
        _CLASSES[name] = type(f"McEval_{name.replace('-', '_')}", (TableLanguage,), attrs)
    return _CLASSES[name]()


# ------------------------------------------------------------------ judging


def judge_mceval(language: Language, sandbox: Sandbox, problem: Problem, code: str, limits: PhaseLimits) -> Verdict:
    """Build and run the sample with McEval's tests after it; the verdict is decided here."""
    row = ROWS.get(language.name)
    try:
        toolchain = language.toolchain()
    except ToolchainMissing as exc:
        return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
    if row is None:
        return Verdict(Status.SKIPPED, message=f"skipped: no McEval program shape for {language.display}")
    if row.native:
        from assay.languages.native_tests import judge_native

        return judge_native(language, sandbox, problem, code, limits)
    verdict, output = _run(language, toolchain, row, sandbox, problem, code, limits)
    return _upstream_words(verdict, row, output)


def _run(language: Language, toolchain: Toolchain, row: Row, sandbox: Sandbox, problem: Problem, code: str,
         limits: PhaseLimits) -> tuple[Verdict, str]:
    language.prepare(toolchain)
    marker = "ASSAY-DONE-" + secrets.token_hex(16)
    module = str(problem.extra.get("module") or "main")
    if not re.fullmatch(r"[a-z][A-Za-z0-9_]*", module):
        module = "main"
    program = row.assemble(problem, code, test_program(problem).code, marker)
    files = {row.source.replace("{module}", module): program.encode()}
    env = dict(toolchain.env)
    env.update(_extra_env(language, toolchain))
    tools = {name.replace("-", "_").replace("+", "p").replace(".", "_"): shlex.quote(path) for name, path in toolchain.tools.items()}
    tools["module"] = module
    tools["marker"] = marker
    phases = []
    if row.build:
        phases.append(Phase("build", phase_argv(row.build.format(**tools), env), limits.build_cpu, limits.build_wall,
                            memory_bytes=limits.memory_bytes, output="stderr"))
    phases.append(Phase("run", phase_argv(row.run.format(**tools), env), limits.run_cpu, limits.run_wall,
                        memory_bytes=limits.run_memory_bytes, channel=True, stdin=True, output="merged"))
    box = SandboxLimits(cpu_seconds=max(limits.build_cpu, limits.run_cpu), wall_seconds=limits.build_wall + limits.run_wall,
                        memory_bytes=max(limits.memory_bytes, limits.run_memory_bytes or 0), processes=limits.processes,
                        disk_bytes=limits.disk_bytes, output_bytes=limits.output_bytes)
    result = sandbox.run_phases(phases, files, box, env={"PATH": _path_for(toolchain), "HOME": "/tmp", **env})
    return classify(result, marker, limits), result.stdout.decode("utf-8", "replace").replace(marker, "")


def _extra_env(language: Language, toolchain: Toolchain) -> dict[str, str]:
    """What a row's commands need beyond the toolchain's own environment (Scala's library jar)."""
    if language.name == "scala":
        import glob

        jars = sorted(glob.glob("/usr/share/scala*/lib/scala-library*.jar") + glob.glob("/usr/share/java/scala-library*.jar"))
        return {"ASSAY_MCEVAL_SCALA_LIB": jars[0] if jars else ""}
    return {}


def _upstream_words(verdict: Verdict, row: Row, output: str) -> Verdict:
    """Upstream's extra rule: a passing run whose output says a test failed has failed."""
    if verdict.status is not Status.PASSED or not row.fail_words:
        return verdict
    said = [word for word in row.fail_words if word in output]
    if not said:
        return verdict
    return Verdict(Status.FAILED, message=f"failed: the output says {said[0]!r} (upstream's rule)", tests=verdict.tests,
                   duration_s=verdict.duration_s, stdout=output[-4000:])
