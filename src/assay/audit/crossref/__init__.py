"""A second reference in another language: HumanEval-X's canonical solutions (C++, Go, Java, JavaScript,
Rust) judged on `humaneval-plus/<lang>`, where the Python reference labels HumanEval+'s inputs. Where
the two references disagree, one of them is wrong, or the translation's types cannot follow Python's.

Each language module has `adapt(problem, row) -> str`: a whole program, as a chat model would write
it, that holds HumanEval-X's declaration and canonical solution and defines the MultiPL-E entry point
(with MultiPL-E's exact signature) as a thin wrapper that converts the arguments to HumanEval-X's
types, calls its solution, and converts the result back. The language plugin splices that program
into MultiPL-E's prompt like any chat reply, and the case harness judges it on HumanEval+'s inputs.

A failing solution is judged a second time on the cases inside the types HumanEval-X gave it
(`DOMAINS`). One that passes there fails only where its types cannot hold Python's values (an `int`
that overflows, a string indexed by byte): `narrow-types`, told apart by measurement. Every other
failure is classified by hand in `<lang>.classes.json` ({"HumanEval_58_common": {"class":
"wrong-reference", "why": "..."}}, classes in CLASSES). `assay audit` reports each disagreement as a
`reference-disagreement` finding; `scripts/humaneval_x_solutions.py` prints the whole table.
"""

from __future__ import annotations

import dataclasses
import gzip
import importlib
import json
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.problems import Benchmark, CaseTests, Problem, Status, Verdict

if TYPE_CHECKING:
    from assay.audit.lints import Finding
    from assay.execution import Executor
    from assay.sandbox.base import Sandbox

FILES = {"cpp": "cpp", "go": "go", "java": "java", "js": "js", "rs": "rust"}  # MultiPL-E's name -> HumanEval-X's file
LANGUAGE = {"cpp": "cpp", "go": "go", "java": "java", "js": "javascript", "rs": "rust"}  # -> Assay's language
# (integer bound, strings) of HumanEval-X's types per language: C++/Java/Rust `int`/`i32`, Go's 64-bit int,
# JavaScript's exact integers in a double.
DOMAINS: dict[str, tuple[int, str]] = {"cpp": (2**31, "ascii"), "java": (2**31, "bmp"), "rs": (2**31, "any"),
                                       "go": (2**63, "ascii"), "js": (2**53, "bmp")}

CLASSES = {
    "narrow-types": "fails only outside the types HumanEval-X gave it (measured: passes every case inside them)",
    "float32": "MultiPL-E's prompt (and HumanEval-X) use 32-bit float where Python computes in double",
    "wrong-reference": "HumanEval-X's solution is wrong on inputs its types hold (the Python reference, and the docstring, say otherwise)",
    "inherited": "HumanEval-X kept the original HumanEval ground truth that EvalPlus corrected",
    "too-slow": "correct, but past the time limit on HumanEval+'s inputs where the Python reference is fast",
    "environment": "needs a library this machine does not have (and MultiPL-E's image does not either)",
    "adapter": "our adapter cannot fit HumanEval-X's function to MultiPL-E's signature",
    "assay": "a bug of Assay's (rendering, decoding, comparison): fixed, so none may stay listed",
}

FIXES = {
    "narrow-types": "the translation's types cannot hold these values: widen them (Int64, a string of scalars) or keep the cases inside them",
    "float32": "compute in double, as the Python reference does (or compare float32 results with a float32 tolerance)",
    "wrong-reference": "fix HumanEval-X's solution: the Python reference and the docstring agree against it",
    "inherited": "take EvalPlus's corrected ground truth into HumanEval-X",
    "too-slow": "make the solution linear, or give the language a longer limit on these inputs",
}


def classes_of(lang: str) -> dict[str, dict[str, str]]:
    """The hand classification of a language's failures (`<lang>.classes.json`)."""
    path = Path(__file__).with_name(f"{lang}.classes.json")
    data: dict[str, dict[str, str]] = json.loads(path.read_text()) if path.exists() else {}
    return data


def inside(value: Any, bound: int, strings: str) -> bool:
    """Whether a plain value is inside HumanEval-X's types: numbers within the bound, strings it reads as text."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return -bound <= value < bound
    if isinstance(value, float):
        return not math.isfinite(value) or abs(value) < bound
    if isinstance(value, str):
        return strings == "any" or all(ord(c) < (128 if strings == "ascii" else 0x10000) for c in value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(inside(v, bound, strings) for v in value)
    if isinstance(value, dict):
        return all(inside(k, bound, strings) and inside(v, bound, strings) for k, v in value.items())
    return False  # a digest-only huge output


def narrowed(executor: Executor, problem: Problem, lang: str) -> Problem:
    """The problem with only the cases (inputs and expected outputs) inside HumanEval-X's types."""
    tests = problem.tests
    assert isinstance(tests, CaseTests)
    exp = executor.expected(problem)
    bound, strings = DOMAINS[lang]
    bad = set(exp.invalid)
    cases = tuple(c for i, c in enumerate(tests.cases)
                  if i not in bad and inside(c.args, bound, strings) and inside(exp.values[i], bound, strings))
    return dataclasses.replace(problem, tests=dataclasses.replace(tests, cases=cases))


def rows_of(lang: str, data_dir: Path) -> dict[str, dict[str, Any]]:
    """HumanEval-X's rows of a language by problem number ("0".."163")."""
    with gzip.open(data_dir / "humaneval-x" / f"humaneval_{FILES[lang]}.jsonl.gz", "rt") as rows_file:
        return {r["task_id"].split("/")[1]: r for r in map(json.loads, rows_file)}


@dataclasses.dataclass(frozen=True)
class Judged:
    """One HumanEval-X solution's verdict on humaneval-plus/<lang>, and, when it failed, inside its types."""

    problem: str  # humaneval-plus/<lang>'s id
    verdict: Verdict
    inside: tuple[int, Verdict] | None = None  # (cases inside its types, verdict on them)

    def cls(self, lang: str) -> str:
        """The failure's class: measured (narrow-types), else the hand classification, else "unclassified"."""
        if self.inside is not None and self.inside[1].passed:
            return "narrow-types"
        return classes_of(lang).get(self.problem, {}).get("class", "unclassified")


def judge_language(lang: str, bench: Benchmark, sandbox: Sandbox, data_dir: Path, *, workers: int = 2, cache_dir: Path | None = None,
                   only: set[str] | None = None, narrow: bool = True, task_ids: set[str] | None = None) -> list[Judged]:
    """Every HumanEval-X solution of the language, adapted and judged on `bench` (humaneval-plus/<lang>); each
    failure judged again inside its types. `only`: problem numbers; `task_ids`: the benchmark's ids."""
    from assay.benchmarks.plus_languages import python_id
    from assay.execution import Executor

    adapter: Any = importlib.import_module(f"assay.audit.crossref.{lang}")
    rows = rows_of(lang, data_dir)
    executor = Executor(sandbox, bench, workers=workers, cache_dir=cache_dir)
    narrow_executor = Executor(sandbox, bench, workers=workers, cache_dir=cache_dir)  # plans of its own for the narrowed cases
    problems = [p for p in bench.problems.values() if (only is None or p.id.split("_")[1] in only) and (task_ids is None or p.id in task_ids)]

    def judge(problem: Problem) -> Judged | None:
        row = rows.get(python_id("humaneval", problem.id).split("/")[1])
        if row is None:
            return None
        try:
            code = str(adapter.adapt(problem, row))
            verdict = executor.judge(problem, code)
            if verdict.passed or not narrow:
                return Judged(problem.id, verdict)
            inner = narrowed(executor, problem, lang)
            assert isinstance(inner.tests, CaseTests)
            return Judged(problem.id, verdict, (len(inner.tests.cases), narrow_executor.judge(inner, code)))
        except Exception as exc:  # a crash of Assay's (or of an adapter) is a verdict of its own here
            return Judged(problem.id, Verdict(Status.SANDBOX_ERROR, message=f"crashed: {type(exc).__name__}: {exc}"[:1000]))

    with ThreadPoolExecutor(max(1, workers)) as pool:
        return [j for j in pool.map(judge, problems) if j is not None]


def lang_of(benchmark_name: str) -> str | None:
    """The HumanEval-X language of `humaneval-plus/<lang>` or `multipl-e/humaneval-<lang>` (None: not one of them)."""
    for prefix in ("humaneval-plus/", "multipl-e/humaneval-"):
        if benchmark_name.startswith(prefix) and benchmark_name[len(prefix) :] in FILES:
            return benchmark_name[len(prefix) :]
    return None


def crossref_findings(benchmark: Benchmark, sandbox: Sandbox, data_dir: Path | None, workers: int, cache_dir: Path | None,
                      progress: Callable[[str], None] | None = None) -> list[Finding]:
    """`reference-disagreement` findings: HumanEval-X's solution against the Python reference, on HumanEval+'s
    inputs rendered into the benchmark's language (problems named by the benchmark's ids)."""
    from assay.audit.lints import Finding
    from assay.benchmarks import load_benchmark
    from assay.benchmarks.plus_languages import python_id

    lang = lang_of(benchmark.name)
    assert lang is not None and data_dir is not None
    plus = load_benchmark(f"humaneval-plus/{lang}", data_dir=data_dir, cache_dir=cache_dir)
    wanted = {python_id("humaneval", pid) for pid in benchmark.problems}
    ids = {pid for pid in plus.problems if python_id("humaneval", pid) in wanted}
    mine = {python_id("humaneval", pid): pid for pid in benchmark.problems}
    found = []
    for judged in judge_language(lang, plus, sandbox, data_dir, workers=workers, cache_dir=cache_dir, task_ids=ids):
        if judged.verdict.passed or judged.verdict.status is Status.SKIPPED:
            continue
        cls = judged.cls(lang)
        why = classes_of(lang).get(judged.problem, {}).get("why", "")
        inner = f"; inside its types ({judged.inside[0]} cases): {judged.inside[1].status.value}" if judged.inside else ""
        evidence = (f"HumanEval-X's {LANGUAGE[lang]} solution on HumanEval+'s inputs (labelled by the Python reference): "
                    f"{judged.verdict.message[:160]}{inner}; class {cls}" + (f": {why}" if why else ""))
        fix = FIXES.get(cls, "classify it (src/assay/audit/crossref/<lang>.classes.json): which reference is wrong, or the types")
        found.append(Finding(mine.get(python_id("humaneval", judged.problem), judged.problem), "reference-disagreement", evidence[:600], fix))
    return found
