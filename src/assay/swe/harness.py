"""One repository task, end to end, as SWE-bench v5's harness runs it, with no Docker engine needed:

1. a clean checkout at base_commit, from the repository's one object store (`assay.swe.repos`);
2. the model patch, with SWE-bench's fallback chain, the step that worked recorded;
3. the files the grading depends on put back as at base_commit (the test patch's files, conftest.py,
   pytest.ini, tox.ini), then the test patch;
4. the task's test command in the runtime (`Sandbox`: bubblewrap, `assay.swe.runtime`, by default, or a
   container, `assay.swe.containers`; no network, limits), with Assay's
   pytest plugin writing each test's status by exact id to a scratch directory outside the checkout;
5. the statuses graded against FAIL_TO_PASS / PASS_TO_PASS (`assay.swe.grading`).

An infrastructure failure (the repository or commit missing, the environment not building, the test
patch not applying) is an `error` outcome, kept apart: never counted as the model's failure or
success. What happens after the model's patch is the model's: a patch that does not apply, an empty
one, a test run that times out or reports no status for any wanted test (a broken build, an import
error, an early exit) is RESOLVED_NO, with the reason, so a patch cannot turn its failure into an
uncounted error.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from assay.swe import patches
from assay.swe.containers import ChangesRejected, ContainerFailed
from assay.swe.envs import OVERLAY
from assay.swe.grading import Report, Resolution, TestStatus, grade
from assay.swe.parsers import JUNIT_DIR, PARSERS, RESULTS_FILE
from assay.swe.repos import RepoStore, RepoUnavailable
from assay.swe.runtime import SCRATCH, Bwrap, Limits, RunResult
from assay.swe.tasks import Prediction, Task

if TYPE_CHECKING:
    from collections.abc import Mapping

    from assay.swe.containers import Engine

PLUGIN = Path(__file__).with_name("pytest_plugin.py")
PLUGIN_DIR = "/assay-plugin"  # where the runtime shows the plugin, read-only


@dataclass
class TaskResult:
    """One prediction on one task: its resolution, or the infrastructure error that left it ungraded."""

    instance_id: str
    model: str
    resolution: str  # a Resolution, or "error"
    repo: str = ""
    language: str = ""
    run: int = 0  # which run of this task (several predictions files, or --runs-per-task)
    applied_by: str = ""  # the fallback step that applied the model patch ("" if none did)
    error: str = ""  # why the task was not graded (infrastructure), or why a model patch did not go in
    restored: list[str] = field(default_factory=list)  # grading files the model patch had changed, put back
    exit_code: int | None = None
    seconds: float = 0.0
    statuses: dict[str, str] = field(default_factory=dict)
    f2p_failed: list[str] = field(default_factory=list)
    p2p_failed: list[str] = field(default_factory=list)
    log: str = ""
    patch_sha256: str = ""
    empty_patch: bool = False
    fail_to_pass: list[str] = field(default_factory=list)  # the task's, for the report's per-task view
    pass_to_pass: list[str] = field(default_factory=list)
    patch: str = ""  # the model patch (the first 200,000 characters)
    runtime: str = ""  # where the tests ran: bwrap, podman, docker
    disk_bytes: int = 0  # the task's workspace (checkout, build outputs, scratch) when its tests ended; objects are the mirror's

    @property
    def resolved(self) -> bool:
        return self.resolution == Resolution.FULL.value

    @property
    def infra(self) -> bool:
        return self.resolution == "error"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# Assay's language plugin whose toolchain a task's language uses, and the variables its test command needs.
TOOLCHAINS: dict[str, tuple[str, dict[str, str]]] = {
    "go": ("go", {"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOCACHE": "/tmp/go-cache", "GOPATH": "/tmp/go", "GOTOOLCHAIN": "local"}),
    "rust": ("rust", {"CARGO_HOME": "/tmp/cargo-home", "CARGO_NET_OFFLINE": "true"}),
    "swift": ("swift", {}),
    "ruby": ("ruby", {}),
}


@dataclass(frozen=True)
class Environment:
    """What the tests run with: an interpreter (a venv with the task's test dependencies, for Python), the
    language's toolchain, and what the runtime must show, read-only."""

    python: Path
    ro_paths: tuple[str, ...]
    path: tuple[str, ...] = ()  # directories put first on PATH
    variables: tuple[tuple[str, str], ...] = ()
    overlay: str = ""  # build outputs of the environment's setup (assay.swe.envs), copied into each checkout

    @classmethod
    def of(cls, python: Path, language: str = "python") -> Environment:
        """The environment of `python` (not resolved: a venv's bin/python is a link to its base interpreter),
        with the toolchain of `language` where it has one (Go, Rust, Swift, Ruby; C builds with /usr's)."""
        python = python.absolute()
        done = subprocess.run([str(python), "-c", "import sys; print(sys.prefix); print(sys.base_prefix)"], capture_output=True, text=True, check=True)
        ro = [*done.stdout.split(), str(python.parent)]
        path = [str(python.parent)]
        overlay = Path(done.stdout.split()[0]) / OVERLAY if done.stdout.split() else None
        variables: dict[str, str] = {}
        plugin = TOOLCHAINS.get(language)
        if plugin is not None:
            from assay.languages import get_language

            toolchain = get_language(plugin[0]).toolchain()
            dirs = sorted({str(Path(tool).parent) for tool in toolchain.tools.values()})
            ro += [*toolchain.ro_binds, *dirs]
            path = [*dirs, *path]
            variables.update({k: v for k, v in toolchain.env.items() if not k.startswith("ASSAY_")})
            variables.update(plugin[1])
        return cls(python, tuple(ro), tuple(path), tuple(sorted(variables.items())), str(overlay) if overlay and overlay.is_dir() else "")


class Runtime(Protocol):
    """What runs a command in a task's checkout: `Bwrap` or `Container`."""

    name: str

    def run(self, checkout: Path, scratch: Path, command: str, env: Mapping[str, str], limits: Limits) -> RunResult: ...


@dataclass(frozen=True)
class Sandbox:
    """Which runtime a task's tests run in: bubblewrap (the default), or a container engine and its image.
    An image name with `{id}` or `{instance_id}` is a per-instance template (SWE-bench's published images,
    `swebench/sweb.eval.x86_64.{id}`): such an image brings its own /testbed and environment."""

    kind: str = "bwrap"
    engine: Engine | None = None
    image: str = ""

    @property
    def per_instance(self) -> bool:
        return "{" in self.image or self.image == "dataset"

    def image_for(self, task: Task) -> str:
        """The image for `task`: fixed, from the template, or (`dataset`) the one its row names (SWE-bench 5's `image`)."""
        from assay.swe.containers import instance_image

        if self.image == "dataset":
            return str(task.extra.get("image") or "") or instance_image("docker.io/swebench/sweb.eval.x86_64.{id}:latest", task.instance_id)
        return instance_image(self.image, task.instance_id) if self.per_instance else self.image

    def environment(self, env: Environment) -> Environment:
        """`env`, or for a per-instance image the image's own (its testbed env first on PATH, nothing of the host's)."""
        if not self.per_instance:
            return env
        from assay.swe.containers import INSTANCE_PATH

        return Environment(Path("python"), (), INSTANCE_PATH, env.variables)

    def runtime(self, task: Task, ro_paths: tuple[str, ...], mounts: dict[str, str] | None = None, export_xml: Path | None = None) -> Runtime:
        """The runtime for `task`; `export_xml`: where a per-instance image's run copies the XML files it wrote."""
        if self.kind == "bwrap" or self.engine is None:
            return Bwrap(ro_paths=ro_paths, mounts=mounts)
        from assay.swe.containers import Container

        return Container(self.engine, self.image_for(task), ro_paths=() if self.per_instance else ro_paths, mounts=mounts,
                         testbed_in_image=self.per_instance, base_commit=task.base_commit,
                         export_xml=export_xml if self.per_instance else None)


BWRAP = Sandbox()


def lay_overlay(env: Environment, checkout: Path) -> None:
    """Copy what the environment's setup built in its checkout (extensions, egg-info: untracked) into this
    checkout, each file listed in .git/info/exclude so that no `git add -A` (the agent's diff) takes it in."""
    if not env.overlay:
        return
    overlay = Path(env.overlay)
    shutil.copytree(overlay, checkout, dirs_exist_ok=True, symlinks=True)
    names = sorted("/" + str(f.relative_to(overlay)) for f in overlay.rglob("*") if f.is_file() or f.is_symlink())
    exclude = checkout / ".git" / "info" / "exclude"
    if (checkout / ".git").is_dir() and names:
        exclude.parent.mkdir(exist_ok=True)
        with open(exclude, "a") as out:
            out.write("\n# assay: the environment's build outputs\n" + "\n".join(names) + "\n")


def test_env(task: Task, env: Environment, results_name: str = RESULTS_FILE) -> dict[str, str]:
    """The test command's environment: the toolchain's and the task's variables, its tools first on PATH, the plugin."""
    out = {"PATH": ":".join([*env.path, "/usr/local/bin", "/usr/bin", "/bin"]), "HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    out.update(dict(env.variables))
    out.update(dict(task.env_vars))
    if task.log_parser == "pytest":
        out["PYTHONPATH"] = ":".join(p for p in (out.get("PYTHONPATH", ""), PLUGIN_DIR) if p)
        out["PYTEST_ADDOPTS"] = " ".join(p for p in (out.get("PYTEST_ADDOPTS", ""), "-p assay_swe_plugin") if p)
        out["ASSAY_SWE_RESULTS"] = f"{SCRATCH}/{results_name}"
    return out


def evaluate_task(task: Task, prediction: Prediction, store: RepoStore, env: Environment, limits: Limits, work: Path | None = None,
                  run_empty: bool = False, sandbox: Sandbox = BWRAP) -> TaskResult:
    """Grade one prediction on one task (see the module docstring). An empty patch is not run (RESOLVED_NO,
    as SWE-bench has it) unless `run_empty`: then the tests run on the base commit, to show the F2P tests fail there."""
    started = time.monotonic()
    result = TaskResult(task.instance_id, prediction.model, "error", repo=task.repo, language=task.language,
                        patch_sha256=hashlib.sha256(prediction.patch.encode()).hexdigest(), empty_patch=not prediction.patch.strip(),
                        fail_to_pass=list(task.fail_to_pass), pass_to_pass=list(task.pass_to_pass), patch=prediction.patch[:200_000])
    with tempfile.TemporaryDirectory(prefix=f"assay-swe-{task.repo_key}-", dir=work) as tmp:
        root = Path(tmp)
        try:
            checkout = store.checkout(task.repo_key, task.repo, task.base_commit, root / "testbed")
        except (RepoUnavailable, subprocess.CalledProcessError) as exc:
            result.error = f"repository: {exc}"
            return result
        lay_overlay(env, checkout)
        reaching = patches.tampering(prediction.patch, task.test_patch)
        if reaching:
            result.resolution = Resolution.NO.value
            result.error = f"the patch reaches into the test runner: {reaching[0]}" + (f" (and {len(reaching) - 1} more)" if len(reaching) > 1 else "")
            result.seconds = time.monotonic() - started
            return result
        applied = patches.apply(checkout, prediction.patch) if prediction.patch.strip() or not run_empty else patches.Applied("none (empty)", "")
        result.applied_by = applied.step
        if not applied.ok:
            result.resolution = Resolution.NO.value
            result.error = "empty patch" if result.empty_patch else "the model patch does not apply (every step of the fallback chain failed)"
            result.log = applied.log
            result.seconds = time.monotonic() - started
            return result
        result.restored = patches.restore_grading_files(checkout, task.base_commit, task.test_patch)
        test_patch = patches.apply(checkout, task.test_patch) if task.test_patch.strip() else patches.Applied("none", "")
        if not test_patch.ok:
            result.error = "the test patch does not apply after the model patch"
            result.log = test_patch.log
            return result
        scratch = root / "scratch"
        # The statuses file has a name of its own each run, in a directory the run may write in but not list
        # (0o333; every capability is dropped, root in the workspace included): code that knows where the
        # directory is still cannot find the file to forge it.
        scratch.mkdir(mode=0o333)
        scratch.chmod(0o333)
        results_name = f"pytest-results-{secrets.token_hex(16)}.jsonl"
        plugin_dir = root / "plugin"
        plugin_dir.mkdir()
        shutil.copy(PLUGIN, plugin_dir / "assay_swe_plugin.py")
        env = sandbox.environment(env)
        in_image_junit = task.log_parser == "junit" and sandbox.per_instance
        runtime = sandbox.runtime(task, env.ro_paths, mounts={str(plugin_dir): PLUGIN_DIR}, export_xml=root / JUNIT_DIR if in_image_junit else None)
        junit_before = xml_files(checkout) if task.log_parser == "junit" else {}
        try:
            run = runtime.run(checkout, scratch, task.test_cmd, test_env(task, env, results_name), limits)
        except ContainerFailed as exc:  # the harness's own step in the container: infrastructure, unless the patch made it fail
            result.error = f"{runtime.name}: {exc}"
            if isinstance(exc, ChangesRejected):  # never an uncounted error a patch can hide behind
                result.resolution = Resolution.NO.value
            result.seconds = time.monotonic() - started
            return result
        result.runtime = runtime.name
        result.exit_code = run.exit_code
        result.log = run.output[-20000:]
        if run.timed_out:  # the model's patch may loop: its failure, as SWE-bench counts a timeout
            result.resolution = Resolution.NO.value
            result.error = f"the test command passed the limit of {limits.wall_seconds:.0f} s"
            result.seconds = time.monotonic() - started
            return result
        parser = PARSERS.get(task.log_parser)
        if parser is None:
            result.error = f"no log parser {task.log_parser!r} (known: {', '.join(PARSERS)})"
            return result
        result.disk_bytes = tree_bytes(root)
        source = scratch / results_name if task.log_parser == "pytest" else scratch
        if task.log_parser == "junit":  # in a per-instance image the container copied them out already
            source = root / JUNIT_DIR if in_image_junit else junit_reports(checkout, root / JUNIT_DIR, junit_before)
        statuses = parser(source, run.output)
        result.statuses = {k: v.value for k, v in statuses.items()}
        report: Report = grade(statuses, task.fail_to_pass, task.pass_to_pass)
        result.f2p_failed, result.p2p_failed = report.f2p_failed, report.p2p_failed
        # No status for any wanted test: the suite never ran (a broken build, an import error, an early exit).
        # After the model's patch that is the patch's failure, never an infrastructure error it could hide behind.
        result.resolution = report.resolution.value
        result.error = report.why
        result.seconds = time.monotonic() - started
        return result


def xml_files(checkout: Path) -> dict[str, tuple[int, int, int]]:
    """The checkout's XML files (outside .git, links left out): path -> (inode, size, mtime in ns)."""
    import os

    out: dict[str, tuple[int, int, int]] = {}
    for parent, dirs, names in os.walk(checkout):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = os.path.join(parent, name)
            if name.endswith(".xml") and not os.path.islink(path):
                st = os.stat(path)
                out[os.path.relpath(path, checkout)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return out


def junit_reports(checkout: Path, dest: Path, before: dict[str, tuple[int, int, int]]) -> Path:
    """The XML files the test run wrote or changed in the checkout, copied to `dest` (outside it): a report a
    patch adds is there, unchanged, before the run, and is not read."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel, seen in xml_files(checkout).items():
        if before.get(rel) != seen:
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(checkout / rel, target)
    return dest


def tree_bytes(root: Path) -> int:
    """Bytes of the files under root (links not followed)."""
    import os

    total = 0
    for parent, _, names in os.walk(root):
        for name in names:
            try:
                total += os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                continue
    return total


def statuses_of(result: TaskResult) -> dict[str, TestStatus]:
    return {k: TestStatus(v) for k, v in result.statuses.items()}
