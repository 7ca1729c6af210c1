"""TypeScript: tsc type-checks and compiles (type errors are compile errors, as in MultiPL-E), node runs.

The compiler options are MultiPL-E's `tsc --target esnext`, plus --skipLibCheck (the bundled lib
.d.ts files are not re-checked for every program: same verdicts, less than half the CPU) and
--module commonjs (a chat model's `export function` then still runs under node).

Most of tsc's time goes to loading typescript.js and parsing lib.dom.d.ts & co. for every program.
So, once per machine, Assay records a Node.js start-up snapshot (node --build-snapshot) in which
typescript.js is loaded and the lib files are parsed and bound; the build phase starts node from
that snapshot, which compiles main.ts with the same options through TypeScript's own API
(createProgram, getPreEmitDiagnostics, emit: what tsc does) in a fifth of the CPU time. Every run
starts from the pristine snapshot. When the snapshot cannot be built, plain tsc is used.

The test section is the JavaScript one's: node:assert failures exit with ASSERT_EXIT, the marker
follows test().

Cases: the case harness is JavaScript's. Type-checking it with every sample cost a sixth more CPU
than the program path's build, so it is written once per machine as a CommonJS module (harness.js,
in a support directory shown read-only): the sample's file holds only a short tail that type-checks
the calls against the sample (`candidate(...)`, as the tests do) and hands them, as thunks, to the
module it requires by its absolute path. Off with ASSAY_TS_HARNESS_MODULE=0, or where the module
cannot be written and checked: the whole harness goes into the program, as in JavaScript.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages.base import GiB, Language, PhaseLimits, Toolchain
from assay.languages.harness import descriptor_json, numbered
from assay.languages.javascript import CASE_HARNESS, JavaScript, case_harness, guarded_tests, js_literal, js_numbers
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import CaseTests, Problem, test_program
from assay.values import Type

DECLARE = "declare var require: any;"
TSC_FLAGS = ("--target", "esnext", "--module", "commonjs", "--skipLibCheck", "--pretty", "false")
TS_OPTIONS = {"target": "ESNext", "module": "CommonJS", "skipLibCheck": True}  # the same, for the API

# The snapshot's entry script (node --build-snapshot): built-in modules only, so typescript.js is
# evaluated from its source; the deserialized main compiles the .ts files named on the command line.
_SNAPSHOT_JS = r"""'use strict';
const fs = require('fs');
const path = require('path');
const v8 = require('v8');
const LIB = process.env.ASSAY_TS_LIB;
const WARM = process.env.ASSAY_TS_WARM;
const file = path.join(LIB, 'typescript.js');
const mod = { exports: {} };
new Function('module', 'exports', 'require', '__filename', '__dirname', fs.readFileSync(file, 'utf8'))(mod, mod.exports, require, file, LIB);
const ts = mod.exports;
const raw = @OPTIONS@;
const options = { target: ts.ScriptTarget[raw.target], module: ts.ModuleKind[raw.module], skipLibCheck: raw.skipLibCheck };
const libFiles = new Map();  // lib .d.ts path -> parsed and bound SourceFile, shared by every program
function host() {
  const h = ts.createCompilerHost(options);
  const read = h.getSourceFile;
  h.getSourceFile = (name, version, onError, create) => {
    if (!name.startsWith(LIB + '/')) return read.call(h, name, version, onError, create);
    let sf = libFiles.get(name);
    if (sf === undefined) { sf = read.call(h, name, version, onError, create); libFiles.set(name, sf); }
    return sf;
  };
  return h;
}
function compile(files) {
  const program = ts.createProgram(files, options, host());
  const emitted = program.emit();
  const all = ts.sortAndDeduplicateDiagnostics(ts.getPreEmitDiagnostics(program).concat(emitted.diagnostics));
  if (all.length) {
    process.stdout.write(ts.formatDiagnostics(all, { getCurrentDirectory: () => process.cwd(), getCanonicalFileName: (f) => f, getNewLine: () => '\n' }));
  }
  return all.some((d) => d.category === ts.DiagnosticCategory.Error) ? 2 : 0;
}
compile([WARM]);  // parses and binds the lib files into the snapshot
v8.startupSnapshot.setDeserializeMainFunction(() => {
  process.exitCode = compile(process.argv.slice(1).filter((a) => a.endsWith('.ts')));
});
"""

_WARM_TS = """function f(xs: number[], s: string): [number, string] {
  const m = new Map<string, number>();
  m.set(s, xs.reduce((a, b) => a + b, 0));
  return [Math.max(...xs), s.split("").reverse().join("") + JSON.stringify([...m.entries()])];
}
declare var require: any;
const assert = require('node:assert');
function test() {
  let candidate = f;
  assert.deepEqual(candidate([1, 2], "ab"), [2, "ba"]);
}
test();
"""


def _build_snapshot(work: Path, node: str, lib: str) -> None:
    (work / "entry.js").write_text(_SNAPSHOT_JS.replace("@OPTIONS@", json.dumps(TS_OPTIONS)))
    (work / "warm.ts").write_text(_WARM_TS)
    env = {**os.environ, "ASSAY_TS_LIB": lib, "ASSAY_TS_WARM": str(work / "warm.ts")}
    out = subprocess.run([node, "--snapshot-blob", str(work / "tsc.blob"), "--build-snapshot", str(work / "entry.js")],
                         cwd=work, capture_output=True, text=True, timeout=300, env=env)
    if out.returncode != 0 or not (work / "tsc.blob").exists():
        raise subprocess.SubprocessError(f"node --build-snapshot failed ({out.returncode}): {(out.stdout + out.stderr)[-1500:]}")
    check = work / "check"
    check.mkdir()
    (check / "main.ts").write_text(_WARM_TS)
    run_host([node, "--snapshot-blob", str(work / "tsc.blob"), "main.ts"], check)  # it starts and compiles
    (check / "bad.ts").write_text('let x: number = "s";\n')
    bad = subprocess.run([node, "--snapshot-blob", str(work / "tsc.blob"), "bad.ts"], cwd=check, capture_output=True, timeout=120)
    ok = (check / "main.js").exists() and bad.returncode != 0
    for path in check.iterdir():
        path.unlink()
    check.rmdir()
    (work / "warm.ts").unlink()
    if not ok:
        raise subprocess.SubprocessError("the tsc snapshot does not compile or does not report type errors")


HARNESS_MODULE_ENV = "ASSAY_TS_HARNESS_MODULE"  # 0/off: the case harness inline, type-checked with each sample


def _module_of(harness: str) -> str | None:
    """JavaScript's case harness (an IIFE with placeholders) as a CommonJS module:
    module.exports(type, cases, count), where cases(assayCase) runs the calls; None if that harness
    no longer has the expected shape (cases then keep the harness inline; a test says so)."""
    text = harness
    for old, new in (
        (";(() => {\n", "module.exports = (assayType, assayCases, assayCount) => {\n"),
        ("const assayType = __TYPE__;\nconst candidate = __ENTRY__;\n", ""),
        ("__CASES__\n", "assayCases(assayCase);\n"),
        ('"done __COUNT__\\n"', '"done " + assayCount + "\\n"'),
        ("process.exit(0);\n})();\n", "process.exit(0);\n};\n"),
    ):
        if text.count(old) != 1:
            return None
        text = text.replace(old, new)
    return text


HARNESS_MODULE = _module_of(CASE_HARNESS)
_HARNESS_CHECK = 'require(process.argv[1])(["list", "int"], (assayCase) => { assayCase(0, () => [1, 2.5]); assayCase(1, () => { throw new Error("x"); }); }, 2);'


def _build_harness_module(work: Path, node: str) -> None:
    """harness.js (HARNESS_MODULE) and a package.json that makes it CommonJS; checked by running it once."""
    assert HARNESS_MODULE is not None
    (work / "harness.js").write_text(HARNESS_MODULE)
    (work / "package.json").write_text('{"type": "commonjs"}\n')
    channel = work / "channel"
    out = subprocess.run(["/bin/sh", "-c", '"$0" -e "$1" "$2" 3>"$3"', node, _HARNESS_CHECK, str(work / "harness.js"), str(channel)],
                         cwd=work, capture_output=True, text=True, timeout=120)
    records = channel.read_text() if channel.exists() else ""
    channel.unlink(missing_ok=True)
    if out.returncode != 0 or records != "0 v [1,2.5]\n1 e x\ndone 2\n":
        raise subprocess.SubprocessError(f"the TypeScript case harness module does not run ({out.returncode}): {records!r} {out.stderr[-1500:]}")


class TypeScript(Language):
    """TypeScript (Debian's node-typescript) compiled by tsc (or its snapshot), run by Node.js."""

    whole_floats_are_ints = True  # one number type: 3.0 is 3

    name = "typescript"
    aliases = ("ts",)
    display = "TypeScript"
    multipl_e = "ts"
    stops = ("\nfunction ", "\n/*", "\n//", "\nclass")
    source = "main.ts"
    tools = ("tsc", "node")
    version_args = ("--version",)
    install_hint = "apt-get install -y node-typescript nodejs"
    # $ASSAY_TSC: "--snapshot-blob <blob>" (the recorded compiler), else "<typescript>/lib/tsc.js <flags>"
    build = "{node} $ASSAY_TSC main.ts"
    run = "{node} main.js"
    stub = '  throw new Error("stub");\n}\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(memory_bytes=4 * GiB)

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """node and typescript's lib dir; the compiler snapshot, built once, when node can record one."""
        base = super().toolchain()
        node = base.tools["node"]
        lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(base.tools["tsc"]))), "lib")
        plain = f"{lib}/tsc.js " + " ".join(TSC_FLAGS)
        env = {**base.env, "ASSAY_TSC": plain}
        binds = set(base.ro_binds)
        if not lib.startswith("/usr/"):
            binds.add(lib)
        key = digest(base.version, cls.read_version(node), os.path.realpath(node), file_stamp(os.path.realpath(node)),
                     file_stamp(os.path.join(lib, "typescript.js")), _SNAPSHOT_JS, _WARM_TS, TS_OPTIONS)
        try:
            support = support_dir("typescript", key, lambda work: _build_snapshot(work, node, lib))
        except (OSError, subprocess.SubprocessError):
            support = None
        if support is not None and (support / "tsc.blob").exists() and not re.search(r"\s", str(support)):
            env["ASSAY_TSC"] = f"--snapshot-blob {support / 'tsc.blob'}"
            binds.add(str(support))
        module = cls._harness_module(node, base.version)
        if module is not None:
            env["ASSAY_TS_HARNESS"] = str(module)
            binds.add(str(module.parent))
        return dataclasses.replace(base, ro_binds=tuple(sorted(binds)), env=env)

    @staticmethod
    def _harness_module(node: str, version: str) -> Path | None:
        """The case harness as a module, written and checked once (support directory typescript-harness-<key>);
        None when switched off (ASSAY_TS_HARNESS_MODULE=0) or not possible."""
        if switched_off(HARNESS_MODULE_ENV) or HARNESS_MODULE is None:
            return None
        key = digest(version, os.path.realpath(node), file_stamp(os.path.realpath(node)), HARNESS_MODULE, _HARNESS_CHECK)
        try:
            support = support_dir("typescript-harness", key, lambda work: _build_harness_module(work, node))
        except (OSError, subprocess.SubprocessError):
            return None
        module = support / "harness.js"
        return module if module.exists() else None

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """code + tests, as MultiPL-E runs it."""
        return code + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `assert.deepEqual(candidate(...), expected);` lines, as in JavaScript."""
        return JavaScript.test_calls(JavaScript(), tests)

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's TypeScript literals are its JavaScript ones."""
        return js_literal(value)

    def normalize(self, value: Any, t: Type) -> Any:
        """Numbers are doubles, as in JavaScript."""
        return js_numbers(value)

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample, `require` declared, then the calls handed to the harness module (each type-checked
        against the sample, as in the tests); where there is no module, the JavaScript case harness
        itself (`process` through globalThis)."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        returns = problem.tests.signature.returns
        module = self.toolchain().env.get("ASSAY_TS_HARNESS")
        if module is None:
            harness = case_harness(problem.entry_point, returns, calls, process="(globalThis as any).process")
        else:
            cases = numbered(calls, lambda i, call: f"assayCase({i}, () => ({call}));")
            harness = (f"\n;(() => {{\nconst candidate = {problem.entry_point};\n"
                       f"require({json.dumps(module)})({descriptor_json(returns)}, (assayCase: any) => {{\n{cases}\n}}, {len(calls)});\n}})();\n")
        return {self.source: (code + "\n" + DECLARE + "\n" + harness).encode()}

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests unchanged (their `declare var require` stays at top level: not allowed in a block),
        inside a try block that maps node:assert failures to ASSERT_EXIT."""
        head = ""
        if tests.lstrip().startswith(DECLARE):
            at = tests.index(DECLARE) + len(DECLARE)
            head, tests = tests[:at] + "\n", tests[at:]
        return head + guarded_tests(tests, marker, catch_param="e: any", process="(globalThis as any).process")
