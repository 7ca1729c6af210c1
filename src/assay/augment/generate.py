"""`assay augment`: many more test inputs for a benchmark, as EvalPlus made HumanEval+, for any benchmark
whose problems have a Python reference (HumanEval, HumanEval+, MBPP+, and every MultiPL-E and
HumanEval+/MBPP+ translation, whose Python original labels).

For each problem:
1. Seeds: the inputs of its existing tests (its cases; HumanEval's `check()` literal calls).
2. Type-aware mutation from the seeds (`assay.augment.mutate`), by the problem's typed signature
   (a translation's, or the Python prompt's annotations; else the seeds' own types), deduplicated,
   up to a count per problem and a time budget.
3. Labelling by differential testing: the Python reference, with the problem's contract (EvalPlus's
   `$_CONTRACT_$` asserts) in front of its body, runs in the sandbox on every input, twice. An input on
   which it raises, hits a limit, or answers differently the second time is dropped, and counted.

The result is a benchmark directory (`assay.augment.suite`) that `assay evaluate DIR` loads: the seeds as
the `base` suite, the new inputs in `plus`, and the provenance (seeds, budget, generator version).
"""

from __future__ import annotations

import ast
import dataclasses
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.benchmarks.pytypes import literal_calls
from assay.execution.labels import Expected, Labeller
from assay.problems import NO_EXPECTED, Benchmark, Case, CaseTests, Problem, ProgramTests
from assay.sandbox.base import Sandbox
from assay.values import Type, UnsupportedType, signature_of

GENERATOR_VERSION = "assay-augment/1"
ROUNDS = 4  # of mutation then labelling per problem, each from the valid inputs so far
CHUNK = 100  # inputs labelled in one sandbox run
SLOW_INPUTS = 3  # a chunk with this many inputs past the reference's time limit ends the problem's generation
REFERENCE_CPU = 1.0  # CPU seconds the reference may take on a generated input (a slower input makes slow tests; dropped)


@dataclass(frozen=True)
class Budget:
    """How much to generate: new inputs wanted per problem, seconds for the whole run (None: no limit),
    and the random seed (the same seed gives the same inputs)."""

    per_problem: int = 500
    seconds: float | None = None
    seed: int = 0


@dataclass
class Augmented:
    """One problem's augmented suite (a Python problem: the one that labels), and what became of its inputs."""

    problem: Problem  # CaseTests: seeds in `base`, kept new inputs in `plus`
    seeds: int
    generated: int
    dropped: dict[str, int] = field(default_factory=dict)  # why -> how many generated inputs were not kept
    seconds: float = 0.0
    proposed: int = 0  # of the generated inputs, those a model proposed (--seeds-from-model)

    @property
    def kept(self) -> int:
        return self.generated - sum(self.dropped.values())


class CannotAugment(ValueError):
    """A problem with no Python reference or no seed inputs (the message says which)."""


def seeds_of(problem: Problem) -> list[tuple[Any, ...]]:
    """The inputs of a problem's existing tests: its cases, or the literal calls of HumanEval's check()."""
    tests = problem.tests
    if isinstance(tests, CaseTests):
        return [c.args for c in tests.cases]
    if isinstance(tests, ProgramTests):
        try:
            return literal_calls(tests.code)[0]
        except SyntaxError:
            return []
    return []


def param_types(problem: Problem) -> list[Type] | None:
    """The typed signature's parameter types: a translation's own, else the Python prompt's annotations."""
    tests = problem.tests
    if isinstance(tests, CaseTests) and tests.signature is not None:
        return list(tests.signature.param_types)
    try:
        signature = signature_of(problem.prompt, problem.entry_point)
    except (UnsupportedType, SyntaxError):
        return None
    if any(t.kind == "any" for t in signature.param_types):
        return None  # unannotated: the seeds tell the types better
    return list(signature.param_types)


def with_contract(program: str, entry_point: str, contract: str) -> str:
    """The program with the contract's asserts as the first statements of the entry point's body."""
    if not contract.strip():
        return program
    tree = ast.parse(program)
    func = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry_point), None)
    if func is None or not func.body:
        return program
    lines = program.splitlines(keepends=True)
    at = func.body[0].lineno - 1
    return "".join(lines[:at]) + contract.strip("\n") + "\n" + "".join(lines[at:])


def labelling_problem(problem: Problem, python: Problem | None = None) -> Problem:
    """The Python problem whose reference labels `problem`'s inputs: itself when it is Python, else the
    Python original (`python`), with the problem's own cases as its tests."""
    source = python if python is not None else problem
    if source.language != "python" or not source.reference:
        raise CannotAugment(f"{problem.id}: no Python reference to label generated inputs")
    tests = source.tests
    atol = tests.atol if isinstance(tests, CaseTests) else 0.0
    oracle = tests.oracle if isinstance(tests, CaseTests) else None
    if oracle is None and isinstance(tests, ProgramTests):
        from assay.oracles import evalplus_oracle

        oracle = evalplus_oracle("humaneval", source.entry_point)
    cases = tuple(Case(args, "base") for args in seeds_of(problem))
    if not cases:
        raise CannotAugment(f"{problem.id}: its tests give no literal inputs to start from")
    return dataclasses.replace(source, id=problem.id, tests=CaseTests(cases=cases, atol=atol, oracle=oracle))


def augment_problem(problem: Problem, labeller: Labeller, budget: Budget, types: list[Type] | None = None,
                    deadline: float | None = None, proposed: Sequence[tuple[Any, ...]] = ()) -> Augmented:
    """Generate, label and filter new inputs for one labelling problem (see `labelling_problem`).
    `proposed`: inputs a model proposed (`assay.augment.llm_seeds`), labelled first and mutated from."""
    from assay.augment.mutate import Mutator, canonical

    started = time.monotonic()
    tests = problem.tests
    assert isinstance(tests, CaseTests)
    seeds = [c.args for c in tests.cases]
    rng = random.Random(f"{budget.seed}:{problem.id}")
    kinds = types if types is not None else param_types(problem)
    reference = (with_contract(problem.prompt + problem.reference, problem.entry_point, problem.contract), problem.entry_point)
    seen = {canonical(a) for a in seeds}
    dropped: Counter[str] = Counter()
    kept: list[tuple[Any, ...]] = []
    generated = 0
    # EvalPlus's loop: mutate from the seeds and the valid inputs so far, until enough are valid (an input
    # the contract rejects is mutated from no further), the rounds run out, or the time does.
    for round_ in range(ROUNDS):
        need = budget.per_problem - len(kept)
        if need <= 0 or (deadline is not None and time.monotonic() >= deadline):
            break
        offered = [a for a in proposed if canonical(a) not in seen] if round_ == 0 else []
        seen.update(canonical(a) for a in offered)
        mutator = Mutator(kinds, seeds + kept + offered, rng)
        new = offered + [a for a in mutator.generate(need if round_ == 0 else 2 * need) if canonical(a) not in seen]
        if not new:
            break
        seen.update(canonical(a) for a in new)
        generated += len(new)
        new.sort(key=lambda a: (len(canonical(a)), canonical(a)))  # small inputs first: where the reference gets slow, larger ones are slower
        slow = False
        for start, end in _chunks(len(new)):
            chunk = new[start:end]
            if slow:
                dropped["not labelled: the reference is too slow on inputs this large"] += len(chunk)
                continue
            labelling = dataclasses.replace(tests, cases=tuple(Case(a, "plus") for a in chunk), reference=reference)
            checking = dataclasses.replace(problem, id=f"{problem.id}#augment-{round_}-{start}", tests=labelling)
            first = labeller.expected(checking)
            valid = [i for i in range(len(chunk)) if i not in first.failures]
            # The second labelling, of the inputs the first found valid, shows a reference that is not deterministic.
            again = labeller.expected(dataclasses.replace(checking, id=f"{checking.id}-again",
                                                          tests=dataclasses.replace(labelling, cases=tuple(labelling.cases[i] for i in valid))))
            second = {i: n for n, i in enumerate(valid)}
            for i, args in enumerate(chunk):
                why = _rejected(first, again, i, second.get(i))
                if why:
                    dropped[why] += 1
                elif len(kept) < budget.per_problem:
                    kept.append(args)
                else:
                    dropped["more than asked for"] += 1
            slow = sum(1 for kind in first.failures.values() if kind not in ("raise", "unplain")) >= SLOW_INPUTS
        if slow:
            break
    cases = tuple(Case(a, "base") for a in seeds) + tuple(Case(a, "plus", expected=NO_EXPECTED) for a in kept)
    augmented = dataclasses.replace(problem, tests=dataclasses.replace(tests, cases=cases))
    return Augmented(augmented, seeds=len(seeds), generated=generated, dropped=dict(dropped), seconds=time.monotonic() - started,
                     proposed=len(proposed))


def _chunks(n: int) -> list[tuple[int, int]]:
    """Bounds of the labelling runs over n inputs: 10, 20, 40, ... up to CHUNK each, so that a reference
    that is slow on the larger inputs is found after a few of them, not a whole chunk."""
    bounds, start, size = [], 0, 10
    while start < n:
        bounds.append((start, min(n, start + size)))
        start, size = start + size, min(CHUNK, size * 2)
    return bounds


def _rejected(first: Expected, again: Expected, i: int, j: int | None) -> str:
    """Why generated input i is no test ("" if it is one); j is its place in the second labelling."""
    if i in first.failures:
        kind = first.failures[i]
        if kind in ("raise", "unplain"):
            return "the reference or its contract rejects it" if kind == "raise" else "the reference's output is outside the value model"
        return f"the reference hit a limit ({kind})"
    assert j is not None
    if j in again.failures:
        return "the reference is not deterministic on it"
    from assay.execution.executor import _same_label

    if not (_same_label(first.values[i], again.values[j]) or repr(first.values[i]) == repr(again.values[j])):
        return "the reference is not deterministic on it"
    return ""


def augment(benchmark: Benchmark, labelling: dict[str, Problem], sandbox: Sandbox, budget: Budget,
            types: dict[str, list[Type] | None] | None = None, workers: int = 1, per_case: float = REFERENCE_CPU,
            progress: Callable[[int, int], None] | None = None, proposed: dict[str, list[tuple[Any, ...]]] | None = None) -> list[Augmented]:
    """Augment every labelling problem (in the benchmark's order), `workers` at a time, within the budget.
    The reference gets `per_case` CPU seconds an input; nothing is cached, so the second labelling runs
    the reference again (that is how non-determinism shows)."""
    from concurrent.futures import ThreadPoolExecutor

    from assay.execution.executor import JudgeSettings

    labeller = Labeller(sandbox, benchmark, JudgeSettings(), None, threading.Event(), per_case=per_case)
    deadline = time.monotonic() + budget.seconds if budget.seconds is not None else None
    ids = [pid for pid in benchmark.problems if pid in labelling]
    done = [0]

    def one(pid: str) -> Augmented:
        result = augment_problem(labelling[pid], labeller, budget, (types or {}).get(pid), deadline, (proposed or {}).get(pid, ()))
        done[0] += 1
        if progress:
            progress(done[0], len(ids))
        return result

    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="assay-augment") as pool:
        return list(pool.map(one, ids))


def labelling_problems(benchmark: Benchmark, data_dir: Path | None = None, cache_dir: Path | None = None
                       ) -> tuple[dict[str, Problem], dict[str, list[Type] | None], dict[str, str]]:
    """Per problem: the Python problem that labels its inputs and the parameter types to mutate by; and
    the problems that cannot be augmented, with why. A translation (MultiPL-E, HumanEval+/MBPP+ in a
    language) is labelled by its Python original from EvalPlus, mutated by its own typed signature."""
    languages = {p.language for p in benchmark.problems.values()}
    labelling: dict[str, Problem] = {}
    types: dict[str, list[Type] | None] = {}
    skipped: dict[str, str] = {}
    originals: Benchmark | None = None
    family = ""
    if languages != {"python"}:
        family = _python_family(benchmark.name)
        if not family:
            raise CannotAugment(f"{benchmark.name}: augmenting needs a Python reference to label inputs; this benchmark's problems "
                                "are in " + ", ".join(sorted(languages)) + " with no Python original (hand-written suites are not augmented yet)")
        from assay.benchmarks import load_benchmark

        originals = load_benchmark(f"{family}-plus", data_dir=data_dir, cache_dir=cache_dir)
    twins = _evalplus_twins(benchmark, data_dir, cache_dir) if originals is None else {}
    for pid, problem in benchmark.problems.items():
        try:
            if originals is None:
                twin = twins.get(pid)
                if twin is not None and not problem.contract:
                    problem = dataclasses.replace(problem, contract=twin.contract)
                if twin is not None and not seeds_of(problem):  # check() computes its inputs: HumanEval+'s base inputs are them
                    problem = dataclasses.replace(problem, tests=CaseTests(cases=tuple(c for c in _cases(twin) if c.suite == "base")))
                labelling[pid] = labelling_problem(problem)
                types[pid] = param_types(problem)
                continue
            from assay.benchmarks.plus_languages import python_id

            original = originals.problems.get(python_id(family, pid))
            if original is None:
                raise CannotAugment(f"{pid}: no Python original in {originals.name}")
            labelling[pid] = labelling_problem(problem, python=original)
            types[pid] = param_types(problem)
        except CannotAugment as exc:
            skipped[pid] = str(exc)
    return labelling, types, skipped


def _cases(problem: Problem) -> tuple[Case, ...]:
    return problem.tests.cases if isinstance(problem.tests, CaseTests) else ()


def _evalplus_twins(benchmark: Benchmark, data_dir: Path | None, cache_dir: Path | None) -> dict[str, Problem]:
    """HumanEval's problems have no contracts, and some check()s compute their inputs; HumanEval+'s problems
    of the same ids and prompts have both (where HumanEval+'s data is here)."""
    if benchmark.name != "humaneval":
        return {}
    from assay.benchmarks import load_benchmark
    from assay.benchmarks._fetch import DataUnavailable

    try:
        plus = load_benchmark("humaneval-plus", data_dir=data_dir, cache_dir=cache_dir)
    except (DataUnavailable, OSError):
        return {}
    return {pid: p for pid, p in plus.problems.items() if pid in benchmark.problems and p.prompt == benchmark.problems[pid].prompt}


def _python_family(name: str) -> str:
    """humaneval or mbpp for a translation of HumanEval or MBPP (multipl-e/humaneval-swift, mbpp-plus/rs), else ""."""
    if name.startswith("multipl-e/"):
        source = name.removeprefix("multipl-e/").partition("-")[0]
        return source if source in ("humaneval", "mbpp") else ""
    plus = name.partition("/")[0]
    return {"humaneval-plus": "humaneval", "mbpp-plus": "mbpp"}.get(plus, "")
