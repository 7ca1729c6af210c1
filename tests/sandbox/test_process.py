"""The plain-process sandbox: the shared contract, plus what it promises on its own (no isolation)."""

from __future__ import annotations

import os
import sys
import uuid

import pytest

from assay.sandbox import ProcessSandbox, Sandbox
from assay.sandbox._limits import UID_BASE

from .hostile import program
from .test_bubblewrap import FAST, IS_ROOT, SandboxContract, assert_healthy, assert_no_process, run_hostile, run_py


@pytest.fixture(scope="module")
def plain() -> ProcessSandbox:
    return ProcessSandbox()


class TestProcessContract(SandboxContract):
    @pytest.fixture
    def sandbox(self, plain: ProcessSandbox) -> Sandbox:
        return plain


def test_isolation_is_stated_plainly(plain: ProcessSandbox) -> None:
    assert plain.name == "process"
    assert "NO filesystem or network isolation" in plain.isolation


def test_work_dir_is_fresh_and_removed(plain: ProcessSandbox) -> None:
    source = "import os; print(os.getcwd()); print(sorted(os.listdir('.'))); print(os.environ['TMPDIR'])"
    result = plain.run([sys.executable, "-I", "-S", "main.py"], {"main.py": source.encode()}, FAST)
    cwd, listing, tmpdir = result.stdout.decode().splitlines()
    assert listing == "['main.py']" and os.environ["HOME"] != cwd
    assert not os.path.exists(cwd) and not os.path.exists(tmpdir)


def test_big_file_is_refused(plain: ProcessSandbox) -> None:
    result = run_py(plain, "open('big', 'wb').write(b'0' * (8 * 1024 * 1024))")
    assert result.exit_code == 1 and b"File too large" in result.stderr, result


@pytest.mark.skipif(not IS_ROOT, reason="as root each run gets a uid of its own")
def test_root_runs_as_a_dedicated_uid(plain: ProcessSandbox) -> None:
    result = run_py(plain, "import os; print(os.getuid(), os.geteuid(), os.getgroups())")
    uid, euid, groups = result.stdout.decode().split(maxsplit=2)
    assert int(uid) == int(euid) >= UID_BASE and groups.strip() == "[]"


def test_daemon_does_not_outlive_the_run(plain: ProcessSandbox) -> None:
    marker = f"daemon-{uuid.uuid4()}"
    result = run_hostile(plain, "daemon", marker)
    assert result.exit_code == 0, result
    assert_no_process(marker)
    assert_healthy(plain)


@pytest.mark.skipif(not IS_ROOT, reason="without root, the plain sandbox can signal the caller's own processes")
def test_killing_the_parent_and_everyone(plain: ProcessSandbox) -> None:
    result = run_hostile(plain, "kill_parent")
    # its parent is the init, which runs under the same uid here: the program may take it down,
    # losing its own exit status, but nothing outside its uid
    assert result.stdout.startswith(b"ppid") and (result.exit_code == 0 or result.signal == 9), result
    assert_healthy(plain)


_ = program  # hostile programs are shared with the bubblewrap tests
