"""mxeval's Swift sets (mbxp/swift, multi-humaneval/swift) and HumanEval-XL's (humaneval-xl/swift): loading, the
test blocks read as cases, the converter defects tagged, correct and wrong samples through the CLI, samples that
try to pass without being right, and MBXP's example completions against the pass rate mxeval publishes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.benchmarks import ABOUT, load_benchmark
from assay.benchmarks.mxeval import DOES_NOT_BUILD, NotCases, blocks_of, swift_literal, swift_type_of
from assay.benchmarks.plus_languages import python_id
from assay.languages.swift_cases import swift_equal
from assay.problems import Benchmark, CaseTests, ProgramTests
from assay.values import INT, STR, Type

runner = CliRunner()
EXAMPLES = Path("samples") / "mxeval-examples" / "examples" / "mbswp_samples.jsonl"


def _swift() -> None:
    if shutil.which("swiftc") is None:
        pytest.skip("needs a Swift toolchain (swiftc on PATH)")


def _evaluate(tmp_path: Path, data_dir: Path, bench: str, rows: list[dict[str, object]], *extra: str) -> tuple[dict, list[dict]]:  # type: ignore[type-arg]
    samples = tmp_path / "samples.jsonl"
    tmp_path.mkdir(parents=True, exist_ok=True)
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["evaluate", bench, "--data-dir", str(data_dir), "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "out.json"),
            "--k", "1", "--plain", "--no-cache", "--samples", str(samples), *extra]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    rows_out = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    return json.loads((tmp_path / "out.json").read_text()), sorted(rows_out, key=lambda r: (r["task_id"], r["sample_index"]))


def test_the_three_sets_load_with_their_versions_hashes_and_defect_tags(data_dir: Path) -> None:
    mbxp = load_benchmark("mbxp/swift", data_dir=data_dir)
    multi = load_benchmark("multi-humaneval/swift", data_dir=data_dir)
    xl = load_benchmark("humaneval-xl/swift", data_dir=data_dir)
    assert (len(mbxp.problems), len(multi.problems), len(xl.problems)) == (966, 161, 80)
    assert mbxp.version == multi.version == "amazon-science/mxeval@e09974f" and xl.version == "FloatAI/humaneval-xl@ad93b7c"
    assert mbxp.content_hash == "b390ee15df6170386e5f5771f227ef4df3ea7eb994b09d39ecec888e77daefc9"
    assert multi.content_hash == "b0de1f4a223d9830c9ffc34eb313aa0a54d5565a6b71b2f88cab67f6db8ccfe0"
    assert xl.content_hash == "c0b57e12e5f81824ea76800d94a5f333945063a3567c718b16d7fcd57124e180"
    for name in ("mbxp/swift", "multi-humaneval/swift", "humaneval-xl/swift"):
        assert name in ABOUT
    # The data READMEs' counts of [AnyHashable] prompts: 104 of 966, 49 of 161, 22 of 80.
    for bench, n in ((mbxp, 104), (multi, 49), (xl, 22)):
        assert sum("defect:anyhashable" in p.tags for p in bench.problems.values()) == n
    assert "defect:none-string" in multi.problems["HumanEval_swift/12"].tags  # longest([]) must return "none"
    tagged = {pid for b in (mbxp, multi, xl) for pid, p in b.problems.items() if "defect:does-not-build" in p.tags}
    assert tagged == DOES_NOT_BUILD and len(tagged) == 21
    assert all(not p.reference and p.language == "swift" for p in mbxp.problems.values())  # no Swift reference solutions
    # Almost every problem is judged as cases; the rest run as mxeval's program, each with the reason.
    program = {pid: p.tests.why for b in (mbxp, multi, xl) for pid, p in b.problems.items() if isinstance(p.tests, ProgramTests)}
    assert len(program) == 12 and all(program.values())
    p = mbxp.problems["MBSWP/1"]
    assert isinstance(p.tests, CaseTests) and p.tests.signature is not None
    assert [c.expected for c in p.tests.cases] == [8, 12, 16] and p.tests.signature.returns == INT
    assert [name for name, _ in p.tests.signature.params] == ["cost", "m", "n"]
    call = p.tests.cases[0].call or ""
    assert call.startswith("{ () -> Int in let arg00 : [[Int]] = [[1, 2, 3], [4, 8, 2], [1, 5, 3]]; ") and "var v0" not in call
    assert "minCost(cost : arg00, m : arg01, n : arg02)" in call


def test_swift_literals_and_types_are_read_as_swift_reads_them() -> None:
    assert swift_type_of("[String: [Int]]") == Type("dict", (STR, Type("list", (INT,))))
    assert swift_type_of("Set<String>") == Type("set", (STR,))
    assert swift_literal('[#"a\\n"# : [1, 2], "b\\"" : []]', swift_type_of("[String: [Int]]")) == {"a\\n": [1, 2], 'b"': []}
    assert swift_literal("[6.2, 70]", swift_type_of("[Double]")) == [6.2, 70.0]
    assert swift_literal('[1, 4.3, #"x"#, true]', swift_type_of("[AnyHashable]")) == [1, 4.3, "x", True]
    assert swift_literal("[[2, 1], 2, [2.5, 4]]", swift_type_of("[AnyHashable]")) == [[2, 1], 2, [2.5, 4]]  # [Int], [Double] inside
    for text, t in (("[]", "[AnyHashable: AnyHashable]"), ("[]", "AnyHashable"), ("[[1, 3] : 2]", "[[Int]: Int]"),
                    ('[#"a"# : 1]', "AnyHashable"), ("8.0", "Int"), ("[1, 2] 3", "[Int]"), ('[#"x = "#, 2]', "AnyHashable"),
                    ("[[], [1]]", "[AnyHashable]"), ('[[1, #"a"#]]', "[AnyHashable]")):
        with pytest.raises(NotCases):
            swift_literal(text, swift_type_of(t))
    with pytest.raises(NotCases):
        blocks_of('var x0 : Int = f()\nprint("hi")\n')


def test_swift_equality_keeps_bool_apart_from_numbers() -> None:
    assert swift_equal([1, "x"], [1.0, "x"])  # AnyHashable(1) == AnyHashable(1.0) in Swift 5/6
    assert not swift_equal([True], [1]) and not swift_equal(1, True) and not swift_equal([0], [False])
    assert swift_equal("e\u0301", "\u00e9")  # Swift's String == is canonical equivalence
    assert not swift_equal([float("nan")], [float("nan")])
    assert swift_equal({"a": [1, 2]}, {"a": [1, 2]}) and not swift_equal({"a": 1}, {"a": True})
    assert swift_equal({"x", "y"}, {"y", "x"})


def test_humaneval_xl_ids_name_no_evalplus_task(tmp_path: Path, data_dir: Path) -> None:
    # `assay audit humaneval-xl/swift` raised IndexError here: HumanEval-XL renumbers (swift/0), so its ids map to nothing.
    assert python_id("humaneval", "swift/0") == "swift/0"
    assert python_id("humaneval", "HumanEval_12_longest") == "HumanEval/12" and python_id("mbpp", "mbpp_3_x") == "Mbpp/3"
    out = tmp_path / "audit.json"
    result = runner.invoke(cli.app, ["audit", "humaneval-xl/swift", "--data-dir", str(data_dir), "--no-canary", "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["counts"]["any-parameter"] == 22 and report["counts"]["none-as-string"] == 4 and "weak-tests" in report["counts"]


def test_references_say_there_are_none_and_the_registry_lists_the_sets(tmp_path: Path, data_dir: Path) -> None:
    result = runner.invoke(cli.app, ["evaluate", "mbxp/swift", "--data-dir", str(data_dir), "--references", "--plain"])
    assert result.exit_code != 0 and "no reference solutions" in result.output and "Traceback" not in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task_id": "MBSWP/1"}\n')
    result = runner.invoke(cli.app, ["evaluate", "mbxp/swift", "--dataset-file", str(bad), "--references", "--plain"])
    assert result.exit_code != 0 and "line 1 is not an mxeval row" in result.output and isinstance(result.exception, SystemExit)
    listing = runner.invoke(cli.app, ["benchmarks"])
    assert listing.exit_code == 0
    for name in ("mbxp/swift", "multi-humaneval/swift", "humaneval-xl/swift"):
        assert name in listing.output


LONGEST = ("    var best: String? = nil\n    for case let s as String in strings where s.count > (best?.count ?? -1) { best = s }\n"
           "    return best ?? \"none\"\n}\n")


def test_correct_wrong_and_whole_program_samples(tmp_path: Path, data_dir: Path) -> None:
    _swift()
    rows: list[dict[str, object]] = [
        {"task_id": "MBSWP/17", "completion": "    return 4 * a\n}\n"},  # correct
        {"task_id": "MBSWP/17", "completion": "    return helper(a)\n}\nfunc helper(_ a: Int) -> Int { return a * 4 }\n"},  # a helper after it
        {"task_id": "MBSWP/17", "completion": "    return 4 * a + 1\n}\n"},  # wrong
        {"task_id": "MBSWP/17", "completion": "    return 4 * a\n"},  # left open, as a stop at "\n}" leaves it
        {"task_id": "MBSWP/17", "solution": "import Foundation\n\nfunc squarePerimeter(a : Int) -> Int {\n    return a * 4\n}\nprint(1)\n"},  # a whole program
        {"task_id": "MBSWP/945", "completion": "    return Set(t)\n}\n"},  # Set<String>, compared as a set
        {"task_id": "MBSWP/37", "completion": (  # [AnyHashable]: ints first, then strings, each sorted
            "    let ints = mixedList.compactMap { $0 as? Int }.sorted()\n    let strs = mixedList.compactMap { $0 as? String }.sorted()\n"
            "    return ints.map { AnyHashable($0) } + strs.map { AnyHashable($0) }\n}\n")},
        {"task_id": "MBSWP/37", "completion": "    return mixedList.map { _ in AnyHashable(true) }\n}\n"},  # Bools where ints are expected
    ]
    rows = [{**r, "sample_index": i} for i, r in enumerate(rows)]
    _, results = _evaluate(tmp_path, data_dir, "mbxp/swift", rows)
    status = {r["sample_index"]: r["status"] for r in results}
    assert status == {0: "passed", 1: "passed", 2: "failed", 3: "passed", 4: "passed", 5: "passed", 6: "passed", 7: "failed"}, results
    wrong = next(r for r in results if r["sample_index"] == 2)
    assert "expected 40, got 41" in wrong["result"]
    assert next(r for r in results if r["sample_index"] == 6)["defect_tags"] == ["defect:anyhashable"]
    report = runner.invoke(cli.app, ["report", str(tmp_path / "run")])
    assert report.exit_code == 0 and "known benchmark defect (scored as they are): defect:anyhashable 1" in report.output, report.output
    _, xl = _evaluate(tmp_path / "xl", data_dir, "multi-humaneval/swift", [{"task_id": "HumanEval_swift/12", "completion": LONGEST}])
    assert xl[0]["status"] == "passed" and "defect:none-string" in xl[0]["defect_tags"]


def test_samples_that_try_to_pass_without_being_right_fail(tmp_path: Path, data_dir: Path) -> None:
    _swift()
    hostile = {
        "early exit": "    exit(0)\n}\n",
        "forged pass": '    print("passed")\n    print("All tests passed")\n    exit(0)\n}\n',
        # == made always true for the types compared, and assert made a no-op: upstream's own test program would pass it
        "always equal": ("    return -1\n}\nfunc == (l: Int, r: Int) -> Bool { return true }\n"
                         "func assert(_ c: @autoclosure () -> Bool, _ m: @autoclosure () -> String = String(), "
                         "file: StaticString = #file, line: UInt = #line) {}\n"),
        # records of its own on the result channel, then exit 0: a harness that trusted `done` or the exit status would pass
        # them (records with the right outputs would pass, as returning them would: MBXP's tests are its prompts' examples)
        "forged records": ("    var b = Array(\"0 v 0\\n1 v 0\\n2 v 0\\ndone 3\\n\".utf8); _ = write(3, &b, b.count)\n    exit(0)\n}\n"),
        "forged done line": ("    var b = Array(\"done 3\\n\".utf8); _ = write(3, &b, b.count)\n    exit(0)\n}\n"),
        "fatalError": '    fatalError("no")\n}\n',
    }
    rows = [{"task_id": "MBSWP/17", "completion": c, "sample_index": i, "note": name} for i, (name, c) in enumerate(hostile.items())]
    _, results = _evaluate(tmp_path, data_dir, "mbxp/swift", rows)
    verdicts = {r["note"]: r["status"] for r in results}
    assert set(verdicts) == set(hostile) and all(v != "passed" for v in verdicts.values()), verdicts


@pytest.mark.slow
def test_mbxp_example_completions_score_what_mxeval_publishes(tmp_path: Path, data_dir: Path) -> None:
    """mxeval's README: its MBXP Swift example completions score 29.40% (284 of 966)."""
    _swift()
    rows = [json.loads(line) for line in (data_dir / EXAMPLES).read_text().splitlines()]
    out, _ = _evaluate(tmp_path, data_dir, "mbxp/swift", rows)
    assert out["status_counts"]["passed"] == 284 and out["n_samples"] == 966


def test_assay_run_reaches_the_sets(tmp_path: Path, data_dir: Path) -> None:
    _swift()
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"task_id": "swift/19", "completion": "    return x + y\n}\n"}) + "\n")
    result = runner.invoke(cli.app, ["run", "humaneval-xl/swift", "--model", f"replay:{replay}", "--data-dir", str(data_dir),
                                     "--task-ids", "swift/19", "--run-dir", str(tmp_path / "run"), "--plain", "--no-cache"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["status"]) for r in rows] == [("swift/19", "passed")]


@pytest.mark.slow
def test_the_problems_tagged_does_not_build_are_the_ones_the_canary_cannot_build(data_dir: Path) -> None:
    _swift()
    from assay.canary import run_canary
    from assay.languages import toolchain_binds
    from assay.sandbox import get_sandbox

    for name in ("mbxp/swift", "multi-humaneval/swift", "humaneval-xl/swift"):
        bench = load_benchmark(name, data_dir=data_dir)
        tagged = sorted(pid for pid in bench.problems if pid in DOES_NOT_BUILD)
        chosen = tagged + [pid for pid in list(bench.problems)[:40] if pid not in DOES_NOT_BUILD][:2]
        sandbox = get_sandbox(ro_binds=toolchain_binds({"swift"}))
        try:
            result = run_canary(bench, sandbox, workers=2, task_ids=chosen)
        finally:
            getattr(sandbox, "close", lambda: None)()
        assert sorted(result.broken) == tagged and not result.stub_passes, {p: v.message for p, v in result.verdicts.items()}


@pytest.mark.slow
def test_every_expected_literal_judged_as_a_case_is_one_swift_accepts(tmp_path: Path, data_dir: Path) -> None:
    """In a case the expected literal never reaches the compiler; upstream's program compiles it. Type-check every
    case-judged problem's `var vN : T = ...` lines, so a literal Swift rejects cannot build here and pass there."""
    _swift()
    import re
    import subprocess

    for name in ("mbxp/swift", "multi-humaneval/swift", "humaneval-xl/swift"):
        bench: Benchmark = load_benchmark(name, data_dir=data_dir)
        lines, owner = [], {}
        for i, (pid, p) in enumerate(bench.problems.items()):
            if isinstance(p.tests, CaseTests) and p.tests.program is not None:
                lines.append(f"func check{i}() {{")
                for line in p.tests.program.code.splitlines():
                    if re.match(r"^var v\d+ : ", line):
                        owner[len(lines) + 1] = pid
                        lines.append("    " + line)
                lines.append("}")
        source = tmp_path / "expected.swift"
        source.write_text("\n".join(lines) + "\n")
        result = subprocess.run(["swiftc", "-typecheck", str(source)], capture_output=True, text=True, timeout=600)
        rejected = sorted({owner.get(int(m.group(1)), "?") for m in re.finditer(r"expected\.swift:(\d+):\d+: error", result.stderr)})
        assert rejected == [] and result.returncode == 0, (name, rejected, result.stderr[-2000:])
