"""Repository tasks in containers: podman (rootful, runc on this hybrid cgroup v1 host) from the image
`assay swe image build` makes from a debootstrap root, docker's client through podman's socket, and
per-instance images in the layout of SWE-bench's published ones, built here. The same tasks graded in
bubblewrap and in a container give the same statuses, and the hostile patches that fail in bubblewrap
fail in the container too.

These need podman and the image; .ci/run builds it (`assay swe image build`). Without them they skip,
unless ASSAY_REQUIRE_CONTAINERS=1 (CI sets it), when a missing engine or image is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.swe.containers import IMAGE, Container, Engine, instance_image
from assay.swe.harness import Environment, Sandbox, evaluate_task
from assay.swe.repos import RepoStore
from assay.swe.runtime import Limits, RuntimeUnavailable
from assay.swe.tasks import Prediction, Task, load_tasks
from tests.conftest import shared_data
from tests.swe.test_swe import CONFTEST, REPORTS_PASS, _patch

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
SQLPARSE = "andialbrecht__sqlparse-e92a032"


def _unavailable(why: str) -> None:
    if os.environ.get("ASSAY_REQUIRE_CONTAINERS") == "1":
        pytest.fail(f"ASSAY_REQUIRE_CONTAINERS=1 but {why}")
    pytest.skip(why)


def _podman() -> Engine:
    if shutil.which("podman") is None:
        _unavailable("needs podman (apt-get install podman runc)")
    try:
        engine = Engine.find("podman")
    except RuntimeUnavailable as exc:
        _unavailable(f"podman does not work here: {exc}")
        raise
    if not engine.has_image(IMAGE):
        _unavailable(f"needs the image {IMAGE}: assay swe image build")
    return engine


def _data() -> Path:
    data = shared_data()
    if not (data / "repo-tasks").is_dir() or not (data / "repos").is_dir():
        pytest.skip("needs the shared data directory (repo-tasks/, repos/)")
    return data


def _leftovers(engine: Engine) -> list[str]:
    listed = engine.run("ps", "-a", "--format", "{{.Names}}").stdout.decode().split()
    return [n for n in listed if n.startswith("assay-swe-")]


def test_the_container_is_shut_off_and_per_instance_images_are_named_as_swe_bench_names_them(tmp_path: Path) -> None:
    assert instance_image("docker.io/swebench/sweb.eval.x86_64.{id}:latest", "django__django-11099") == \
        "docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest"
    assert instance_image("local/{instance_id}", "o__r-1") == "local/o__r-1"
    engine = Engine("/usr/bin/podman", ("--runtime", "runc"))
    box = Container(engine, IMAGE, ro_paths=["/usr/bin", "/opt/x", str(tmp_path)], mounts={"/h/plugin": "/assay-plugin"})
    argv = box.create_argv("n", tmp_path / "c", tmp_path / "s", None, Limits(memory_bytes=2**30, cpu_seconds=60))
    joined = " ".join(argv)
    for flag in ("--network none", "--cap-drop ALL", "--security-opt no-new-privileges", "--read-only", "--memory 1073741824",
                 "--ulimit cpu=60:60", f"-v {tmp_path / 'c'}:/testbed:rw", "-v /h/plugin:/assay-plugin:ro", "-v /opt/x:/opt/x:ro"):
        assert flag in joined, flag
    assert "/usr/bin:/usr/bin" not in joined  # the system is the image's, never the host's
    own = Container(engine, "img", testbed_in_image=True, base_commit="abc")
    argv = own.create_argv("n", tmp_path / "c", tmp_path / "s", tmp_path / "changes", Limits())
    assert "--read-only" not in argv and f"{tmp_path / 'c'}:/testbed:rw" not in " ".join(argv)
    assert engine.cmd("ps") == ["/usr/bin/podman", "--runtime", "runc", "ps"]


@pytest.fixture(scope="module")
def sqlparse(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    engine = _podman()
    data = _data()
    task = next(t for t in load_tasks([data / "repo-tasks"]) if t.instance_id == SQLPARSE)
    store = RepoStore(tmp_path_factory.mktemp("cache"), [data / "repos"])
    return task, store, Environment.of(PYTHON), engine


def _grade(fixture, patch: str, sandbox: Sandbox | None = None, **kwargs):  # type: ignore[no-untyped-def]
    task, store, env, engine = fixture
    chosen = sandbox or Sandbox("podman", engine, IMAGE)
    return evaluate_task(task, Prediction(task.instance_id, "m", patch), store, env, Limits(wall_seconds=300), sandbox=chosen, **kwargs)


@pytest.mark.shared_data
@pytest.mark.containers_alone
def test_podman_grades_as_bwrap_does_and_hostile_patches_fail_there_too(sqlparse, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    task, store, _, engine = sqlparse
    gold, in_bwrap = _grade(sqlparse, task.patch), _grade(sqlparse, task.patch, Sandbox())
    assert gold.resolution == "RESOLVED_FULL" and gold.runtime == "podman" and in_bwrap.runtime == "bwrap", (gold.error, gold.log[-600:])
    assert gold.statuses == in_bwrap.statuses and len(gold.statuses) == 39
    empty = _grade(sqlparse, "", run_empty=True)
    assert empty.resolution == "RESOLVED_NO" and empty.f2p_failed == list(task.fail_to_pass)
    assert empty.statuses == _grade(sqlparse, "", Sandbox(), run_empty=True).statuses
    forge = ("\nimport atexit as _a, glob as _g, json as _j, os as _o\n_p = _o.environ.get('ASSAY_SWE_RESULTS')\n"
             f"_r = _j.dumps({{'nodeid': {task.fail_to_pass[0]!r}, 'when': 'call', 'outcome': 'passed'}}) + '\\n'\n"
             "_a.register(lambda: [open(p, 'a').write(_r) for p in ([_p] if _p else []) + _g.glob('/assay-scratch/*')])\n")
    hostile = {
        "edit-tests": _patch(store, task, tmp_path, {"tests/test_split.py": REPORTS_PASS}, prepend=True),
        "conftest": _patch(store, task, tmp_path, {"conftest.py": CONFTEST, "tests/conftest.py": CONFTEST}),
        "forge": _patch(store, task, tmp_path, {"sqlparse/__init__.py": forge}),
        "exit-early": _patch(store, task, tmp_path, {"sqlparse/__init__.py": "\nimport os as _os\n_os._exit(0)\n"}),
        # An engine failure's status (125) from the test command is the test command's, not an uncounted error.
        "exit-125": _patch(store, task, tmp_path, {"sqlparse/__init__.py": "\nimport os as _os\n_os._exit(125)\n"}),
    }
    for name, patch in hostile.items():
        result = _grade(sqlparse, patch)
        assert result.resolution == "RESOLVED_NO" and not result.infra, (name, result.resolution, result.error, result.log[-600:])
    assert _leftovers(engine) == []


@pytest.mark.shared_data
@pytest.mark.containers_alone
def test_a_looping_patch_times_out_in_the_container_and_the_container_goes(sqlparse, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    task, store, env, engine = sqlparse
    loop = _patch(store, task, tmp_path, {"sqlparse/__init__.py": "\nwhile True:\n    pass\n"})
    started = time.monotonic()
    result = evaluate_task(task, Prediction(task.instance_id, "m", loop), store, env, Limits(wall_seconds=8),
                           sandbox=Sandbox("podman", engine, IMAGE))
    assert result.resolution == "RESOLVED_NO" and "passed the limit of 8 s" in result.error and not result.infra
    assert time.monotonic() - started < 60
    assert _leftovers(engine) == []


@pytest.mark.shared_data
def test_the_container_is_a_system_of_its_own_and_shut_off(sqlparse, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    engine = sqlparse[3]
    checkout, scratch = tmp_path / "checkout", tmp_path / "scratch"
    checkout.mkdir()
    scratch.mkdir(mode=0o333)
    scratch.chmod(0o333)
    box = Container(engine, IMAGE, ro_paths=Environment.of(PYTHON).ro_paths)
    probe = ("head -1 /etc/assay-image; touch /usr/x 2>/dev/null && echo usr-writable; ls /assay-scratch >/dev/null 2>&1 && echo listable; "
             "echo made > /assay-scratch/f; echo here > /testbed/f; "
             "echo interfaces=$(grep -c : /proc/net/dev); exit 3")  # only lo: no network
    ran = box.run(checkout, scratch, probe, {"PATH": "/usr/bin:/bin"}, Limits(wall_seconds=60))
    assert ran.exit_code == 3 and ran.output.split() == [IMAGE, "interfaces=1"], ran.output  # the image's system, read-only, unlistable, offline
    assert (checkout / "f").read_text() == "here\n" and (scratch / "f").read_text() == "made\n"


def _instance_image(engine: Engine, task: Task, store: RepoStore, tmp: Path, tag: str) -> None:
    from assay.swe.containers import build_instance_image

    checkout = store.checkout(task.repo_key, task.repo, task.base_commit, tmp / "image-testbed")
    (checkout / "build-artifact.txt").write_text("made by the image's build\n")  # untracked in the image's /testbed, as a build leaves
    build_instance_image(engine, checkout, tag)  # no install: the base image's Debian pytest, offline
    shutil.rmtree(checkout)


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.containers_alone
def test_a_per_instance_image_in_swe_benchs_layout_grades_with_its_own_environment(sqlparse, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    task, store, _, engine = sqlparse
    tag = "localhost/assay-test-sweb.eval.x86_64.{id}"
    _instance_image(engine, task, store, tmp_path, instance_image(tag, task.instance_id))
    try:
        own = Sandbox("podman", engine, tag)
        gold = _grade(sqlparse, task.patch, own)
        # The image's Python (Debian's 3.11 and pytest 7), not the host's: the same statuses all the same.
        assert gold.resolution == "RESOLVED_FULL" and "pytest-7" in gold.log, (gold.error, gold.log[-600:])
        assert gold.statuses == _grade(sqlparse, task.patch, Sandbox()).statuses
        assert _grade(sqlparse, "", own, run_empty=True).resolution == "RESOLVED_NO"
        edit = _patch(store, task, tmp_path, {"tests/test_split.py": REPORTS_PASS}, prepend=True)
        assert _grade(sqlparse, edit, own).resolution == "RESOLVED_NO"  # the test file is put back before the diff goes in
        # The statuses file cannot be forged from the image's run either.
        forge = ("\nimport atexit as _a, glob as _g, json as _j, os as _o\n_p = _o.environ.get('ASSAY_SWE_RESULTS')\n"
                 f"_r = _j.dumps({{'nodeid': {task.fail_to_pass[0]!r}, 'when': 'call', 'outcome': 'passed'}}) + '\\n'\n"
                 "_a.register(lambda: [open(p, 'a').write(_r) for p in ([_p] if _p else []) + _g.glob('/assay-scratch/*')])\n")
        forged_in_image = _grade(sqlparse, _patch(store, task, tmp_path, {"sqlparse/__init__.py": forge}), own)
        assert forged_in_image.resolution == "RESOLVED_NO" and not forged_in_image.infra, forged_in_image.error
        # A SWE-bench 5 row: its eval_script (reset the test file, apply the test patch, run pytest between the markers) is the
        # test command, in the image the row names (--image dataset); the gold resolves, edited tests do not.
        script = (f"#!/bin/bash\nset -uxo pipefail\ncd /testbed\ngit checkout {task.base_commit} -- tests/test_split.py\n"
                  f"git apply -v - <<'EOF_114329324912'\n{task.test_patch}\nEOF_114329324912\n: '>>>>> Start Test Output'\n"
                  "pytest -rA -p no:cacheprovider tests/test_split.py\n: '>>>>> End Test Output'\n"
                  f"git checkout {task.base_commit} -- tests/test_split.py\n")
        from assay.swe.tasks import task_from

        row = {"instance_id": task.instance_id, "repo": task.repo, "base_commit": task.base_commit, "patch": task.patch,
               "test_patch": task.test_patch, "FAIL_TO_PASS": list(task.fail_to_pass), "PASS_TO_PASS": list(task.pass_to_pass),
               "image": instance_image(tag, task.instance_id), "eval_script": script, "log_parser": "parse_log_pytest", "eval_type": "pytest"}
        swe5 = task_from(row, "row")
        by_row = Sandbox("podman", engine, "dataset")
        assert by_row.image_for(swe5) == instance_image(tag, task.instance_id)
        gold5 = evaluate_task(swe5, Prediction(task.instance_id, "m", task.patch), store, sqlparse[2], Limits(wall_seconds=300), sandbox=by_row)
        assert gold5.resolution == "RESOLVED_FULL" and gold5.statuses == gold.statuses, (gold5.error, gold5.log[-600:])
        edited5 = evaluate_task(swe5, Prediction(task.instance_id, "m", _patch(store, task, tmp_path, {"tests/test_split.py": REPORTS_PASS},
                                                                                prepend=True)), store, sqlparse[2], Limits(wall_seconds=300), sandbox=by_row)
        assert edited5.resolution == "RESOLVED_NO" and not edited5.infra, (edited5.resolution, edited5.error)
        # A patch that adds a path the image's build left untracked does not apply there: the model's failure, not an uncounted error.
        clash = _grade(sqlparse, _patch(store, task, tmp_path, {"build-artifact.txt": "mine\n"}), own)
        assert clash.resolution == "RESOLVED_NO" and not clash.infra and "do not apply" in clash.error, (clash.resolution, clash.error)
        # An image whose /testbed is another commit is the harness's problem: an infrastructure error, never graded.
        moved = Task(**{**task.__dict__, "base_commit": "0" * 40})
        wrong = evaluate_task(moved, Prediction(task.instance_id, "m", ""), store, sqlparse[2], Limits(wall_seconds=60), sandbox=own, run_empty=True)
        assert wrong.infra
        missing = _grade(sqlparse, task.patch, Sandbox("podman", engine, "localhost/assay-no-such-image-{id}"))
        assert missing.infra and "no image localhost/assay-no-such-image-" in missing.error
        # JUnit reports written in the image's /testbed are copied out; one the patch brings, left as it was, is not read.
        import dataclasses

        def junit_id(nodeid: str) -> str:
            path, test = nodeid.split("::", 1)
            return f"{path.removesuffix('.py').replace('/', '.')}.{test}"

        junit = dataclasses.replace(task, log_parser="junit", test_cmd="pytest -p no:cacheprovider --junitxml=reports/junit.xml tests/test_split.py",
                                    fail_to_pass=tuple(map(junit_id, task.fail_to_pass)), pass_to_pass=tuple(map(junit_id, task.pass_to_pass)))
        by_junit = evaluate_task(junit, Prediction(task.instance_id, "m", task.patch), store, sqlparse[2], Limits(wall_seconds=300), sandbox=own)
        assert by_junit.resolution == "RESOLVED_FULL" and len(by_junit.statuses) == 39, (by_junit.error, by_junit.log[-400:])
        cases = "".join(f'<testcase classname="{t.rsplit(".", 1)[0]}" name="{t.rsplit(".", 1)[1]}"/>' for t in (*junit.fail_to_pass, *junit.pass_to_pass))
        brought = _patch(store, task, tmp_path, {"reports/junit.xml": f"<testsuite>{cases}</testsuite>\n",
                                                 "sqlparse/__init__.py": "\nimport os as _os\n_os._exit(0)\n"})
        forged = evaluate_task(junit, Prediction(task.instance_id, "m", brought), store, sqlparse[2], Limits(wall_seconds=300), sandbox=own)
        assert forged.resolution == "RESOLVED_NO" and not forged.statuses, (forged.resolution, forged.statuses)
        # From the CLI: the per-instance template.
        out = tmp_path / "cli"
        ran = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(_data() / "repo-tasks"), "--repos", str(_data() / "repos"), "--gold",
                                           "--runtime", "podman", "--image", tag, "--instance-ids", SQLPARSE, "--out", str(out),
                                           "--cache-dir", str(tmp_path / "cache")])
        row = json.loads((out / "results.jsonl").read_text())
        assert ran.exit_code == 0 and row["resolution"] == "RESOLVED_FULL" and row["runtime"] == "podman", ran.output
    finally:
        engine.run("rmi", "-f", instance_image(tag, task.instance_id))
    assert _leftovers(engine) == []


@pytest.mark.slow
@pytest.mark.shared_data
def test_the_cli_on_podman_and_on_docker_through_podmans_socket(sqlparse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    data = _data()
    common = ["--tasks", str(data / "repo-tasks"), "--repos", str(data / "repos"), "--python", str(PYTHON), "--cache-dir", str(tmp_path / "cache"),
              "--instance-ids", f"{SQLPARSE},tkem__cachetools-57d2e48", "--gold"]
    ran = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--runtime", "podman", "--out", str(tmp_path / "podman")])
    rows = [json.loads(line) for line in (tmp_path / "podman" / "results.jsonl").read_text().splitlines()]
    assert ran.exit_code == 0 and {r["resolution"] for r in rows} == {"RESOLVED_FULL"} and {r["runtime"] for r in rows} == {"podman"}, ran.output
    bad = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--runtime", "podman", "--image", "localhost/assay-nothing:1",
                                       "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "has no such image" in bad.output
    assert CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--runtime", "lxc", "--out", str(tmp_path / "x")]).exit_code == 2
    checked = CliRunner().invoke(cli.app, ["swe", "validate", "--tasks", str(data / "repo-tasks" / f"{SQLPARSE}.json"), "--repos", str(data / "repos"),
                                           "--python", str(PYTHON), "--runs", "1", "--runtime", "podman", "--cache-dir", str(tmp_path / "cache")])
    assert checked.exit_code == 0 and "valid: 1 of 1" in checked.output, checked.output
    if shutil.which("docker") is None:  # a client only (no engine runs here); its absence is a skip even in CI
        pytest.skip("the podman part passed; the Docker-compatible part needs the docker client")
    sqlparse[3]  # the engine, checked by the fixture
    sock = tmp_path / "podman.sock"
    service = subprocess.Popen(["podman", *Engine.find("podman").global_args, "system", "service", "--time=0", f"unix://{sock}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if sock.exists():
                break
            time.sleep(0.1)
        monkeypatch.setenv("DOCKER_HOST", f"unix://{sock}")
        ran = CliRunner().invoke(cli.app, ["swe", "evaluate", *common, "--runtime", "docker", "--out", str(tmp_path / "docker")])
        docker_rows = [json.loads(line) for line in (tmp_path / "docker" / "results.jsonl").read_text().splitlines()]
        assert ran.exit_code == 0 and {r["runtime"] for r in docker_rows} == {"docker"}, ran.output
        by_id = {r["instance_id"]: r["statuses"] for r in rows}
        assert all(r["resolution"] == "RESOLVED_FULL" and r["statuses"] == by_id[r["instance_id"]] for r in docker_rows)
    finally:
        service.terminate()
        service.wait(timeout=30)
