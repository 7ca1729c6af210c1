"""Real code in other languages proves the rendering: HumanEval-X's canonical solutions (C++, Go, Java,
JavaScript, Rust), fitted to MultiPL-E's prompts by assay.audit.crossref, pass `humaneval-plus/<lang>`
on problems whose results cover the shapes HumanEval+ has (str, bool, float, lists of str and int, a
tuple, a tuple of optionals, a grid argument); and a failure the script classifies as "narrow-types"
(an `int` that overflows, a byte string, UTF-16) fails on the full suite and passes on the cases
inside HumanEval-X's types. The whole measurement is `scripts/humaneval_x_solutions.py`; `assay audit`
reports the disagreements as findings."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.audit.crossref import LANGUAGE, judge_language
from assay.benchmarks import load_benchmark
from assay.languages import toolchain_binds
from assay.sandbox import get_sandbox
from tests.conftest import shared_data

# make_palindrome, separate_paren_groups, below_zero, parse_music, median, fruit_distribution,
# even_odd_palindrome, minPath, largest_smallest_integers
PASSING = ("10", "1", "3", "17", "47", "67", "107", "129", "136")
# One narrow-types failure per language: add (an int sum), strlen (bytes), longest (UTF-16 surrogates)
NARROW = {"cpp": "53", "java": "53", "rs": "53", "go": "23", "js": "12"}


@pytest.fixture(scope="module")
def data():  # type: ignore[no-untyped-def]
    if not (shared_data() / "humaneval-x").is_dir() or not (shared_data() / "evalplus").is_dir():
        pytest.skip("needs the shared data directory (humaneval-x, evalplus, multipl-e)")
    return shared_data()


def _toolchain_or_skip(lang: str) -> None:
    from assay.languages import get_language
    from assay.languages.base import ToolchainMissing

    try:
        get_language(LANGUAGE[lang]).toolchain()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("lang", sorted(NARROW))
def test_humaneval_x_solutions_pass_and_narrow_failures_pass_inside_their_types(data, lang: str) -> None:  # type: ignore[no-untyped-def]
    _toolchain_or_skip(lang)
    bench = load_benchmark(f"humaneval-plus/{lang}", data_dir=data)
    sandbox = get_sandbox(ro_binds=toolchain_binds({LANGUAGE[lang]}))
    judged = judge_language(lang, bench, sandbox, data, workers=2, only={*PASSING, NARROW[lang]})
    verdicts = {j.problem: j.verdict for j in judged}
    inside = {j.problem: j.inside for j in judged if j.inside is not None}
    by_number = {pid.split("_")[1]: v for pid, v in verdicts.items()}
    assert {n for n in PASSING if not by_number[n].passed} == set(), {n: by_number[n].message for n in PASSING if not by_number[n].passed}
    narrow = next(pid for pid in verdicts if pid.split("_")[1] == NARROW[lang])
    assert not verdicts[narrow].passed
    kept, again = inside[narrow]
    assert again.passed and kept > 10, (kept, again.message)


@pytest.mark.slow
@pytest.mark.shared_data
def test_audit_reports_humaneval_x_solutions_that_disagree_with_the_python_reference(data) -> None:  # type: ignore[no-untyped-def]
    import json

    _toolchain_or_skip("js")
    # get_row: HumanEval-X's JavaScript solution is wrong (classified); longest: narrow-types (UTF-16); make_palindrome passes.
    ids = "HumanEval_87_get_row,HumanEval_12_longest,HumanEval_10_make_palindrome"
    result = CliRunner().invoke(cli.app, ["audit", "humaneval-plus/js", "--task-ids", ids, "--no-strength", "--no-canary", "--format", "json",
                                          "--data-dir", str(data), "-j", "2"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    found = {f["problem"]: f for f in report["findings"] if f["check"] == "reference-disagreement"}
    assert set(found) == {"HumanEval_87_get_row", "HumanEval_12_longest"}, found
    assert "class wrong-reference" in found["HumanEval_87_get_row"]["evidence"]
    assert "class narrow-types" in found["HumanEval_12_longest"]["evidence"] and "widen" in found["HumanEval_12_longest"]["fix"]
    assert "reference-disagreement" in report["counts"]
    skipped = CliRunner().invoke(cli.app, ["audit", "humaneval-plus/js", "--task-ids", ids, "--no-strength", "--no-canary", "--format", "json",
                                           "--data-dir", str(data), "--no-cross-references"])
    assert "reference-disagreement" in json.loads(skipped.stdout)["checks_not_run"]
