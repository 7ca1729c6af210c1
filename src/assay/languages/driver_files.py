"""The files the Python driver brings into the sandbox's work dir, their digest, and the host's site-packages."""

from __future__ import annotations

import sys
import sysconfig
from functools import cache
from pathlib import Path

_HERE = Path(__file__).parent


@cache
def driver_sources() -> dict[str, bytes]:
    """The driver's source files, as they sit in the sandbox's work dir."""
    return {
        "driver.py": (_HERE / "python_driver.py").read_bytes(),
        "plaindata.py": (_HERE / "plaindata.py").read_bytes(),
        "split.py": (_HERE / "python_split.py").read_bytes(),
    }


def bytecode_file(name: str, source: bytes) -> tuple[str, bytes]:
    """An imported module's bytecode, as `__pycache__/<name>.<tag>.pyc` beside its source in the work dir, so the
    import in the sandbox unmarshals it instead of compiling the source each run (plaindata: 4 ms of a run's CPU).
    Unchecked-hash (PEP 552): the work dir is fresh each run, so there is no mtime to check; the host wrote both."""
    import importlib.util
    import marshal

    stem = name.removesuffix(".py")
    code = compile(source, f"/sandbox/{name}", "exec", dont_inherit=True)
    header = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + importlib.util.source_hash(source)
    return f"__pycache__/{stem}.{sys.implementation.cache_tag}.pyc", header + marshal.dumps(code)


@cache
def driver_files() -> dict[str, bytes]:
    """The files the driver needs in the sandbox's work dir: its sources and the bytecode of the modules it
    imports (not of the script the interpreter runs: the zygote compiles that once itself)."""
    sources = driver_sources()
    return {**sources, **dict(bytecode_file(name, sources[name]) for name in ("plaindata.py", "split.py"))}


@cache
def driver_digest() -> str:
    """Hash of the driver code: part of every cache key, so a driver change invalidates verdicts."""
    import hashlib

    h = hashlib.sha256()
    for name, data in sorted(driver_sources().items()):
        h.update(name.encode() + b"\0" + data + b"\0")
    return h.hexdigest()[:16]


@cache
def _site_paths() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(dict.fromkeys(p for p in (paths.get("purelib"), paths.get("platlib")) if p))


def site_paths() -> list[str]:
    """The interpreter's site-packages, so samples may import what the host Python has (e.g. numpy)."""
    return list(_site_paths())
