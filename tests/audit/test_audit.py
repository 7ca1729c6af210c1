"""`assay audit`: one command finds the defects the data's READMEs and the SwiftEval paper name,
without being told, and the checks that need a sandbox (references, canary, strength, runs) find
what they look for; each finding names the problem, the evidence and a fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.audit.checks import audit
from assay.execution.pipeline import evaluate
from assay.problems import Benchmark, Case, CaseTests, Problem, ProgramTests
from assay.samples import Sample
from assay.sandbox import get_sandbox
from tests.conftest import shared_data

SWIFT_DEFECTS = {  # multipl-e/README.md's known defects in Swift, by id and the check that must find each
    "HumanEval_103_rounded_avg": "bankers-rounding",
    "HumanEval_160_do_algebra": "reserved-word-parameter",
    "HumanEval_92_any_int": "collapsed-literals",
    "HumanEval_162_string_to_md5": "platform-api",
    "HumanEval_22_filter_integers": "python-word-leak",
}


def _audit_json(*args: str) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(cli.app, ["audit", *args, "--format", "json"], env={"ASSAY_DATA_DIR": str(shared_data())})
    if "no local file" in result.output:
        pytest.skip(result.output)
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])  # type: ignore[no-any-return]


def test_the_swift_translation_defects_are_found_by_id() -> None:
    ids = [*SWIFT_DEFECTS, "HumanEval_0_has_close_elements"]
    data = _audit_json("multipl-e/humaneval-swift", "--task-ids", ",".join(ids), "--max-mutants", "5")
    found = {(f["problem"], f["check"]) for f in data["findings"]}
    for pid, check in SWIFT_DEFECTS.items():
        assert (pid, check) in found, (pid, check, sorted(found))
    assert not any(p == "HumanEval_0_has_close_elements" for p, _ in found)
    assert {"canary-build-fails", "stub-passes", "weak-tests"} <= set(data["counts"])  # ran, with the toolchain
    assert data["checks_not_run"]["failing-reference"] == "the benchmark has no reference solutions"
    for f in data["findings"]:
        assert f["evidence"] and f["fix"]


def test_the_cpp_prompt_that_does_not_compile_is_found_by_the_canary() -> None:
    # multipl-e/README.md: HumanEval_137_compare_one's union declares a member of type `std::nullopt` (a value).
    from assay.languages import get_language
    from assay.languages.base import ToolchainMissing

    try:
        get_language("cpp").toolchain()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    data = _audit_json("multipl-e/humaneval-cpp", "--task-ids", "HumanEval_137_compare_one,HumanEval_0_has_close_elements",
                       "--no-strength", "--no-cross-references")
    found = {(f["problem"], f["check"]) for f in data["findings"]}
    assert ("HumanEval_137_compare_one", "canary-build-fails") in found, found
    assert not any(p == "HumanEval_0_has_close_elements" for p, _ in found)


def test_humanevals_defective_ground_truths_are_found_against_humaneval_plus() -> None:
    # EvalPlus corrected HumanEval/124's reference (valid_date accepted some invalid dates); HumanEval/0's is right.
    data = _audit_json("humaneval", "--task-ids", "HumanEval/0,HumanEval/124,HumanEval/125", "--no-strength", "--no-canary")
    disagreeing = {f["problem"] for f in data["findings"] if f["check"] == "reference-disagreement"}
    assert {"HumanEval/124", "HumanEval/125"} <= disagreeing and "HumanEval/0" not in disagreeing
    assert data["counts"]["failing-reference"] == 0


def test_the_sandbox_checks_find_a_failing_reference_weak_tests_a_stub_that_passes_and_an_unsolved_problem(tmp_path: Path) -> None:
    prompt = "def double(x: int) -> int:\n"
    problems = {
        "T/wrong-reference": Problem("T/wrong-reference", "python", prompt, "double", "    return x + x + 1\n",
                                     ProgramTests("def check(candidate):\n    assert candidate(2) == 4\n")),
        "T/weak": Problem("T/weak", "python", prompt, "double", "    if x > 10:\n        return x * 2\n    return x + x\n",
                          CaseTests(cases=(Case((0,)),))),
        "T/checks-nothing": Problem("T/checks-nothing", "python", prompt, "double", "    return 2 * x\n",
                                    ProgramTests("def check(candidate):\n    pass\n")),
        "T/fine": Problem("T/fine", "python", prompt, "double", "    return 2 * x\n",
                          CaseTests(cases=tuple(Case((x,)) for x in (-3, 0, 1, 2, 11, 50)))),
    }
    bench = Benchmark("t", "1", "h", "test", problems)
    samples = [Sample("T/fine", i, "    return x * 3\n", None, 1) for i in range(2)] + [Sample("T/weak", 0, "    return 2 * x\n", None, 3)]
    path = tmp_path / "samples.jsonl"
    path.write_text("")
    evaluate(bench, samples, path, tmp_path / "run", get_sandbox(), [1], workers=2)
    report = audit(bench, get_sandbox(), runs=[tmp_path / "run"], threshold=0.8, max_mutants=20, workers=2)
    found = {(f.problem, f.check) for f in report.findings}
    assert ("T/wrong-reference", "failing-reference") in found
    assert {p for p, c in found if c == "weak-tests"} == {"T/weak", "T/checks-nothing"}  # one input; no assert at all
    assert ("T/checks-nothing", "stub-passes") in found
    assert ("T/fine", "never-solved") in found and ("T/weak", "never-solved") not in found
    unsolved = next(f for f in report.findings if f.check == "never-solved")
    assert "failed" in unsolved.evidence and "2 samples" in unsolved.evidence
    markdown = report.to_markdown()
    assert "| T/fine | never-solved |" in markdown and "| weak-tests | 2 |" in markdown


def test_an_mxeval_file_is_audited_by_its_lints() -> None:
    # MBXP and Multilingual HumanEval have no Assay loader; their files get the translation lints. mxeval's
    # README names `longest([])` returning "none" and [AnyHashable] parameters (49 of 161 prompts, read alone).
    path = shared_data() / "mxeval" / "HumanEval_swift_v1.1.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not here")
    data = _audit_json(str(path))
    assert data["n_problems"] == 161
    found = {(f["problem"], f["check"]) for f in data["findings"]}
    assert ("HumanEval_swift/12", "none-as-string") in found
    assert data["counts"]["any-parameter"] > 0
    assert data["checks_not_run"]["canary-build-fails"] == "an mxeval-format file: lints only"


def test_an_audit_is_a_section_of_the_report(tmp_path: Path) -> None:
    from assay.benchmarks import load_benchmark

    humaneval = load_benchmark("humaneval")
    problem = humaneval.problems["HumanEval/0"]
    path = tmp_path / "samples.jsonl"
    path.write_text("")
    evaluate(humaneval, [Sample("HumanEval/0", 0, problem.reference, None, 1)], path, tmp_path / "run", get_sandbox(), [1])
    weak = "    if x > 10:\n        return x * 2\n    return x + x\n"  # one input, below 10: the other branch is never tested
    bench = Benchmark("t", "1", "h", "test", {"T/weak": Problem("T/weak", "python", "def f(x: int) -> int:\n", "f", weak,
                                                               CaseTests(cases=(Case((0,)),)))})
    audit_path = tmp_path / "audit.json"
    audit_path.write_text(json.dumps(audit(bench, get_sandbox(), max_mutants=10).to_json()))
    runner = CliRunner()
    html = tmp_path / "report.html"
    result = runner.invoke(cli.app, ["report", str(tmp_path / "run"), "--audit", str(audit_path), "--out", str(html), "--allow-partial"])
    assert result.exit_code == 0, result.output
    page = html.read_text()
    assert 'id="audit-0"' in page and "Audit of t" in page and "T/weak" in page and "mutants of the reference" in page
    markdown = runner.invoke(cli.app, ["report", str(tmp_path / "run"), "--audit", str(audit_path), "--format", "md", "--allow-partial"])
    assert markdown.exit_code == 0 and "Audit of t: 1 findings" in markdown.output
    (tmp_path / "bad.json").write_text("[1, 2]")
    bad = runner.invoke(cli.app, ["report", str(tmp_path / "run"), "--audit", str(tmp_path / "bad.json")])
    assert bad.exit_code == 2 and "not an audit" in bad.output
