"""Languages from the command line: MultiPL-E evaluation, toolchains, the canary, skipped languages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.languages.base import Language
from assay.problems import Problem, ProgramTests, Status
from assay.sandbox import get_sandbox
from tests.conftest import shared_data
from tests.languages._common import language_or_skip
from tests.test_cli import _one_line_error

runner = CliRunner()


def _multipl_e(tmp_path: Path, names: list[str], break_one: str | None = None) -> Path:
    data = shared_data() / "multipl-e" / "humaneval-swift.jsonl"
    if not data.exists():
        pytest.skip(f"needs the shared data directory ({data.parent}), which is absent here")
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    rows = [r for r in rows if r["name"] in names]
    for r in rows:
        if r["name"] == break_one:
            r["tests"] = r["tests"] + "\nassert(undefined_function_in_the_tests() == 1)\n"
    path = tmp_path / "humaneval-swift.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.slow
def test_evaluate_multipl_e_swift_with_failure_breakdown(tmp_path: Path) -> None:
    language_or_skip("swift")
    dataset = _multipl_e(tmp_path, ["HumanEval_23_strlen", "HumanEval_13_greatest_common_divisor"])
    samples = tmp_path / "s.jsonl"
    rows = [
        {"task_id": "HumanEval_23_strlen", "completion": "    return string.count\n"},
        {"task_id": "HumanEval_23_strlen", "completion": "    return string.count + 1\n"},
        {"task_id": "HumanEval_23_strlen", "completion": "    return string.lenght\n"},
        {"task_id": "HumanEval_13_greatest_common_divisor", "completion": "    return a % b == 0 ? b : 1\n"},
    ]
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.json"
    result = runner.invoke(cli.app, ["evaluate", "multipl-e/humaneval-swift", "--dataset-file", str(dataset), "--samples", str(samples),
                                     "--run-dir", str(tmp_path / "run"), "--k", "1", "--json", str(out), "--plain"])
    assert result.exit_code == 0, result.output
    assert "failures in swift: compile error 33%, failed 67%" in " ".join(result.output.split())
    data = json.loads(out.read_text())
    assert data["scores"]["multipl-e/humaneval-swift"]["pass@1"]["value"] == pytest.approx((1 / 3 + 0) / 2)
    assert data["by_language"]["swift"]["status_counts"]["compile_error"] == 1
    assert data["config"]["toolchain"]["swift"].startswith("Swift version")


def test_references_of_multipl_e_are_refused(tmp_path: Path) -> None:
    dataset = _multipl_e(tmp_path, ["HumanEval_23_strlen"])
    msg = _one_line_error(runner.invoke(cli.app, ["evaluate", "multipl-e/humaneval-swift", "--dataset-file", str(dataset), "--references"]))
    assert "no reference solutions" in msg and "assay canary" in msg


def test_bad_benchmark_directory_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "benchmark.yaml").write_text("name: x\nlanguage: swift\n")
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "x/a", "solution": "func f() {}"}\n')
    msg = _one_line_error(runner.invoke(cli.app, ["evaluate", str(tmp_path / "bench"), "--samples", str(samples)]))
    assert "no problem folders" in msg


@pytest.mark.slow
def test_canary_names_the_problem_whose_tests_cannot_build(tmp_path: Path) -> None:
    language_or_skip("swift")
    dataset = _multipl_e(tmp_path, ["HumanEval_23_strlen", "HumanEval_30_get_positive"], break_one="HumanEval_30_get_positive")
    out = tmp_path / "canary.json"
    result = runner.invoke(cli.app, ["canary", "multipl-e/humaneval-swift", "--dataset-file", str(dataset), "--json", str(out)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "cannot build HumanEval_30_get_positive" in text and "1 problems cannot be built, 0 pass with a stub" in text
    data = json.loads(out.read_text())
    assert data["HumanEval_23_strlen"]["status"] == "runtime_error" and data["HumanEval_30_get_positive"]["status"] == "compile_error"


def test_canary_judges_humaneval_stubs_as_samples_are_judged(tmp_path: Path) -> None:
    """The canary judged HumanEval's stubs by a path of its own, and all 164 passed; through the
    executor's judge, every stub fails HumanEval's check program."""
    out = tmp_path / "canary.json"
    result = runner.invoke(cli.app, ["canary", "humaneval", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "0 problems cannot be built, 0 pass with a stub" in " ".join(result.output.split())
    statuses = {v["status"] for v in json.loads(out.read_text()).values()}
    assert statuses == {"runtime_error"}, statuses


def test_toolchains_lists_every_language(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["toolchains", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["language"]: r for r in json.loads(result.output)}
    assert {"swift", "python", "rust", "go", "java", "cpp"} <= set(rows)
    assert rows["python"]["available"] and rows["python"]["version"]
    for row in rows.values():
        assert row["available"] or row["install"], row


class _Missing(Language):
    name = "nolang"
    display = "NoLang"
    source = "main.nl"
    tools: ClassVar[tuple[str, ...]] = ("assay-no-such-compiler",)
    install_hint = "apt-get install -y nolang"
    run = "{assay_no_such_compiler} main.nl"

    def wrap_tests(self, tests: str, marker: str) -> str:
        return tests


def test_a_missing_toolchain_is_skipped_with_an_install_hint() -> None:
    problem = Problem(id="p", language="nolang", prompt="", entry_point="f", reference="", tests=ProgramTests("", runner="script"))
    verdict = _Missing().judge(get_sandbox(allow_weak=True), problem, "code")
    assert verdict.status is Status.SKIPPED and "apt-get install -y nolang" in verdict.message
