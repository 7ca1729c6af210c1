"""A task's test environment: a virtualenv with its test dependencies, made once per distinct setup.

The key is a content hash of the base interpreter's version and the task's `install` commands, so
tasks with the same setup share one environment. It is built once, with network where that is
allowed (`python -m pip install ...` run with the environment's own interpreter), and only read
afterwards: the runtime shows it read-only. `--python` names an interpreter to use instead (one
that already has the tests' dependencies: offline, as the tests do).
"""

from __future__ import annotations

import hashlib
import re
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from assay.swe.tasks import Task

_LOCK = threading.Lock()


class EnvironmentFailed(RuntimeError):
    """An environment could not be built (one line: the command and its last output)."""


def commands(install: str) -> list[list[str]]:
    """The install text as argv lists, comments and blank lines dropped."""
    out = []
    for line in install.splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            out.append(shlex.split(line))
    return out


def env_key(task: Task, base_python: str = sys.executable) -> str:
    version = subprocess.run([base_python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True, check=True).stdout
    return hashlib.sha256(f"{version}\n{commands(task.install)!r}".encode()).hexdigest()[:16]


def ready(task: Task, cache_dir: Path, base_python: str = sys.executable) -> Path | None:
    """The environment's interpreter if it is built (`assay swe prepare`), else None; never builds."""
    root = cache_dir / "swe" / "envs" / env_key(task, base_python)
    return root / "bin" / "python" if (root / ".ready").exists() else None


def build(task: Task, cache_dir: Path, base_python: str = sys.executable) -> Path:
    """The environment's interpreter, building the environment first if it is not there."""
    root = cache_dir / "swe" / "envs" / env_key(task, base_python)
    python = root / "bin" / "python"
    with _LOCK:
        if (root / ".ready").exists():
            return python
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run([base_python, "-m", "venv", str(root)], check=True, capture_output=True)
        for argv in commands(task.install):
            if argv and argv[0] in ("python", "python3"):
                argv = [str(python), *argv[1:]]
            elif argv and argv[0] in ("pip", "pip3"):
                argv = [str(python), "-m", "pip", *argv[1:]]
            done = subprocess.run(argv, capture_output=True, text=True)
            if done.returncode != 0:
                shutil.rmtree(root, ignore_errors=True)
                raise EnvironmentFailed(f"{task.instance_id}: `{shlex.join(argv)}` failed: {(done.stdout + done.stderr).strip()[-300:]}")
        (root / ".ready").write_text(task.install)
    return python
