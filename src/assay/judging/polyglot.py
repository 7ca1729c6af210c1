"""Judging aider's polyglot exercises: parse the sample's edit, write only the solution files, run the
exercise's own tests in the sandbox, and decide from their machine-readable report on the trusted side.

The sample is the model's reply in an edit format (assay.benchmarks.polyglot): "whole" (a path line, then
the file's full content in a fence) or "diff" (SEARCH/REPLACE blocks); a reply with SEARCH/REPLACE blocks
is read as a diff, any other as whole files. A reply that edits nothing, or whose SEARCH text is not in
the file, is a *malformed edit* (failed, message "malformed edit: ..."). Writes to any path but the
exercise's solution files are dropped (and named in the verdict): the tests, build files and every other
file come from the pristine tree each run, as upstream re-copies the tests.

A pass needs the test phase's exit status 0 *and* a report (on the result channel, fd 3) that names
every test the pristine test files declare as passed, with no failure. The report comes from the test
framework in the sample's process (pytest's JUnit XML, go test2json, libtest's lines, the JUnit console
launcher's XML, Catch2's JUnit reporter): a sample written against this harness can write a forged one
and exit 0 (docs/verdicts.md, polyglot). JavaScript's come from Assay's jest-compatible runner
(assay/languages/jest_runner.mjs), each record led by a nonce it read on stdin before the sample loaded.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from assay.languages.base import Language, PhaseLimits, ToolchainMissing, _path_for, build_failure, run_failure
from assay.languages.native_tests import GO_TESTMAIN_HEAD
from assay.languages.support import digest, file_stamp, run_host, support_dir
from assay.problems import Problem, Status, TestDetail, Verdict
from assay.sandbox.base import Phase, Sandbox, SandboxLimits, SandboxResult

GiB = 1024**3
TEST_TIMEOUT_S = 180.0  # upstream's, for the test command; the build gets as long again
FEEDBACK_LINES = 50  # the test output sent back for the second try is cut to its last lines ...
FEEDBACK_CHARS = 8000  # ... and characters
CATCH_HEADER = "/usr/include/catch2/catch.hpp"  # Debian's catch2
# JUnit's console launcher, then what the tests compile against: AssertJ (Debian's 3.14; upstream's build.gradle pins 3.25.1).
# Debian's org.json is Android's rewrite, whose checked JSONException the rest-api reference does not compile against.
JAVA_JARS = ("/usr/share/java/junit-platform-console-standalone.jar", "/usr/share/java/assertj-core.jar")
# JavaScript: jest is not installable from Debian 12 beside this node (node-jest-worker needs node-types-node) and npm is
# offline, so the specs run under Assay's jest-compatible runner (assay/languages/jest_runner.mjs).
JEST_RUNNER = Path(__file__).resolve().parent.parent / "languages" / "jest_runner.mjs"
JEST_HOOKS = JEST_RUNNER.with_name("jest_hooks.mjs")
NODE_MIN = (20, 19)  # ES module syntax detected in .js files by default (20.19), --disable-warning (20.11), --experimental-permission (20.0)
NODE_FLAGS = ("--experimental-permission --allow-fs-read='*' --allow-fs-write='*' --allow-child-process --allow-worker "
              "--disable-warning=ExperimentalWarning --disable-warning=SecurityWarning --disable-warning=MODULE_TYPELESS_PACKAGE_JSON")
_JS_TEST = re.compile(r"(?<![\w.$])(x?test|x?it|test\.skip|it\.skip)\s*\(\s*('(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`[^`$\\]*`)", re.S)


# ------------------------------------------------------------------ edits


class MalformedEdit(ValueError):
    """A reply that cannot be applied to the files."""


@dataclass
class Edit:
    """What a reply does to the solution files."""

    files: dict[str, str]  # solution path -> new content (only the files it changed)
    ignored: list[str] = field(default_factory=list)  # paths it tried to write that are not solution files
    format: str = "whole"


_DIFF_BLOCK = re.compile(r"^<{5,9} SEARCH[^\n]*\n(.*?)^={5,9}[ \t]*\n(.*?)^>{5,9} REPLACE[^\n]*$", re.M | re.S)
_FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})[^\n`]*$")


def _clean_name(line: str) -> str:
    return line.strip().strip("*`#:").strip().removeprefix("./")


# New files a reply may create (aider's whole format creates a file it names): Java's classes only, one a file,
# beside the solution. Nowhere else: a new conftest.py, *_test.go or build.rs would reach the tests.
NEW_FILES = re.compile(r"^src/main/java/[A-Za-z_$][\w$]*\.java$")


def _target(name: str, solution: list[str], known: set[str]) -> str | None:
    """The solution path a file name in a reply means, or None (then the name as written is 'ignored')."""
    name = _clean_name(name)
    if not name:
        return None
    if name in solution:
        return name
    java = [s for s in solution if s.startswith("src/main/java/")]
    if java and name not in known:  # a new class of a Java solution: by path or by file name alone
        path = name if name.startswith("src/main/java/") else f"src/main/java/{Path(name).name}"
        if NEW_FILES.match(path) and path not in known and Path(path).name not in {Path(k).name for k in known}:
            return path
    matches = [s for s in solution if Path(s).name == Path(name).name]
    if len(matches) == 1 and (name not in known or name == matches[0]):
        return matches[0]
    return None


def _name_before(lines: list[str], index: int) -> str:
    """The nearest non-empty line above lines[index] that is not a fence: the file name aider expects there."""
    for j in range(index - 1, max(index - 4, -1), -1):
        text = lines[j].strip()
        if text and not _FENCE_OPEN.match(text):
            return text
    return ""


def parse_whole(reply: str, stubs: dict[str, str], known: set[str]) -> Edit:
    """aider's whole format: a path line, then a fenced block with the file's full new content."""
    lines = reply.splitlines()
    solution = list(stubs)
    edit = Edit({}, format="whole")
    i = 0
    while i < len(lines):
        opened = _FENCE_OPEN.match(lines[i].strip())
        if not opened:
            i += 1
            continue
        fence = opened.group(1)
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), None)
        if end is None:
            raise MalformedEdit(f"a fenced block opened on line {i + 1} never closes")
        name = _name_before(lines, i)
        target = _target(name, solution, known)
        if target is None and len(solution) == 1 and not _clean_name(name).count("."):  # one file: a block without a name is it
            target = solution[0]
        body = "\n".join(lines[i + 1:end]) + "\n"
        if target is not None:
            edit.files[target] = body
        elif re.fullmatch(r"[\w./-]+\.\w+", _clean_name(name)):  # a path it meant to write (not prose before an example)
            edit.ignored.append(_clean_name(name))
        i = end + 1
    if not edit.files:
        raise MalformedEdit("no solution file in the reply" + (f" (it wrote {', '.join(edit.ignored)})" if edit.ignored else ""))
    return edit


def _replace_once(text: str, search: str, replace: str) -> str | None:
    if search in text:
        return text.replace(search, replace, 1)
    # aider also accepts a SEARCH that differs only in trailing whitespace on its lines
    strip = [line.rstrip() for line in text.split("\n")]
    want = [line.rstrip() for line in search.rstrip("\n").split("\n")]
    for start in range(len(strip) - len(want) + 1):
        if strip[start:start + len(want)] == want:
            lines = text.split("\n")
            return "\n".join([*lines[:start], *replace.rstrip("\n").split("\n"), *lines[start + len(want):]])
    return None


def parse_diff(reply: str, stubs: dict[str, str], known: set[str]) -> Edit:
    """aider's diff format: a path line, a fence, <<<<<<< SEARCH / ======= / >>>>>>> REPLACE blocks."""
    solution = list(stubs)
    current = dict(stubs)
    edit = Edit({}, format="diff")
    last: str | None = None
    for block in _DIFF_BLOCK.finditer(reply):
        before = reply[:block.start()].splitlines()
        name = _name_before(before, len(before))
        target = _target(name, solution, known) if name else None
        if target is None and not _clean_name(name).count(".") and last is not None:  # aider: a block without a path edits the last file named
            target = last
        if target is None and len(solution) == 1 and not name:
            target = solution[0]
        search, replace = block.group(1), block.group(2)
        if target is None:
            edit.ignored.append(_clean_name(name) or "(no file name)")
            continue
        last = target
        current.setdefault(target, "")
        if not search.strip():  # aider: an empty SEARCH appends (or makes a new file)
            new: str | None = current[target] + replace if current[target].strip() else replace
        else:
            new = _replace_once(current[target], search, replace)
        if new is None:
            raise MalformedEdit(f"the SEARCH text of a block for {target} is not in the file")
        current[target] = new
        edit.files[target] = new
    if not edit.files:
        raise MalformedEdit("no SEARCH/REPLACE block edits a solution file" + (f" (it wrote {', '.join(edit.ignored)})" if edit.ignored else ""))
    return edit


def parse_edit(reply: str, stubs: dict[str, str], known: set[str]) -> Edit:
    """The files a reply writes: SEARCH/REPLACE blocks if it has any, else whole files; raises MalformedEdit."""
    if re.search(r"^<{5,9} SEARCH", reply, re.M):
        return parse_diff(reply, stubs, known)
    return parse_whole(reply, stubs, known)


# ------------------------------------------------------------------ per-language runs


@dataclass(frozen=True)
class Plan:
    """One exercise's run: files, build and test commands, and the test names the pristine tests declare."""

    files: dict[str, bytes]
    build: str
    test: str
    expected: list[str]
    report: str  # "junit", "go-marker", "libtest-log"
    memory_limited: bool = True
    marker: str = ""  # go-marker: the line the harness writes last, after every test returned; nonce-records: the nonce
    stdin: bytes = b""  # what the test phase reads on stdin (JavaScript: the nonce, read before the sample's code loads)
    skippable: tuple[str, ...] = ()  # tests the pristine sources disable: reported skipped, neither passed nor failed


def _tests_text(spec: dict[str, object], suffix: str) -> dict[str, str]:
    files = spec["files"]
    assert isinstance(files, dict)
    return {p: t for p, t in files.items() if isinstance(t, str) and p.endswith(suffix)}


_GO_BUILD = re.compile(r"^//go:build\s+(.+)$", re.M)
_GO_TAGS = {"linux", "amd64", "unix", "gc"}  # what `go test ./...` sets here (no -tags); go1.N release tags below


def _go_excluded(text: str) -> bool:
    """Whether `go test` without -tags leaves this file out (its //go:build line is false)."""
    found = _GO_BUILD.search(text)
    if found is None:
        return False
    tokens = re.findall(r"&&|\|\||!|\(|\)|[\w.]+", found.group(1))
    words = {"&&": " and ", "||": " or ", "!": " not ", "(": "(", ")": ")"}
    expr = "".join(words.get(t) or str(t in _GO_TAGS or bool(re.fullmatch(r"go1\.\d+", t))) for t in tokens)
    try:
        return not eval(expr, {"__builtins__": {}}, {})  # only True/False/and/or/not/parentheses reach here
    except SyntaxError:
        return True
_RUST_PREFIX = r"(?:\s*(?:#!?\[[^\]]*\]|//[^\n]*))*\s*"
_RUST_GATED = re.compile(r"#\[cfg\(feature\b[^\]]*\]" + _RUST_PREFIX + r"(?:pub\s+)?(?:mod|fn)\s+\w+[^{;]*\{")
_RUST_TEST = re.compile(r"((?:\s*(?:#\[[^\]]*\]|//[^\n]*))+)\s*(?:pub\s+)?fn\s+(\w+)")


def rust_tests(text: str) -> list[str]:
    """The #[test] functions cargo builds without features: a function or module under #[cfg(feature = ...)] is left out."""
    while True:
        gated = _RUST_GATED.search(text)
        if gated is None:
            break
        depth, end = 1, gated.end()
        while end < len(text) and depth:  # the item's braces (the tests hold no unbalanced brace in a string)
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        text = text[:gated.start()] + text[end:]
    return [name for prefix, name in _RUST_TEST.findall(text) if re.search(r"#\[test\]", prefix)]


def expected_tests(lang: str, files: dict[str, str], test_paths: list[str]) -> list[str]:
    """The test names the pristine test files declare (what the report must show as passed)."""
    names: list[str] = []
    for path in test_paths:
        text = files.get(path, "")
        if lang == "python":
            names += re.findall(r"^\s+def (test\w*)\s*\(", text, re.M)
        elif lang == "rust":
            names += rust_tests(text)
        elif lang == "java":
            names += re.findall(r"@(?:Test|ParameterizedTest)\b[^;{]*?(?:public\s+)?void\s+(\w+)\s*\(", text, re.S)
        elif lang == "javascript":
            names += js_tests(text)[0]
        elif lang == "cpp":  # the benchmark blocks are built only with EXERCISM_INCLUDE_BENCHMARK
            text = re.sub(r"^#if defined\(EXERCISM_INCLUDE_BENCHMARK\).*?^#endif", "", text, flags=re.M | re.S)
            names += re.findall(r'^\s*TEST_CASE\s*\(\s*"((?:\\.|[^"\\])*)"', text, re.M)
    if lang == "go":  # every _test.go file that `go test` builds (not those behind a build tag)
        for path, text in files.items():
            if path.endswith("_test.go") and "/" not in path and not _go_excluded(text):
                names += re.findall(r"^func\s+(Test\w+)\s*\(\s*\w+\s+\*testing\.T\s*\)", text, re.M)
    return names


def _js_string(literal: str) -> str:
    """A JavaScript string literal's value (the escapes test titles use)."""
    body = literal[1:-1]
    if literal[0] == "`":
        return body
    simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}

    def unescape(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc[0] in "ux" and len(esc) > 1:
            return chr(int(esc[1:].strip("{}"), 16))
        return simple.get(esc, "" if esc == "\n" else esc)

    return re.sub(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", unescape, body, flags=re.S)


def js_tests(text: str) -> tuple[list[str], list[str]]:
    """(the titles of the tests a spec declares, those it skips) after upstream's `xtest(` -> `test(`: `test`/`it` run,
    `xit`, `test.skip` and `it.skip` are skipped (upstream's sed leaves them, so jest skips them there too)."""
    run: list[str] = []
    skipped: list[str] = []
    for kind, literal in _JS_TEST.findall(js_unskip(text)):
        (run if kind in ("test", "it") else skipped).append(_js_string(literal))
    return run, skipped


def js_unskip(text: str) -> str:
    """Upstream's benchmark/npm-test.sh: `sed 's/\\bxtest(/test(/g' *.spec.js`."""
    return re.sub(r"\bxtest\(", "test(", text)


_JAVA_DISABLED = re.compile(r"@Disabled\b(?:\([^)]*\))?[^;{]*?void\s+(\w+)\s*\(", re.S)
GO_HARNESS_FILE = "zz_assay_main_test.go"
_GO_TEST = re.compile(r"^func\s+(Test\w+)\s*\(\s*(\w+)\s+\*testing\.T\s*\)", re.M)
GO_HARNESS = "package {package}\n\n" + GO_TESTMAIN_HEAD + """\tcode := m.Run()
\tchannel := assay_os.NewFile(3, "channel")
\tfor _, name := range []string{{{names}}} {{
\t\tif assay_done_{tag}[name] {{
\t\t\tchannel.WriteString("pass " + name + "\\n")
\t\t}}
\t}}
\tchannel.WriteString("{marker}\\n")
\tassay_os.Exit(code)
}}
"""


def go_harness(files: dict[str, str], marker: str) -> dict[str, bytes]:
    """The pristine tests with each TestX renamed, and Assay's TestX wrappers and TestMain: a test is reported
    on fd 3 only once it returned without failing, and the marker only after m.Run() returned."""
    tag = marker[-8:]
    out: dict[str, bytes] = {}
    names: list[str] = []
    package = ""
    for path, text in sorted(files.items()):
        if not path.endswith("_test.go") or "/" in path or _go_excluded(text):
            continue
        found = _GO_TEST.findall(text)
        if not found:
            continue
        package = package or (re.search(r"^package\s+(\w+)", text, re.M) or re.search("", "")).group(1)  # type: ignore[union-attr]
        names += [name for name, _ in found]
        out[path] = _GO_TEST.sub(lambda m: f"func assay_{tag}_{m.group(1)}({m.group(2)} *testing.T)", text).encode()
    if not names:  # nothing to wrap (counter's tests are the sample's to write): judged as declaring no test
        return out
    wrappers = "\n".join(f"func {n}(t *assay_testing.T) {{\n\tassay_{tag}_{n}(t)\n\tif !t.Failed() && !t.Skipped() {{\n"
                         f'\t\tassay_done_{tag}["{n}"] = true\n\t}}\n}}' for n in names)
    out[GO_HARNESS_FILE] = GO_HARNESS.format(package=package or "main", tag=tag, wrappers=wrappers, marker=marker,
                                             names=", ".join(f'"{n}"' for n in names)).encode()
    return out


def plan(language: Language, spec: dict[str, object], written: dict[str, str], marker: str = "") -> Plan:
    """The run of one exercise with the sample's solution files written over the stubs."""
    lang = str(spec["lang"])
    pristine = dict(spec["files"])  # type: ignore[call-overload]
    test_paths = [str(p) for p in spec["test"]]  # type: ignore[attr-defined]
    solution = [str(p) for p in spec["solution"]]  # type: ignore[attr-defined]
    allowed = {p for p in written if p in solution or (lang == "java" and NEW_FILES.match(p) and p not in pristine)}
    files: dict[str, str] = {**pristine, **{p: t for p, t in written.items() if p in allowed}}
    if lang == "rust" and "Cargo.toml" in pristine:  # a sample's manifest could point [[test]] or build.rs at its own code
        files["Cargo.toml"] = pristine["Cargo.toml"]
    for path in test_paths:  # re-copied from the pristine tree, as upstream does
        if path in pristine:
            files[path] = pristine[path]
    expected = expected_tests(lang, pristine, test_paths)
    raw = {p: t.encode("utf-8", "surrogateescape") for p, t in files.items()}
    if lang == "python":
        tests = " ".join(test_paths)
        return Plan(raw, "", f"{{python3}} -B -m pytest -p no:cacheprovider -q -o junit_family=xunit1 --junitxml=/tmp/report.xml {tests}; s=$?; cat /tmp/report.xml >&3; exit $s", expected, "junit")
    if lang == "go":
        raw.update(go_harness(files, marker))
        seed = 'if [ -d "$ASSAY_GO_SEED" ]; then cp -R "$ASSAY_GO_SEED" /tmp/go-cache; fi; '
        # The harness's source is gone before the sample's code first runs (its marker stays in the binary: docs/verdicts.md).
        return Plan(raw, seed + f"{{go}} test -c -o exercise.test . && rm -f {GO_HARNESS_FILE}", "./exercise.test -test.v -test.count=1",
                    expected, "go-marker", marker=marker)
    if lang == "rust":
        raw[".cargo/config.toml"] = b"[net]\noffline = true\n"
        cargo = "CARGO_HOME=/tmp/cargo-home CARGO_TARGET_DIR=/tmp/target {cargo} test --offline"
        # One run a test target, each with its own --logfile: libtest's results, apart from what the sample prints.
        targets = sorted(Path(p).stem for p in files if re.fullmatch(r"tests/[^/]+\.rs", p))
        runs = "".join(f"{cargo} --test {t} -- --include-ignored --logfile /tmp/log-{t}.txt || s=1; cat /tmp/log-{t}.txt >&3; " for t in targets)
        test = f"s=0; {runs}{cargo} --lib -- --include-ignored --logfile /tmp/log-lib.txt || s=1; cat /tmp/log-lib.txt >&3; exit $s"
        return Plan(raw, cargo + " --no-run -q", test, expected, "libtest-log")
    if lang == "java":
        for path in test_paths:
            if path.endswith(".java"):  # upstream: re.sub(r"@Disabled\([^)]*\)\s*\n", "", content)
                raw[path] = re.sub(r"@Disabled\([^)]*\)\s*\n", "", files[path]).encode()
        jars = ":".join(j for j in JAVA_JARS if os.path.exists(j))
        # A test the sources still disable (a bare @Disabled, or one in a file upstream does not strip) is skipped there too.
        disabled = [n for p in files if p.startswith("src/test/") and p.endswith(".java")
                    for n in _JAVA_DISABLED.findall(raw[p].decode("utf-8", "replace"))]
        expected = [n for n in expected if n not in disabled]
        sources = " ".join(sorted(p for p in files if p.endswith(".java") and p.startswith("src/")))
        build = f"{{javac}} -J-Xmx1g -encoding UTF-8 -nowarn -proc:none -d classes -cp {jars} {sources}"
        test = (f"{{java}} -Xmx1g -jar {JAVA_JARS[0]} -cp classes:{jars} --scan-classpath classes --reports-dir reports "
                "--disable-banner --details=tree; s=$?; cat reports/TEST-junit-jupiter.xml >&3; exit $s")
        return Plan(raw, build, test, expected, "junit", memory_limited=False, skippable=tuple(disabled))
    if lang == "cpp":
        with open(CATCH_HEADER, "rb") as header:
            raw["test/catch.hpp"] = header.read()
        base = str(spec["exercise"]).replace("-", "_")
        sources = " ".join(p for p in [f"{base}_test.cpp", f"{base}.cpp"] if p in files)
        main = catch_main(language, files.get("test/tests-main.cpp", ""))
        if main is not None:  # Catch's main, compiled once on the host from Debian's header (half a minute a build saved)
            raw["test/tests-main.o"] = main
            sources += " test/tests-main.o"
        else:
            sources += " test/tests-main.cpp"
        build = f"{{gpp}} -std=c++17 -g -Wall -Wextra -Wpedantic -Werror -DEXERCISM_RUN_ALL_TESTS -I. -o exercise {sources}"
        return Plan(raw, build, "ulimit -s 2048; ./exercise -r junit -o /tmp/report.xml; s=$?; cat /tmp/report.xml >&3; exit $s", expected, "junit")
    if lang == "javascript":
        found = re.match(r"v?(\d+)\.(\d+)", language.toolchain().version)
        if found is None or (int(found.group(1)), int(found.group(2))) < NODE_MIN:
            raise ToolchainMissing(f"polyglot/javascript: the runner needs node >= {NODE_MIN[0]}.{NODE_MIN[1]} (module syntax detection, "
                                   f"--disable-warning, the permission model); this node is {language.toolchain().version}")
        for path in test_paths:
            if path.endswith(".js"):
                raw[path] = js_unskip(files[path]).encode()
        raw[".assay/jest_runner.mjs"] = JEST_RUNNER.read_bytes()
        raw[".assay/jest_hooks.mjs"] = JEST_HOOKS.read_bytes()
        specs = " ".join(p for p in test_paths if p.endswith(".js"))
        # The nonce comes on stdin; the runner reads it before it loads a spec (and with it the sample). Node's permission
        # model refuses the inspector (a debugger on this process's memory) and native addons; files, child processes
        # (grep's spec runs node) and workers stay allowed.
        test = f"{{node}} {NODE_FLAGS} .assay/jest_runner.mjs {specs}"
        return Plan(raw, "", test, expected, "nonce-records", marker=marker, stdin=(marker + "\n").encode())
    raise ToolchainMissing(f"polyglot: no runner for {lang}")


def catch_main(language: Language, source: str) -> bytes | None:
    """test/tests-main.cpp (Catch's CATCH_CONFIG_MAIN, the same in every exercise) built once with the
    exercise's flags from Debian's catch.hpp; None where it is another file or the build fails."""
    if source.split() != ["#define", "CATCH_CONFIG_MAIN", "#include", '"catch.hpp"']:
        return None
    gpp = language.toolchain().tools["g++"]
    flags = ["-std=c++17", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-c"]

    def build(work: Path) -> None:
        (work / "catch.hpp").write_bytes(Path(CATCH_HEADER).read_bytes())
        (work / "tests-main.cpp").write_text(source)
        run_host([gpp, *flags, "-o", "tests-main.o", "tests-main.cpp"], work, timeout=600)

    try:
        folder = support_dir("polyglot-catch-main", digest(language.toolchain().version, gpp, flags, file_stamp(CATCH_HEADER), source), build)
    except (OSError, subprocess.SubprocessError):
        return None
    return (folder / "tests-main.o").read_bytes()


# ------------------------------------------------------------------ reports


def read_report(kind: str, channel: str, marker: str = "") -> tuple[dict[str, bool], str]:
    """(test name -> passed, a problem with the report or ""), from the report the test phase wrote to fd 3."""
    results: dict[str, bool] = {}
    if kind == "junit":
        try:
            root = ET.fromstring(channel)
        except ET.ParseError as exc:
            return {}, f"no readable test report ({exc})"
        for case in root.iter("testcase"):
            name = re.sub(r"\(\)$", "", case.get("name", ""))
            ok = not any(case.find(tag) is not None for tag in ("failure", "error", "skipped"))
            results[name] = results.get(name, True) and ok
        return results, ""
    if kind == "go-marker":
        lines = channel.splitlines()
        if not lines or lines[-1] != marker or lines.count(marker) != 1:
            return {}, "the tests did not run to their end (no completion record)"
        for line in lines[:-1]:
            if not line.startswith("pass "):
                return {}, "an unreadable test record"
            results[line[5:]] = True
        return results, ""
    if kind == "nonce-records":  # jest_runner.mjs: "<nonce> pass|fail|skip <path> <title>" lines, then "<nonce> end <count>"
        lines = channel.splitlines()
        if not lines or lines[-1].split(" ")[:2] != [marker, "end"] or sum(line.startswith(marker + " end ") for line in lines) != 1:
            return {}, "the tests did not run to their end (no completion record)"
        for line in lines[:-1]:
            parts = line.split(" ")
            if len(parts) != 4 or parts[0] != marker or parts[1] not in ("pass", "fail", "skip"):
                return {}, "an unreadable test record"
            if parts[1] != "skip":  # a skipped test is neither passed nor failed (and the pristine spec's are known here)
                name = unquote(parts[2])
                results[name] = results.get(name, True) and parts[1] == "pass"
        return results, ""
    if kind == "libtest-log":
        for line in channel.splitlines():
            word, _, name = line.partition(" ")
            if word in ("ok", "failed", "ignored") and name:
                results[name] = results.get(name, True) and word == "ok"
        return results, ""
    return {}, f"unknown report kind {kind}"


def capped(text: str) -> str:
    """Test output as it is sent back to the model: its last FEEDBACK_LINES lines (where the runners sum up), at most
    FEEDBACK_CHARS of them."""
    return "\n".join(text.splitlines()[-FEEDBACK_LINES:])[-FEEDBACK_CHARS:]


# ------------------------------------------------------------------ the judge


def judge_polyglot(language: Language, sandbox: Sandbox, problem: Problem, code: str, limits: PhaseLimits) -> Verdict:
    """Parse the sample's edit, run the exercise's tests with its solution files, decide here."""
    from assay.benchmarks.polyglot import spec_of

    spec = spec_of(problem)
    pristine: dict[str, str] = spec["files"]
    solution = [str(s) for s in spec["solution"]]
    stubs = {s: pristine.get(s, "") for s in solution}
    try:
        edit = parse_edit(code, stubs, set(pristine))
    except MalformedEdit as exc:
        return Verdict(Status.FAILED, message=f"malformed edit: {exc}", tests=[TestDetail("edit", Status.FAILED, str(exc))])
    try:
        toolchain = language.toolchain()
        run = plan(language, spec, edit.files, "ASSAY-DONE-" + secrets.token_hex(16))
    except (ToolchainMissing, OSError) as exc:
        return Verdict(Status.SKIPPED, message=f"skipped: {exc}")
    tools = {name.replace("-", "_").replace("+", "p").replace(".", "_"): path for name, path in toolchain.tools.items()}
    if spec["lang"] == "rust":
        tools["cargo"] = str(Path(os.path.realpath(toolchain.tools["rustc"])).with_name("cargo"))
    env = {"PATH": _path_for(toolchain), "HOME": "/tmp", **toolchain.env}
    if spec["lang"] == "go":
        env.update(GOFLAGS="-mod=mod", GOPATH="/tmp/go", GOCACHE="/tmp/go-cache")
    mem = 4 * GiB if run.memory_limited else None
    if spec["lang"] == "javascript":  # address space, not memory: V8 reserves ~150 MB a worker thread (50 of them in one test)
        mem = 32 * GiB
    phases: list[Phase] = []
    if run.build:
        phases.append(Phase("build", ("/bin/sh", "-c", run.build.format(**tools)), TEST_TIMEOUT_S, TEST_TIMEOUT_S, memory_bytes=mem, output="stderr"))
    phases.append(Phase("run", ("/bin/sh", "-c", run.test.format(**tools)), TEST_TIMEOUT_S, TEST_TIMEOUT_S, memory_bytes=mem,
                        channel=True, stdin=bool(run.stdin), output="merged"))
    box = SandboxLimits(cpu_seconds=TEST_TIMEOUT_S, wall_seconds=2 * TEST_TIMEOUT_S + 30, memory_bytes=8 * GiB, processes=2048, file_size_bytes=512 * 1024**2,
                        disk_bytes=2 * GiB, output_bytes=256 * 1024)
    result = sandbox.run_phases(phases, run.files, box, stdin=run.stdin, env=env)
    verdict = decide(result, run, PhaseLimits(build_cpu=TEST_TIMEOUT_S, build_wall=TEST_TIMEOUT_S, run_cpu=TEST_TIMEOUT_S,
                                              run_wall=TEST_TIMEOUT_S, output_bytes=box.output_bytes))
    if edit.ignored:
        verdict.tests.append(TestDetail("edit", Status.PASSED, "writes dropped (not solution files): " + ", ".join(edit.ignored)))
    return verdict


def decide(result: SandboxResult, run: Plan, limits: PhaseLimits) -> Verdict:
    """The verdict from the phases' statuses and the report: every declared test passed, and exit 0."""
    failure = build_failure(result, limits)
    if failure is not None:
        return failure
    channel = result.channel.decode("utf-8", "replace")
    shown = result.stdout.decode("utf-8", "replace")  # the test run's own output (the report on fd 3 is for the judge)
    failure = run_failure(result, limits, shown)
    if failure is not None:
        return failure
    phase = next(p for p in result.phases if p.name == "run")
    results, problem = read_report(run.report, channel, run.marker)
    results = {name: ok for name, ok in results.items() if name not in run.skippable}
    details = [TestDetail(name, Status.PASSED if ok else Status.FAILED) for name, ok in results.items()]
    # A declared name is reported as itself, a Catch2 section of it ("case/section"), or a libtest path ending in it ("mod::name").
    reported = {*results, *(r.rsplit("::", 1)[-1] for r in results), *(r.split("/", 1)[0] for r in results),
                *(r.rsplit(" › ", 1)[-1] for r in results)}  # jest: "describe › test"
    missing = [name for name in run.expected if name not in reported]
    if not missing and sum(results.values()) < len(run.expected):  # names declared in several modules (xorcism): count them too
        missing = [f"{len(run.expected) - sum(results.values())} more tests"]
    failed = [name for name, ok in results.items() if not ok]
    tail = shown[-4000:]
    if phase.exit_code != 0 or failed or missing or problem or not run.expected:
        how = ("the pristine tests declare no test" if not run.expected else f"{len(failed)} of {len(results)} tests failed" if failed else problem or
               (f"{len(missing)} of {len(run.expected)} tests not reported as passed (first: {missing[0]})" if missing else
                "no tests declared" if not run.expected else f"exit status {phase.exit_code}"))
        status = Status.FAILED if (failed or missing or phase.exit_code == 1 or not run.expected) else Status.RUNTIME_ERROR
        return Verdict(status, message=f"failed: {how}", tests=details, duration_s=result.wall_seconds, stdout=tail)
    return Verdict(Status.PASSED, message="passed", tests=details, duration_s=result.wall_seconds)


def feedback(verdict: Verdict, file_list: str) -> str:
    """What the second try is sent after a failed first: the test output (capped), then aider's test_failures."""
    from assay.benchmarks.polyglot import TEST_FAILURES

    output = verdict.stdout or verdict.message
    if verdict.status is Status.TIMEOUT:
        output = "Tests timed out!"
    return capped(output) + "\n" + TEST_FAILURES.format(file_list=file_list)
