"""A task's test environment: a virtualenv with its test dependencies, made once per distinct setup.

The key is a content hash of the base interpreter's version and the task's `install` commands, so
tasks with the same setup share one environment. It is built once, with network where that is
allowed (`python -m pip install ...` run with the environment's own interpreter), and only read
afterwards: the runtime shows it read-only. `--python` names an interpreter to use instead (one
that already has the tests' dependencies: offline, as the tests do).

A task set up from SWE-bench's specs (`assay.swe.specs`, `extra["spec"]`) gets SWE-bench's two layers
in one environment per instance (the key: the spec, the interpreter, the requirements' text, the
repository and base commit): a venv of the spec's Python version (`python3.X` on PATH, or uv's); the
spec's packages (a list, or the repository's requirements file at `environment_setup_commit`) and
`pip_packages`, installed with that venv's pip; then `pre_install` and `install` run in a bubblewrap
workspace with the checkout at /testbed (where the tests will see it, so an editable install points
there), the venv writable and the network on. What those steps leave in the checkout that git does not
track (compiled extensions, egg-info) is kept in the environment's `assay-overlay/` and copied into
each run's checkout before the patches.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.swe.tasks import Task

if TYPE_CHECKING:
    from assay.swe.repos import RepoStore

OVERLAY = "assay-overlay"  # in an environment's root: build outputs copied into each run's checkout

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


def needs_env(task: Task) -> bool:
    """Whether the task's setup asks for an environment of its own (install commands, or a spec)."""
    return task.language == "python" and bool(task.install or "spec" in task.extra)


def env_key(task: Task, base_python: str = sys.executable, store: RepoStore | None = None) -> str:
    spec = task.extra.get("spec")
    if spec is not None:
        python = spec_python(task)
        version = subprocess.run([python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True, check=True).stdout
        reqs = requirements(task, store) if spec.get("packages") == "requirements.txt" and store is not None else ""
        material = {k: v for k, v in spec.items() if k not in ("source", "test_cmd", "eval_commands")}
        text = json.dumps([version, material, reqs, task.repo, task.base_commit], sort_keys=True, default=str)
        return "spec-" + hashlib.sha256(text.encode()).hexdigest()[:16]
    version = subprocess.run([base_python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True, check=True).stdout
    return hashlib.sha256(f"{version}\n{commands(task.install)!r}".encode()).hexdigest()[:16]


def ready(task: Task, cache_dir: Path, base_python: str = sys.executable, store: RepoStore | None = None) -> Path | None:
    """The environment's interpreter if it is built (`assay swe prepare`), else None; never builds."""
    root = cache_dir / "swe" / "envs" / env_key(task, base_python, store)
    return root / "bin" / "python" if (root / ".ready").exists() else None


def build(task: Task, cache_dir: Path, base_python: str = sys.executable, store: RepoStore | None = None) -> Path:
    """The environment's interpreter, building the environment first if it is not there."""
    if "spec" in task.extra:
        from assay.swe.repos import RepoStore

        store = store or RepoStore(cache_dir, [])
    root = cache_dir / "swe" / "envs" / env_key(task, base_python, store)
    python = root / "bin" / "python"
    with _LOCK:
        if (root / ".ready").exists():
            return python
        shutil.rmtree(root, ignore_errors=True)
        if "spec" in task.extra:
            assert store is not None
            try:
                _build_from_spec(task, root, store, cache_dir)
            except BaseException:
                shutil.rmtree(root, ignore_errors=True)
                raise
            (root / ".ready").write_text(json.dumps(task.extra["spec"], default=str))
            return python
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


def spec_python(task: Task) -> str:
    """The interpreter of the spec's Python version: `python3.X` on PATH, else uv's; a one-line error if neither."""
    spec = task.extra["spec"]
    wanted = str(spec["python"])
    found = shutil.which(f"python{wanted}")
    if found is None and shutil.which("uv"):
        done = subprocess.run(["uv", "python", "find", "--no-project", wanted], capture_output=True, text=True)
        found = done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None
    if found is not None:  # the interpreter itself, not a launcher (pyenv's shims are scripts)
        done = subprocess.run([found, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True)
        found = done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None
    if found is None:
        raise EnvironmentFailed(f"{task.instance_id}: the spec for {spec['repo']} {spec['version']} ({spec['source']}) needs Python {wanted}: "
                                f"put python{wanted} on PATH (e.g. `uv python install {wanted}`), or give --python")
    return found


def requirements(task: Task, store: RepoStore) -> str:
    """The repository's requirements file at the environment's commit, as SWE-bench reads it: `-r` includes
    inlined, `-e .`, `.[test...]` and comment lines dropped."""
    spec = task.extra["spec"]
    commit = str(task.extra.get("environment_setup_commit") or task.base_commit)
    mirror = store.mirror(task.repo_key, task.repo)

    def show(path: str) -> str | None:
        done = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=mirror, capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else None

    def keep(line: str) -> bool:
        return not line.strip().startswith(("-e .", "#", ".[test"))

    for path in spec.get("requirements_paths") or []:
        text = show(path)
        if text is None:
            continue
        folder = os.path.dirname(path)
        extra: list[str] = []
        own: list[str] = []
        for line in text.splitlines():
            if line.strip().startswith("-r"):
                included = show(os.path.normpath(os.path.join(folder, line.strip()[2:].strip())))
                extra += [x for x in (included or "").splitlines() if keep(x)]
            elif keep(line):
                own.append(line)
        return "\n".join([*extra, "\n".join(own)])
    raise EnvironmentFailed(f"{task.instance_id}: no requirements file at {', '.join(spec.get('requirements_paths') or ['(none named)'])} "
                            f"in {task.repo} at {commit[:12]}")


def _run(task: Task, argv: list[str], what: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env)
    if done.returncode != 0:
        raise EnvironmentFailed(f"{task.instance_id}: {what} `{shlex.join(argv)[-200:]}` failed: {(done.stdout + done.stderr).strip()[-300:]}")


def _build_from_spec(task: Task, root: Path, store: RepoStore, cache_dir: Path) -> None:
    spec: dict[str, Any] = task.extra["spec"]
    base = spec_python(task)
    _run(task, [base, "-m", "venv", str(root)], "making the venv")
    python = root / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    packages = str(spec.get("packages") or "")
    if packages == "environment.yml":
        raise EnvironmentFailed(f"{task.instance_id}: the spec for {spec['repo']} {spec['version']} installs with conda (environment.yml), "
                                "which Assay does not run: give --python (an interpreter with those packages), or an image (--image)")
    with tempfile.TemporaryDirectory(prefix="assay-spec-") as tmp:
        if packages == "requirements.txt":
            reqs = Path(tmp) / "requirements.txt"
            reqs.write_text(requirements(task, store))
            _run(task, [*pip, "-r", str(reqs)], "installing the requirements")
        elif packages.strip():
            _run(task, [*pip, *shlex.split(packages)], "installing the packages")  # sklearn's are quoted
        if spec.get("pip_packages"):
            _run(task, [*pip, *map(str, spec["pip_packages"])], "installing pip_packages")
        checkout = store.checkout(task.repo_key, task.repo, task.base_commit, Path(tmp) / "testbed")
        steps = [*map(str, spec.get("pre_install") or ()), *([str(spec["install"])] if spec.get("install") else [])]
        missing = _missing_system_packages(steps)
        if missing:
            raise EnvironmentFailed(f"{task.instance_id}: the spec's pre_install needs system packages this machine lacks: "
                                    f"apt-get install {' '.join(missing)}")
        steps = [s for s in steps if not re.match(r"\s*(sudo\s+)?apt(-get)?\s", s)]
        mirror = store.mirror(task.repo_key, task.repo)
        for step in steps:
            _in_testbed(task, step, checkout, root, cache_dir, mirror)
        _keep_overlay(checkout, root / OVERLAY)


def _missing_system_packages(steps: list[str]) -> list[str]:
    """Packages `apt-get install` lines in the steps name that dpkg does not have installed."""
    wanted: list[str] = []
    for step in steps:
        for part in re.split(r"&&|;", step):
            words = shlex.split(part)
            words = words[1:] if words[:1] == ["sudo"] else words
            if words[:1] in (["apt-get"], ["apt"]) and "install" in words:
                wanted += [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
    return [p for p in wanted if subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True).stdout.strip()
            != "install ok installed"]


def _in_testbed(task: Task, step: str, checkout: Path, root: Path, cache_dir: Path, mirror: Path) -> None:
    """One setup step in the checkout at /testbed: bubblewrap, the venv writable at its own path, network on."""
    from assay.swe.harness import Environment
    from assay.swe.runtime import Bwrap, Limits

    env = Environment.of(root / "bin" / "python")
    pip_cache = cache_dir / "swe" / "pip-cache"
    pip_cache.mkdir(parents=True, exist_ok=True)
    scratch = checkout.parent / "scratch"
    scratch.mkdir(exist_ok=True)
    # the checkout's objects are its mirror's (git clone --shared): shown read-only, for setuptools-scm and the like
    pip_env, pip_paths = _host_pip_config()
    runtime = Bwrap(ro_paths=[*(p for p in env.ro_paths if Path(p).resolve() != root.resolve()), str(mirror), *pip_paths],
                    rw_paths=[str(root), str(pip_cache)], network=True)
    variables = {"PATH": ":".join([str(root / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]), "HOME": "/tmp", "LANG": "C.UTF-8",
                 "VIRTUAL_ENV": str(root), "PIP_CACHE_DIR": str(pip_cache), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                 "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*", **pip_env, **dict(task.env_vars)}
    result = runtime.run(checkout, scratch, step, variables, Limits(wall_seconds=3600))
    if result.exit_code != 0:
        raise EnvironmentFailed(f"{task.instance_id}: setup step `{step[:120]}` failed in /testbed"
                                f"{' (timed out)' if result.timed_out else ''}: {result.output.strip()[-300:]}")


def _host_pip_config() -> tuple[dict[str, str], list[str]]:
    """What the setup steps need of the host's pip configuration: its PIP_* and proxy variables, its config
    files (the user's through PIP_CONFIG_FILE), and the local directories they name (find-links, certificates)."""
    variables = {k: v for k, v in os.environ.items() if k.startswith("PIP_") or k.lower() in ("http_proxy", "https_proxy", "no_proxy")}
    files = [f for f in ("/etc/pip.conf", "/etc/xdg/pip/pip.conf") if os.path.isfile(f)]
    user = next((f for f in (os.path.expanduser("~/.config/pip/pip.conf"), os.path.expanduser("~/.pip/pip.conf")) if os.path.isfile(f)), None)
    if user and "PIP_CONFIG_FILE" not in variables:
        variables["PIP_CONFIG_FILE"] = user
    values = list(variables.values())
    for name in [*files, variables.get("PIP_CONFIG_FILE", "")]:
        if os.path.isfile(name):
            values += [line.partition("=")[2].strip() for line in Path(name).read_text(errors="replace").splitlines() if "=" in line]
    local = [v for value in values for v in value.split() if v.startswith("/") and os.path.exists(v)]
    return variables, sorted({*files, *local})


def _keep_overlay(checkout: Path, overlay: Path) -> None:
    """Copy what the setup left in the checkout that git does not track (ignored files included) to `overlay`."""
    listed = subprocess.run(["git", "ls-files", "--others", "-z"], cwd=checkout, capture_output=True, check=True).stdout
    overlay.mkdir(parents=True, exist_ok=True)
    for name in filter(None, listed.decode("utf-8", "surrogateescape").split("\0")):
        if "__pycache__" in Path(name).parts:
            continue
        source = checkout / name
        if source.is_symlink() or source.is_file():
            (overlay / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, overlay / name, follow_symlinks=False)
