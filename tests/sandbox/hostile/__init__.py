"""Hostile programs for the sandbox tests, kept as plain files so they read like the attacks they are."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def program(name: str) -> bytes:
    """Source of hostile/<name>.py."""
    return (HERE / f"{name}.py").read_bytes()
