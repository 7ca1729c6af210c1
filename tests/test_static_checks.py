"""CI's lint and type checks: ruff and mypy --strict, configured in pyproject.toml, must both be clean."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO


def _check(*args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(args)} found problems:\n{proc.stdout[-8000:]}{proc.stderr[-2000:]}", pytrace=False)


def test_ruff_is_clean() -> None:
    _check("ruff", "check", "--output-format", "concise", "src", "tests", "benchmarks", "scripts")


@pytest.mark.slow
def test_mypy_strict_is_clean() -> None:
    _check("mypy")  # files, strictness and the stub-less modules come from [tool.mypy]
