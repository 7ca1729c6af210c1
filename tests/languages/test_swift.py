"""Swift on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.problems import Status
from assay.sandbox import get_sandbox
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec, benchmark, language_or_skip

# A body prefix: `put` writes a string to fd 3 (Glibc is imported by the tests' prefix and the harness).
FD3 = "    func put(_ s: String) { var b = Array(s.utf8); _ = write(3, &b, b.count) }\n"
MARKER_HUNT = (
    "    for path in [\"/proc/self/exe\", \"main.swift\", CommandLine.arguments[0]] {\n"
    "        guard let f = fopen(path, \"rb\") else { continue }\n"
    "        var bytes: [UInt8] = []\n        var c = fgetc(f)\n"
    "        while c != EOF { bytes.append(UInt8(c)); c = fgetc(f) }\n        fclose(f)\n"
    "        let text = String(decoding: bytes, as: UTF8.self)\n"
    "        for piece in text.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != \"-\" }) where piece.hasPrefix(\"ASSAY\") {\n"
    "            print(piece)\n        }\n    }\n    exit(0)\n"
)
PIDFD = (
    "    return -1\n}\n@_silgen_name(\"syscall\") func assaySyscall(_ n: Int, _ a: Int, _ b: Int, _ c: Int) -> Int\n"
    "func strlenUnused() {\n"
    "    let pidfd = assaySyscall(434, Int(getppid()), 0, 0)  // pidfd_open\n"
    "    for fd in 0..<64 {\n        let got = assaySyscall(438, pidfd, fd, 0)  // pidfd_getfd\n"
    "        if got >= 0 { var b = Array(\"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n\".utf8); _ = write(Int32(got), &b, b.count) }\n    }\n"
    "}\nlet assayRunFirst: Void = strlenUnused()\nfunc assayUnused() {\n"
)

SPEC = LanguageSpec(
    language="swift",
    bench="multipl-e/humaneval-swift",
    correct={
        "HumanEval_0_has_close_elements": (
            "    for i in 0..<numbers.count {\n        for j in 0..<numbers.count where i != j {\n"
            "            if abs(numbers[i] - numbers[j]) < threshold { return true }\n        }\n    }\n    return false\n"
        ),
        "HumanEval_13_greatest_common_divisor": "    var (a, b) = (a, b)\n    while b != 0 { (a, b) = (b, a % b) }\n    return a\n",
        "HumanEval_23_strlen": "    return string.count\n",
        "HumanEval_30_get_positive": "    return l.filter { $0 > 0 }\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "    return string.count + 1\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    return l.filter { $0 >= 0 }\n", Status.FAILED),
        ("HumanEval_23_strlen", "    return string.length\n", Status.COMPILE_ERROR),  # no such member
        ("HumanEval_13_greatest_common_divisor", "    let x: Int? = nil\n    return x! + a\n", Status.RUNTIME_ERROR),  # nil unwrap traps
        ("HumanEval_30_get_positive", "    return [l[l.count]]\n", Status.RUNTIME_ERROR),  # index out of range
        ("HumanEval_23_strlen", "    while true {}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    print("tests passed")\n    exit(0)\n', Status.FAILED),  # early exit with status 0
    ],
    # Its function is spliced in; its demo call is dropped.
    chat_reply='import Foundation\n\n/// Length\nfunc strlen(string: String) -> Int {\n    return string.count\n}\n\nprint(strlen(string: "abc"))\n',
    # Glibc's fopen (the tests import Glibc): String.write needs Foundation, whose import a splice would drop.
    hostile_write=lambda target: f'    if let f = fopen("{target}", "w") {{ fputs("x", f); fclose(f) }}\n    return string.count\n',
    floods=('    while true { print(String(repeating: "x", count: 1000)) }\n',),
    hostile={
        # exit 0 before the harness runs: no records
        "early exit": (STRLEN, "    exit(0)\n"),
        # records of its own on fd 3, each case "right" as far as the doctest tells, and the harness's done line
        "forged records": (STRLEN, f"{FD3}    for i in 0..<3 {{ put(\"\\(i) v 3\\n\") }}\n    put(\"done 3\\n\")\n    exit(0)\n"),
        # the old marker: whatever looks like one in its own source and binary, printed, then exit 0
        "marker from source and binary": (STRLEN, MARKER_HUNT),
        # MultiPL-E's assert and == replaced by ones that always hold (they no longer decide anything)
        "always equal": (STRLEN, "    return -1\n}\nfunc == (l: Int, r: Int) -> Bool { return true }\n"
                                 "func assert(_ c: @autoclosure () -> Bool, _ m: @autoclosure () -> String = String(), "
                                 "file: StaticString = #file, line: UInt = #line) {}\nfunc assayUnused() {\n"),
        # exit replaced: a harness that could not report would still end with status 0
        "stubbed exit": (STRLEN, "    return -1\n}\nfunc exit(_ code: Int32) -> Never { while true {} }\nfunc assayUnused() {\n"),
        # top-level code between the prompt's function and the harness runs first: forged records, exit 0
        "code before the harness": (STRLEN, f"    return -1\n}}\nlet assayFirst: Void = {{\n{FD3}    put(\"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n\")\n"
                                             "    exit(0)\n}()\nfunc assayUnused() {\n"),
        # write(2) shadowed by a top-level function: the harness's records swallowed, a done line of its own
        "shadowed write": (STRLEN, "    return -1\n}\nfunc write(_ fd: Int32, _ buf: UnsafeRawPointer?, _ n: Int) -> Int {\n"
                                   "    if fd != 3 { return Glibc.write(fd, buf, n) }\n"
                                   "    var b = Array(\"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n\".utf8)\n"
                                   "    _ = Glibc.write(3, &b, b.count)\n    Glibc.exit(0)\n}\nfunc assayUnused() {\n"),
        # the harness's encoder replaced: it shadows the harness module's (a redeclaration where the
        # harness is in the program: it does not build)
        "shadowed encoder": (STRLEN, '    return -1\n}\nfunc assayInt(_ v: Int) -> String { return "0" }\nfunc assayUnused() {\n'),
        # a C main of its own instead of the program's
        "own main": (STRLEN, f"    return -1\n}}\n@_cdecl(\"main\") func assayMain(_ argc: Int32, _ argv: UnsafeMutableRawPointer?) -> Int32 {{\n"
                             f"{FD3}    put(\"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n\")\n    return 0\n}}\nfunc assayUnused() {{\n"),
        # the parent's descriptors (the trusted init's) through pidfd_getfd, each written to
        "parent descriptors": (STRLEN, PIDFD),
        # sleeps past the run's wall limit without using CPU
        "sleeps": (STRLEN, "    usleep(60_000_000)\n    return string.count\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "early exit": Status.FAILED, "forged records": Status.FAILED,
                    "own main": Status.COMPILE_ERROR},
    render_agreement=0.99,  # 2343 of 2343 measured
    round_trip_skip={"mbpp_237_check_occurences": "MultiPL-E's prompt has a dict keyed by tuples, which are not Hashable in Swift"},
)


@pytest.mark.slow
def test_the_recorded_module_cache_is_used_and_a_module_it_lacks_is_still_built(language) -> None:  # type: ignore[no-untyped-def]
    toolchain = language.toolchain()
    recorded = Path(toolchain.env["ASSAY_SWIFT_MODULES"])
    pcms = sorted(p.name.split("-")[0] for p in recorded.rglob("*.pcm"))
    assert {"SwiftShims", "SwiftGlibc", "_FoundationCShims"} <= set(pcms), pcms
    assert str(recorded.parent) in toolchain.ro_binds
    # A cache that lacks Glibc's and Foundation's modules: the sandbox's copy is writable, so they are built.
    partial = Path(tempfile.mkdtemp(prefix="assay-swift-partial-", dir="/var/tmp")) / "module-cache"
    try:
        shutil.copytree(recorded, partial)
        for pcm in partial.rglob("*.pcm"):
            if pcm.name.startswith(("SwiftGlibc", "_Foundation")):
                pcm.unlink()
        for path in [partial.parent, *partial.parent.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        custom = dataclasses.replace(
            toolchain, env={**toolchain.env, "ASSAY_SWIFT_MODULES": str(partial)}, ro_binds=(*toolchain.ro_binds, str(partial.parent))
        )
        box = get_sandbox(ro_binds=custom.ro_binds)
        problem = load_benchmark("swift-suite").problems["swift-suite/semver_compare"]  # imports Foundation
        code = problem.reference_program()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(type(language), "toolchain", classmethod(lambda cls: custom))
            verdict = language.judge(box, problem, code, language.limits)
        close = getattr(box, "close", None)
        if close:
            close()
        assert verdict.status is Status.PASSED, verdict
        assert any(p.name.startswith("SwiftGlibc") for p in recorded.rglob("*.pcm"))  # the recorded cache is untouched
    finally:
        shutil.rmtree(partial.parent, ignore_errors=True)


def test_the_module_cache_can_be_turned_off(language, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from assay.languages.swift import module_cache

    monkeypatch.setenv("ASSAY_SWIFT_MODULE_CACHE", "off")
    assert module_cache(language.toolchain()) is None


@pytest.mark.slow
def test_the_harness_encodes_exactly(language) -> None:  # type: ignore[no-untyped-def]
    """Results at the edges of each type come back through fd 3 as exactly the values they are."""
    import math

    from assay import values
    from assay.judging.records import read_records
    from tests.languages._common import sandbox_for

    problems = {**benchmark(SPEC.bench).problems, **benchmark(SPEC.mbpp_bench).problems}
    checks = {
        "HumanEval_13_greatest_common_divisor": [("Int.max", 2**63 - 1), ("Int.min", -(2**63)), ("-0", 0)],
        "HumanEval_12_longest": [('"a\\"b\\\\c\\n\\t\\r\\u{1}\\u{7f}é😀"', 'a"b\\c\n\t\r\x01\x7fé😀'), ("nil", None), ('""', "")],
        "HumanEval_21_rescale_to_unit": [("[0.1, -0.0, 1e-300, 5e+20, 1.0 / 3.0, Double.greatestFiniteMagnitude]",
                                          [0.1, -0.0, 1e-300, 5e20, 1 / 3, 1.7976931348623157e308]),
                                         ("[Double.nan, Double.infinity, -Double.infinity]", None), ("[] as [Double]", [])],
        "mbpp_730_consecutive_duplicates": [('[1, "a", 2.5, true, [1, [2] as [AnyHashable]] as [AnyHashable]] as [AnyHashable]',
                                             [1, "a", 2.5, True, [1, [2]]])],
        "HumanEval_111_histogram": [('["a" : 1, "b" : 2]', {"a": 1, "b": 2}), ("[:] as [String : Int]", {})],
        "HumanEval_136_largest_smallest_integers": [("(nil, 3)", (None, 3)), ("(-1, nil)", (-1, None))],
        "HumanEval_137_compare_one": [(".doubleValue(2.5)", 2.5), (".stringValue(\"2,3\")", "2,3"), (".intValue(1)", 1), ("nil", None)],
        "HumanEval_103_rounded_avg": [('.success("0b11")', "0b11"), (".failure(-1)", -1)],
    }
    box = sandbox_for("swift")
    for pid, cases in checks.items():
        problem = problems[pid]
        returns = problem.tests.signature.returns
        calls = [call for call, _ in cases]
        result = language.run_program(box, problem, language.case_files(problem, problem.prompt + language.stub, calls),
                                      language.limits, language.toolchain(), channel_bytes=1 << 20)
        records = read_records(result.channel, len(calls))
        assert records.done and not records.forged, (pid, result.stderr[-2000:], result.channel)
        for (call, want), (kind, wire) in zip(cases, records.results, strict=True):
            got = values.decode(values.parse_wire(wire), returns)
            if want is None and isinstance(got, list):  # nan and the infinities
                assert math.isnan(got[0]) and got[1:] == [math.inf, -math.inf], (call, wire)
                continue
            same_types = isinstance(got, dict) or repr(got) == repr(want)  # -0.0, 1 vs 1.0 and True vs 1 apart (a dict's order is Swift's)
            assert kind == "v" and got == want and same_types, (pid, call, wire, got)


@pytest.mark.slow
def test_case_programs_import_the_harness_module_and_carry_the_helpers_when_it_is_turned_off(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The harness's helpers are a module built once with the module cache; a case program imports it
    (and Glibc, as before). Turned off, the helpers are in the program, and it judges the same."""
    from assay.execution import Executor
    from assay.languages.swift import Swift

    language_or_skip("swift")
    bench = benchmark(SPEC.bench)
    problem = bench.problems[STRLEN]
    right, wrong = problem.prompt + "    return string.count\n", problem.prompt + "    return string.count + 1\n"
    text = Swift().case_files(problem, right, ['strlen(string: "ab")'])["main.swift"].decode()
    assert "import AssayHarness\n" in text and "import Glibc\n" in text and "func assayWrite" not in text
    assert "-lAssayHarness" in Swift.toolchain().env["ASSAY_SWIFT_HARNESS"]
    assert "$ASSAY_SWIFT_HARNESS" in (Swift().build_command(problem) or "")
    monkeypatch.setenv("ASSAY_SWIFT_HARNESS_MODULE", "0")
    Swift.toolchain.cache_clear()
    try:
        assert "ASSAY_SWIFT_HARNESS" not in Swift.toolchain().env
        text = Swift().case_files(problem, right, ['strlen(string: "ab")'])["main.swift"].decode()
        assert "import AssayHarness" not in text and "func assayWrite" in text
        executor = Executor(get_sandbox(ro_binds=Swift.toolchain().ro_binds), bench, workers=1)
        assert executor.judge(problem, right).status is Status.PASSED
        assert executor.judge(problem, wrong).status is Status.FAILED
    finally:
        Swift.toolchain.cache_clear()
