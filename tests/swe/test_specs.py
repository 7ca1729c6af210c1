"""Environments from SWE-bench's per-repository, per-version specs (assay.swe.specs, assay.swe.envs): the
table read from the installed swebench package without importing its Docker code, tasks set up from a
spec (SWE-bench's test command and directives, the parser of the repository), a clear error when the
spec's Python is not here, and a real task graded end to end in an environment built from a spec (its
Python, its packages, `pip install -e .` run in /testbed), prepared once with network by .ci/run."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.swe.envs import EnvironmentFailed, env_key, needs_env, ready, spec_python
from assay.swe.harness import Environment
from assay.swe.repos import RepoStore
from assay.swe.specs import Specs, SpecsUnavailable, directives, from_file, from_swebench, set_up, set_up_all
from assay.swe.tasks import load_tasks, task_from
from tests.conftest import shared_data

SPECS = Path(__file__).resolve().parents[1] / "data" / "swe-specs.json"
ROW = {"instance_id": "psf__requests-1", "repo": "psf/requests", "base_commit": "abc", "version": "2.0", "FAIL_TO_PASS": "[]", "PASS_TO_PASS": "[]",
       "test_patch": "diff --git a/test_requests.py b/test_requests.py\n--- a/x\n+++ b/x\n"
                     "diff --git a/tests/data/x.json b/tests/data/x.json\n"}


def test_swe_benchs_own_table_is_read_without_its_package_being_imported() -> None:
    before = {k for k in sys.modules if k.split(".")[0] == "swebench"}
    specs = from_swebench()
    assert {k for k in sys.modules if k.split(".")[0] == "swebench"} == before  # nothing of it is left imported
    assert specs.source == "swebench 4.1.0"
    assert specs.spec_for("psf/requests", "2.0") == {"python": "3.9", "packages": "pytest", "install": "python -m pip install .", "test_cmd": "pytest -rA"}
    flask = specs.spec_for("pallets/flask", "2.0")
    assert flask is not None and flask["packages"] == "requirements.txt" and "Werkzeug==2.3.7" in flask["pip_packages"]
    assert specs.requirements_paths["pallets/flask"] == ["requirements/dev.txt"]
    assert len(specs.by_repo["django/django"]) > 10 and specs.spec_for("psf/requests", "9.9") is None


def test_a_task_is_set_up_from_its_spec() -> None:
    specs = from_swebench()
    task = set_up(task_from(ROW, "row"), specs)
    assert task.test_cmd == "pytest -rA test_requests.py" and task.test_directives == ("test_requests.py",)  # data files are no directives
    assert task.log_parser == "pytest" and task.install == "python -m pip install ." and needs_env(task)
    assert task.extra["spec"]["python"] == "3.9" and task.extra["spec"]["source"] == "swebench 4.1.0"
    django = set_up(task_from({**ROW, "instance_id": "django__django-1", "repo": "django/django", "version": "3.0",
                               "test_patch": "diff --git a/tests/admin_views/tests.py b/tests/admin_views/tests.py\n"}, "row"), specs)
    assert django.log_parser == "unittest" and django.test_cmd.endswith("--parallel 1 admin_views.tests")
    assert directives(django) == ["admin_views.tests"]
    own = task_from({**ROW, "test_cmd": "pytest x"}, "row")
    assert set_up(own, specs) is own  # a task's own test command stands, unless the specs are given explicitly
    assert set_up(own, specs, override=True).test_cmd.startswith("pytest -rA")
    unknown = task_from({**ROW, "version": "9.9"}, "row")
    assert set_up_all([unknown], None) == [unknown]
    bare = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(_write(ROW | {"version": "9.9"})), "--gold", "-o", "/tmp/assay-never"])
    assert bare.exit_code != 0 and "give --profile or --specs" in bare.output


def test_bad_spec_files_and_a_missing_python_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "specs.json"
    bad.write_text("{not json")
    with pytest.raises(SpecsUnavailable, match=r"specs\.json: not JSON"):
        from_file(bad)
    bad.write_text(json.dumps({"o/r": {"1.0": {"python": "3.11"}}}))
    with pytest.raises(SpecsUnavailable, match=r"o/r 1\.0: a spec needs a test_cmd"):
        from_file(bad)
    specs = from_file(SPECS)
    assert isinstance(specs, Specs) and specs.spec_for("tkem/cachetools", "0.0") is not None
    old = set_up(task_from({**ROW, "version": "0.0"}, "row"), specs)  # this file's psf/requests 0.0 wants Python 2.7
    with pytest.raises(EnvironmentFailed, match=r"needs Python 2\.7: put python2\.7 on PATH .*or give --python"):
        spec_python(old)
    ran = CliRunner().invoke(cli.app, ["swe", "prepare", "--tasks", str(_write({**ROW, "version": "0.0"})), "--specs", str(SPECS),
                                       "--cache-dir", str(tmp_path / "cache")])
    assert ran.exit_code == 1 and "needs Python 2.7" in ran.output and "0 of 1 environments ready" in ran.output
    ran = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(_write(ROW)), "--specs", str(bad), "--gold", "-o", str(tmp_path / "o")])
    assert ran.exit_code != 0 and "--specs:" in ran.output and "a spec needs a test_cmd" in ran.output


@pytest.mark.shared_data
def test_a_real_task_graded_in_an_environment_built_from_its_spec(tmp_path: Path) -> None:
    """tkem/cachetools at 57d2e48, its row's own setup (pytest, PYTHONPATH=src) replaced by the spec in
    tests/data/swe-specs.json: Python 3.11, pytest 9.2.0, `pip install -e .` run in /testbed. The code is
    then found only through the editable install, which points at /testbed: the gold patch resolves, the
    empty one does not."""
    data = shared_data()
    row = data / "repo-tasks" / "tkem__cachetools-57d2e48.json"
    if not row.exists():
        pytest.skip("needs the shared data directory (repo-tasks/)")
    prepared = Path.home() / ".cache" / "assay"
    task = set_up_all(load_tasks([row]), str(SPECS))[0]
    assert task.env_vars == () and "spec" in task.extra  # no PYTHONPATH: the spec's install is what makes the code importable
    store = RepoStore(prepared, [data / "repos"])
    python = ready(task, prepared, store=store)
    if python is None:
        why = ("the spec environment is not prepared: assay swe prepare --tasks ../shared/data/repo-tasks/tkem__cachetools-57d2e48.json "
               "--specs tests/data/swe-specs.json --repos ../shared/data/repos")
        if os.environ.get("ASSAY_REQUIRE_PREPARED") == "1":
            pytest.fail(why)
        pytest.skip(why)
    root = prepared / "swe" / "envs" / env_key(task, store=store)
    pth = list((root / "lib").glob("python3*/site-packages/__editable__.cachetools-*.pth"))
    assert pth and pth[0].read_text().strip() == "/testbed/src"
    assert (root / "assay-overlay" / "src" / "cachetools.egg-info" / "PKG-INFO").exists()  # what the install left in the checkout
    assert Environment.of(python).overlay == str(root / "assay-overlay")  # copied into each run's checkout
    for how, want in (("--gold", "RESOLVED_FULL"), ("--empty", "RESOLVED_NO")):
        out = tmp_path / how.strip("-")
        ran = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(row), "--specs", str(SPECS), how, "--repos", str(data / "repos"),
                                           "--cache-dir", str(prepared), "-o", str(out)])
        assert ran.exit_code == 0, ran.output
        result = json.loads((out / "results.jsonl").read_text().splitlines()[0])
        assert result["resolution"] == want, (result["error"], result["log"][-2000:])
        assert "pytest-9.2.0" in result["log"]
    # A patch whose code, run by the tests, writes into the environment (a .pth there would run in every
    # later task graded in it): the environment is read-only in the run, so nothing of it stays.
    poison = _poisoned_patch(data, str(json.loads(row.read_text())["base_commit"]), tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"instance_id": task.instance_id, "model_patch": poison, "model_name_or_path": "hostile"}) + "\n")
    ran = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(row), "--specs", str(SPECS), "--predictions", str(preds), "--repos",
                                       str(data / "repos"), "--cache-dir", str(prepared), "-o", str(tmp_path / "hostile")])
    result = json.loads((tmp_path / "hostile" / "results.jsonl").read_text().splitlines()[0])
    assert result["resolution"] == "RESOLVED_NO" and result["applied_by"], (result["error"], result["log"][-2000:])
    assert not list(root.rglob("zz_assay_poison*")), "the run wrote into the environment"


@pytest.mark.shared_data
def test_the_spec_environment_grades_the_same_in_a_podman_container(tmp_path: Path) -> None:
    """The same prepared environment, mounted read-only into the image's container: the same 46 statuses."""
    from tests.swe.test_containers import _podman

    _podman()
    data = shared_data()
    row = data / "repo-tasks" / "tkem__cachetools-57d2e48.json"
    prepared = Path.home() / ".cache" / "assay"
    if not row.exists() or ready(set_up_all(load_tasks([row]), str(SPECS))[0], prepared, store=RepoStore(prepared, [data / "repos"])) is None:
        pytest.skip("needs the shared data and the prepared spec environment (see the test above)")
    statuses = []
    for runtime in ("bwrap", "podman"):
        ran = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(row), "--specs", str(SPECS), "--gold", "--repos", str(data / "repos"),
                                           "--cache-dir", str(prepared), "--runtime", runtime, "-o", str(tmp_path / runtime)])
        assert ran.exit_code == 0, ran.output
        result = json.loads((tmp_path / runtime / "results.jsonl").read_text().splitlines()[0])
        assert result["resolution"] == "RESOLVED_FULL" and result["runtime"] == runtime, result["error"]
        statuses.append(result["statuses"])
    assert statuses[0] == statuses[1] and len(statuses[0]) == 46


def _poisoned_patch(data: Path, base: str, tmp: Path) -> str:
    import subprocess

    clone = tmp / "clone"
    subprocess.run(["git", "clone", "-q", str(data / "repos" / "tkem__cachetools.bundle"), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", base], cwd=clone, check=True)
    init = clone / "src" / "cachetools" / "__init__.py"
    init.write_text("import glob as _g, os as _o, sys as _s\n"
                    "for _d in [_s.prefix, *_g.glob(_o.path.join(_s.prefix, 'lib', 'python*', 'site-packages'))]:\n"
                    "    try:\n        open(_o.path.join(_d, 'zz_assay_poison.pth'), 'w').write('import os\\n')\n"
                    "    except OSError:\n        pass\n" + init.read_text())
    return subprocess.run(["git", "diff"], cwd=clone, check=True, capture_output=True, text=True).stdout


def _write(row: dict[str, object]) -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="assay-spec-test-")) / "task.json"
    path.write_text(json.dumps(row))
    return path
