"""The rigor commands: `assay augment` (more inputs, labelled by the reference), `strength`, `reduce` and `audit`."""

from __future__ import annotations

import contextlib
import dataclasses
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from assay.augment.generate import Budget
from assay.cli.common import _sandbox_for, app, console, default_cache_dir, err, fail, selected_ids
from assay.problems import Benchmark, ProgramTests, Runner

if TYPE_CHECKING:
    from assay.audit.checks import Audit
    from assay.augment.units import UnitAugmented
    from assay.problems import Problem
    from assay.sandbox.base import Sandbox

# Options the rigor commands share.
LimitOpt = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N problems.")]
TasksOpt = Annotated[str | None, typer.Option("--task-ids", help="Comma-separated task ids (default: all).")]
WorkersOpt = Annotated[int | None, typer.Option("--workers", "-j", help="Parallel sandboxes (default: number of cores).")]
DataDirOpt = Annotated[Path | None, typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data.")]
CacheDirOpt = Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Cache for downloads, expected outputs and verdicts.")]
WeakOpt = Annotated[bool, typer.Option("--allow-weak-sandbox", help="Without bubblewrap, run programs as plain processes (NOT isolated).")]


@contextlib.contextmanager
def _sandboxed(sandbox: Sandbox | None, interrupted: str) -> Iterator[None]:
    """Around a command's sandboxed work: Ctrl-C says `interrupted` and exits 130; the sandbox is closed either way."""
    try:
        yield
    except KeyboardInterrupt:
        err.print(f"[bold red]interrupted:[/] {escape(interrupted)}", highlight=False)
        raise typer.Exit(130) from None
    finally:
        close = getattr(sandbox, "close", None)
        if close:
            close()


def parse_seconds(text: str | None) -> float | None:
    """"120", "120s", "2m", "1h" -> seconds; None stays None."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not match or float(match.group(1)) <= 0:
        fail(f"--budget {text}: give a positive time such as 120s, 10m or 1h")
    assert match is not None
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


@app.command()
def augment(
    benchmark: Annotated[str, typer.Argument(help="A benchmark with a Python reference: humaneval, humaneval-plus, mbpp-plus, "
                                                  "multipl-e/<humaneval|mbpp>-<lang>, humaneval-plus/<lang>, ...")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write the augmented benchmark to (then: assay evaluate DIR).")],
    per_problem: Annotated[int, typer.Option("--per-problem", min=0, help="New inputs to generate per problem (before invalid ones are dropped).")] = 500,
    budget: Annotated[str | None, typer.Option("--budget", help="Time for the whole run (120s, 10m, 1h); problems reached after it get no new inputs.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Random seed: the same seed gives the same inputs.")] = 0,
    name: Annotated[str | None, typer.Option("--name", help="The augmented benchmark's name (default <benchmark>-aug).")] = None,
    limit: LimitOpt = None,
    task_ids: TasksOpt = None,
    workers: WorkersOpt = None,
    data_dir: DataDirOpt = None,
    cache_dir: CacheDirOpt = None,
    allow_weak_sandbox: WeakOpt = False,
    seeds_from_model: Annotated[str | None, typer.Option("--seeds-from-model", help="BACKEND/MODEL asked for corner-case inputs first "
                                                         "(EvalPlus's ChatGPT seeds), e.g. openai/gpt-4o-mini.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server for --seeds-from-model.")] = None,
    api_key_env: Annotated[str | None, typer.Option("--api-key-env", help="Environment variable holding the API key for --seeds-from-model.")] = None,
) -> None:
    """Generate many more test inputs by type-aware mutation of each problem's own, keep those the
    reference answers (twice, the same), and write a benchmark directory `assay evaluate` loads."""
    import os

    from assay.augment.generate import CannotAugment, labelling_problems
    from assay.augment.generate import augment as run_augment
    from assay.augment.suite import write_suite
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError

    seconds = parse_seconds(budget)
    cache = cache_dir or default_cache_dir()
    try:
        bench = load_benchmark(benchmark, data_dir=data_dir, cache_dir=cache)
        ids = set(selected_ids(bench, limit, task_ids))
        if _hand_written(bench):
            if seeds_from_model:
                fail("--seeds-from-model: only for benchmarks with a Python reference (a hand-written suite's seeds are its tests' calls)")
            _augment_units(bench, ids, out, Budget(per_problem, seconds, seed), workers or os.cpu_count() or 1, allow_weak_sandbox)
            return
        labelling, types, skipped = labelling_problems(bench, data_dir=data_dir, cache_dir=cache)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError, BenchmarkFormatError, CannotAugment) as exc:
        fail(str(exc))
    labelling = {pid: p for pid, p in labelling.items() if pid in ids}
    if not labelling:
        fail(f"nothing to augment in {bench.name}: " + (next(iter(skipped.values())) if skipped else "no problem selected"))
    proposed: dict[str, list[tuple[object, ...]]] = {}
    if seeds_from_model:
        proposed = _model_inputs(seeds_from_model, base_url, api_key_env, labelling)
    sandbox = _sandbox_for(bench, allow_weak_sandbox)
    started = time.monotonic()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] > 5:
            last[0] = now
            err.print(f"[assay] augmented: {done}/{total}", markup=False, highlight=False)

    with _sandboxed(sandbox, "nothing was written; run the command again"):
        results = run_augment(bench, labelling, sandbox, Budget(per_problem, seconds, seed), types, workers=workers or os.cpu_count() or 1,
                              progress=progress, proposed=proposed)
    elapsed = time.monotonic() - started
    target = write_suite(out, name or f"{bench.name.replace('/', '-')}-aug", bench, results, Budget(per_problem, seconds, seed), elapsed)
    table = Table(title=f"{bench.name} augmented: {len(results)} problems, {elapsed:.1f} s")
    for column in ("", "seeds", "generated", "kept", "dropped"):
        table.add_column(column, justify="right" if column else "left")
    dropped: dict[str, int] = {}
    for r in results:
        for why, n in r.dropped.items():
            dropped[why] = dropped.get(why, 0) + n
    total_seeds, total_new, total_kept = sum(r.seeds for r in results), sum(r.generated for r in results), sum(r.kept for r in results)
    table.add_row("total", str(total_seeds), str(total_new), str(total_kept), str(total_new - total_kept))
    table.add_row("per problem", f"{total_seeds / len(results):.1f}", f"{total_new / len(results):.1f}", f"{total_kept / len(results):.1f}",
                  f"{(total_new - total_kept) / len(results):.1f}")
    console.print(table)
    for why, n in sorted(dropped.items(), key=lambda kv: -kv[1]):
        console.print(f"dropped {n}: {escape(why)}")
    for why in list(skipped.values())[:5]:
        err.print(f"[yellow]not augmented[/] {escape(why)}")
    if len(skipped) > 5:
        err.print(f"[yellow]not augmented[/] ... and {len(skipped) - 5} more problems")
    console.print(f"augmented benchmark: {target} (assay evaluate {target} --samples ...)")


def _hand_written(bench: Benchmark) -> bool:
    """A suite of unit tests with references in its own language (swift-suite, a benchmark directory)."""
    return all(isinstance(p.tests, ProgramTests) and p.tests.runner == Runner.UNITS for p in bench.problems.values())


def _augment_units(bench: Benchmark, ids: set[str], out: Path, budget: Budget, workers: int, allow_weak: bool) -> None:
    """`assay augment` of a hand-written suite: unit tests added to each function-level problem, labelled by its reference."""
    from assay.augment.units import augment_units, write_units_suite

    selected = Benchmark(name=bench.name, version=bench.version, content_hash=bench.content_hash, source=bench.source,
                         problems={pid: p for pid, p in bench.problems.items() if pid in ids})
    sandbox = _sandbox_for(bench, allow_weak)
    started = time.monotonic()

    def progress(done: UnitAugmented) -> None:
        what = f"not augmented: {done.skipped}" if done.skipped else f"{done.kept} tests added"
        err.print(f"[assay] {done.problem_id}: {what}", markup=False, highlight=False)

    with _sandboxed(sandbox, "nothing was written; run the command again"):
        results = augment_units(selected, sandbox, budget, workers=workers, progress=progress)
    elapsed = time.monotonic() - started
    if not any(r.tests for r in results):
        fail(f"nothing to augment in {bench.name}: " + "; ".join(f"{r.problem_id}: {r.skipped}" for r in results[:3]))
    try:
        target = write_units_suite(Path(bench.source), out, bench, results, budget, elapsed)
    except ValueError as exc:
        fail(str(exc))
    table = Table(title=f"{bench.name} augmented: {sum(1 for r in results if r.tests)} of {len(results)} problems, {elapsed:.1f} s")
    for column in ("", "seeds", "generated", "kept", "expect an error", "dropped"):
        table.add_column(column, justify="right" if column else "left")
    for r in results:
        if r.tests:
            table.add_row(r.problem_id, str(r.seeds), str(r.generated), str(r.kept), str(r.raising), str(r.generated - r.kept))
    console.print(table)
    dropped: dict[str, int] = {}
    for r in results:
        for why, n in r.dropped.items():
            dropped[why] = dropped.get(why, 0) + n
    for why, n in sorted(dropped.items(), key=lambda kv: -kv[1]):
        console.print(f"dropped {n}: {escape(why)}")
    for r in results:
        if r.skipped:
            err.print(f"[yellow]not augmented[/] {escape(r.problem_id)}: {escape(r.skipped)}")
    console.print(f"augmented benchmark: {target} (assay evaluate {target} --samples ...)")


def _model_inputs(spec: str, base_url: str | None, api_key_env: str | None, labelling: dict[str, Problem]) -> dict[str, list[tuple[object, ...]]]:
    """Each problem's inputs as a model proposes them (--seeds-from-model); a failed request is a warning, not the end."""
    from assay.augment.generate import seeds_of
    from assay.augment.llm_seeds import model_seeds
    from assay.models import get_model, parse_model_spec
    from assay.models.base import ModelConfigError

    try:
        options: dict[str, object] = {"base_url": base_url}
        if api_key_env:
            options["api_key_env"] = api_key_env
        model = get_model(parse_model_spec(spec), **options)
    except ModelConfigError as exc:
        fail(f"--seeds-from-model {spec}: {exc}")
    proposed, failed = model_seeds(model, labelling, {pid: seeds_of(p) for pid, p in labelling.items()})
    got = sum(len(v) for v in proposed.values())
    err.print(f"[assay] seeds from {spec}: {got} inputs proposed for {len(proposed)} problems", markup=False, highlight=False)
    if failed:
        first = next(iter(failed.items()))
        err.print(f"[yellow]warning:[/] {len(failed)} seed requests failed (e.g. {escape(first[0])}: {escape(first[1])}); "
                  "those problems are augmented by mutation alone", highlight=False)
    return proposed


@app.command()
def strength(
    suites: Annotated[list[str], typer.Argument(help="Suites to measure side by side: humaneval, humaneval-plus, an augmented directory, "
                                                     "multipl-e/humaneval-swift, humaneval-plus/swift, ...")],
    max_mutants: Annotated[int, typer.Option("--max-mutants", min=1, help="Mutants per problem (a fixed random choice; the same for every suite).")] = 20,
    seed: Annotated[int, typer.Option("--seed", help="Which mutants are chosen when a problem has more.")] = 0,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N problems (the first suite's order).")] = None,
    task_ids: Annotated[str | None, typer.Option("--task-ids", help="Comma-separated Python task ids (HumanEval/0, Mbpp/2, ...).")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the scores per suite and per problem here.")] = None,
    workers: WorkersOpt = None,
    data_dir: DataDirOpt = None,
    cache_dir: CacheDirOpt = None,
    allow_weak_sandbox: WeakOpt = False,
) -> None:
    """Mutation score of test suites, side by side: the share of the reference's mutants each suite kills."""
    import contextlib
    import json

    from assay.augment.generate import _python_family
    from assay.augment.strength import measure, own_language, python_mutants_of, python_view, source_mutants_of
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError

    cache = cache_dir or default_cache_dir()
    views: dict[str, dict[str, Problem]] = {}
    originals: dict[str, Benchmark] = {}
    loaded: list[Benchmark] = []
    try:
        for name in suites:
            bench = load_benchmark(name, data_dir=data_dir, cache_dir=cache)
            family = _python_family(bench.name) or ("humaneval" if bench.name.startswith("humaneval") else "mbpp" if bench.name.startswith("mbpp") else "")
            if family and family not in originals:
                with contextlib.suppress(DataUnavailable):
                    originals[family] = load_benchmark(f"{family}-plus", data_dir=data_dir, cache_dir=cache)
            key = bench.name if bench.name not in views else f"{bench.name} ({name})"  # an augmented suite keeps its source's name
            if own_language(bench):  # hand-written references in the benchmark's language: mutants of those
                views[key] = dict(bench.problems)
                loaded.append(bench)
                continue
            if any(p.language != "python" for p in bench.problems.values()) and family not in originals:
                fail(f"{bench.name}: measuring a translation needs its Python original (HumanEval+ or MBPP+ data); none was found")
            views[key] = python_view(bench, originals.get(family), family)
            loaded.append(bench)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError, BenchmarkFormatError) as exc:
        fail(str(exc))
    first = next(iter(views.values()))
    ids = list(first)
    if task_ids:
        ids = [t.strip() for t in task_ids.split(",") if t.strip() in first]
    ids = ids[:limit] if limit else ids
    if not ids:
        fail("no problem to measure: --task-ids names none of the first suite's problems (give Python ids such as HumanEval/0)")
    # The mutants are of EvalPlus's corrected reference where there is one, else of the first suite's.
    own = own_language(loaded[0])
    if own and not all(own_language(b) for b in loaded):
        fail("measure suites of one kind together: benchmarks with references in their own language (swift-suite, ...), "
             "or Python suites and translations (measured with mutants of the Python original)")
    references: dict[str, Problem] = {}
    for pid in ids:
        if own:
            references[pid] = first[pid]
            continue
        for bench in originals.values():
            if pid in bench.problems:
                references[pid] = bench.problems[pid]
                break
        else:
            references[pid] = first[pid]
    selected = {name: {pid: p for pid, p in view.items() if pid in references} for name, view in views.items()}
    sandbox = _sandbox_for(loaded[0], allow_weak_sandbox)
    started = time.monotonic()
    with _sandboxed(sandbox, "nothing was written; verdicts judged so far are cached, so the same command goes faster"):
        result = measure(selected, references, sandbox, max_mutants=max_mutants, seed=seed, workers=workers, cache_dir=cache,
                         mutate=source_mutants_of if own else python_mutants_of)
    elapsed = time.monotonic() - started
    table = Table(title=f"mutation score: {sum(result.mutants.values())} mutants of {len(references)} references, {elapsed:.1f} s")
    for column in ("suite", "problems", "mutants", "killed", "score", "without possibly equivalent"):
        table.add_column(column, justify="left" if column == "suite" else "right")
    for s in result.suites:
        table.add_row(escape(s.suite), str(len(s.per_problem)), str(s.mutants), str(s.killed), f"{s.score():.3f}",
                      f"{s.score(result.equivalent):.3f}" if len(result.suites) > 1 else "n/a (one suite)")
    console.print(table)
    if len(result.suites) > 1:
        console.print(f"possibly equivalent (no suite kills them): {sum(len(v) for v in result.equivalent.values())}")
    if own:
        console.print(f"stillborn (did not build, not counted): {sum(result.mutants.values()) - result.suites[0].mutants}")
    if json_out:
        data = result.to_json()
        data["seconds"] = round(elapsed, 1)
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(data, indent=2))
        console.print(f"scores: {json_out}")


@app.command()
def reduce(
    benchmark: Annotated[str, typer.Argument(help="A case-tested Python suite: humaneval-plus, mbpp-plus, or an augmented directory.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write the reduced benchmark to (then: assay evaluate DIR).")],
    runs: Annotated[list[Path] | None, typer.Option("--runs", help="Run directories whose failing samples the reduced suite must still catch (repeatable).")] = None,
    max_mutants: Annotated[int, typer.Option("--max-mutants", min=0, help="Mutants of the reference per problem the reduced suite must still kill.")] = 20,
    seed: Annotated[int, typer.Option("--seed", help="Which mutants are chosen when a problem has more.")] = 0,
    name: Annotated[str | None, typer.Option("--name", help="The reduced benchmark's name (default <benchmark>-mini).")] = None,
    limit: LimitOpt = None,
    task_ids: TasksOpt = None,
    workers: WorkersOpt = None,
    data_dir: DataDirOpt = None,
    cache_dir: CacheDirOpt = None,
    allow_weak_sandbox: WeakOpt = False,
) -> None:
    """Shrink a suite by set cover over reference coverage, mutants killed and wrong samples caught; report
    the size and, leaving one run out at a time, the pass@1 the reduced suite gives against the full one."""
    import os
    import statistics

    from assay.augment.generate import Augmented, Budget
    from assay.augment.reduce import ProblemReduction, pass_at_1, run_programs
    from assay.augment.reduce import reduce as run_reduce
    from assay.augment.suite import write_suite
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError
    from assay.execution import Executor
    from assay.problems import Benchmark, CaseTests
    from assay.store import RunStoreError

    cache = cache_dir or default_cache_dir()
    try:
        bench = load_benchmark(benchmark, data_dir=data_dir, cache_dir=cache)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError, BenchmarkFormatError) as exc:
        fail(str(exc))
    if any(p.language != "python" or not isinstance(p.tests, CaseTests) for p in bench.problems.values()):
        fail(f"{bench.name}: reduce takes a case-tested Python suite (humaneval-plus, mbpp-plus, an augmented directory); "
             "its problems are not all Python cases")
    ids = set(selected_ids(bench, limit, task_ids))
    chosen = Benchmark(bench.name, bench.version, bench.content_hash, bench.source, {p: q for p, q in bench.problems.items() if p in ids})
    for run_dir in runs or []:
        if not (run_dir / "run.sqlite").is_file():
            fail(f"--runs {run_dir}: not a run directory (no run.sqlite)")
    try:
        programs = run_programs(runs or [], chosen)
    except RunStoreError as exc:
        fail(str(exc))
    sandbox = _sandbox_for(chosen, allow_weak_sandbox)
    started = time.monotonic()
    with _sandboxed(sandbox, "nothing was written; run the command again"):
        executor = Executor(sandbox, chosen, cache_dir=cache)
        results = run_reduce(chosen, executor, programs, max_mutants=max_mutants, seed=seed, workers=workers or os.cpu_count() or 1)
    elapsed = time.monotonic() - started
    reduced = []
    for r in results:
        tests = r.problem.tests
        assert isinstance(tests, CaseTests)
        keep = sorted(r.chosen()) or [0]
        cases = tuple(tests.cases[r.kept[j]] for j in keep if j < len(r.kept))
        reduced.append(Augmented(dataclasses.replace(r.problem, tests=dataclasses.replace(tests, cases=cases)), seeds=len(r.kept), generated=0))
    before = [len(r.kept) for r in results]
    after = [len(a.problem.tests.cases) for a in reduced]  # type: ignore[union-attr]
    leave_one_out: dict[str, dict[str, float]] = {}
    for run in programs:
        def without(r: ProblemReduction, run: str = run) -> set[int]:
            return r.chosen(without=run)

        leave_one_out[run] = {"full": pass_at_1(results, run, lambda r: None), "reduced": pass_at_1(results, run, without)}
    extra = {"reduction": {"from": bench.name, "cases_before": sum(before), "cases_after": sum(after),
                           "by_kind": {kind: sum(len(r.by_kind.get(kind, ())) for r in results) for kind in ("coverage", "mutants", "samples")},
                           "leave_one_run_out_pass_at_1": leave_one_out,
                           "per_problem": {r.problem.id: {"before": len(r.kept), "after": a_n, **{k: len(v) for k, v in r.by_kind.items()}}
                                           for r, a_n in zip(results, after, strict=True)}}}
    target = write_suite(out, name or f"{bench.name.replace('/', '-')}-mini", bench, reduced, Budget(per_problem=0, seed=seed), elapsed, extra=extra)
    table = Table(title=f"{bench.name} reduced: {len(results)} problems, {elapsed:.1f} s")
    for column in ("", "full", "reduced"):
        table.add_column(column, justify="right" if column else "left")
    table.add_row("cases", str(sum(before)), str(sum(after)))
    table.add_row("cases per problem (mean)", f"{statistics.mean(before):.1f}", f"{statistics.mean(after):.1f}")
    for run, scores in leave_one_out.items():
        table.add_row(f"pass@1 of {escape(run)} (left out)", f"{scores['full']:.4f}", f"{scores['reduced']:.4f}")
    console.print(table)
    by_kind = extra["reduction"]["by_kind"]
    console.print("cases chosen by " + ", ".join(f"{k} {v}" for k, v in by_kind.items()))  # type: ignore[attr-defined]
    console.print(f"reduced benchmark: {target} (assay evaluate {target} --samples ...)")


@app.command()
def audit(
    benchmark: Annotated[str, typer.Argument(help="The benchmark to audit: humaneval, multipl-e/humaneval-swift, a directory, ...")],
    runs: Annotated[list[Path] | None, typer.Option("--runs", help="Run directories (repeatable): problems no sample of theirs passes are listed.")] = None,
    output_format: Annotated[str, typer.Option("--format", help="table (the terminal), md or json.")] = "table",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the report here (md or json) instead of stdout.")] = None,
    strength: Annotated[bool, typer.Option("--strength/--no-strength", help="Measure each problem's test strength (mutants of the reference).")] = True,
    canary: Annotated[bool, typer.Option("--canary/--no-canary", help="Build prompt + stub + tests for every problem.")] = True,
    cross_references: Annotated[bool, typer.Option("--cross-references/--no-cross-references",
                                                   help="Judge HumanEval-X's solution in the translation's language (C++, Go, Java, JS, Rust) "
                                                        "on HumanEval+'s inputs: a second reference.")] = True,
    threshold: Annotated[float, typer.Option("--threshold", min=0.0, max=1.0, help="A problem whose tests kill fewer of the mutants than this is weak.")] = 0.8,
    max_mutants: Annotated[int, typer.Option("--max-mutants", min=1, help="Mutants per problem for the strength check.")] = 10,
    limit: LimitOpt = None,
    task_ids: TasksOpt = None,
    workers: WorkersOpt = None,
    data_dir: DataDirOpt = None,
    cache_dir: CacheDirOpt = None,
    allow_weak_sandbox: WeakOpt = False,
) -> None:
    """Find what is wrong with a benchmark: failing or disagreeing references, tests that build wrong or
    check nothing, weak tests, problems no model solves, and translation defects; each finding names the
    problem, the evidence and a fix."""
    import contextlib
    import os

    from assay.audit.checks import audit as run_audit
    from assay.augment.generate import _python_family
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError

    if output_format not in ("table", "md", "json"):
        fail(f"--format {output_format}: give table, md or json")
    for run_dir in runs or []:
        if not (run_dir / "run.sqlite").is_file():
            fail(f"--runs {run_dir}: not a run directory (no run.sqlite)")
    cache = cache_dir or default_cache_dir()
    if Path(benchmark).is_file():  # an MBXP / HumanEval-XL file: Assay has no loader for those, so their lints only
        _audit_file(Path(benchmark), output_format, out, data_dir, cache)
        return
    try:
        bench = load_benchmark(benchmark, data_dir=data_dir, cache_dir=cache)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError, BenchmarkFormatError) as exc:
        fail(str(exc))
    ids = selected_ids(bench, limit, task_ids)
    family = _python_family(bench.name) or ("humaneval" if bench.name.startswith("humaneval") else "mbpp" if bench.name.startswith("mbpp") else "")
    translation = any(p.language != "python" for p in bench.problems.values())
    python: Benchmark | None = None
    originals: Benchmark | None = None
    other: Benchmark | None = None
    with contextlib.suppress(DataUnavailable, FileNotFoundError):
        if family and translation:
            python = load_benchmark("humaneval" if family == "humaneval" else "mbpp-plus", data_dir=data_dir, cache_dir=cache)
            originals = load_benchmark(f"{family}-plus", data_dir=data_dir, cache_dir=cache)
        if bench.name == "humaneval":
            other = load_benchmark("humaneval-plus", data_dir=data_dir, cache_dir=cache)
    from assay.audit.crossref import lang_of

    judged = strength or canary or any(p.reference for p in bench.problems.values()) or (cross_references and lang_of(bench.name) is not None)
    sandbox = _sandbox_for(bench, allow_weak_sandbox) if judged else None
    started = time.monotonic()
    with _sandboxed(sandbox, "no report was written"):
        report = run_audit(bench, sandbox, runs=runs, python=python, originals=originals, other=other, family=family, strength=strength,
                           threshold=threshold, max_mutants=max_mutants, canary=canary, workers=workers or os.cpu_count() or 1, cache_dir=cache,
                           task_ids=ids, crossref_data=(data_dir or _data_dir()) if cross_references else None,
                           progress=lambda what: err.print(f"[assay] audit: {what}", markup=False, highlight=False))
    elapsed = time.monotonic() - started
    _show_audit(report, output_format, out, elapsed)


def _data_dir() -> Path | None:
    """$ASSAY_DATA_DIR, where the loaders look for local data when --data-dir is not given."""
    import os

    from assay.benchmarks._fetch import DATA_DIR_ENV

    value = os.environ.get(DATA_DIR_ENV)
    return Path(value) if value else None


def _audit_file(path: Path, output_format: str, out: Path | None, data_dir: Path | None, cache: Path) -> None:
    """The translation lints of an mxeval-format file (MBXP, Multilingual HumanEval, HumanEval-XL)."""
    import contextlib

    from assay.audit.checks import Audit
    from assay.audit.lints import CHECKS as LINTS
    from assay.audit.lints import lint, read_mxeval
    from assay.benchmarks import load_benchmark
    from assay.benchmarks._fetch import DataUnavailable

    started = time.monotonic()
    python = None
    with contextlib.suppress(DataUnavailable, FileNotFoundError):
        python = load_benchmark("mbpp-plus" if "mb" in path.name.lower() else "humaneval", data_dir=data_dir, cache_dir=cache)
    try:
        items = read_mxeval(path, python)
    except (OSError, ValueError, KeyError) as exc:
        fail(f"{path}: not an mxeval-format file (task_id, language, prompt, test, entry_point per line): {exc}")
    report = Audit(str(path), len(items), findings=lint(items), ran=list(LINTS))
    report.skipped = {check: "an mxeval-format file: lints only" for check in ("failing-reference", "canary-build-fails", "weak-tests")}
    _show_audit(report, output_format, out, time.monotonic() - started)


def _show_audit(report: Audit, output_format: str, out: Path | None, elapsed: float) -> None:
    """The report as a table on the terminal, or markdown or JSON (to stdout or --out)."""
    import json

    from assay.audit.checks import CHECKS

    if output_format in ("md", "json"):
        text = report.to_markdown() if output_format == "md" else json.dumps({**report.to_json(), "seconds": round(elapsed, 1)}, indent=2) + "\n"
        if out is None:
            console.out(text, end="")
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text)
            console.print(f"audit report: {out}")
        return
    table = Table(title=f"audit of {report.benchmark}: {report.n_problems} problems, {len(report.findings)} findings, {elapsed:.1f} s")
    for column in ("check", "findings", "what it looks for"):
        table.add_column(column, justify="right" if column == "findings" else "left")
    for check, n in report.counts().items():
        table.add_row(check, str(n), CHECKS[check])
    for check, why in report.skipped.items():
        table.add_row(check, "[dim]not run[/]", escape(why))
    console.print(table)
    for f in report.findings[:40]:
        console.print(f"[bold]{escape(f.problem)}[/] {f.check}: {escape(f.evidence)}\n    fix: {escape(f.fix)}", highlight=False)
    if len(report.findings) > 40:
        console.print(f"... and {len(report.findings) - 40} more (--format md or json for all)")
