"""`assay augment` of a hand-written suite (swift-suite, a benchmark directory): unit tests added to each
function-level problem whose signature is in the value model, labelled by the suite's own Swift
reference; a sample that only fits the hand-written tests fails the added ones."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.augment.generate import CannotAugment
from assay.augment.swift_reading import NotLiteral, literal, seeds_of, swift_function, swift_type
from assay.augment.units import _expression
from assay.benchmarks import load_benchmark
from assay.benchmarks.directory import shipped
from assay.execution import Executor
from assay.languages.swift_cases import swift_string
from assay.problems import Status
from assay.problems import test_program as program_of
from assay.values import BOOL, FLOAT, INT, STR, UnsupportedType, dict_of, list_of, optional, tuple_of
from tests.languages._common import language_or_skip, sandbox_for

SUITE = shipped("swift-suite")


def _function(folder: str, entry: str):  # type: ignore[no-untyped-def]
    return swift_function((SUITE / folder / "signature.swift").read_text(), entry)


def test_swift_types_map_onto_the_value_model() -> None:
    assert swift_type("Int") == INT and swift_type("Double") == FLOAT and swift_type("Bool") == BOOL
    assert swift_type("[String]") == list_of(STR)
    assert swift_type("[String: [Int]]") == dict_of(STR, list_of(INT))
    assert swift_type("Dictionary<String, Int>?") == optional(dict_of(STR, INT))
    assert swift_type("(count: Int, name: String)") == tuple_of(INT, STR)
    for outside in ("Expr", "(Int) -> Int", "Set<Int>", "Result<[Int], QuantityError>"):
        with pytest.raises(UnsupportedType):
            swift_type(outside)


def test_which_problems_can_be_augmented_and_why_the_others_cannot() -> None:
    wrap = _function("wrap_text", "wrapText")
    assert [label for label, _ in wrap.params] == ["_", "width"] and wrap.returns == list_of(STR) and not wrap.throws
    assert _function("parse_config", "parseConfig").throws
    semver = _function("semver_compare", "compareSemanticVersions")
    assert semver.opaque == "ComparisonResult?"  # an enum of Foundation's: labelled by its description, compared by ==
    reasons = {
        ("merge_sorted", "mergeSorted"): "is generic",
        ("collection_statistics", "median"): "is a method",
        ("lru_cache", "LRUCache"): "class-level",
        ("concurrent_map", "concurrentMap"): "is generic",
        ("evaluate_expression", "evaluate"): "'Expr' is outside the value model",
    }
    for (folder, entry), why in reasons.items():
        with pytest.raises(CannotAugment, match=why):
            _function(folder, entry)


def test_the_literal_reader() -> None:
    assert literal('"a\\tb\\u{301}\\""') == 'a\tb\u0301"'
    assert literal('[1, -2, 0x1F, 3_000]') == [1, -2, 31, 3000]
    assert literal('["a": [1.5], "b": []]') == {"a": [1.5], "b": []}
    assert literal("[:]") == {} and literal("[Int]()") == [] and literal("[String: Int]()") == {}
    assert literal('"""\n    # x\n    \\tport = 1\n    """') == "# x\n\tport = 1"
    assert literal("nil") is None and literal("true") is True
    for not_literal in ('"\\(x)"', "x", "f(1)", "[1, 2][...]", '"open'):
        with pytest.raises(NotLiteral):
            literal(not_literal)


def test_seeds_are_the_literal_calls_including_names_bound_to_literals_in_the_same_test() -> None:
    wrap = _function("wrap_text", "wrapText")
    seeds = seeds_of((SUITE / "wrap_text" / "tests.swift").read_text(), wrap)
    assert ("the quick brown fox", 10) in seeds and ("", 5) in seeds
    assert not any("\\(" in text for text, _ in seeds)  # the interpolated calls are not seeds
    config = _function("parse_config", "parseConfig")
    texts = [text for (text,) in seeds_of((SUITE / "parse_config" / "tests.swift").read_text(), config)]
    assert texts[0].startswith("# database settings\nhost = db.example.com\n\n\tport=5432\t\n")  # a multi-line `let text`
    assert "# c\nmode = fast\n\nmode = slow\n" in texts  # another test's `let text`, each bound in its own function
    tests = 'func test_a() throws {\n    let w = 3\n    try expectEqual(wrapText(name, width: w), [])\n    try expectEqual(wrapText("x", width: w), ["x"])\n}\n'
    assert seeds_of(tests, wrap) == [("x", 3)]


def test_a_description_becomes_the_expression_that_makes_it() -> None:
    assert _expression("Optional(FoundationEssentials.ComparisonResult.orderedAscending)") == "ComparisonResult.orderedAscending"
    assert _expression('AssayProgram.Point(x: 1, label: Optional("Swift.a"))') == 'Point(x: 1, label: Optional("Swift.a"))'


def _memorizing_wrap_text(seeds: list[tuple[object, ...]]) -> str:
    """The reference, answering only the hand-written tests' inputs (their literal calls, and the
    interpolated ones, all of them non-ASCII); [] for anything else."""
    reference = (SUITE / "wrap_text" / "reference.swift").read_text().replace("func wrapText(", "func assayMemorized(")
    keys = ", ".join(swift_string(f"{width}|{text}") for text, width in seeds)
    return (reference + "\nfunc wrapText(_ text: String, width: Int) -> [String] {\n"
            f"    let known: Set<String> = [{keys}]\n"
            "    let interpolated = text.unicodeScalars.contains { !$0.isASCII }\n"
            '    return known.contains("\\(width)|\\(text)") || interpolated ? assayMemorized(text, width: width) : []\n}\n')


@pytest.mark.slow
def test_augment_a_swift_suite_from_the_cli_and_a_memorizing_sample_fails_it(tmp_path: Path) -> None:
    language_or_skip("swift")
    out = tmp_path / "swift-aug"
    ids = "swift-suite/wrap_text,swift-suite/parse_config,swift-suite/semver_compare,swift-suite/merge_sorted"
    result = CliRunner().invoke(cli.app, ["augment", "swift-suite", "--out", str(out), "--task-ids", ids, "--per-problem", "60", "-j", "2"])
    assert result.exit_code == 0, result.output
    provenance = json.loads((out / "augment.json").read_text())
    assert provenance["format"] == "assay-augmented-units"
    assert "generic" in provenance["problems"]["swift-suite/merge_sorted"]["skipped"]
    for pid in ("swift-suite/wrap_text", "swift-suite/parse_config", "swift-suite/semver_compare"):
        assert provenance["problems"][pid]["kept"] >= 30, provenance["problems"][pid]
    assert provenance["problems"]["swift-suite/parse_config"]["expect_error"] > 0  # its errors are labelled, not dropped

    original, augmented = load_benchmark("swift-suite"), load_benchmark(str(out))
    assert set(original.problems) == set(augmented.problems) and augmented.version.endswith("+augmented")
    added = program_of(augmented.problems["swift-suite/wrap_text"]).code
    assert len(re.findall(r"^func test_assay_augmented_\d+\(\) throws", added, re.M)) >= 30
    assert "ComparisonResult." in program_of(augmented.problems["swift-suite/semver_compare"]).code

    seeds = seeds_of(program_of(original.problems["swift-suite/wrap_text"]).code, _function("wrap_text", "wrapText"))
    cheat = _memorizing_wrap_text(seeds)
    sandbox = sandbox_for("swift")
    before, after = Executor(sandbox, original), Executor(sandbox, augmented)
    assert before.judge(original.problems["swift-suite/wrap_text"], cheat).status is Status.PASSED
    verdict = after.judge(augmented.problems["swift-suite/wrap_text"], cheat)
    assert verdict.status is Status.FAILED and "test_assay_augmented_" in verdict.message, verdict.message
    for pid in ("swift-suite/wrap_text", "swift-suite/parse_config", "swift-suite/semver_compare"):
        problem = augmented.problems[pid]
        assert after.judge(problem, problem.reference).status is Status.PASSED, pid
        for name, wrong in problem.extra["wrong_solutions"].items():
            assert after.judge(problem, wrong).status is not Status.PASSED, (pid, name)


def test_augmenting_a_suite_where_nothing_fits_is_a_one_line_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli.app, ["augment", "swift-suite", "--out", str(tmp_path / "x"), "--task-ids", "swift-suite/lru_cache"])
    assert result.exit_code != 0
    assert "nothing to augment" in result.output and "class-level" in result.output
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_labelling_keeps_a_trap_or_a_loop_to_its_input_and_drops_answers_that_hang_on_hash_order() -> None:
    from assay.augment.units import Label, label_inputs
    from assay.problems import Problem, ProgramTests, Runner

    language_or_skip("swift")
    reference = ("func f(_ x: Int) -> Int {\n    precondition(x != 3)\n    if x == 5 { while true {} }\n    return x * 2\n}\n"
                 "func g(_ d: [String: Int]) throws -> String {\n    if d.isEmpty { throw E.empty }\n    return d.keys.first!\n}\n")
    problem = Problem(id="t/f", language="swift", prompt="", entry_point="f", reference=reference,
                      tests=ProgramTests(code="", runner=Runner.UNITS), context="enum E: Error { case empty }\n",
                      compile_flags=("-swift-version", "5", "-Onone", "-module-name", "AssayProgram"))
    sandbox = sandbox_for("swift")
    f = swift_function("func f(_ x: Int) -> Int {}", "f")
    assert label_inputs(sandbox, problem, f, [(1,), (3,), (5,), (7,)]) == [Label("v", 2), Label("trap"), Label("timeout"), Label("v", 14)]
    g = swift_function("func g(_ d: [String: Int]) throws -> String {}", "g")
    many = {chr(97 + i): i for i in range(8)}
    labels = label_inputs(sandbox, problem, g, [({"a": 1},), (many,), ({},)])
    assert labels == [Label("v", "a"), Label("again"), Label("e", "AssayProgram.E.empty")]


def test_the_output_replaces_an_earlier_augmented_suite_but_never_another_directory(tmp_path: Path) -> None:
    from assay.augment.generate import Budget
    from assay.augment.units import write_units_suite

    suite = load_benchmark("swift-suite")
    out = tmp_path / "aug"
    write_units_suite(SUITE, out, suite, [], Budget(), 0.0)
    assert (out / "wrap_text" / "tests.swift").read_text() == (SUITE / "wrap_text" / "tests.swift").read_text()
    write_units_suite(SUITE, out, suite, [], Budget(), 0.0)  # an earlier one of its own: replaced
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="not an augmented suite"):
        write_units_suite(SUITE, other, suite, [], Budget(), 0.0)
    assert (other / "keep.txt").read_text() == "mine"
    with pytest.raises(ValueError, match="outside the suite"):
        write_units_suite(SUITE, SUITE / "aug", suite, [], Budget(), 0.0)
