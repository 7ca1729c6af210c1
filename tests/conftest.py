"""Shared fixtures: where the real data lives, and a per-test cache directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_data() -> Path:
    """../shared/data next to the repository, or ASSAY_SHARED_DATA."""
    return Path(os.environ.get("ASSAY_SHARED_DATA") or REPO.parent / "shared" / "data")


@pytest.fixture
def data_dir() -> Path:
    """The real data directory; skips the test when it is absent (a user's machine)."""
    path = shared_data()
    if not (path / "evalplus").is_dir():
        pytest.skip(f"needs the shared data directory ({path}), which is absent here")
    return path


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests never read or write the user's ~/.cache/assay; expected outputs are shared per session.
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "assay-cache"))
