"""`assay strength`: how many wrong programs a test suite catches, measured as a mutation score.

The mutants are of each problem's Python reference (`assay.augment.mutants`), the same set for every
suite compared, so the suites are measured side by side on one yardstick. Each mutant is judged as a
sample would be, through the one pipeline: against a Python suite's own tests (HumanEval's check(),
HumanEval+'s cases, an augmented directory), and for a translation against its inputs, the ones the
language keeps, labelled by the Python original. A translation's score is therefore the strength of
its inputs; mutants of the translation's own source (there is no reference in most languages) are
not made yet.

A benchmark whose references are in its own language (swift-suite, a directory of hand-written
problems) is measured with mutants of that source (`assay.augment.source_mutants`), judged against
its own tests; a mutant that does not build is stillborn and not counted.

A mutant no suite kills may be equivalent to the reference (no input can tell them apart): those are
counted, and each suite's score is also given without them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.augment.mutants import Mutant, python_mutants
from assay.problems import Benchmark, Case, CaseTests, Problem, Status
from assay.samples import Sample
from assay.sandbox.base import Sandbox

# Not counted: no toolchain, the harness failed, or a stillborn mutant (it does not build: no test needed to kill it).
NOT_JUDGED = (Status.SKIPPED, Status.SANDBOX_ERROR, Status.COMPILE_ERROR)


def python_mutants_of(problem: Problem, limit: int | None, seed: int) -> list[Mutant]:
    """Mutants of a Python reference's body (the prompt is kept)."""
    return python_mutants(problem.prompt, problem.reference, limit=limit, seed=seed)


def source_mutants_of(problem: Problem, limit: int | None, seed: int) -> list[Mutant]:
    """Mutants of a reference in its own brace language (the whole program it is judged as)."""
    from assay.augment.source_mutants import source_mutants

    return source_mutants(problem.reference_program(), limit=limit, seed=seed)


def own_language(benchmark: Benchmark) -> bool:
    """Whether the benchmark's references are in its own non-Python language (swift-suite, a directory)."""
    return any(p.language != "python" for p in benchmark.problems.values()) and all(p.reference for p in benchmark.problems.values())


@dataclass
class SuiteStrength:
    """One suite's mutation score, per problem: python id -> (mutants judged, killed, surviving mutant indexes)."""

    suite: str
    per_problem: dict[str, tuple[int, int, list[int]]] = field(default_factory=dict)

    @property
    def mutants(self) -> int:
        return sum(n for n, _, _ in self.per_problem.values())

    @property
    def killed(self) -> int:
        return sum(k for _, k, _ in self.per_problem.values())

    def score(self, equivalent: dict[str, set[int]] | None = None) -> float:
        """Killed / mutants; with `equivalent` (mutants no suite killed), those are left out of both."""
        left_out = sum(len(equivalent.get(pid, set())) for pid in self.per_problem) if equivalent else 0
        total = self.mutants - left_out
        return self.killed / total if total else float("nan")


@dataclass
class Strength:
    """Suites side by side, with the mutants no suite killed (possibly equivalent)."""

    suites: list[SuiteStrength]
    equivalent: dict[str, set[int]]  # python id -> indexes of mutants every suite let pass
    mutants: dict[str, int]  # python id -> mutants made

    def to_json(self) -> dict[str, Any]:
        return {
            "suites": [{"suite": s.suite, "mutants": s.mutants, "killed": s.killed, "score": s.score(),
                        "score_without_equivalent": s.score(self.equivalent),
                        "per_problem": {pid: {"mutants": n, "killed": k, "survivors": surv} for pid, (n, k, surv) in s.per_problem.items()}}
                       for s in self.suites],
            "possibly_equivalent": sum(len(v) for v in self.equivalent.values()),
            "mutants": sum(self.mutants.values()),
        }


def python_view(suite: Benchmark, originals: Benchmark | None, family: str) -> dict[str, Problem]:
    """The suite's problems as Python problems keyed by Python id: a Python suite's own; a translation's
    inputs (those its language keeps) on the Python original, which labels them."""
    if all(p.language == "python" for p in suite.problems.values()):
        return dict(suite.problems)
    from assay.benchmarks.plus_languages import python_id

    assert originals is not None
    out: dict[str, Problem] = {}
    for pid, problem in suite.problems.items():
        original = originals.problems.get(python_id(family, pid))
        if original is None or not isinstance(problem.tests, CaseTests) or not isinstance(original.tests, CaseTests):
            continue
        cases = tuple(Case(c.args, c.suite) for c in problem.tests.cases)
        out[original.id] = Problem(id=original.id, language="python", prompt=original.prompt, entry_point=original.entry_point,
                                   reference=original.reference,
                                   tests=CaseTests(cases=cases, atol=original.tests.atol, oracle=original.tests.oracle))
    return out


def measure(suites: dict[str, dict[str, Problem]], references: dict[str, Problem], sandbox: Sandbox, *, max_mutants: int | None = 20,
            seed: int = 0, workers: int | None = None, cache_dir: Path | None = None,
            progress: Callable[..., None] | None = None,
            mutate: Callable[[Problem, int | None, int], list[Mutant]] = python_mutants_of) -> Strength:
    """Judge the references' mutants against every suite (name -> its problems: a Python view, or the
    benchmark's own problems when `mutate` makes mutants in their language) and score each."""
    from assay.execution.pipeline import evaluate

    mutants = {pid: mutate(p, max_mutants, seed) for pid, p in references.items()}
    results: list[SuiteStrength] = []
    # Suites often share a problem's tests exactly (translations that keep every input, a language's base
    # tests and another's): each distinct (problem, tests) is judged once, for the first suite that has it.
    judged_before: dict[str, tuple[int, int, list[int]] | None] = {}
    with tempfile.TemporaryDirectory(prefix="assay-strength-") as tmp:
        for n, (name, problems) in enumerate(suites.items()):
            strength = SuiteStrength(name)
            signatures = {pid: _digest({pid: p}) for pid, p in problems.items() if mutants.get(pid)}
            shared = {pid: problems[pid] for pid, sig in signatures.items() if sig not in judged_before}
            if shared:
                judged_before.update(_judge_suite(shared, mutants, n, name, Path(tmp), sandbox, workers, cache_dir, progress, evaluate))
            for pid, sig in signatures.items():
                score = judged_before.get(sig)
                if score is not None:
                    strength.per_problem[pid] = score
            results.append(strength)
    # With one suite there is nothing to tell an equivalent mutant from one the suite misses: none is estimated.
    common = set.intersection(*(set(s.per_problem) for s in results)) if len(results) > 1 else set()
    equivalent = {pid: set.intersection(*(set(s.per_problem[pid][2]) for s in results)) for pid in common}
    return Strength(results, {pid: v for pid, v in equivalent.items() if v}, {pid: len(m) for pid, m in mutants.items()})


def _judge_suite(shared: dict[str, Problem], mutants: dict[str, list[Mutant]], n: int, name: str, tmp: Path, sandbox: Sandbox,
                 workers: int | None, cache_dir: Path | None, progress: Callable[..., None] | None,
                 evaluate: Callable[..., Any]) -> dict[str, tuple[int, int, list[int]] | None]:
    """Judge every mutant of these problems against their tests: problem signature -> (judged, killed,
    survivors), or None where the reference fails the tests (no score for that problem)."""
    import json

    bench = Benchmark(name=f"strength:{name}", version="1", content_hash=_digest(shared), source=name, problems=shared)
    samples = [Sample(pid, i, None, m.program) for pid in shared for i, m in enumerate(mutants[pid])]
    empty = tmp / "mutants.jsonl"
    empty.write_text("")
    result = evaluate(bench, samples, empty, tmp / f"run-{n}", sandbox, [1], workers=workers, cache_dir=cache_dir, progress=progress)
    judged: dict[str, list[tuple[int, str]]] = {}
    for line in result.results_path.read_text().splitlines():
        row = json.loads(line)
        judged.setdefault(row["task_id"], []).append((row["sample_index"], row["status"]))
    out: dict[str, tuple[int, int, list[int]] | None] = {}
    for pid, problem in shared.items():
        rows = judged.get(pid)
        if rows is None:
            continue
        counted = [(i, status) for i, status in rows if Status(status) not in NOT_JUDGED]
        survivors = sorted(i for i, status in counted if status == Status.PASSED.value)
        # The reference failing this suite's tests: no score for it.
        out[_digest({pid: problem})] = None if pid in result.defects else (len(counted), len(counted) - len(survivors), survivors)
    return out


def _digest(problems: dict[str, Problem]) -> str:
    import hashlib

    return hashlib.sha256(repr(sorted((pid, repr(p.tests), p.reference) for pid, p in problems.items())).encode()).hexdigest()
