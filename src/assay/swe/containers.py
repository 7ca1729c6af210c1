"""Where a repository task's tests run when it needs a system of its own: a container (podman, or any
Docker-compatible engine through the same code path).

One container per test run, from an image that gives the system (/usr, /etc, libc, git, the compilers):
no network, every capability dropped, no new privileges, a pid, memory and per-process CPU limit, the
root file system read-only; the checkout at /testbed and a scratch directory writable. The task's
interpreter and the toolchains that live outside the system directories (a venv, pyenv, rustup,
/opt/swift) are shown read-only at their own paths, as the bubblewrap runtime shows them, so both
runtimes grade with the same interpreter; what lives in /usr (gcc, make, cmake, go, ruby) is the
image's own.

An image whose /testbed is already the project at base_commit (SWE-bench's published
`swebench/sweb.eval.x86_64.<id>` images, or one built locally to their layout) is used as it is: its
/testbed and its environment (/opt/miniconda3/envs/testbed) stay; the harness's changes to the
checkout (model patch, restored grading files, test patch) go in as one binary diff applied before the
tests start, and the image's /testbed must be at base_commit.

The container is started with `sleep infinity` and the steps are `exec`s into it, so the harness's own
steps (applying the diff) and the test command have separate exit statuses: a test command that exits
125 is the test command's status, never mistaken for the engine failing.

Images are built here from a local debootstrap root, with no registry (`assay swe image build`).
"""

from __future__ import annotations

import os
import resource
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.swe.runtime import SCRATCH, TESTBED, Limits, RunResult, RuntimeUnavailable

IMAGE = "localhost/assay-swe:bookworm"
MARKER = "/etc/assay-image"  # in an image built here: its tag, the Debian release and mirror, the packages
CHANGES_DIR = "/assay-changes"
INSTANCE_PATH = ("/opt/miniconda3/envs/testbed/bin", "/opt/miniconda3/bin")  # SWE-bench's images: the testbed conda env
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/var", "/proc", "/sys", "/dev")
# What each language's tests need from the image's system; the interpreter and toolchains outside /usr are the host's.
PACKAGES: dict[str, tuple[str, ...]] = {
    "base": ("git", "patch", "ca-certificates", "procps", "python3", "python3-venv", "python3-pip", "python3-pytest"),
    "c": ("gcc", "g++", "libc6-dev", "make", "cmake"),
    "go": ("golang-go", "gcc", "libc6-dev"),
    "ruby": ("ruby",),
    "rust": ("gcc", "libc6-dev"),
    "swift": ("binutils", "gcc", "libc6-dev", "libstdc++-12-dev", "libcurl4", "libxml2", "libedit2", "libsqlite3-0", "libncurses6",
              "tzdata", "libz3-4", "libpython3.11"),
}


class ContainerFailed(RuntimeError):
    """A harness step in the container failed (the image missing, its /testbed not at base_commit, the
    changes not applying): an infrastructure error, never the model's."""


class ChangesRejected(ContainerFailed):
    """The image's /testbed is at base_commit, but the checkout's changes do not apply there (a path the
    patch adds is an untracked file of the image's build, say): after the model's patch, so the model's."""


@dataclass(frozen=True)
class Engine:
    """A container engine's command line: podman, or a Docker-compatible client (docker against podman's socket)."""

    binary: str
    global_args: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return Path(self.binary).name

    @classmethod
    def find(cls, name: str) -> Engine:
        """The engine `name` (podman or docker), checked to answer; on a hybrid cgroup v1 host podman is told
        to use runc (crun refuses hybrid mode), unless containers.conf names a runtime."""
        binary = shutil.which(name)
        if binary is None:
            package = "podman runc" if name == "podman" else "docker.io (or podman's Docker-compatible socket)"
            raise RuntimeUnavailable(f"{name} is not installed: apt-get install {package} (or pick --runtime bwrap)")
        info = subprocess.run([binary, "info", "--format", "{{json .}}"], capture_output=True, text=True, timeout=120)
        if info.returncode != 0:
            why = (info.stderr.strip() or info.stdout.strip()).splitlines()[-1:] or ["no output"]
            raise RuntimeUnavailable(f"{name} does not answer (`{name} info`: {why[0]}); for docker, start an engine or point DOCKER_HOST "
                                     "at podman's socket (`podman system service`)")
        args: tuple[str, ...] = ()
        if name == "podman" and _hybrid_cgroups() and shutil.which("runc") and "runtime" not in _containers_conf():
            args = ("--runtime", "runc")
        return cls(binary, args)

    def cmd(self, *args: str) -> list[str]:
        return [self.binary, *self.global_args, *args]

    def run(self, *args: str, timeout: float = 600, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(self.cmd(*args), capture_output=True, timeout=timeout, input=input)

    def has_image(self, image: str) -> bool:
        return self.run("image", "inspect", image, timeout=60).returncode == 0


def _hybrid_cgroups() -> bool:
    return os.path.isdir("/sys/fs/cgroup/unified") and os.path.isdir("/sys/fs/cgroup/memory")


def _containers_conf() -> str:
    text = ""
    for path in ("/etc/containers/containers.conf", os.path.expanduser("~/.config/containers/containers.conf")):
        try:
            text += Path(path).read_text()
        except OSError:
            continue
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def _limit(which: int, wanted: int) -> int:
    """`wanted`, or the host's hard limit where that is lower (a container cannot be given more here)."""
    hard = resource.getrlimit(which)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def _ulimits(cpu_seconds: int) -> list[str]:
    """Explicit limits: the engine's defaults (nofile 1048576) are above this host's hard limits, which the OCI runtime refuses."""
    nofile = _limit(resource.RLIMIT_NOFILE, 65536)
    nproc = _limit(resource.RLIMIT_NPROC, 16384)  # runc refuses more here (65536: EPERM); --pids-limit is lower anyway
    return ["--ulimit", f"nofile={nofile}:{nofile}", "--ulimit", f"nproc={nproc}:{nproc}", "--ulimit", f"cpu={cpu_seconds}:{cpu_seconds}",
            "--ulimit", "core=0:0"]


def instance_image(template: str, instance_id: str) -> str:
    """A per-instance image name from a template: `{instance_id}` as given, `{id}` as SWE-bench names its
    images (lower case, `__` as `_1776_`): swebench/sweb.eval.x86_64.{id}."""
    return template.replace("{instance_id}", instance_id).replace("{id}", instance_id.lower().replace("__", "_1776_"))


class Container:
    """The container runtime: the same `run` as `Bwrap`'s."""

    def __init__(self, engine: Engine, image: str, ro_paths: Sequence[str] = (), mounts: Mapping[str, str] | None = None,
                 testbed_in_image: bool = False, base_commit: str = "", export_xml: Path | None = None) -> None:
        """`ro_paths`: host directories shown read-only at their own paths (system directories are the image's
        and are left out); `mounts`: host directory -> where it is shown, read-only; `testbed_in_image`: the
        image's /testbed is the project at `base_commit` (see the module docstring)."""
        self.engine = engine
        self.name = engine.name
        self.image = image
        self.ro_paths = sorted({os.path.realpath(p) for p in ro_paths if not _system(os.path.realpath(p))})
        self.mounts = dict(mounts or {})
        self.testbed_in_image = testbed_in_image
        self.base_commit = base_commit
        # With the image's own /testbed: where the XML files the test run wrote or changed there are copied
        # (JUnit reports), the image's /testbed being out of the harness's reach otherwise.
        self.export_xml = export_xml

    def create_argv(self, name: str, checkout: Path, scratch: Path, changes: Path | None, limits: Limits) -> list[str]:
        args = ["run", "-d", "--name", name, "--network", "none", "--hostname", "testbed", "--cap-drop", "ALL",
                "--security-opt", "no-new-privileges", "--pids-limit", "4096", "--memory", str(limits.memory_bytes),
                "--memory-swap", str(limits.memory_bytes), *_ulimits(limits.cpu_seconds),
                "--tmpfs", "/tmp:rw,exec,nosuid,nodev", "-v", f"{scratch}:{SCRATCH}:rw", "-w", TESTBED]
        if self.testbed_in_image:
            assert changes is not None
            args += ["-v", f"{changes}:{CHANGES_DIR}:ro"]
        else:
            args += ["--read-only", "-v", f"{checkout}:{TESTBED}:rw"]
        for path in self.ro_paths:
            args += ["-v", f"{path}:{path}:ro"]
        for host, target in self.mounts.items():
            args += ["-v", f"{host}:{target}:ro"]
        return [*args, "--entrypoint", "sleep", self.image, "infinity"]

    def run(self, checkout: Path, scratch: Path, command: str, env: Mapping[str, str], limits: Limits) -> RunResult:
        """Run `command` (a shell command line) in /testbed of a fresh container; it is removed afterwards."""
        name = f"assay-swe-{secrets.token_hex(8)}"
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="assay-changes-") as tmp:
            changes = None
            if self.testbed_in_image:
                changes = Path(tmp)
                (changes / "changes.diff").write_bytes(_changes(checkout, self.base_commit))
            created = self.engine.run(*self.create_argv(name, checkout, scratch, changes, limits), timeout=600)
            if created.returncode != 0:
                self._remove(name)
                why = created.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
                if not self.engine.has_image(self.image):
                    raise ContainerFailed(f"no image {self.image} here, and pulling it failed (build it with `assay swe image instance`, or "
                                          f"`{self.name} pull` it): {why[0][:200]}")
                raise ContainerFailed(f"{self.name} could not start a container from {self.image}: {why[0]}")
            try:
                if self.testbed_in_image:
                    self._prepare(name)
                before = self._xml_files(name) if self.export_xml is not None else {}
                ran = self._exec(name, scratch, command, env, limits, started)
                if self.export_xml is not None and not ran.timed_out:
                    self._export(name, before)
                return ran
            finally:
                self._remove(name)

    def _prepare(self, name: str) -> None:
        head = self.engine.run("exec", name, "git", "-C", TESTBED, "rev-parse", "HEAD", timeout=120)
        at = head.stdout.decode().strip()
        if head.returncode != 0 or (self.base_commit and not at.startswith(self.base_commit) and not self.base_commit.startswith(at)):
            raise ContainerFailed(f"the image {self.image} has no /testbed at base_commit {self.base_commit[:12]} (it is at {at[:12] or 'nothing'})")
        done = self.engine.run("exec", name, "git", "-C", TESTBED, "apply", "--binary", "--whitespace=nowarn", f"{CHANGES_DIR}/changes.diff",
                               timeout=600)
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
            raise ChangesRejected(f"the checkout's changes do not apply to the image's /testbed: {why[0]}")

    def _xml_files(self, name: str) -> dict[str, str]:
        """/testbed's XML files in the container (outside .git): path -> inode, size and mtime."""
        listed = self.engine.run("exec", name, "find", TESTBED, "-name", ".git", "-prune", "-o", "-type", "f", "-name", "*.xml",
                                 "-printf", "%P\t%i %s %T@\n", timeout=300)
        out: dict[str, str] = {}
        for line in listed.stdout.decode("utf-8", "replace").splitlines():
            path, _, seen = line.partition("\t")
            if path and seen:
                out[path] = seen
        return out

    def _export(self, name: str, before: dict[str, str]) -> None:
        assert self.export_xml is not None
        for path, seen in self._xml_files(name).items():
            if before.get(path) != seen and ".." not in Path(path).parts:
                target = self.export_xml / path
                target.parent.mkdir(parents=True, exist_ok=True)
                self.engine.run("cp", f"{name}:{TESTBED}/{path}", str(target), timeout=300)

    def _exec(self, name: str, scratch: Path, command: str, env: Mapping[str, str], limits: Limits, started: float) -> RunResult:
        argv = ["exec", "-w", TESTBED]
        for key, value in env.items():
            argv += ["-e", f"{key}={value}"]
        out_path = scratch.parent / f"{scratch.name}.out"
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(self.engine.cmd(*argv, name, "/bin/sh", "-c", command), stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
            timed_out = False
            try:
                code: int | None = proc.wait(timeout=max(1.0, limits.wall_seconds - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                timed_out = True
                self._remove(name)
                proc.kill()
                proc.wait()
                code = None
            except BaseException:  # Ctrl-C: the container goes with it
                self._remove(name)
                proc.kill()
                proc.wait()
                raise
        with open(out_path, "rb") as written:
            data = written.read(limits.output_bytes)
        out_path.unlink(missing_ok=True)
        return RunResult(code, data.decode("utf-8", "replace"), time.monotonic() - started, timed_out)

    def _remove(self, name: str) -> None:
        self.engine.run("kill", name, timeout=120)
        self.engine.run("rm", "-f", name, timeout=300)


def _system(path: str) -> bool:
    return path == "/" or any(path == d or path.startswith(d + "/") for d in SYSTEM_DIRS)


def _changes(checkout: Path, base_commit: str) -> bytes:
    """Everything the harness changed in the checkout since base_commit, as one binary diff."""
    subprocess.run(["git", "add", "--all", "--force", "."], cwd=checkout, check=True, capture_output=True)
    return subprocess.run(["git", "diff", "--cached", "--binary", "--full-index", base_commit or "HEAD"], cwd=checkout, check=True,
                          capture_output=True).stdout


def build_instance_image(engine: Engine, checkout: Path, tag: str, install: Sequence[Sequence[str]] = (), base: str = IMAGE,
                         network: bool = True) -> None:
    """An image in the layout of SWE-bench's published ones, built here instead of pulled: `base` with the
    project at its base commit in /testbed (a standalone repository: the checkout's objects copied in) and
    the environment at /opt/miniconda3/envs/testbed, a venv of the image's python3 that sees its system
    packages, where `install` (the task's commands; `python`/`pip` are the venv's) runs in /testbed."""
    subprocess.run(["git", "repack", "-a", "-d", "-q"], cwd=checkout, check=True, capture_output=True)
    (checkout / ".git" / "objects" / "info" / "alternates").unlink(missing_ok=True)
    name = f"assay-build-{secrets.token_hex(8)}"
    env_bin = f"{INSTANCE_PATH[0]}"
    steps: list[list[str]] = [["python3", "-m", "venv", "--system-site-packages", env_bin.removesuffix("/bin")]]
    for argv in install:
        head = list(argv)
        if head and head[0] in ("python", "python3"):
            head = [f"{env_bin}/python", *head[1:]]
        elif head and head[0] in ("pip", "pip3"):
            head = [f"{env_bin}/python", "-m", "pip", *head[1:]]
        steps.append(head)
    try:
        created = engine.run("run", "-d", "--name", name, *([] if network else ["--network", "none"]), *_ulimits(36000),
                             "--entrypoint", "sleep", base, "infinity")
        if created.returncode != 0:
            raise ContainerFailed(f"{engine.name} could not start {base}: {created.stderr.decode('utf-8', 'replace').strip()[-300:]}")
        copied = engine.run("cp", f"{checkout}/.", f"{name}:{TESTBED}")
        if copied.returncode != 0:
            raise ContainerFailed(f"{engine.name} cp failed: {copied.stderr.decode('utf-8', 'replace').strip()[-300:]}")
        for argv in steps:
            done = engine.run("exec", "-w", TESTBED, name, *argv, timeout=3600)
            if done.returncode != 0:
                raise ContainerFailed(f"`{' '.join(argv)}` failed in the image: {(done.stdout + done.stderr).decode('utf-8', 'replace').strip()[-300:]}")
        committed = engine.run("commit", name, tag, timeout=1800)
        if committed.returncode != 0:
            raise ContainerFailed(f"{engine.name} commit failed: {committed.stderr.decode('utf-8', 'replace').strip()[-300:]}")
    finally:
        engine.run("kill", name, timeout=120)  # `sleep` as pid 1 ignores SIGTERM: rm -f alone waits 10 s for it
        engine.run("rm", "-f", name, timeout=300)


def build_image(engine: Engine, tag: str = IMAGE, languages: Sequence[str] = ("python", "c", "go", "ruby", "rust"), suite: str = "bookworm",
                mirror: str = "http://deb.debian.org/debian", work: Path | None = None, extra: Sequence[str] = ()) -> list[str]:
    """Build `tag` from a debootstrap root of Debian `suite` (minbase plus what `languages` need), imported
    with no registry; returns the packages it holds. Needs root, debootstrap and the Debian mirror (or a local one)."""
    if shutil.which("debootstrap") is None:
        raise RuntimeUnavailable("debootstrap is not installed: apt-get install debootstrap")
    unknown = [name for name in languages if name not in PACKAGES and name != "python"]
    if unknown:
        raise ValueError(f"no package set for {', '.join(unknown)} (known: {', '.join(k for k in PACKAGES if k != 'base')}, python)")
    packages = sorted({*PACKAGES["base"], *(p for name in languages for p in PACKAGES.get(name, ())), *extra})
    with tempfile.TemporaryDirectory(prefix="assay-image-", dir=work) as tmp:
        root = Path(tmp) / "root"
        done = subprocess.run(["debootstrap", "--variant=minbase", f"--include={','.join(packages)}", suite, str(root), mirror],
                              capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
            raise ContainerFailed(f"debootstrap {suite} failed: {tail[0]}")
        for path in ("var/cache/apt/archives", "var/lib/apt/lists"):
            shutil.rmtree(root / path, ignore_errors=True)
        (root / TESTBED.lstrip("/")).mkdir(exist_ok=True)
        (root / MARKER.lstrip("/")).write_text(f"{tag}\nDebian {suite} from {mirror} (debootstrap minbase)\n{' '.join(packages)}\n")
        tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(engine.cmd("import", "--change", "WORKDIR /testbed", "--change", 'CMD ["/bin/sh"]', "-", tag),
                                  stdin=tar.stdout, capture_output=True, text=True)
        assert tar.stdout is not None
        tar.stdout.close()
        tar.wait()
        if imported.returncode != 0:
            raise ContainerFailed(f"{engine.name} import failed: {imported.stderr.strip()[-300:]}")
    return packages
