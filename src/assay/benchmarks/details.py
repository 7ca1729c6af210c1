"""What a benchmark holds, per language: problems, cases kept and left out (with the reasons), and which
problems are judged as programs rather than cases. Behind `assay benchmarks --details`."""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from pathlib import Path

from assay.benchmarks import load_benchmark
from assay.benchmarks._fetch import DataUnavailable
from assay.problems import Benchmark, CaseTests, ProgramTests


@dataclass
class Details:
    """One benchmark's make-up."""

    name: str
    problems: int
    case_problems: int  # judged as cases
    cases: int
    left_out: dict[str, int] = field(default_factory=dict)  # reason -> inputs left out for this language
    program_judged: dict[str, str] = field(default_factory=dict)  # problem -> why it is judged as a program
    unavailable: str = ""  # why the benchmark could not be loaded here


def details_of(benchmark: Benchmark) -> Details:
    """Count a loaded benchmark's problems, cases and what was left out."""
    left: collections.Counter[str] = collections.Counter()
    judged: dict[str, str] = {}
    cases = case_problems = 0
    for pid, problem in benchmark.problems.items():
        tests = problem.tests
        if isinstance(tests, CaseTests):
            case_problems += 1
            cases += len(tests.cases)
            for reason, count in tests.left_out:
                left[reason] += count
        elif isinstance(tests, ProgramTests) and tests.why:
            judged[pid] = tests.why
    return Details(benchmark.name, len(benchmark.problems), case_problems, cases, dict(left.most_common()), judged)


def details(names: list[str], data_dir: Path | None = None, cache_dir: Path | None = None) -> list[Details]:
    """Details of each named benchmark; one that cannot be loaded here says why."""
    out = []
    for name in names:
        try:
            out.append(details_of(load_benchmark(name, data_dir=data_dir, cache_dir=cache_dir)))
        except DataUnavailable as exc:
            out.append(Details(name, 0, 0, 0, unavailable=str(exc)))
    return out


def markdown(rows: list[Details]) -> str:
    """The table as markdown: problems, cases kept, cases left out and why, program-judged problems."""
    lines = ["| benchmark | problems | as cases | cases kept | cases left out (why) | program-judged (why) |", "| --- | ---: | ---: | ---: | --- | --- |"]
    for d in rows:
        if d.unavailable:
            lines.append(f"| {d.name} | | | | {d.unavailable} | |")
            continue
        left = sum(d.left_out.values())
        why = "; ".join(f"{reason} {count:,}" for reason, count in d.left_out.items())
        judged = "; ".join(sorted(set(d.program_judged.values())))
        lines.append(f"| {d.name} | {d.problems} | {d.case_problems} | {d.cases:,} | {left:,}{f' ({why})' if why else ''} | "
                     f"{len(d.program_judged)}{f' ({judged})' if judged else ''} |")
    return "\n".join(lines)
