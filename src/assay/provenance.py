"""What a run was: the run record every result carries, and the schema version of everything Assay writes.

One record for every kind of run (`assay evaluate`, `assay run`, `assay generate`): the parts a run
does not have are left out. The record is written to the run store (meta `config`), to the `config`
of `--json`, and it is what reports read back. `SCHEMA_VERSION` numbers the layout of the store,
of results.jsonl rows and of `--json`; a store of another version is refused with one line.
"""

from __future__ import annotations

import datetime as dt
import functools
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from assay import __version__

if TYPE_CHECKING:
    from assay.problems import Benchmark

# Version 1: the store's tables as they are (meta, samples, verdicts, generations, references_checked),
# results rows with task_id, sample_index, judged, passed, status, tests, ...; --json with config, scores.
SCHEMA_VERSION = 1


class SchemaMismatch(ValueError):
    """A file Assay wrote under another schema version."""


def check_schema(version: Any, what: str) -> None:
    """Refuse what another schema version wrote, in one line that says which and what to do."""
    if version is None or version == SCHEMA_VERSION:
        return
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise SchemaMismatch(f"{what} has schema version {version}, newer than this Assay's ({SCHEMA_VERSION}, Assay {__version__}): "
                             "upgrade Assay to read it")
    raise SchemaMismatch(f"{what} has schema version {version!r}, not this Assay's ({SCHEMA_VERSION}): "
                         "rerun it into a new --run-dir, or read it with the Assay that wrote it")


@functools.cache
def git_commit() -> str | None:
    """The git commit Assay's source is at, when it runs from a checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def now_iso() -> str:
    """The current UTC time, for run records."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AssayInfo(_Part):
    version: str = __version__
    git_commit: str | None = None


class BenchmarkInfo(_Part):
    name: str
    version: str
    content_hash: str
    source: str
    n_problems: int
    window: str | None = None  # the release-date window (--since/--until) the problems were chosen by
    environment: dict[str, Any] | None = None  # the package environment the tests ran in (bigcodebench: its manifest)


class SamplesInfo(_Part):
    path: str
    sha256: str
    n: int


class SandboxInfo(_Part):
    name: str
    isolation: str


class RunRecord(BaseModel):
    """What a run was: who judged it, on what, with which samples or model, under which settings."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    assay: AssayInfo
    benchmark: BenchmarkInfo
    samples: SamplesInfo | None = None  # evaluate: the samples file
    model: dict[str, Any] | None = None  # run / generate: the model as its backend describes itself
    prompt_template: dict[str, Any] | None = None
    sampling: dict[str, Any] | None = None
    traffic: dict[str, Any] | None = None
    settings: dict[str, Any] | None = None  # judging settings (absent when nothing is judged)
    sandbox: SandboxInfo | None = None
    toolchain: dict[str, Any] | None = None
    ks: list[int]

    def to_json(self) -> dict[str, Any]:
        """The record as stored and printed: the parts this run has."""
        return self.model_dump(exclude_none=True)


def benchmark_info(benchmark: Benchmark) -> BenchmarkInfo:
    """The record's part for a loaded benchmark."""
    return BenchmarkInfo(name=benchmark.name, version=benchmark.version, content_hash=benchmark.content_hash,
                         source=benchmark.source, n_problems=len(benchmark.problems), window=benchmark.window or None,
                         environment=benchmark.environment)


def assay_info() -> AssayInfo:
    """This Assay: its version and, from a checkout, its commit."""
    return AssayInfo(version=__version__, git_commit=git_commit())
