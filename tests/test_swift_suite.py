"""swift-suite and the directory format: every reference passes, every wrong solution fails, the format is checked;
the in-process harness is hard to fool (each passing test reports a token it only gets on stdin), and the
solutions a cheating model would write never pass."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.benchmarks.directory import BenchmarkFormatError, load_directory
from assay.execution import Executor
from assay.languages.swift_units import read_report, solution_violations, unit_run
from assay.problems import Status
from assay.prompts import INSTRUCT
from tests.languages._common import TIGHT, language_or_skip, sandbox_for

FEATURES = [
    "optionals", "protocols-associated-types", "generics-where", "enums-associated-values", "value-vs-reference",
    "closures-capture", "error-handling", "codable", "property-wrappers", "access-control", "async-await",
    "semver", "state-machine", "dependency-injection", "lru-cache", "process", "filemanager",
]  # fmt: skip


@pytest.fixture(scope="module")
def suite():  # type: ignore[no-untyped-def]
    return load_benchmark("swift-suite")


def test_suite_shape(suite) -> None:  # type: ignore[no-untyped-def]
    assert len(suite.problems) >= 30
    levels = [t for p in suite.problems.values() for t in p.tags if t.startswith("level:")]
    assert levels.count("level:class") >= 8 and levels.count("level:function") >= 8
    tags = {t.split(":", 1)[1] for p in suite.problems.values() for t in p.tags if t.startswith("feature:")}
    missing = [f for f in FEATURES if not any(f in t for t in tags)]
    assert not missing, missing
    for problem in suite.problems.values():
        n_tests = len(re.findall(r"^func\s+test_\w+", problem.tests.code, re.M))
        assert 3 <= n_tests <= 5, (problem.id, n_tests)
        assert problem.entry_point in problem.extra["signature"] and problem.entry_point in problem.reference
        assert problem.extra["wrong_solutions"], problem.id
        prompt = INSTRUCT.render(problem)
        assert prompt.messages[0][1] == problem.prompt and "```swift" in problem.prompt


def test_format_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(Exception, match=r"no benchmark\.yaml"):
        load_directory(tmp_path)
    (tmp_path / "benchmark.yaml").write_text("name: mine\nlanguage: cobol\n")
    with pytest.raises(BenchmarkFormatError, match="language must be one of"):
        load_directory(tmp_path)
    (tmp_path / "benchmark.yaml").write_text("name: mine\nlanguage: swift\n")
    (tmp_path / "p1").mkdir()
    (tmp_path / "p1" / "problem.yaml").write_text("title: x\n")
    with pytest.raises(BenchmarkFormatError, match="entry_point is required"):
        load_directory(tmp_path)
    (tmp_path / "p1" / "problem.yaml").write_text("entry_point: f\n")
    with pytest.raises(BenchmarkFormatError, match=r"missing task\.md"):
        load_directory(tmp_path)


def _judge_all(suite, jobs):  # type: ignore[no-untyped-def]
    executor = Executor(sandbox_for("swift"), suite)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(lambda job: (job, executor.judge(suite.problems[job[0]], job[2])), jobs))


@pytest.mark.slow
def test_every_reference_passes_and_every_problem_has_a_wrong_solution_that_fails(suite) -> None:  # type: ignore[no-untyped-def]
    language_or_skip("swift")
    jobs = []
    for pid, problem in suite.problems.items():
        jobs.append((pid, "reference", problem.reference_program()))
        # One wrong solution per problem here; ASSAY_FULL_SWIFT_SUITE=1 checks all of them.
        wrongs = sorted(problem.extra["wrong_solutions"].items())
        for name, code in wrongs if os.environ.get("ASSAY_FULL_SWIFT_SUITE") else wrongs[:1]:
            jobs.append((pid, name, code))
    bad = []
    for (pid, name, _code), verdict in _judge_all(suite, jobs):
        if name == "reference":
            ok = verdict.status is Status.PASSED
        elif name.startswith("compile_error"):
            ok = verdict.status is Status.COMPILE_ERROR
        else:
            ok = verdict.status in (Status.FAILED, Status.RUNTIME_ERROR, Status.TIMEOUT)
        if not ok:
            bad.append((pid, name, verdict.status.value, verdict.message))
    assert not bad, bad


@pytest.mark.slow
def test_a_chat_reply_that_repeats_the_context_still_builds(suite) -> None:  # type: ignore[no-untyped-def]
    language_or_skip("swift")
    problem = next(p for p in suite.problems.values() if p.context.strip())
    reply = problem.context + "\n\n" + problem.reference
    ((_, verdict),) = _judge_all(suite, [(problem.id, "repeated", reply)])
    assert verdict.status is Status.PASSED, verdict.message


# ---------------------------------------------------------------- the harness: tokens, names, what a solution may declare

MERGE = "swift-suite/merge_sorted"
SUMMARY = "swift-suite/directory_summary"
SIG = ("func mergeSorted<A: Sequence, B: Sequence>(_ a: A, _ b: B) -> [A.Element] "
       "where A.Element == B.Element, A.Element: Comparable {\n")
WRONG_BODY = "    return Array(a) + Array(b)\n}\n"  # not merged: fails most tests
# A solution's helpers: put() writes to fd 3, the test names read from tests.swift at run time.
HELPERS = """import Foundation

func put(_ s: String, _ fd: Int32 = 3) { var b = Array(s.utf8); _ = write(fd, &b, b.count) }
func testNames() -> [String] {
    let text = (try? String(contentsOfFile: "tests.swift", encoding: .utf8)) ?? ""
    return text.split(separator: "\\n").compactMap { line -> String? in
        guard line.hasPrefix("func test_"), let paren = line.firstIndex(of: "(") else { return nil }
        var name = String(line[line.index(line.startIndex, offsetBy: 5)..<paren])
        if let cut = name.range(of: "_", options: .backwards), name[cut.upperBound...].count == 12 { name = String(name[..<cut.lowerBound]) }
        return name
    }
}
func forgeAll(_ token: String) -> String {
    testNames().map { "test \\($0) ok \\(token)\\n" }.joined() + "end \\(token)\\n"
}
"""
FAKE = "0123456789abcdef0123456789abcdef"

HOSTILE = {
    # exit 0 before the tests finish: no end line
    "exit 0 early": (MERGE, "import Foundation\n\n" + SIG + "    exit(0)\n}\n"),
    # ok lines for every test (names read from tests.swift) and an end line, on stdout and on fd 3, then exit 0
    "fake ok lines": (MERGE, HELPERS + SIG + f'    let lines = forgeAll("{FAKE}")\n    print(lines)\n    put(lines)\n    exit(0)\n}}\n'),
    # right on Ints; on other element types (the harder tests) it ends the run with status 0 instead
    "skips the rest": (MERGE, "import Foundation\n\n" + SIG + "    if A.Element.self != Int.self { exit(0) }\n"
                              "    return (Array(a) + Array(b)).sorted()\n}\n"),
    # anything that looks like a token in its binary, its sources, its command line and environment
    "tokens from files": (MERGE, HELPERS + SIG + """    var found: [String] = []
    for path in ["/proc/self/exe", "main.swift", "tests.swift", "prelude.swift", "/proc/self/cmdline", "/proc/self/environ"] {
        guard let data = FileManager.default.contents(atPath: path) else { continue }
        let text = String(decoding: data, as: UTF8.self)
        var run = ""
        for c in text { if c.isHexDigit && c.isLowercase || c.isNumber { run.append(c) } else { if run.count == 32 { found.append(run) }; run = "" } }
    }
    let token = found.first ?? "FAKE_TOKEN"
    put(forgeAll(token))
    print(found)
    exit(0)
}
""".replace("FAKE_TOKEN", FAKE)),
    # the run's stdin, through every path to it
    "reads stdin": (MERGE, HELPERS + SIG + """    var got = readLine() ?? ""
    for path in ["/dev/stdin", "/proc/self/fd/0"] { got += (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    let token = got.split(separator: " ").first.map(String.init) ?? "FAKE_TOKEN"
    put(forgeAll(token.trimmingCharacters(in: .whitespacesAndNewlines)))
    exit(0)
}
""".replace("FAKE_TOKEN", FAKE)),
    # expectations of its own, more specific than the prelude's, that never fail (and a wrong merge)
    "overloaded expectations": (MERGE, "import Foundation\n\n" + SIG + WRONG_BODY + """
func expectEqual(_ a: @autoclosure () throws -> [Int], _ b: @autoclosure () throws -> [Int], _ m: @autoclosure () -> String = "",
                 file: StaticString = #filePath, line: UInt = #line) throws {}
func expectEqual(_ a: @autoclosure () throws -> [String], _ b: @autoclosure () throws -> [String], _ m: @autoclosure () -> String = "",
                 file: StaticString = #filePath, line: UInt = #line) throws {}
func expectEqual(_ a: @autoclosure () throws -> String, _ b: @autoclosure () throws -> String, _ m: @autoclosure () -> String = "",
                 file: StaticString = #filePath, line: UInt = #line) throws {}
func expectEqual<T>(_ a: @autoclosure () throws -> T, _ b: @autoclosure () throws -> T, _ m: @autoclosure () -> String = "",
                    file: StaticString = #filePath, line: UInt = #line) throws {}
func expect(_ c: @autoclosure () throws -> Bool, _ m: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) throws {}
"""),
    # == that holds for any two arrays (a free function and an extension), and a wrong merge
    "== for the result type": (MERGE, "import Foundation\n\n" + SIG + WRONG_BODY + """
func == (l: [Int], r: [Int]) -> Bool { true }
func == (l: [String], r: [String]) -> Bool { true }
extension Array where Element: Equatable { static func == (l: Self, r: Self) -> Bool { true } }
"""),
    # the context's result type made equal to anything: its == replaced, so the Equatable witness is this one
    "== for a context type": (SUMMARY, """import Foundation

func summarizeDirectory(atPath path: String) throws -> DirectorySummary {
    DirectorySummary(fileCount: 0, directoryCount: 0, totalBytes: 0, largestFile: nil)
}
extension DirectorySummary { static func == (l: DirectorySummary, r: DirectorySummary) -> Bool { true } }
"""),
    # the same through a typealias and Self
    "== through an alias": (SUMMARY, """import Foundation

typealias Summary = DirectorySummary
func summarizeDirectory(atPath path: String) throws -> DirectorySummary {
    DirectorySummary(fileCount: 0, directoryCount: 0, totalBytes: 0, largestFile: nil)
}
extension Summary { static func == (l: Self, r: Self) -> Bool { true } }
"""),
    # the same through a protocol of its own that the context type is made to adopt
    "== through a protocol": (SUMMARY, """import Foundation

protocol AlwaysEqual {}
extension AlwaysEqual { static func == (l: Self, r: Self) -> Bool { true } }
extension DirectorySummary: AlwaysEqual {}
func summarizeDirectory(atPath path: String) throws -> DirectorySummary {
    DirectorySummary(fileCount: 0, directoryCount: 0, totalBytes: 0, largestFile: nil)
}
"""),
    # the harness's C library replaced by a type of the same name: the tokens taken as main reads them,
    # every fail line rewritten as ok with its test's token, the exit status made 0
    "shadowed Glibc": (MERGE, "import Foundation\n\n" + SIG + WRONG_BODY + """
enum Glibc {
    nonisolated(unsafe) static var tokens: [String] = []
    nonisolated(unsafe) static var lines = 0
    static func read(_ fd: Int32, _ p: UnsafeMutableRawPointer!, _ n: Int) -> Int {
        let got = Foundation.read(fd, p, n)
        if got > 0 {
            let text = String(decoding: UnsafeRawBufferPointer(start: p, count: got), as: UTF8.self)
            tokens += text.split(whereSeparator: { $0 == " " || $0 == "\\n" }).map(String.init)
        }
        return got
    }
    static func write(_ fd: Int32, _ p: UnsafeRawPointer!, _ n: Int) -> Int {
        var text = String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
        if fd == 3 {
            if let r = text.range(of: " fail "), lines < tokens.count { text = String(text[..<r.lowerBound]) + " ok " + tokens[lines] + "\\n" }
            lines += 1
        }
        var b = Array(text.utf8)
        _ = Foundation.write(fd, &b, b.count)
        return n
    }
    static func malloc(_ n: Int) -> UnsafeMutableRawPointer! { Foundation.malloc(n) }
    static func memcpy(_ d: UnsafeMutableRawPointer!, _ s: UnsafeRawPointer!, _ n: Int) -> UnsafeMutableRawPointer! { Foundation.memcpy(d, s, n) }
    static func close(_ fd: Int32) -> Int32 { Foundation.close(fd) }
    static func fflush(_ f: UnsafeMutablePointer<FILE>!) -> Int32 { Foundation.fflush(f) }
    static func _exit(_ c: Int32) -> Never { Foundation._exit(0) }
}
"""),
    # C's write(2) replaced for the whole program (symbol interposition), rewriting fail lines to ok
    "interposed write": (MERGE, "import Foundation\n\n" + SIG + WRONG_BODY + """
@_silgen_name("syscall") func rawSyscall(_ n: Int, _ fd: Int, _ p: UnsafeRawPointer?, _ count: Int) -> Int
@_cdecl("write") func interposedWrite(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int {
    if fd == 3, let p, let text = Optional(String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)),
       let r = text.range(of: " fail ") {
        let forged = Array((String(text[..<r.lowerBound]) + " ok FAKE_TOKEN\\n").utf8)
        _ = forged.withUnsafeBytes { rawSyscall(1, 3, $0.baseAddress, $0.count) }
        return n
    }
    return rawSyscall(1, Int(fd), p, n)
}
""".replace("FAKE_TOKEN", FAKE)),
    # top-level read and write of its own (the harness names Glibc's): they change nothing
    "shadowed write": (MERGE, "import Foundation\n\n" + SIG + WRONG_BODY + """
func write(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int { n }
func read(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int { 0 }
"""),
    # fd 3 swapped for a pipe it reads from a thread: each fail line forwarded as an ok line
    "hijacked channel": (MERGE, "import Foundation\n\n" + SIG + """    Hijack.once
    return Array(a) + Array(b)
}
enum Hijack {
    static let once: Void = {
        let saved = dup(3)
        var p: [Int32] = [0, 0]
        _ = pipe(&p)
        _ = dup2(p[1], 3)
        let reader = p[0]
        let t = Thread {
            var pending = [UInt8]()
            var byte: UInt8 = 0
            while read(reader, &byte, 1) == 1 {
                if byte != 10 { pending.append(byte); continue }
                var line = String(decoding: pending, as: UTF8.self)
                pending = []
                if let r = line.range(of: " fail ") { line = String(line[..<r.lowerBound]) + " ok FAKE_TOKEN" }
                var out = Array((line + "\\n").utf8)
                _ = write(saved, &out, out.count)
            }
        }
        t.start()
    }()
}
""".replace("FAKE_TOKEN", FAKE)),
    # its own memory (every writable mapping, through /proc/self/mem) scanned for the tokens as text
    "tokens in memory": (MERGE, HELPERS + SIG + r"""    // Scan its own heap for the run's tokens: 32 hex digits, a space, 32 hex digits...
    let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
    let mem = open("/proc/self/mem", O_RDONLY)
    var tokens: [String] = []
    for line in maps.split(separator: "\n") where line.contains("rw-p") && (line.contains("[heap]") || line.hasSuffix(" ")) {
        let range = line.split(separator: " ")[0].split(separator: "-").compactMap { UInt(String($0), radix: 16) }
        guard range.count == 2, range[1] - range[0] < 1 << 28 else { continue }
        var buf = [UInt8](repeating: 0, count: Int(range[1] - range[0]))
        let got = buf.withUnsafeMutableBytes { pread(mem, $0.baseAddress, $0.count, off_t(range[0])) }
        guard got > 0 else { continue }
        let hex: (UInt8) -> Bool = { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
        var i = 0
        while i + 33 <= got && tokens.isEmpty {
            var run = 0
            while i + run < got && hex(buf[i + run]) { run += 1 }
            if run == 32 && i + 32 < got && buf[i + 32] == 32 {
                var j = i
                var found: [String] = []
                while j + 32 <= got && (0..<32).allSatisfy({ hex(buf[j + $0]) }) {
                    found.append(String(decoding: buf[j..<j + 32], as: UTF8.self))
                    if j + 32 < got && buf[j + 32] == 32 { j += 33 } else { break }
                }
                if found.count >= 2 { tokens = found }
            }
            i += max(run, 1)
        }
        if !tokens.isEmpty { break }
    }
    let names = testNames()
    if tokens.count == names.count + 1 {
        put(zip(names, tokens).map { "test \($0) ok \($1)\n" }.joined() + "end \(tokens.last!)\n")
        fflush(nil)
        _exit(0)
    }
    print("found", tokens.count)
    return Array(a) + Array(b)
}
"""),
    # sleeps past the run's wall limit without using CPU
    "sleeps": (MERGE, "import Foundation\n\n" + SIG + "    Thread.sleep(forTimeInterval: 600)\n    return []\n}\n"),
}

# Refused on the trusted side before anything is built (assay.languages.swift_units.solution_violations).
REFUSED = {"== for the result type", "== for a context type", "== through an alias", "== through a protocol", "shadowed Glibc", "interposed write"}
HOSTILE_STATUS = {"sleeps": Status.TIMEOUT, "exit 0 early": Status.FAILED, "fake ok lines": Status.FAILED, "skips the rest": Status.FAILED,
                  "tokens from files": Status.FAILED, "reads stdin": Status.FAILED, "tokens in memory": Status.FAILED}
RACY = {"hijacked channel"}  # the harness may exit before the thread forwards a line: failed or a runtime error


def test_a_run_holds_its_tokens_only_on_stdin(suite) -> None:  # type: ignore[no-untyped-def]
    problem = suite.problems[MERGE]
    run = unit_run(problem.tests.code, problem.reference, problem.context)
    assert run.tests == ["test_merges_array_with_slice", "test_empty_inputs_and_tails", "test_stability_prefers_a_on_ties",
                         "test_characters_from_strings"]
    tokens = [*run.tokens, run.end]
    assert len(set(tokens)) == len(tokens) and len(run.stdin) == 2 * 16 * len(tokens)
    masked, masks = run.stdin[: 16 * len(tokens)], run.stdin[16 * len(tokens) :]  # on stdin each token is masked
    assert [bytes(a ^ b for a, b in zip(masked[16 * i : 16 * i + 16], masks[16 * i : 16 * i + 16], strict=True)).hex()
            for i in range(len(tokens))] == tokens
    assert not any(t.encode() in run.stdin for t in tokens)
    for name, data in run.files.items():
        assert not any(t.encode() in data for t in [*run.tokens, run.end]), name
    tests, main = run.files["tests.swift"].decode(), run.files["main.swift"].decode()
    assert "try expectEqual(" not in tests and "func test_merges_array_with_slice()" not in tests  # names have this build's suffix
    suffix = re.search(r"func test_merges_array_with_slice(_[0-9a-f]{12})\(", tests).group(1)  # type: ignore[union-attr]
    assert f"try expectEqual{suffix}(" in tests and f"func expectEqual{suffix}<" in run.files["prelude.swift"].decode()
    assert f"try test_merges_array_with_slice{suffix}()" in main
    other = unit_run(problem.tests.code, problem.reference, problem.context)
    assert other.tokens != run.tokens and other.files["main.swift"] != run.files["main.swift"]  # fresh for every run


def test_the_report_is_read_strictly(suite) -> None:  # type: ignore[no-untyped-def]
    problem = suite.problems[MERGE]
    run = unit_run(problem.tests.code, problem.reference, problem.context)
    ok = [f"test {n} ok {t}" for n, t in zip(run.tests, run.tokens, strict=True)]
    end = f"end {run.end}"

    def report(*lines: str, tail: str = "\n"):  # type: ignore[no-untyped-def]
        return read_report(("\n".join(lines) + tail).encode(), run)

    full = report(*ok, end)
    assert full.ended and not full.forged and all(passed for _, passed, _ in full.results)
    failed = report(ok[0], f"test {run.tests[1]} fail tests.swift:9: expected [], got [1]", *ok[2:], end)
    assert failed.ended and not failed.forged and failed.results[1] == (run.tests[1], False, "tests.swift:9: expected [], got [1]")
    assert not report(*ok[:2]).ended and not report(*ok[:2]).forged  # cut short: a crash or an early exit
    assert not report(*ok, end[:-3], tail="").ended  # an unfinished last line is dropped
    assert "without its token" in report(ok[0], f"test {run.tests[1]} ok {run.tokens[0]}").forged  # another test's token
    assert "without its token" in report(ok[0], f"test {run.tests[1]} ok").forged
    assert "not the report of" in report(ok[1]).forged  # out of order
    assert "not the report of" in report(ok[0], ok[0]).forged  # twice
    assert "not the end line" in report(*ok, f"end {run.tokens[0]}").forged
    assert "data after the end line" in report(*ok, end, ok[0]).forged
    assert "not the report of" in report("ASSAY-TEST test_merges_array_with_slice PASS").forged


def test_what_a_solution_may_not_declare() -> None:
    context = "struct Summary: Equatable { var n: Int }\nenum Failure: Error, Equatable { case bad }\n"
    fine = [
        "struct Version: Comparable {\n  let a: Int\n  static func < (l: Version, r: Version) -> Bool { l.a < r.a }\n}\n",
        "struct RingBuffer<Element> {}\nextension RingBuffer: Equatable where Element: Equatable {\n"
        "  static func == (lhs: Self, rhs: Self) -> Bool { true }\n}\n",
        "struct Money { var c: Int }\nfunc * (l: Money, r: Int) -> Money { Money(c: l.c * r) }\n",
        "import Glibc\n#if canImport(Glibc)\nimport Glibc\n#endif\nlet t = Glibc.time(nil)\nlet m = Swift.max(1, 2)\n",
        'let s = "func == (l: Int, r: Int) -> Bool { true }"  // extension Int { static func == }\n',
        "enum Op { case plus }\nfunc eval(_ op: Op) -> Int { switch op { case .plus: return 1 } }\n",
        "precedencegroup P { higherThan: MultiplicationPrecedence }\ninfix operator ** : P\n"
        "func ** (l: Double, r: Double) -> Double { pow(l, r) }\n",  # an operator of its own
    ]
    for code in fine:
        assert solution_violations(code, context) == [], code
    refused = {
        "func == (l: [Int], r: [Int]) -> Bool { true }\n": "operator ==",
        "extension Array where Element == Int {\n  static func != (l: Self, r: Self) -> Bool { false }\n}\n": "operator !=",
        "extension Summary {\n  static func == (a: Summary, b: Summary) -> Bool { true }\n}\n": "in extension Summary",
        "typealias S = Summary\nextension S { static func == (a: Self, b: Self) -> Bool { true } }\n": "in extension S",
        "struct Outer { struct Summary {} }\nfunc == (a: Summary, b: Summary) -> Bool { true }\n": "operator ==",  # the context's name
        "protocol P {}\nextension P { static func == (a: Self, b: Self) -> Bool { true } }\n": "in extension P",
        "func == <T>(a: T, b: T) -> Bool { true }\n": "operator ==",
        "enum Glibc { static func write() {} }\n": "the name Glibc",
        "let Glibc = 3\n": "the name Glibc",
        "struct Swift {}\n": "the name Swift",
        '@_cdecl("write") func w() {}\n': "@_cdecl",
        '@_silgen_name("read") func r() -> Int\n': "@_silgen_name",
        # quotes inside interpolations and nested comments do not make the scan lose its place
        'let s = "\\("\\"")" + #"\\#("\\"")"# /* /* */ " */\nfunc == (l: [Int], r: [Int]) -> Bool { true }\n': "operator ==",
        "struct Mine: ExpressibleByIntegerLiteral { init(integerLiteral v: Int) {} }\ntypealias IntegerLiteralType = Mine\n":
            "the name IntegerLiteralType",
    }
    for code, why in refused.items():
        found = solution_violations(code, context)
        assert any(why in v for v in found), (code, found)


def test_a_units_build_never_holds_the_channel(suite) -> None:  # type: ignore[no-untyped-def]
    language = language_or_skip("swift")
    problem = suite.problems[MERGE]
    build, run = language.phases(language.toolchain(), language.limits, problem)
    assert build.name == "build" and not build.channel and not build.stdin and build.output == "stderr"
    assert run.name == "run" and run.channel and run.stdin and run.wall_seconds == language.limits.run_wall


@pytest.mark.slow
def test_hostile_solutions_never_pass(suite) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    language = language_or_skip("swift")
    limits = dataclasses.replace(language.limits, **TIGHT)
    box = sandbox_for("swift")
    jobs = [(name, pid, code) for name, (pid, code) in HOSTILE.items()]
    with ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = dict(pool.map(lambda job: (job[0], language.judge(box, suite.problems[job[1]], job[2], limits)), jobs))
    passed = {name: v.message for name, v in verdicts.items() if v.status is Status.PASSED}
    assert not passed, passed
    for name, verdict in verdicts.items():
        refused = "could subvert the tests" in verdict.message
        assert refused == (name in REFUSED), (name, verdict.status, verdict.message)
        if name in HOSTILE_STATUS:
            assert verdict.status is HOSTILE_STATUS[name], (name, verdict.status, verdict.message)
        if name in RACY:
            assert verdict.status in (Status.FAILED, Status.RUNTIME_ERROR), (name, verdict.message)
        elif name not in REFUSED and name not in HOSTILE_STATUS:  # built and ran: failed on its merits
            assert verdict.status is Status.FAILED and verdict.message.startswith("failed: test_"), (name, verdict.message)
    for name in ("fake ok lines", "tokens from files", "reads stdin"):
        assert "without its token" in verdicts[name].message or "no harness wrote" in verdicts[name].message, verdicts[name].message
    assert "before test_stability_prefers_a_on_ties ran" in verdicts["skips the rest"].message
    assert "timed out (wall clock" in verdicts["sleeps"].message
