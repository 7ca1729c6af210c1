"""An augmented benchmark as a directory: `problems.jsonl` (one Python labelling problem a line, its
inputs in Assay's plain-data form, so tuples, sets and big ints survive) and `augment.json` (what it
was made from, and how). `assay evaluate DIR` loads it like any benchmark:

- made from a Python benchmark (HumanEval, HumanEval+, MBPP+): Python problems whose `base` suite is
  the original tests' inputs and `plus` the generated ones, labelled by the reference at evaluation
  time, as HumanEval+ is;
- made from a translation (`multipl-e/humaneval-swift`, `humaneval-plus/rs`, ...): the translation's
  problems with every input rendered into the language, labelled by the Python original.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from assay import __version__
from assay.augment.generate import GENERATOR_VERSION, Augmented, Budget
from assay.benchmarks.directory import BenchmarkFormatError
from assay.languages import plaindata
from assay.problems import Benchmark, Case, CaseTests, Problem

FORMAT = "assay-augmented"
FORMAT_VERSION = 1
PROVENANCE = "augment.json"
PROBLEMS = "problems.jsonl"


class AugmentedFormatError(BenchmarkFormatError):
    """A directory that is not a readable augmented benchmark (one-line message)."""


def is_augmented(path: Path) -> bool:
    """Whether a directory holds an augmented benchmark of cases (an augmented hand-written suite is a
    directory benchmark with its own benchmark.yaml, and loads as one)."""
    return (path / PROVENANCE).is_file() and not (path / "benchmark.yaml").is_file()


def write_suite(out: Path, name: str, source: Benchmark, results: list[Augmented], budget: Budget, seconds: float,
                extra: dict[str, Any] | None = None) -> Path:
    """Write the augmented (or reduced: `extra` says how) benchmark to `out` (created; files there of the same names are replaced)."""
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for result in results:
        p = result.problem
        tests = p.tests
        assert isinstance(tests, CaseTests)
        lines.append(json.dumps({
            "task_id": p.id, "prompt": p.prompt, "entry_point": p.entry_point, "reference": p.reference, "contract": p.contract,
            "atol": tests.atol, "oracle": tests.oracle,
            "cases": [{"args": plaindata.encode(list(c.args)), "suite": c.suite} for c in tests.cases],
        }))
    (out / PROBLEMS).write_text("".join(line + "\n" for line in lines))
    provenance = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "name": name,
        "source": {"benchmark": source.name, "version": source.version, "content_hash": source.content_hash,
                   "language": _language(source)},
        "generator": {"version": GENERATOR_VERSION, "assay": __version__, **asdict(budget)},
        "seconds": round(seconds, 1),
        "totals": {"problems": len(results), "seeds": sum(r.seeds for r in results), "generated": sum(r.generated for r in results),
                   "model_proposed": sum(r.proposed for r in results),
                   "kept": sum(r.kept for r in results)},
        "problems": {r.problem.id: {"seeds": r.seeds, "generated": r.generated, "model_proposed": r.proposed, "kept": r.kept, "dropped": r.dropped,
                                    "seconds": round(r.seconds, 2)} for r in results},
        **(extra or {}),
    }
    (out / PROVENANCE).write_text(json.dumps(provenance, indent=2) + "\n")
    return out


def _language(benchmark: Benchmark) -> str:
    languages = {p.language for p in benchmark.problems.values()}
    return languages.pop() if len(languages) == 1 else "mixed"


def read_provenance(path: Path) -> dict[str, Any]:
    """augment.json, checked."""
    try:
        data = json.loads((path / PROVENANCE).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise AugmentedFormatError(f"{path / PROVENANCE}: cannot be read ({exc}); make the directory again with `assay augment`") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise AugmentedFormatError(f"{path / PROVENANCE}: not an augmented benchmark's provenance (no format {FORMAT!r})")
    if data.get("format_version") != FORMAT_VERSION:
        raise AugmentedFormatError(f"{path}: augmented benchmark format {data.get('format_version')!r}; this Assay reads {FORMAT_VERSION}: "
                                   "make it again with this Assay's `assay augment`")
    return data


def load_augmented(path: Path, data_dir: Path | None = None, cache_dir: Path | None = None) -> Benchmark:
    """The augmented benchmark in `path` (see the module docstring)."""
    provenance = read_provenance(path)
    raw = (path / PROBLEMS).read_bytes() if (path / PROBLEMS).is_file() else b""
    python: dict[str, Problem] = {}
    for n, line in enumerate(raw.decode().splitlines(), 1):
        try:
            row = json.loads(line)
            cases = tuple(Case(tuple(plaindata.decode(c["args"])), c["suite"]) for c in row["cases"])
            python[row["task_id"]] = Problem(id=row["task_id"], language="python", prompt=row["prompt"], entry_point=row["entry_point"],
                                             reference=row["reference"], contract=row.get("contract", ""),
                                             tests=CaseTests(cases=cases, atol=float(row["atol"]), oracle=row["oracle"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise AugmentedFormatError(f"{path / PROBLEMS}:{n}: not an augmented problem ({exc})") from None
    if not python:
        raise AugmentedFormatError(f"{path / PROBLEMS}: no problems; make the directory again with `assay augment`")
    source = provenance["source"]
    name = str(provenance["name"])
    digest = hashlib.sha256(raw + json.dumps(source, sort_keys=True).encode()).hexdigest()
    version = f"{GENERATOR_VERSION} of {source['benchmark']} {source['version']}"
    if source.get("language", "python") == "python":
        return Benchmark(name=name, version=version, content_hash=digest, source=str(path), problems=python)
    return _translated(path, name, version, digest, source["benchmark"], python, data_dir, cache_dir)


def _translated(path: Path, name: str, version: str, digest: str, target: str, python: dict[str, Problem],
                data_dir: Path | None, cache_dir: Path | None) -> Benchmark:
    """A translation's problems with the augmented inputs, labelled by the Python original."""
    from assay.benchmarks.multipl_e import languages, load_multipl_e
    from assay.benchmarks.plus_languages import plus_problem
    from assay.languages import get_language

    source, lang = _multipl_e_of(target)
    multipl = load_multipl_e(source, lang, data_dir=data_dir, cache_dir=cache_dir)
    language = get_language(languages().get(lang, lang))
    problems = {pid: plus_problem(language, problem, python[pid]) for pid, problem in multipl.problems.items()
                if pid in python and isinstance(problem.tests, CaseTests) and problem.tests.signature is not None}
    digest = hashlib.sha256(f"{digest} {multipl.content_hash}".encode()).hexdigest()
    return Benchmark(name=name, version=f"{version}+{multipl.version}", content_hash=digest, source=f"{path} + {multipl.source}", problems=problems)


def _multipl_e_of(target: str) -> tuple[str, str]:
    """("humaneval", "swift") for multipl-e/humaneval-swift and for humaneval-plus/swift."""
    if target.startswith("multipl-e/"):
        source, _, lang = target.removeprefix("multipl-e/").partition("-")
        return source, lang
    plus, _, lang = target.partition("/")
    return ("humaneval" if plus.startswith("humaneval") else "mbpp"), lang
