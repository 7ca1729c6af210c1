"""MultiPL-E: HumanEval and MBPP translated into ~20 languages (program = prompt + completion + tests).

Loads `humaneval-<lang>.jsonl` / `mbpp-<lang>.jsonl` from a data directory laid out like
shared/data (multipl-e/), a local file, or the Hugging Face dataset nuprl/MultiPL-E at a pinned
revision (needs the `datasets` extra and the network once; then its own cache).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import DataUnavailable, sha256_file
from assay.problems import Benchmark, Problem, ProgramTests

HF_DATASET = "nuprl/MultiPL-E"
HF_REVISION = "28441b6024e71d4a1c1c0f6bf171c935cd5a43f2"  # MultiPL-E 3.1, as bigcode-evaluation-harness pins it

# MultiPL-E's short names -> Assay's language names.
LANGUAGES = {
    "clj": "clojure", "cpp": "cpp", "cs": "csharp", "d": "d", "dart": "dart", "elixir": "elixir", "go": "go",
    "hs": "haskell", "java": "java", "jl": "julia", "js": "javascript", "lua": "lua", "ml": "ocaml", "php": "php",
    "pl": "perl", "py": "python", "r": "r", "rb": "ruby", "rkt": "racket", "rs": "rust", "scala": "scala",
    "sh": "bash", "swift": "swift", "ts": "typescript",
}  # fmt: skip
SOURCES = ("humaneval", "mbpp")


def benchmark_names() -> list[str]:
    """multipl-e/humaneval-swift, multipl-e/mbpp-rs, ..."""
    return [f"multipl-e/{src}-{lang}" for src in SOURCES for lang in LANGUAGES]


def entry_point_of(name: str, prompt: str) -> str:
    """The function name: HumanEval_0_has_close_elements -> has_close_elements, as the prompt spells it (camelCase in some)."""
    parts = name.split("_", 2)
    snake = parts[2] if len(parts) == 3 else name
    squashed = snake.replace("_", "").lower()
    for token in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", prompt):
        if token.replace("_", "").lower() == squashed:
            return token
    return snake


def load_multipl_e(source: str, lang: str, *, path: Path | None = None, data_dir: Path | None = None, cache_dir: Path | None = None) -> Benchmark:
    """One MultiPL-E benchmark (source humaneval or mbpp, lang a MultiPL-E short name)."""
    name = f"multipl-e/{source}-{lang}"
    file = path
    if file is None and data_dir is not None:
        candidate = Path(data_dir) / "multipl-e" / f"{source}-{lang}.jsonl"
        if candidate.exists():
            file = candidate
    if file is not None:
        rows = [json.loads(line) for line in Path(file).read_text().splitlines() if line.strip()]
        digest, origin, version = sha256_file(Path(file)), str(file), "local"
    else:
        rows, origin = _from_hub(source, lang, cache_dir)
        digest = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
        version = f"{HF_DATASET}@{HF_REVISION}"
    problems: dict[str, Problem] = {}
    for row in rows:
        problems[row["name"]] = _problem(row, lang)
    return Benchmark(name=name, version=version, content_hash=digest, source=origin, problems=problems)


def _problem(row: dict[str, Any], lang: str) -> Problem:
    return Problem(
        id=row["name"],
        language=LANGUAGES.get(lang, lang),
        prompt=row["prompt"],
        entry_point=entry_point_of(row["name"], row["prompt"]),
        reference="",  # MultiPL-E has no reference solutions outside Python
        tests=ProgramTests(code=row["tests"], runner="script"),
        tags=(f"source:{row.get('original', '').split('/')[0] or 'multipl-e'}",),
        extra={"stop_tokens": list(row.get("stop_tokens") or []), "doctests": row.get("doctests"), "original": row.get("original")},
    )


def _from_hub(source: str, lang: str, cache_dir: Path | None) -> tuple[list[dict[str, Any]], str]:
    try:
        import datasets  # type: ignore[import-not-found]
    except ImportError:
        raise DataUnavailable(
            f"multipl-e/{source}-{lang}: no local file; pass --data-dir (a folder with multipl-e/{source}-{lang}.jsonl), "
            f"--dataset-file, or pip install datasets to fetch {HF_DATASET} from the Hugging Face Hub"
        ) from None
    try:
        ds = datasets.load_dataset(HF_DATASET, f"{source}-{lang}", revision=HF_REVISION, split="test",
                                   cache_dir=str(cache_dir / "hf") if cache_dir else None)
    except Exception as exc:  # noqa: BLE001 - network and Hub errors alike
        raise DataUnavailable(f"multipl-e/{source}-{lang}: could not load {HF_DATASET} from the Hub ({type(exc).__name__}: {exc})") from None
    return [dict(r) for r in ds], f"hf://{HF_DATASET}@{HF_REVISION}/{source}-{lang}"
