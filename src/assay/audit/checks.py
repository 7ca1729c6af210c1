"""`assay audit`: everything Assay can find wrong with a benchmark before a model is blamed for it.

Each check gives findings (`assay.audit.lints.Finding`: the problem, the check, the evidence, a fix):
- `failing-reference`: the reference solution fails its own tests, or raises on some of its inputs
  (rule 3 of the design: such problems are scored apart);
- `reference-disagreement`: two references of one problem disagree: HumanEval's canonical solution
  judged on HumanEval+'s inputs (EvalPlus found its defective ground truths this way); for a C++, Go,
  Java, JavaScript or Rust translation of HumanEval, HumanEval-X's canonical solution in that language
  judged on HumanEval+'s inputs labelled by the Python reference (`assay.audit.crossref`);
- `canary-build-fails` / `stub-passes`: prompt + a do-nothing stub + the tests does not build, or
  passes (tests that check nothing); through the judge, as any sample;
- `weak-tests`: the problem's tests kill fewer than a threshold of the reference's mutants;
- `never-solved`: no sample of the given runs passes, with the most common failure;
- the translation lints of `assay.audit.lints`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.audit.lints import CHECKS as LINT_CHECKS
from assay.audit.lints import Finding, items_from_benchmark, lint
from assay.problems import Benchmark, Status
from assay.sandbox.base import Sandbox
from assay.store import RunStore

CHECKS: dict[str, str] = {
    "failing-reference": "the reference solution fails its own tests, or raises on some of its inputs",
    "reference-disagreement": "two references of the same problem disagree (HumanEval's on HumanEval+'s inputs; HumanEval-X's against the Python one)",
    "canary-build-fails": "prompt + a stub + the tests does not build: no sample can pass",
    "stub-passes": "prompt + a do-nothing stub passes the tests: they check nothing",
    "weak-tests": "the tests kill fewer than the threshold of the reference's mutants",
    "never-solved": "no sample of the given runs passes",
    **LINT_CHECKS,
}


@dataclass
class Audit:
    """The findings on one benchmark, and which checks ran (a check not run finds nothing)."""

    benchmark: str
    n_problems: int
    findings: list[Finding] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # check -> why it did not run

    def counts(self) -> dict[str, int]:
        found = Counter(f.check for f in self.findings)
        return {check: found.get(check, 0) for check in CHECKS if check in self.ran}

    def to_json(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "n_problems": self.n_problems, "counts": self.counts(), "checks_not_run": self.skipped,
                "findings": [asdict(f) for f in self.findings]}

    def to_markdown(self) -> str:
        lines = [f"## Audit of {self.benchmark} ({self.n_problems} problems)", "", "| check | findings | what it looks for |", "| --- | ---: | --- |"]
        lines += [f"| {check} | {n} | {CHECKS[check]} |" for check, n in self.counts().items()]
        lines += [f"| {check} | not run | {why} |" for check, why in self.skipped.items()]
        lines += ["", "| problem | check | evidence | suggested fix |", "| --- | --- | --- | --- |"]
        lines += [f"| {_cell(f.problem)} | {f.check} | {_cell(f.evidence)} | {_cell(f.fix)} |" for f in self.findings]
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:300]


def reference_findings(benchmark: Benchmark, sandbox: Sandbox, workers: int, cache_dir: Path | None) -> list[Finding]:
    """Every problem's reference run on its own tests, through the executor (as before any scoring)."""
    from assay.execution import Executor
    from assay.execution.schedulers import LocalScheduler
    from assay.store import RunStore as Store

    problems = {pid: p for pid, p in benchmark.problems.items() if p.reference}
    executor = Executor(sandbox, benchmark, workers=workers, cache_dir=cache_dir)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="assay-audit-") as tmp, LocalScheduler(sandbox, workers) as scheduler:
        store = Store(Path(tmp))
        try:
            defects = executor.check_references(scheduler, problems, store)
        finally:
            store.close()
    return [Finding(pid, "failing-reference", f"reference {verdict.message}"[:300],
                    "fix the reference (or the tests): until then the problem is scored apart") for pid, verdict in defects.items()]


def disagreement_findings(benchmark: Benchmark, other: Benchmark, sandbox: Sandbox, workers: int, cache_dir: Path | None) -> list[Finding]:
    """The benchmark's references judged as samples on `other`'s tests for the same problems."""
    import tempfile

    from assay.execution.pipeline import evaluate
    from assay.samples import Sample

    samples = [Sample(pid, 0, None, p.reference_program()) for pid, p in benchmark.problems.items() if pid in other.problems and p.reference]
    if not samples:
        return []
    with tempfile.TemporaryDirectory(prefix="assay-audit-") as tmp:
        empty = Path(tmp) / "references.jsonl"
        empty.write_text("")
        result = evaluate(other, samples, empty, Path(tmp) / "run", sandbox, [1], workers=workers, cache_dir=cache_dir)
        rows = [json.loads(line) for line in result.results_path.read_text().splitlines()]
    return [Finding(r["task_id"], "reference-disagreement", f"{benchmark.name}'s reference on {other.name}'s tests: {r['result']}"[:300],
                    f"compare with {other.name}'s reference; correct the one that is wrong")
            for r in rows if r["status"] not in (Status.PASSED.value, Status.SKIPPED.value) and r["task_id"] not in result.defects]


def canary_findings(benchmark: Benchmark, sandbox: Sandbox, workers: int, task_ids: list[str] | None = None) -> list[Finding]:
    """Prompt + stub + tests through the judge: must build, must not pass."""
    from assay.canary import run_canary

    result = run_canary(benchmark, sandbox, workers=workers, task_ids=task_ids)
    found = [Finding(pid, "canary-build-fails", f"{v.status.value}: {v.message}"[:300],
                     "fix the prompt or the tests until prompt + stub + tests builds") for pid, v in result.broken.items()]
    found += [Finding(pid, "stub-passes", "a do-nothing stub passes every test", "add tests that a stub fails")
              for pid in result.stub_passes]
    return found


def weak_findings(benchmark: Benchmark, sandbox: Sandbox, threshold: float, max_mutants: int, workers: int, cache_dir: Path | None,
                  originals: Benchmark | None, family: str) -> list[Finding]:
    """Problems whose tests kill fewer than `threshold` of the reference's mutants (the same yardstick as `assay strength`)."""
    from assay.augment.strength import measure, own_language, python_mutants_of, python_view, source_mutants_of

    if own_language(benchmark):  # hand-written references in the benchmark's own language
        view = dict(benchmark.problems)
        result = measure({benchmark.name: view}, view, sandbox, max_mutants=max_mutants, workers=workers, cache_dir=cache_dir,
                         mutate=source_mutants_of)
    else:
        view = python_view(benchmark, originals, family)
        references = {pid: (originals.problems[pid] if originals is not None and pid in originals.problems else p) for pid, p in view.items()}
        result = measure({benchmark.name: view}, references, sandbox, max_mutants=max_mutants, workers=workers, cache_dir=cache_dir,
                         mutate=python_mutants_of)
    by_python = {pid: (n, k) for pid, (n, k, _) in result.suites[0].per_problem.items()}
    names = _python_ids(benchmark, family)
    found = []
    for pid, (n, killed) in by_python.items():
        if n and killed / n < threshold:
            found.append(Finding(names.get(pid, pid), "weak-tests", f"the tests kill {killed} of {n} mutants of the reference ({killed / n:.0%})",
                                 "add inputs (assay augment) until the mutants are killed"))
    return found


def _python_ids(benchmark: Benchmark, family: str) -> dict[str, str]:
    """Python id -> the benchmark's own id (a translation's)."""
    if not family or all(p.language == "python" for p in benchmark.problems.values()):
        return {}
    from assay.benchmarks.plus_languages import python_id

    return {python_id(family, pid): pid for pid in benchmark.problems}


def never_solved_findings(benchmark: Benchmark, run_dirs: Iterable[Path]) -> list[Finding]:
    """Problems with samples in the runs, none of which passed; with the most common failure."""
    tried: dict[str, Counter[str]] = {}
    solved: set[str] = set()
    runs = 0
    for run_dir in run_dirs:
        store = RunStore(run_dir)
        try:
            for sample, verdict in store.results():
                if verdict is None or sample.task_id not in benchmark.problems or verdict.status is Status.SKIPPED:
                    continue
                if verdict.passed:
                    solved.add(sample.task_id)
                else:
                    tried.setdefault(sample.task_id, Counter())[f"{verdict.status.value}: {verdict.message[:120]}"] += 1
        finally:
            store.close()
        runs += 1
    return [Finding(pid, "never-solved", f"no sample of {runs} runs passes; most common failure ({n} samples): {why}",
                    "check the problem for a defect (the other findings, its prompt and tests) before blaming the models")
            for pid, failures in tried.items() if pid not in solved for why, n in failures.most_common(1)]


def audit(benchmark: Benchmark, sandbox: Sandbox | None, *, runs: list[Path] | None = None, python: Benchmark | None = None,
          originals: Benchmark | None = None, other: Benchmark | None = None, family: str = "", strength: bool = True, threshold: float = 0.8,
          max_mutants: int = 10, canary: bool = True, workers: int = 1, cache_dir: Path | None = None, task_ids: list[str] | None = None,
          crossref_data: Path | None = None, progress: Callable[[str], None] | None = None) -> Audit:
    """Run every check that applies. `python`: the Python originals, for the lints; `originals`: EvalPlus's
    problems (labels, references), for a translation's strength; `other`: a second set of references of
    the same problems (HumanEval+'s for HumanEval); `crossref_data`: a data directory with humaneval-x/, whose
    solutions are the second reference of a HumanEval translation into their languages."""
    say = progress or (lambda what: None)
    chosen = Benchmark(benchmark.name, benchmark.version, benchmark.content_hash, benchmark.source,
                       {pid: p for pid, p in benchmark.problems.items() if task_ids is None or pid in task_ids})
    report = Audit(benchmark.name, len(chosen.problems))
    say("translation lints")
    report.findings += lint(items_from_benchmark(chosen, python))
    report.ran += list(LINT_CHECKS)
    if sandbox is None:
        report.skipped.update({c: "no sandbox" for c in ("failing-reference", "reference-disagreement", "canary-build-fails", "stub-passes", "weak-tests")})
    else:
        if any(p.reference for p in chosen.problems.values()):
            say("references")
            report.findings += reference_findings(chosen, sandbox, workers, cache_dir)
            report.ran.append("failing-reference")
        else:
            report.skipped["failing-reference"] = "the benchmark has no reference solutions"
        from assay.audit.crossref import crossref_findings, lang_of

        lang = lang_of(chosen.name)
        if other is not None:
            say(f"references against {other.name}")
            report.findings += disagreement_findings(chosen, other, sandbox, workers, cache_dir)
            report.ran.append("reference-disagreement")
        elif lang is not None and crossref_data is not None and (crossref_data / "humaneval-x").is_dir():
            say(f"references against HumanEval-X's {lang} solutions")
            report.findings += crossref_findings(chosen, sandbox, crossref_data, workers, cache_dir)
            report.ran.append("reference-disagreement")
        elif lang is not None:
            report.skipped["reference-disagreement"] = "HumanEval-X's solutions not found (--data-dir with humaneval-x/), or --no-cross-references"
        else:
            report.skipped["reference-disagreement"] = "no second set of references for these problems"
        if canary:
            say("canary")
            report.findings += canary_findings(chosen, sandbox, workers)
            report.ran += ["canary-build-fails", "stub-passes"]
        else:
            report.skipped["canary-build-fails"] = report.skipped["stub-passes"] = "--no-canary"
        from assay.augment.strength import own_language

        python_ok = all(p.language == "python" and p.reference for p in chosen.problems.values())
        if strength and (python_ok or originals is not None or own_language(chosen)):
            say("test strength")
            report.findings += weak_findings(chosen, sandbox, threshold, max_mutants, workers, cache_dir, originals, family)
            report.ran.append("weak-tests")
        else:
            report.skipped["weak-tests"] = "--no-strength" if not strength else "no Python reference to make mutants of"
    if runs:
        say("runs")
        report.findings += never_solved_findings(chosen, runs)
        report.ran.append("never-solved")
    else:
        report.skipped["never-solved"] = "no --runs given"
    order = list(CHECKS)
    report.findings.sort(key=lambda f: (order.index(f.check) if f.check in order else len(order), f.problem))
    return report
