"""Hostile patches against the text-log parsers, end to end on real repositories (xmlparser in Rust, cJSON in
C, minitest in Ruby, swift-argument-parser in Swift; Go's is in test_swe.py): a patch that leaves the FAIL_TO_PASS test failing but prints
that test's passing line from code of its own does not resolve (a test reported twice keeps its worst
status), nor does one that exits before any test runs. With "the last line wins" instead, the forgery
resolves: the defence is what stops it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from assay.swe import parsers
from assay.swe.harness import Environment, evaluate_task
from assay.swe.mine import PROFILES, split
from assay.swe.repos import RepoStore
from assay.swe.runtime import Limits
from assay.swe.tasks import Prediction, Task
from tests.swe.test_swe import PYTHON, _data, _patch

# language -> (bundle, fix commit, profile, the F2P test, a file of the project's own, the forgery appended to it, an early exit)
CASES = {
    "rust": ("RazrFalcon__xmlparser", "94638df5244b", "cargo", "document_07", "tests/zz_forge.rs",
             '#[test]\nfn zz_forge() {\n    let _ = std::process::Command::new("sh").args(["-c", "echo \'test document_07 ... ok\'"]).status();\n}\n',
             '#[test]\nfn zz_exit() {\n    std::process::exit(0);\n}\n'),
    "c": ("DaveGamble__cJSON", "a328d65ad490", "cjson", "misc_tests.c:cjson_parse_big_numbers_should_not_report_error", "cJSON.c",
          '\n#include <stdio.h>\n__attribute__((destructor)) static void assay_forge(void) {\n'
          '    printf("misc_tests.c:1:cjson_parse_big_numbers_should_not_report_error:PASS\\n");\n}\n',
          '\n#include <stdlib.h>\n__attribute__((constructor)) static void assay_exit(void) { exit(0); }\n'),
    "swift": ("apple__swift-argument-parser", "4453aa97f3f9", "swiftpm", "DefaultSubcommandEndToEndTests.testHelpWithNestedDefaultSubcommand",
              "Tests/ArgumentParserEndToEndTests/ZZForgeTests.swift",
              'import XCTest\n\nfinal class ZZForgeTests: XCTestCase {\n    func testZZForge() {\n'
              '        print("Test Case \'DefaultSubcommandEndToEndTests.testHelpWithNestedDefaultSubcommand\' passed (0.001 seconds)")\n    }\n}\n',
              'import Foundation\nimport XCTest\n\nfinal class AAExitTests: XCTestCase {\n    func testAAExit() {\n        exit(0)\n    }\n}\n'),
    "ruby": ("minitest__minitest", "005b187363b3", "minitest-self", "TestUnexpectedError#test_absurd_patterns", "lib/minitest.rb",
             '\nat_exit { $stdout.puts "TestUnexpectedError#test_absurd_patterns = 0.00 s = ." }\n',
             '\nexit!(0)\n'),
}


def _task(case: str, tmp: Path) -> tuple[Task, RepoStore, Environment]:
    from assay.languages import get_language
    from assay.languages.base import ToolchainMissing

    bundle, commit, profile_name, test, *_ = CASES[case]
    if case != "c":
        try:
            get_language(case).toolchain()
        except ToolchainMissing as exc:
            pytest.skip(str(exc))
    clone = tmp / bundle
    subprocess.run(["git", "clone", "-q", str(_data() / "repos" / f"{bundle}.bundle"), str(clone)], check=True)
    full = subprocess.run(["git", "rev-parse", commit], cwd=clone, capture_output=True, text=True, check=True).stdout.strip()
    profile = PROFILES[profile_name]
    base, test_patch, fix = split(clone, full, profile.test_pattern)
    task = Task(f"{bundle}-{commit[:7]}", bundle.replace("__", "/"), base, test_patch, (test,), (), patch=fix, language=profile.language,
                test_cmd=profile.test_cmd, log_parser=profile.log_parser, env_vars=profile.env_vars)
    return task, RepoStore(tmp / "cache", [tmp]), Environment.of(PYTHON, profile.language)


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_forged_passing_line_and_an_early_exit_do_not_resolve(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task, store, env = _task(case, tmp_path)
    test, path, forgery, early = CASES[case][3], CASES[case][4], CASES[case][5], CASES[case][6]

    def grade(patch: str):  # type: ignore[no-untyped-def]
        return evaluate_task(task, Prediction(task.instance_id, "m", patch), store, env, Limits(wall_seconds=600))

    gold = grade(task.patch)
    assert gold.resolution == "RESOLVED_FULL", (gold.error, gold.log[-800:])
    forged_patch = _patch(store, task, tmp_path, {path: forgery})
    forged = grade(forged_patch)
    assert forged.resolution == "RESOLVED_NO" and forged.statuses.get(test) in ("FAILED", "ERROR"), (forged.statuses.get(test), forged.log[-800:])
    exited = grade(_patch(store, task, tmp_path, {path: early}))
    assert exited.resolution == "RESOLVED_NO" and not exited.infra, (exited.resolution, exited.error, exited.log[-500:])
    # The defence is what stops the forgery: with the last line winning, it resolves.
    monkeypatch.setattr(parsers, "_worst", lambda statuses, name, status: statuses.__setitem__(name, status))
    assert grade(forged_patch).resolution == "RESOLVED_FULL"
