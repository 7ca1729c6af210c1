"""Shared fixtures: where the real data lives, and a per-test cache directory."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_data() -> Path:
    """The data directory: $ASSAY_DATA_DIR (as the CLI reads it; $ASSAY_SHARED_DATA still works), else ../shared/data."""
    return Path(os.environ.get("ASSAY_DATA_DIR") or os.environ.get("ASSAY_SHARED_DATA") or REPO.parent / "shared" / "data")


@pytest.fixture
def data_dir() -> Path:
    """The real data directory; skips the test when it is absent (a user's machine)."""
    path = shared_data()
    if not (path / "evalplus").is_dir():
        pytest.skip(f"needs the shared data directory ({path}), which is absent here")
    return path


_OWNED_CACHE = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    # Tests never read or write the user's ~/.cache/assay (module-scoped fixtures included, which run
    # before any function-scoped fixture could redirect it); the cache is shared by the whole session.
    # Under /var/tmp, not /tmp: every sandbox run gets a fresh /tmp, which would hide the read-only
    # toolchain helpers (C++ precompiled header, JVM archives) cached here from the programs.
    # One cache for the whole session: xdist workers inherit the controller's (set before they start),
    # so support directories are built once, and the controller removes it at the end.
    inherited = os.environ.get("ASSAY_TEST_CACHE_DIR")
    if inherited and hasattr(config, "workerinput"):
        os.environ["ASSAY_CACHE_DIR"] = inherited
        return
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    path = tempfile.mkdtemp(prefix="assay-test-cache-", dir=base)
    os.environ["ASSAY_CACHE_DIR"] = os.environ["ASSAY_TEST_CACHE_DIR"] = path
    config.stash[_OWNED_CACHE] = path


def pytest_unconfigure(config: pytest.Config) -> None:
    path = config.stash.get(_OWNED_CACHE, None)
    if path:
        shutil.rmtree(path, ignore_errors=True)
