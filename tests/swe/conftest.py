"""Podman is one engine for both xdist workers: a test that checks that none of its containers is left over
(`containers_alone`) holds the engine's lock alone, and the other tests of the files that run containers share it,
so a container another file's test is running at that moment is not counted as a leak."""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator

import pytest

_LOCK = os.path.join(tempfile.gettempdir(), "assay-tests-podman.lock")
_CONTAINER_FILES = {"test_agent.py", "test_containers.py", "test_datasets.py", "test_specs.py"}


@pytest.fixture(autouse=True)
def _podman_lock(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.path.name not in _CONTAINER_FILES:
        yield
        return
    alone = request.node.get_closest_marker("containers_alone") is not None
    with open(_LOCK, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
