"""`assay reduce`: a small suite that tests as much as the full one, as HumanEval+-Mini was made.

Per problem, each case of the suite meets requirements of three kinds:
- **coverage**: the arcs (statement -> statement, the arcs coverage.py's branch measurement counts)
  of the reference that the case runs, recorded in the sandbox by instrumenting the reference's
  statements (the sandbox's driver blocks sys.settrace, so neither coverage.py nor a tracer can
  run there); a wrapper returns the arcs as the case's output, so the driver is unchanged;
- **mutants**: the reference's mutants (`assay.augment.mutants`) the case kills;
- **wrong samples**: the failing samples of the given runs that the case kills.
A greedy set cover per kind picks cases until every requirement a case meets is met; the reduced suite
is the union. Every case verdict here is decided as the judge decides it (`oracles.compare_output`,
EvalPlus's tolerance and oracles), from outputs the sandbox returns.

Leaving one model (run) out at a time, the suite is reduced again without that run's samples, and the
model's pass@1 on it is compared with its pass@1 on the full suite: the reduction's honest test.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from assay.augment.mutants import python_mutants
from assay.execution.executor import Executor, program_text
from assay.languages import plaindata
from assay.languages import python as py
from assay.oracles import NOT_NONE, compare_output
from assay.problems import Benchmark, CaseTests, Problem
from assay.sandbox.base import SandboxLimits
from assay.store import RunStore

RUN_CPU = 30.0  # CPU seconds for one program over all of a problem's cases
ARCS_ENTRY = "_assay_arcs"
# The sandbox's Python driver blocks sys.settrace (a sample could use it against the judge), so the
# reference is instrumented instead: a call before each of its statements records the arc from the
# statement run before, and the entry point's wrapper returns the arcs as the case's output.
ARC_RUNTIME = """

_assay_arcs_seen = set()
_assay_arcs_prev = [-1]


def _assay_hit(line):
    _assay_arcs_seen.add((_assay_arcs_prev[0], line))
    _assay_arcs_prev[0] = line


def _assay_arcs(*args):
    _assay_arcs_seen.clear()
    _assay_arcs_prev[0] = -1
    __ENTRY__(*args)
    _assay_hit(0)
    return sorted([a, b] for a, b in _assay_arcs_seen)
"""


class _Instrument(ast.NodeTransformer):
    """Puts `_assay_hit(line)` before every statement on or after `first` (the reference's own lines)."""

    def __init__(self, first: int) -> None:
        self.first = first

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            statements = getattr(node, name, None)
            if not isinstance(statements, list) or not statements or not isinstance(statements[0], ast.stmt):
                continue
            out: list[ast.stmt] = []
            for statement in statements:
                if statement.lineno >= self.first:
                    out.append(ast.Expr(ast.Call(ast.Name("_assay_hit", ast.Load()), [ast.Constant(statement.lineno)], [])))
                out.append(statement)
            setattr(node, name, out)
        return node


def instrumented(problem: Problem) -> str:
    """The reference program with every statement of its own recording the arc that reached it."""
    tree = _Instrument(problem.prompt.count("\n") + 1).visit(ast.parse(problem.prompt + problem.reference))
    return ast.unparse(ast.fix_missing_locations(tree)) + ARC_RUNTIME.replace("__ENTRY__", problem.entry_point)


@dataclass
class ProblemReduction:
    """One problem: which cases each requirement kind chose, of how many, and every sample's failing cases."""

    problem: Problem
    kept: list[int]  # indexes of the cases labelled valid (the reference answers them)
    by_kind: dict[str, set[int]] = field(default_factory=dict)  # kind -> chosen case indexes (into `kept`)
    requirements: dict[str, dict[str, set[int]]] = field(default_factory=dict)  # kind -> requirement -> cases meeting it
    samples: dict[str, list[set[int]]] = field(default_factory=dict)  # run -> per sample, the cases it fails

    def chosen(self, without: str | None = None) -> set[int]:
        """The union of the kinds' choices; `without` a run: covered again without that run's samples."""
        if without is None:
            return set().union(*self.by_kind.values()) if self.by_kind else set()
        requirements = {k: v for k, v in self.requirements.items() if not k.startswith("samples")}
        others = {r: cases for run, per in self.requirements.items() if run.startswith("samples:") and run != f"samples:{without}"
                  for r, cases in per.items()}
        requirements["samples"] = others
        return set().union(*(greedy_cover(reqs) for reqs in requirements.values()))


def greedy_cover(requirements: dict[str, set[int]]) -> set[int]:
    """Cases that together meet every requirement some case meets: the case meeting most unmet ones
    first (the lowest index on a tie), as HumanEval+-Mini's set cover does."""
    by_case: dict[int, set[str]] = {}
    for requirement, cases in requirements.items():
        for case in cases:
            by_case.setdefault(case, set()).add(requirement)
    unmet = {r for r, cases in requirements.items() if cases}
    chosen: set[int] = set()
    while unmet:
        case = min(by_case, key=lambda c: (-len(by_case[c] & unmet), c))
        chosen.add(case)
        unmet -= by_case[case]
    return chosen


def failing_cases(executor: Executor, problem: Problem, program: str, kept: list[int]) -> set[int]:
    """The kept cases a program fails (its outputs compared as the judge compares them), from one
    sandboxed run of all of them."""
    tests = problem.tests
    assert isinstance(tests, CaseTests)
    judging, limits = executor.case_judging(problem)
    job = py.cases_job(program, problem.entry_point, judging.args, limits, run_all=True, not_none=tests.oracle == NOT_NONE,
                       big_output=None if tests.oracle else py.BIG_OUTPUT)
    # A mutant that loops runs each case to its limit: the run stops at RUN_CPU, and cases it did not reach count as failed.
    cpu = min(RUN_CPU, sum(limits)) + 5
    run = py.run_driver(executor.sandbox, job, SandboxLimits(cpu_seconds=cpu, wall_seconds=2 * cpu + 10, memory_bytes=executor.settings.memory_bytes,
                                                             processes=executor.settings.processes, output_bytes=executor.settings.output_bytes,
                                                             channel_bytes=py.CASES_CHANNEL_BYTES))
    failed: set[int] = set()
    for j in range(len(kept)):
        outcome = run.outcomes[j] if j < len(run.outcomes) else None
        if outcome is None or outcome[0] not in ("ok", "big"):
            failed.add(j)
            continue
        expected = judging.expected[j]
        if outcome[0] == "big" or isinstance(expected, py.BigOutput):
            if not py._same_big(outcome[0], outcome[1], outcome, expected):
                failed.add(j)
            continue
        try:
            out = plaindata.decode(outcome[1])
        except (ValueError, TypeError, KeyError):
            failed.add(j)
            continue
        if not compare_output(out, expected, atol=judging.atols[j], oracle=judging.oracle, args=judging.args[j]):
            failed.add(j)
    return failed


def _arcs(executor: Executor, problem: Problem, kept: list[int]) -> dict[str, set[int]]:
    """Requirement "arc a>b" -> the kept cases whose run of the reference takes that arc."""
    tests = problem.tests
    assert isinstance(tests, CaseTests)
    code = instrumented(problem)
    traced = dataclasses.replace(problem, id=f"{problem.id}#arcs", tests=dataclasses.replace(
        tests, cases=tuple(tests.cases[i] for i in kept), reference=(code, ARCS_ENTRY), oracle=None))
    exp = executor.labeller.expected(traced)
    out: dict[str, set[int]] = {}
    for j, arcs in enumerate(exp.values):
        if j in exp.failures or not isinstance(arcs, list):
            continue
        for a, b in arcs:
            out.setdefault(f"arc {a}>{b}", set()).add(j)
    return out


def reduce_problem(executor: Executor, problem: Problem, runs: dict[str, list[str]], max_mutants: int | None, seed: int = 0) -> ProblemReduction:
    """Requirements of every kind for one problem, and the cases each kind's cover chooses.
    `runs`: run name -> the programs of its samples for this problem."""
    tests = problem.tests
    assert isinstance(tests, CaseTests)
    exp = executor.expected(problem)
    kept = [i for i in range(len(tests.cases)) if i not in set(exp.invalid)]
    result = ProblemReduction(problem, kept)
    result.requirements["coverage"] = _arcs(executor, problem, kept)
    mutants: dict[str, set[int]] = {}
    for n, mutant in enumerate(python_mutants(problem.prompt, problem.reference, limit=max_mutants, seed=seed)):
        mutants[f"mutant {n} ({mutant.operator}, line {mutant.line})"] = failing_cases(executor, problem, mutant.program, kept)
    result.requirements["mutants"] = mutants
    failures: dict[str, set[int]] = {}
    for run, programs in runs.items():
        per_program = {code: failing_cases(executor, problem, code, kept) for code in dict.fromkeys(programs)}
        result.samples[run] = [per_program[code] for code in programs]
        result.requirements[f"samples:{run}"] = {f"{run} sample {i}": fails for i, fails in enumerate(result.samples[run]) if fails}
        failures.update(result.requirements[f"samples:{run}"])
    result.requirements["samples"] = failures
    for kind in ("coverage", "mutants", "samples"):
        result.by_kind[kind] = greedy_cover(result.requirements[kind])
    return result


def run_programs(run_dirs: Iterable[Any], benchmark: Benchmark) -> dict[str, dict[str, list[str]]]:
    """Per run (its directory name), per problem, the programs of its samples (any benchmark with these task ids)."""
    out: dict[str, dict[str, list[str]]] = {}
    for run_dir in run_dirs:
        store = RunStore(run_dir)
        try:
            for sample in store.samples():
                problem = benchmark.problems.get(sample.task_id)
                if problem is not None:
                    out.setdefault(run_dir.name, {}).setdefault(sample.task_id, []).append(program_text(problem, sample))
        finally:
            store.close()
    return out


def reduce(benchmark: Benchmark, executor: Executor, runs: dict[str, dict[str, list[str]]], max_mutants: int | None = 20, seed: int = 0,
           workers: int = 1, progress: Callable[[int, int], None] | None = None) -> list[ProblemReduction]:
    """Every case-tested problem of the benchmark, reduced (see the module docstring)."""
    ids = [pid for pid, p in benchmark.problems.items() if isinstance(p.tests, CaseTests) and p.reference]
    done = [0]

    def one(pid: str) -> ProblemReduction:
        result = reduce_problem(executor, benchmark.problems[pid], {run: per.get(pid, []) for run, per in runs.items()}, max_mutants, seed)
        done[0] += 1
        if progress:
            progress(done[0], len(ids))
        return result

    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="assay-reduce") as pool:
        return list(pool.map(one, ids))


def pass_at_1(reductions: list[ProblemReduction], run: str, cases: Callable[[ProblemReduction], set[int] | None]) -> float:
    """A run's pass@1 over the problems it has samples of, when each problem's suite is `cases(r)` (None: all kept cases)."""
    rates = []
    for r in reductions:
        samples = r.samples.get(run) or []
        if not samples:
            continue
        suite = cases(r)
        rates.append(sum(1 for fails in samples if not (fails if suite is None else fails & suite)) / len(samples))
    return sum(rates) / len(rates) if rates else float("nan")
