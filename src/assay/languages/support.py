"""Support directories: files built once per machine, outside the sandbox and from Assay's own trusted
sources (a class library, a class-data-sharing archive, a precompiled header, a seed build cache), and
shown to the sandbox read-only.

support_dir builds a whole directory before the first run (Java, Scala, TypeScript, Clojure). What is
built on first use instead gets a slot (support_slot): a directory that exists, empty, from the start,
because the sandbox's read-only binds must exist when it is set up; build_once then fills it in place
(C++'s precompiled header, Go's seed cache).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path


def support_root() -> Path:
    """Where support directories live: $ASSAY_TOOLCHAIN_CACHE, else <cache>/toolchains
    ($ASSAY_CACHE_DIR, else ~/.cache/assay, as the CLI's --cache-dir)."""
    explicit = os.environ.get("ASSAY_TOOLCHAIN_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    return Path(os.environ.get("ASSAY_CACHE_DIR") or Path.home() / ".cache" / "assay").expanduser() / "toolchains"


def visible_roots() -> Iterator[Path]:
    """The support root, then /var/tmp: those the sandbox can see (it replaces /tmp with its own)."""
    hidden = tuple(os.path.realpath(p) + "/" for p in {"/tmp", "/dev/shm", tempfile.gettempdir()})
    for root in (support_root(), Path("/var/tmp") / f"assay-toolchains-{os.getuid()}"):
        if not (os.path.realpath(root) + "/").startswith(hidden):
            yield root


def support_dir(kind: str, key: str, build: Callable[[Path], None]) -> Path:
    """A directory filled once by build(dir), cached as <support root>/<kind>-<key>, world-readable.

    Built in a temporary sibling and renamed into place, so concurrent builders never see half a
    directory. Falls back to /var/tmp when the cache is not writable, or lies under /tmp, which each
    sandboxed run replaces with its own. Raises OSError or subprocess.SubprocessError when the build
    itself fails.
    """
    error: Exception | None = None
    for root in visible_roots():
        final = root / f"{kind}-{key}"
        if (final / ".complete").exists():
            return final
        try:
            root.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=f".{kind}-", dir=root))
        except OSError as exc:
            error = exc
            continue
        try:
            build(work)
            (work / ".complete").write_text(key + "\n")
            world_readable(work)
            try:
                os.rename(work, final)
            except OSError:
                if not (final / ".complete").exists():
                    raise
            return final
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)
    raise error or OSError(f"no writable directory for the {kind} support files")


def support_slot(kind: str, key: str) -> Path | None:
    """<support root>/<kind>-<key>, created now (empty, world-readable) for build_once to fill on first
    use; the same fallbacks as support_dir; None when no root is writable."""
    for root in visible_roots():
        slot = root / f"{kind}-{key}"
        try:
            slot.mkdir(parents=True, exist_ok=True)
            os.chmod(slot, 0o755)
        except OSError:
            continue
        return slot
    return None


_failed: set[str] = set()
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def build_once(target: Path, build: Callable[[Path], None]) -> bool:
    """Create target (a file or directory in a slot) unless it exists: build(path) creates it at path,
    in a temporary sibling directory; it is made world-readable and renamed into place, so concurrent
    builders never see half of it. False when it could not be built (that only costs speed); a failure
    is not retried in this process, lest every program pay for it again."""
    if target.exists():
        return True
    with _locks_guard:
        lock = _locks.setdefault(str(target), threading.Lock())
    with lock:
        if target.exists():
            return True
        if str(target) in _failed:
            return False
        try:
            with tempfile.TemporaryDirectory(dir=target.parent, prefix=".building-") as work:
                built = Path(work) / target.name
                build(built)
                world_readable(built)
                try:
                    os.replace(built, target)
                except OSError:
                    if not target.exists():
                        raise
        except (OSError, subprocess.SubprocessError):
            _failed.add(str(target))
            return target.exists()
    return True


def world_readable(path: Path) -> None:
    """Directories 0755 and files 0644, path and everything under it (the sandbox runs as another uid)."""
    for item in [path, *path.rglob("*")] if path.is_dir() else [path]:
        item.chmod(0o755 if item.is_dir() else 0o644)


def switched_off(variable: str) -> bool:
    """Whether the environment turns an optional support file off (0, no, off, false)."""
    return os.environ.get(variable, "").strip().lower() in {"0", "no", "off", "false"}


def digest(*parts: object) -> str:
    """A short key for what a support directory was built from."""
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:16]


def file_stamp(path: str) -> str:
    """path, size and mtime: enough to notice that a package was upgraded."""
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}:missing"
    return f"{path}:{st.st_size}:{int(st.st_mtime)}"


def etc_dirs(*roots: str) -> list[str]:
    """The directories under /etc that files under roots link to (Debian keeps JDK configuration
    there, and the sandbox shows only a few files of /etc)."""
    found: set[str] = set()
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                if os.path.islink(path):
                    target = os.path.realpath(path)
                    where = target if os.path.isdir(target) else os.path.dirname(target)
                    if where.startswith("/etc/") and os.path.isdir(where):
                        found.add(where)
    return sorted(p for p in found if not any(p.startswith(q + "/") for q in found))


def run_host(argv: list[str], cwd: Path, timeout: float = 300, env: dict[str, str] | None = None) -> None:
    """Run a trusted host command (a compiler on Assay's own sources); raise with its output if it fails.

    env: its whole environment (default: Assay's own, in the C.UTF-8 locale)."""
    env = env if env is not None else {**os.environ, "LC_ALL": "C.UTF-8"}
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=timeout, env=env)
    if out.returncode != 0:
        raise subprocess.SubprocessError(f"{' '.join(argv[:3])}... failed ({out.returncode}): {(out.stdout + out.stderr)[-1500:]}")


def dump_cds(java_argv: list[str], archive: Path, cwd: Path, flag: str = "-XX:") -> bool:
    """Record a dynamic class-data-sharing archive of a JVM program (java_argv, with {cds} where
    the flag goes) and check that the JVM accepts it; False (and no archive) when it does not."""
    def with_flags(*values: str) -> list[str]:
        return [v for a in java_argv for v in (values if a == "{cds}" else (a,))]

    strict = flag[: -len("XX:")] + "Xshare:on"  # fail rather than run without the archive
    try:
        run_host(with_flags(f"{flag}ArchiveClassesAtExit={archive}"), cwd)
        run_host(with_flags(f"{flag}SharedArchiveFile={archive}", strict), cwd)
    except (OSError, subprocess.SubprocessError):
        archive.unlink(missing_ok=True)
        return False
    return archive.exists()
