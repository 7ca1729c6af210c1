"""Repository tasks: SWE-bench's formats, its v5 grading with the hardening, the patch fallback chain, and
the eight verified instances of shared/data/repo-tasks graded in the bubblewrap workspace from clones of
the real bundles; hostile patches that try to pass without fixing anything (edit the tests back, add a
conftest that rewrites reports, forge the statuses, exit early) do not."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.swe import patches
from assay.swe.grading import Resolution, TestStatus, grade
from assay.swe.harness import Environment, evaluate_task
from assay.swe.parsers import RESULTS_FILE, from_pytest_log, from_pytest_plugin
from assay.swe.repos import RepoStore
from assay.swe.runtime import Limits
from assay.swe.tasks import Prediction, Task, TaskFormatError, load_predictions, load_tasks
from tests.conftest import shared_data

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
P, F, S, E, X = TestStatus.PASSED, TestStatus.FAILED, TestStatus.SKIPPED, TestStatus.ERROR, TestStatus.XFAIL


def test_tasks_and_predictions_in_swe_benchs_formats(tmp_path: Path) -> None:
    row = {"instance_id": "o__r-1", "repo": "o/r", "base_commit": "abc", "test_patch": "", "patch": "p",
           "FAIL_TO_PASS": '["t::a"]', "PASS_TO_PASS": ["t::b", "t::c d"], "log_parser": "parse_log_pytest", "env_vars": {"PYTHONPATH": "src"}}
    (tmp_path / "one.json").write_text(json.dumps(row))
    (tmp_path / "many.jsonl").write_text(json.dumps({**row, "instance_id": "o__r-2"}) + "\n")
    tasks = load_tasks([tmp_path])
    assert [t.instance_id for t in tasks] == ["o__r-2", "o__r-1"] or {t.instance_id for t in tasks} == {"o__r-1", "o__r-2"}
    task = next(t for t in tasks if t.instance_id == "o__r-1")
    assert task.fail_to_pass == ("t::a",) and task.pass_to_pass == ("t::b", "t::c d") and task.log_parser == "pytest"
    assert task.repo_key == "o__r" and dict(task.env_vars) == {"PYTHONPATH": "src"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"instance_id": "x"}))
    with pytest.raises(TaskFormatError, match="missing repo, base_commit"):
        load_tasks([bad])
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps({"o__r-1": {"model_patch": "diff", "model_name_or_path": "m"}}))  # SWE-bench's predictions.json
    assert load_predictions(preds)["o__r-1"] == Prediction("o__r-1", "m", "diff")
    lines = tmp_path / "preds.jsonl"
    lines.write_text(json.dumps({"instance_id": "o__r-1", "model_patch": None}) + "\n" + "{not json\n")
    with pytest.raises(TaskFormatError, match=r"preds\.jsonl:2: not a JSON line"):
        load_predictions(lines)


def test_grading_follows_swe_bench_v5_with_the_hardening() -> None:
    f2p, p2p = ["t.py::fix"], ["t.py::a", "t.py::b"]
    assert grade({"t.py::fix": P, "t.py::a": P, "t.py::b": P}, f2p, p2p).resolution is Resolution.FULL
    assert grade({"t.py::fix": X, "t.py::a": P, "t.py::b": P}, f2p, p2p).resolution is Resolution.FULL
    assert grade({"t.py::fix": F, "t.py::a": P, "t.py::b": P}, f2p, p2p).resolution is Resolution.NO
    assert grade({"t.py::fix": S, "t.py::a": P, "t.py::b": P}, f2p, p2p).resolution is Resolution.NO  # a skipped F2P test fails
    kept = grade({"t.py::fix": P, "t.py::a": P, "t.py::b": S}, f2p, p2p)
    assert kept.resolution is Resolution.FULL and kept.p2p_skipped == ["t.py::b"]  # a skipped P2P test is kept
    assert grade({"t.py::fix": P, "t.py::a": P}, f2p, p2p).resolution is Resolution.NO  # a P2P test missing from the log fails
    assert grade({"t.py::fix": P, "t.py::a": E, "t.py::b": P}, f2p, p2p).resolution is Resolution.NO
    two = ["t.py::x", "t.py::y"]
    assert grade({"t.py::x": P, "t.py::y": F}, two, []).resolution is Resolution.PARTIAL
    # A truncated id (SWE-bench's parsers cut pytest ids at a space) matches when it is the prefix of exactly one wanted id.
    assert grade({"t.py::test_a[x": P}, ["t.py::test_a[x y]"], []).resolution is Resolution.FULL
    assert grade({"t.py::test_a[": P}, ["t.py::test_a[1]", "t.py::test_a[2]"], []).resolution is Resolution.NO
    silent = grade({}, f2p, p2p)
    assert silent.resolution is Resolution.NO and "did not run" in silent.why  # success claimed without a run is none


def test_repository_metrics_over_runs() -> None:
    from assay.swe.metrics import compute, grouped

    def row(iid: str, run: int, resolution: str, applied: str = "git apply", empty: bool = False, repo: str = "o/r") -> dict[str, object]:
        return {"instance_id": iid, "run": run, "resolution": resolution, "applied_by": applied, "empty_patch": empty, "repo": repo}

    rows = [row("a", 0, "RESOLVED_FULL"), row("a", 1, "RESOLVED_NO"), row("a", 2, "RESOLVED_NO", applied="", empty=True),
            row("b", 0, "RESOLVED_FULL", repo="o/s"), row("b", 1, "RESOLVED_FULL", repo="o/s"), row("b", 2, "RESOLVED_FULL", repo="o/s"),
            row("c", 0, "error", repo="o/s")]
    m = compute(rows)
    assert m.tasks == 3 and m.runs == 6 and m.errors == 1 and m.resolved == 4  # the error is neither a success nor a failure
    assert m.pass_at[1].value == pytest.approx((1 / 3 + 1) / 2)  # the unbiased estimator over each task's runs
    assert m.pass_at[3].value == pytest.approx(1.0)
    assert m.precision.value == pytest.approx(4 / 5)  # the empty patch is not a prediction that applied
    assert m.f1 == pytest.approx(2 * 0.8 * (2 / 3) / (0.8 + 2 / 3))
    assert m.pass_at[1].low <= m.pass_at[1].value <= m.pass_at[1].high
    per_repo = grouped(rows, "repo")
    assert per_repo["o/s"].pass_at[1].value == 1.0 and per_repo["o/s"].errors == 1


def test_the_plugins_records_and_the_rA_summary_become_statuses(tmp_path: Path) -> None:
    rows = [("t::ok", "setup", "passed"), ("t::ok", "call", "passed"), ("t::ok", "teardown", "passed"),
            ("t::bad", "call", "failed"), ("t::err", "setup", "failed"), ("t::skip", "setup", "skipped"),
            ("t::late", "call", "passed"), ("t::late", "teardown", "failed"), ("t::with space[a b]", "call", "passed")]
    lines = [json.dumps({"nodeid": n, "when": w, "outcome": o}) for n, w, o in rows]
    lines += [json.dumps({"nodeid": "t::xf", "when": "call", "outcome": "skipped", "wasxfail": True}),
              json.dumps({"nodeid": "t::xp", "when": "call", "outcome": "passed", "wasxfail": True}), "garbage"]
    (tmp_path / RESULTS_FILE).write_text("\n".join(lines) + "\n")
    got = from_pytest_plugin(tmp_path, "")
    assert got == {"t::ok": P, "t::bad": F, "t::err": E, "t::skip": S, "t::late": E, "t::with space[a b]": P, "t::xf": X, "t::xp": F}
    log = "PASSED tests/a.py::t1\nFAILED tests/a.py::t2 - AssertionError: x\nXPASS tests/a.py::t3\nnoise\n"
    assert from_pytest_log(tmp_path, log) == {"tests/a.py::t1": P, "tests/a.py::t2": F, "tests/a.py::t3": F}


# ---------------------------------------------------------------- on the real repositories


def _data() -> Path:
    data = shared_data()
    if not (data / "repo-tasks").is_dir() or not (data / "repos").is_dir():
        pytest.skip("needs the shared data directory (repo-tasks/, repos/)")
    if shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap")
    return data


@pytest.fixture(scope="module")
def sqlparse(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    data = _data()
    task = next(t for t in load_tasks([data / "repo-tasks"]) if t.instance_id == "andialbrecht__sqlparse-e92a032")
    store = RepoStore(tmp_path_factory.mktemp("cache"), [data / "repos"])
    return task, store, Environment.of(PYTHON)


def _patch(store: RepoStore, task: Task, tmp: Path, edits: dict[str, str], prepend: bool = False) -> str:
    """A model patch against the base commit: text added at the end (or the start) of files, as `git diff` gives it."""
    work = store.checkout(task.repo_key, task.repo, task.base_commit, tmp / "author")
    for path, text in edits.items():
        target = work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        old = target.read_text() if target.exists() else ""
        target.write_text(text + old if prepend else old + text)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    diff = subprocess.run(["git", "diff", "--cached"], cwd=work, check=True, capture_output=True, text=True).stdout
    shutil.rmtree(work)
    return diff


def _grade(fixture, patch: str, **kwargs):  # type: ignore[no-untyped-def]
    task, store, env = fixture
    return evaluate_task(task, Prediction(task.instance_id, "m", patch), store, env, Limits(wall_seconds=300), **kwargs)


@pytest.mark.shared_data
def test_the_gold_patch_resolves_and_the_empty_one_does_not(sqlparse) -> None:  # type: ignore[no-untyped-def]
    task = sqlparse[0]
    gold = _grade(sqlparse, task.patch)
    assert gold.resolution == "RESOLVED_FULL" and gold.applied_by == "git apply" and not gold.restored, (gold.error, gold.log[-800:])
    assert gold.statuses[task.fail_to_pass[0]] == "PASSED" and len(gold.statuses) >= len(task.pass_to_pass) + 1
    empty = _grade(sqlparse, "", run_empty=True)
    assert empty.resolution == "RESOLVED_NO" and empty.f2p_failed == list(task.fail_to_pass) and not empty.p2p_failed
    assert _grade(sqlparse, "").resolution == "RESOLVED_NO"  # not run: SWE-bench's empty patch
    garbage = _grade(sqlparse, "diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-x\n+y\n")
    assert garbage.resolution == "RESOLVED_NO" and "does not apply" in garbage.error and "patch --fuzz=5" in garbage.log


# Every report of the session made a pass: at the top of the test module the test patch touches.
REPORTS_PASS = ("import _pytest.reports as _reports\n_made = _reports.TestReport.from_item_and_call.__func__\n"
                "def _passing(cls, item, call):\n    report = _made(cls, item, call)\n    report.outcome = 'passed'\n    return report\n"
                "_reports.TestReport.from_item_and_call = classmethod(_passing)\n")
# The same from a conftest, its hook's name built at run time (past the text check: only putting the file back stops it).
CONFTEST = ("import pytest\n\ndef _wrapper(item, call):\n    outcome = yield\n    outcome.get_result().outcome = 'passed'\n\n"
            "globals()['pytest_' + 'runtest_makereport'] = pytest.hookimpl(hookwrapper=True)(_wrapper)\n")


@pytest.mark.shared_data
def test_hostile_patches_do_not_resolve(sqlparse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    task, store, _ = sqlparse
    edit_tests = _patch(store, task, tmp_path, {"tests/test_split.py": REPORTS_PASS}, prepend=True)
    rewrite_reports = _patch(store, task, tmp_path, {"conftest.py": CONFTEST, "tests/conftest.py": CONFTEST})
    forge = ("\nimport atexit as _a, json as _j, os as _o\n_p = _o.environ.get('ASSAY_SWE_RESULTS')\n"
             f"_a.register(lambda: _p and open(_p, 'a').write(_j.dumps({{'nodeid': {task.fail_to_pass[0]!r}, 'when': 'call', 'outcome': 'passed'}}) + '\\n'))\n")
    forge_statuses = _patch(store, task, tmp_path, {"sqlparse/__init__.py": forge})
    # Knowing the directory is no help: it cannot be listed, and the file's name is new each run.
    blind = ("\nimport atexit as _a, glob as _g, json as _j\n"
             f"_a.register(lambda: [open(p, 'a').write(_j.dumps({{'nodeid': {task.fail_to_pass[0]!r}, 'when': 'call', 'outcome': 'passed'}}) + '\\n')"
             " for p in _g.glob('/assay-scratch/*') + ['/assay-scratch/pytest-results.jsonl']])\n")
    forge_blind = _patch(store, task, tmp_path, {"sqlparse/__init__.py": blind})
    exit_early = _patch(store, task, tmp_path, {"sqlparse/__init__.py": "\nimport os as _os\n_os._exit(0)\n"})
    hook_in_source = _patch(store, task, tmp_path, {"sqlparse/__init__.py": "\n" + REPORTS_PASS})
    for name, patch in (("edit-tests", edit_tests), ("conftest", rewrite_reports), ("forge", forge_statuses), ("forge-blind", forge_blind),
                        ("exit-early", exit_early), ("hook-in-source", hook_in_source)):
        result = _grade(sqlparse, patch)
        assert result.resolution == "RESOLVED_NO", (name, result.resolution, result.error, result.log[-600:])
        assert not result.infra, name  # never an uncounted error
    assert "tests/test_split.py" in _grade(sqlparse, edit_tests).restored
    assert set(_grade(sqlparse, rewrite_reports).restored) == {"conftest.py", "tests/conftest.py"}
    assert "reaches into the test runner" in _grade(sqlparse, hook_in_source).error
    # The defences are what stops them: without putting the grading files back, the edited tests and the conftest pass.
    monkeypatch.setattr(patches, "restore_grading_files", lambda *args: [])
    assert _grade(sqlparse, edit_tests).resolution == "RESOLVED_FULL"
    assert _grade(sqlparse, rewrite_reports).resolution == "RESOLVED_FULL"
    # And with the statuses' directory listable, the blind forgery finds the file.
    import os

    monkeypatch.setattr(Path, "chmod", lambda self, mode, **kwargs: os.chmod(self, 0o777))
    assert _grade(sqlparse, forge_blind).resolution == "RESOLVED_FULL"


@pytest.mark.slow
@pytest.mark.shared_data
def test_swe_evaluate_from_the_cli_grades_the_eight_verified_instances(tmp_path: Path) -> None:
    data = _data()
    common = ["--tasks", str(data / "repo-tasks"), "--repos", str(data / "repos"), "--python", str(PYTHON), "--cache-dir", str(tmp_path / "cache")]
    result = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--gold", "--out", str(tmp_path / "gold"), "-j", "2"])
    rows = {json.loads(line)["instance_id"]: json.loads(line) for line in (tmp_path / "gold" / "results.jsonl").read_text().splitlines()}
    assert len(rows) == 8, result.output
    # pallets/click needs pytest 9.0.2 (its filterwarnings = error); this interpreter has 9.2.0 (repo-tasks/README.md).
    resolved = {i for i, r in rows.items() if r["resolution"] == "RESOLVED_FULL"}
    assert resolved == set(rows) - {"pallets__click-762c97e"}, {i: (r["resolution"], r["error"]) for i, r in rows.items()}
    summary = json.loads((tmp_path / "gold" / "summary.json").read_text())["overall"]
    assert summary["resolved"] == 7 and summary["tasks"] == 8 and summary["errors"] == 0
    again = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--gold", "--out", str(tmp_path / "gold")])
    assert again.exit_code == 0 and "[assay]" not in again.output  # resumed: nothing graded twice
    empty = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--empty", "--out", str(tmp_path / "empty"), "-j", "2"])
    assert "resolved: 0 of 8 graded runs" in empty.output, empty.output
    # Two runs of a "model" (SWE-bench predictions files): the gold patches, then empty ones.
    two = ["andialbrecht__sqlparse-e92a032", "tkem__cachetools-57d2e48"]
    tasks = {t.instance_id: t for t in load_tasks([data / "repo-tasks"])}
    for name, patch_of in (("run1", lambda t: t.patch), ("run2", lambda t: "")):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps({"instance_id": i, "model_patch": patch_of(tasks[i]), "model_name_or_path": "m"}) + "\n"
                                                        for i in two))
    runs = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--predictions", str(tmp_path / "run1.jsonl"), "--predictions",
                                        str(tmp_path / "run2.jsonl"), "--out", str(tmp_path / "runs")])
    overall = json.loads((tmp_path / "runs" / "summary.json").read_text())["overall"]
    assert overall["runs"] == 4 and overall["resolved"] == 2, runs.output
    assert overall["pass_at"]["pass@1"]["value"] == 0.5 and overall["precision"]["value"] == 1.0 and overall["empty_or_unapplied"] == 2
    bad = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--gold", "--out", str(tmp_path / "x"), "--instance-ids", "nope"])
    assert bad.exit_code != 0 and "no such task: nope" in bad.output


def test_the_log_parsers_of_other_toolchains_read_exact_ids(tmp_path: Path) -> None:
    from assay.swe.parsers import PARSERS

    go_json = ('{"Action":"run","Test":"TestA"}\n{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0}\n'
               '{"Action":"fail","Package":"p","Test":"TestB/sub case"}\n{"Action":"skip","Package":"p","Test":"TestC"}\n{"Action":"pass","Package":"p"}\n')
    assert PARSERS["go"](tmp_path, go_json) == {"TestA": P, "TestB/sub case": F, "TestC": S}
    assert PARSERS["go"](tmp_path, "--- PASS: TestA (0.00s)\n    --- FAIL: TestA/x (0.01s)\n") == {"TestA": P, "TestA/x": F}
    cargo = ("test dtd_07 ... ok\ntest dtd_err_04 ... FAILED\ntest slow ... ignored, needs a network\n"
             "test src/lib.rs - map_err_at (line 12) - compile fail ... ok\ntest result: FAILED. 1 passed")
    assert PARSERS["cargo"](tmp_path, cargo) == {"dtd_07": P, "dtd_err_04": F, "slow": S, "src/lib.rs - map_err_at (line 12) - compile fail": P}
    swift = ("Test Case 'HelpTests.testConfigHelp' passed (0.003 seconds)\nTest Case '-[ArgumentParserTests.HelpTests testX]' failed (0.1 seconds)\n"
             "✔ Test parsesFlags() passed after 0.001 seconds.\n✘ Test rejectsEmpty() failed after 0.002 seconds with 1 issue.\n")
    assert PARSERS["swift"](tmp_path, swift) == {"HelpTests.testConfigHelp": P, "HelpTests.testX": F, "parsesFlags()": P, "rejectsEmpty()": F}
    minitest = "TestMinitestMock#test_verify__error = 0.00 s = F\nTestSpec#test_it = 0.01 s = .\nX#test_e = 0.00 s = E\nY#test_s = 0.00 s = S\n"
    assert PARSERS["minitest"](tmp_path, minitest) == {"TestMinitestMock#test_verify__error": F, "TestSpec#test_it": P, "X#test_e": E, "Y#test_s": S}
    unity = ("4: /tmp/b/tests/misc_tests.c:295:cjson_detach_item:PASS\n4: /tmp/b/tests/misc_tests.c:300:cjson_big:FAIL: Expected 1\n"
             "7: tests/compare_tests.c:12:cjson_compare:IGNORE\n")
    # A test reported twice keeps its worst status: a forged pass printed after the real failure does not count.
    forged = "--- FAIL: TestUISHex (0.00s)\n--- PASS: TestUISHex (0.00s)\n"
    assert PARSERS["go"](tmp_path, forged) == {"TestUISHex": F}
    assert PARSERS["cargo"](tmp_path, "test dtd_07 ... FAILED\ntest dtd_07 ... ok\n") == {"dtd_07": F}
    assert PARSERS["minitest"](tmp_path, "X#test_a = 0.00 s = F\nX#test_a = 0.00 s = .\n") == {"X#test_a": F}
    assert PARSERS["ctest-unity"](tmp_path, unity) == {"misc_tests.c:cjson_detach_item": P, "misc_tests.c:cjson_big": F, "compare_tests.c:cjson_compare": S}


def _clone(bundle: str, dest: Path) -> Path:
    data = _data()
    subprocess.run(["git", "clone", "-q", str(data / "repos" / bundle), str(dest)], check=True)
    return dest


@pytest.mark.slow
@pytest.mark.shared_data
def test_mine_and_validate_go_and_python_fix_commits_from_the_real_bundles(tmp_path: Path) -> None:
    from assay.languages import get_language
    from assay.languages.base import ToolchainMissing

    try:
        get_language("go").toolchain()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    pflag = _clone("spf13__pflag.bundle", tmp_path / "pflag")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    # 298bcdf fixes TestUISHex (repos/README.md); 6404d82, its parent, touches no test: not a candidate.
    mined = CliRunner().invoke(cli.app, ["swe", "mine", "--repo", str(pflag), "--profile", "go", "--runs", "2", "--out", str(tmp_path / "go.jsonl"),
                                         "--commits", "298bcdf4e200c0d9b3818f03c7adaa10192874e4,6404d8209615987d23eafd5c38207dc343a5881e", *cache])
    assert mined.exit_code == 0, mined.output
    assert "1 candidates, 1 validated" in mined.output
    (row,) = [json.loads(line) for line in (tmp_path / "go.jsonl").read_text().splitlines()]
    assert json.loads(row["FAIL_TO_PASS"]) == ["TestUISHex"] and len(json.loads(row["PASS_TO_PASS"])) == 181  # as repos/README.md verified
    assert row["repo"] == "spf13/pflag" and row["log_parser"] == "go" and row["base_commit"].startswith("6404d82")
    sqlparse = _clone("andialbrecht__sqlparse.bundle", tmp_path / "sqlparse")
    mined = CliRunner().invoke(cli.app, ["swe", "mine", "--repo", str(sqlparse), "--profile", "pytest", "--runs", "2", "--python", str(PYTHON),
                                         "--out", str(tmp_path / "py.jsonl"), "--commits", "e92a032c81d51a6645b4f8c32470481894818ba0", *cache])
    assert mined.exit_code == 0, mined.output
    (py,) = [json.loads(line) for line in (tmp_path / "py.jsonl").read_text().splitlines()]
    assert json.loads(py["FAIL_TO_PASS"]) == ["tests/test_split.py::test_split_if_exists_in_begin_end"]
    # The mined instances, and two of repo-tasks/, come out of validate as valid; a broken copy does not.
    broken = dict(py, instance_id="andialbrecht__sqlparse-broken", FAIL_TO_PASS=json.dumps(["tests/test_split.py::test_split_casewhen"]))
    (tmp_path / "broken.jsonl").write_text(json.dumps(broken) + "\n")
    checked = CliRunner().invoke(cli.app, ["swe", "validate", "--tasks", str(tmp_path / "go.jsonl"), "--tasks", str(tmp_path / "py.jsonl"),
                                           "--tasks", str(_data() / "repo-tasks" / "mahmoud__boltons-766b554.json"), "--tasks", str(tmp_path / "broken.jsonl"),
                                           "--repos", str(_data() / "repos"), "--runs", "2", "--python", str(PYTHON), "--out", str(tmp_path / "valid.jsonl"), *cache])
    assert "valid: 3 of 4" in checked.output, checked.output
    assert "already passes at the base commit" in checked.output
    assert {json.loads(line)["instance_id"] for line in (tmp_path / "valid.jsonl").read_text().splitlines()} == {
        "spf13__pflag-298bcdf", "andialbrecht__sqlparse-e92a032", "mahmoud__boltons-766b554"}


def _msb_row(base: str, fix: str, test: str, f2p: dict[str, object], p2p: dict[str, object]) -> dict[str, object]:
    """A task in Multi-SWE-bench's dataset format (multi_swe_bench/harness/dataset.py)."""
    result = {"passed_count": 0, "failed_count": 0, "skipped_count": 0, "passed_tests": [], "failed_tests": [], "skipped_tests": []}
    return {"org": "spf13", "repo": "pflag", "number": 7, "state": "closed", "title": "UintSlice hex", "body": "",
            "base": {"label": "spf13:master", "ref": "master", "sha": base},
            "resolved_issues": [{"number": 6, "title": "Hex values are rejected", "body": "--uis 0x10 fails"}],
            "fix_patch": fix, "test_patch": test, "fixed_tests": {}, "p2p_tests": p2p, "f2p_tests": f2p, "s2p_tests": {}, "n2p_tests": {},
            "run_result": result, "test_patch_result": result, "fix_patch_result": result}


def test_multi_swe_bench_rows_and_predictions_are_read(tmp_path: Path) -> None:
    states = {"run": "PASS", "test": "PASS", "fix": "PASS"}
    row = _msb_row("abc", "FIX", "TEST", {"TestNew": {"run": "NONE", "test": "FAIL", "fix": "PASS"}}, {"TestOld": states})
    row["n2p_tests"] = {"TestAdded": {"run": "NONE", "test": "NONE", "fix": "PASS"}}
    (tmp_path / "msb.jsonl").write_text(json.dumps(row) + "\n")
    (task,) = load_tasks([tmp_path / "msb.jsonl"])
    assert task.instance_id == "spf13__pflag-7" and task.repo == "spf13/pflag" and task.base_commit == "abc"
    assert task.patch == "FIX" and task.test_patch == "TEST" and task.fail_to_pass == ("TestAdded", "TestNew") and task.pass_to_pass == ("TestOld",)
    assert task.problem_statement.startswith("Hex values are rejected") and task.extra["transitions"]["f2p"]["TestNew"]["test"] == "FAIL"
    (tmp_path / "preds.jsonl").write_text(json.dumps({"org": "spf13", "repo": "pflag", "number": 7, "fix_patch": "P"}) + "\n")
    assert load_predictions(tmp_path / "preds.jsonl")["spf13__pflag-7"].patch == "P"
    result = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(tmp_path / "msb.jsonl"), "--gold", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "no test_cmd" in result.output and "--profile" in result.output


def _pflag_fix(tmp: Path) -> tuple[str, str, str]:
    """pflag's verified fix 298bcdf split into (base, test patch, gold patch); skips without Go."""
    from assay.languages import get_language
    from assay.languages.base import ToolchainMissing
    from assay.swe.mine import split

    try:
        get_language("go").toolchain()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    pflag = _clone("spf13__pflag.bundle", tmp / "spf13__pflag")
    return split(pflag, "298bcdf4e200c0d9b3818f03c7adaa10192874e4", r"_test\.go$")


@pytest.mark.slow
@pytest.mark.shared_data
def test_a_multi_swe_bench_task_is_graded_with_a_profile(tmp_path: Path) -> None:
    base, test_patch, fix = _pflag_fix(tmp_path)
    states = {"run": "PASS", "test": "PASS", "fix": "PASS"}
    row = _msb_row(base, fix, test_patch, {"TestUISHex": {"run": "NONE", "test": "FAIL", "fix": "PASS"}},
                   {"TestBoolFunc": states, "TestUIS": states})
    (tmp_path / "msb.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "preds.jsonl").write_text(json.dumps({"org": "spf13", "repo": "pflag", "number": 7, "fix_patch": fix}) + "\n")
    result = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(tmp_path / "msb.jsonl"), "--predictions", str(tmp_path / "preds.jsonl"),
                                          "--profile", "go", "--repos", str(tmp_path), "--out", str(tmp_path / "o"), "--cache-dir", str(tmp_path / "cache")])
    (graded,) = [json.loads(line) for line in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    assert graded["resolution"] == "RESOLVED_FULL", (result.output, graded["error"], graded["log"][-500:])


def test_mining_decides_f2p_and_p2p_from_every_run_of_both_states() -> None:
    from assay.swe.mine import _decide

    before = [{"a": P, "b": F, "c": P, "d": F}, {"a": P, "b": F, "c": F, "d": F}]
    after = [{"a": P, "b": P, "c": P, "d": P, "e": P}, {"a": P, "b": P, "c": P, "d": F, "e": P}]
    f2p, p2p = _decide(before, after)  # type: ignore[misc]
    assert f2p == ["b", "e"] and p2p == ["a"]  # c flips before the fix, d after it: in neither list; e is new (missing before)
    from assay.swe.mine import transitions

    kinds = transitions(before, f2p)  # e had no status before: Multi-SWE-bench's N2P (new, or its binary crashed first)
    assert kinds == {"f2p": {"b": {"test": "FAIL", "fix": "PASS"}}, "n2p": {"e": {"test": "NONE", "fix": "PASS"}}}
    assert _decide([{}, {}], after).startswith("no-baseline")  # type: ignore[union-attr]
    assert _decide(before, [{}, {}]).startswith("unrunnable")  # type: ignore[union-attr]
    assert _decide([{"a": P}], [{"a": P}]).startswith("no-f2p")  # type: ignore[union-attr]
    assert _decide([{"a": F}, {"a": P}], [{"a": P}, {"a": P}]).startswith("flaky")  # type: ignore[union-attr]
    assert _decide([None], after[:1]).startswith("unappliable")  # type: ignore[union-attr]


FORGE_GO = ('package pflag\n\nimport (\n\t"fmt"\n\t"os"\n\t"testing"\n)\n\n'
            'func TestMain(m *testing.M) {\n\tcode := m.Run()\n\tfmt.Println("--- PASS: TestUISHex (0.00s)")\n\t_ = code\n\tos.Exit(0)\n}\n')


@pytest.mark.slow
@pytest.mark.shared_data
def test_a_go_patch_that_prints_a_forged_pass_after_the_real_failure_does_not_resolve(tmp_path: Path) -> None:
    from assay.swe.mine import PROFILES

    base, test_patch, fix = _pflag_fix(tmp_path)
    go = PROFILES["go"]
    task = Task("spf13__pflag-298bcdf", "spf13/pflag", base, test_patch, ("TestUISHex",), ("TestBoolFunc",), patch=fix, language="go",
                test_cmd=go.test_cmd, log_parser=go.log_parser)
    store = RepoStore(tmp_path / "cache", [tmp_path])
    forge = _patch(store, task, tmp_path, {"zz_forge_test.go": FORGE_GO})  # a new test file of the model's: not the test patch's
    env = Environment.of(PYTHON, "go")
    gold = evaluate_task(task, Prediction(task.instance_id, "m", fix), store, env, Limits(wall_seconds=300))
    assert gold.resolution == "RESOLVED_FULL", (gold.error, gold.log[-500:])
    forged = evaluate_task(task, Prediction(task.instance_id, "m", forge), store, env, Limits(wall_seconds=300))
    assert forged.resolution == "RESOLVED_NO" and forged.statuses.get("TestUISHex") == "FAILED", (forged.statuses.get("TestUISHex"), forged.log[-800:])


@pytest.mark.slow
@pytest.mark.shared_data
def test_the_eight_verified_instances_validate_with_their_prepared_environments() -> None:
    """Each task's own environment (its `install`: pytest 9.0.2 for click, 9.2.0 for the others), built
    once with network by `assay swe prepare` (.ci/run does it), then used offline: all eight are valid."""
    import os

    from assay.swe.envs import ready

    data = _data()
    tasks = load_tasks([data / "repo-tasks"])
    prepared = Path.home() / ".cache" / "assay"  # where `assay swe prepare` puts them (the tests' own cache is a temporary one)
    missing = [t.instance_id for t in tasks if ready(t, prepared) is None]
    if missing:
        why = f"the environments are not prepared ({', '.join(missing[:2])}...): assay swe prepare --tasks ../shared/data/repo-tasks"
        if os.environ.get("ASSAY_REQUIRE_PREPARED") == "1":
            pytest.fail(why)
        pytest.skip(why)
    ran = CliRunner().invoke(cli.app, ["swe", "validate", "--tasks", str(data / "repo-tasks"), "--repos", str(data / "repos"), "--runs", "1",
                                       "--cache-dir", str(prepared)])
    assert ran.exit_code == 0 and "valid: 8 of 8" in ran.output, ran.output
