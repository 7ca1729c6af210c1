"""Shared helpers for language plugin tests: real MultiPL-E problems, a real sandbox, real toolchains."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest

from assay.benchmarks import load_benchmark
from assay.languages import get_language
from assay.languages.base import Language, ToolchainMissing
from assay.problems import Benchmark, Problem, Verdict
from assay.sandbox import get_sandbox
from assay.sandbox.base import Sandbox
from tests.conftest import shared_data


@cache
def benchmark(name: str) -> Benchmark:
    """A MultiPL-E benchmark from ../shared/data (the test skips when it is absent)."""
    data = shared_data()
    if not (data / "multipl-e").is_dir():
        pytest.skip(f"needs the shared data directory ({data}/multipl-e), which is absent here")
    return load_benchmark(name, data_dir=data)


def language_or_skip(name: str) -> Language:
    """The plugin, skipping the test with the install hint when its toolchain is missing here."""
    language = get_language(name)
    try:
        language.toolchain()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    return language


@cache
def sandbox_for(name: str) -> Sandbox:
    """One warm sandbox per language for the whole test session (closed at exit)."""
    import atexit

    box = get_sandbox(ro_binds=get_language(name).toolchain().ro_binds)
    close = getattr(box, "close", None)
    if close:
        atexit.register(close)
    return box


def judge(language: Language, problem: Problem, code: str, **limits: float) -> Verdict:
    """Judge one program (prompt + completion, or a whole program) with optional tighter limits."""
    lim = dataclasses.replace(language.limits, **limits) if limits else language.limits
    return language.judge(sandbox_for(language.name), problem, code, lim)
