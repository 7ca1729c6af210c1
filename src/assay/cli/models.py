"""`assay generate` and `assay run`: sample a model on a benchmark (and judge as the samples arrive)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

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
    exit_if_nothing,
    fail,
    parse_ks,
    scheduler_for,
    selected_ids,
    show,
    shown_name,
    windowed,
)
from assay.cli.common import (
    execute as run_pipeline,
)

if TYPE_CHECKING:
    from assay.execution.pipeline import RunOutcome
    from assay.execution.schedulers import SchedulerFactory
    from assay.generation import Traffic
    from assay.models import ModelSpec
    from assay.models.base import GenerateConfig, ModelAPI
    from assay.problems import Benchmark
    from assay.prompts import PromptTemplate


ModelOpt = Annotated[str, typer.Option("--model", "-m", help="BACKEND/MODEL (openai/gpt-4o-mini, anthropic/claude-sonnet-4-5, vllm/ORG/NAME, hf/ORG/NAME) or replay:SAMPLES.jsonl.")]
NOpt = Annotated[int, typer.Option("--n", "-n", min=1, help="Samples per problem.")]
TempOpt = Annotated[float, typer.Option("--temperature", min=0.0, help="Sampling temperature.")]
TopPOpt = Annotated[float, typer.Option("--top-p", min=0.0, max=1.0, help="Nucleus sampling.")]
MaxTokOpt = Annotated[int, typer.Option("--max-tokens", min=1, help="Most tokens per completion.")]
StopOpt = Annotated[list[str] | None, typer.Option("--stop", help="Stop string (repeatable); default: the language's, for completion prompts.")]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="Sampling seed (sample i of a problem asks with seed+i).")]
GreedyOpt = Annotated[bool, typer.Option("--greedy", help="Greedy decoding: temperature 0, top-p 1.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8000/v1 (vLLM) or http://localhost:11434/v1 (Ollama); "
                                                 "several servers of the same model comma-separated (each request goes to the least busy).")]
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
                 data_dir: Path | None, dataset_file: Path | None, cache: Path, since: str | None = None, until: str | None = None,
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
    bench = windowed(bench, since, until)
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


def _show_generation(result: RunOutcome) -> None:
    """Print what generation did: samples, retries, tokens, cost, and what failed."""
    st = result.stats
    if st is None:
        return
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


def _default_run_dir(bench_name: str, spec: ModelSpec, config: GenerateConfig, template: PromptTemplate | None = None) -> Path:
    """runs/<benchmark>--<model>--<sampling>--<prompt template>: the same command resumes, other settings
    (a completion prompt instead of a chat one, say) get their own run."""
    if spec.backend == "replay":
        return Path("runs") / f"{bench_name.replace('/', '-')}--{spec.slug}"
    sampling = "greedy" if config.greedy else f"t{config.temperature:g}-p{config.top_p:g}"
    prompt = f"--{_slug(template.name)}" if template is not None else ""
    return Path("runs") / f"{bench_name.replace('/', '-')}--{spec.slug}--{sampling}{prompt}"


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
    since: SinceOpt = None, until: UntilOpt = None,
) -> None:
    """Sample completions from a model into a samples file (resumable; no execution)."""
    _model_command(benchmark, model, n, temperature, top_p, max_tokens, stop, seed, greedy, base_url, api_key_env, prompt_style, template,
                   max_connections, rpm, tpm, max_retries, request_timeout, prices, limit, task_ids, run_dir, data_dir, dataset_file, cache_dir, plain,
                   execute=False, output=output, since=since, until=until)


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
    since: SinceOpt = None, until: UntilOpt = None,
    scheduler: SchedulerOpt = "local", ray_address: RayAddressOpt = None,
    tries: Annotated[int, typer.Option("--tries", min=1, help="polyglot/<lang>: aider's tries (after a failed try, the test output is sent back); reports pass_rate_1 .. pass_rate_N.")] = 1,
    edit_format: Annotated[str | None, typer.Option("--edit-format", help="polyglot/<lang>: whole (default) or diff (SEARCH/REPLACE blocks).")] = None,
) -> None:
    """Generate samples from a model and judge each one as it arrives; then score the run."""
    if tries > 1 or edit_format is not None:  # polyglot's edit formats and aider's loop of tries
        _polyglot_tries(benchmark, model, tries, edit_format or "whole", base_url, api_key_env, temperature, top_p, max_tokens, seed, greedy,
                        max_connections, request_timeout, limit, task_ids, run_dir, json_out, data_dir, dataset_file, cache_dir, workers, allow_weak_sandbox)
        return
    _model_command(benchmark, model, n, temperature, top_p, max_tokens, stop, seed, greedy, base_url, api_key_env, prompt_style, template,
                   max_connections, rpm, tpm, max_retries, request_timeout, prices, limit, task_ids, run_dir, data_dir, dataset_file, cache_dir, plain,
                   execute=True, k=k, json_out=json_out, no_cache=no_cache, workers=workers, timeout=timeout, wall_timeout=wall_timeout, allow_weak_sandbox=allow_weak_sandbox,
                   since=since, until=until, scheduler=scheduler_for(scheduler, ray_address))


def _polyglot_tries(benchmark: str, model: str, tries: int, edit_format: str, base_url: str | None, api_key_env: str | None, temperature: float,
                    top_p: float, max_tokens: int, seed: int | None, greedy: bool, max_connections: int, request_timeout: float, limit: int | None,
                    task_ids: str | None, run_dir: Path | None, json_out: Path | None, data_dir: Path | None, dataset_file: Path | None,
                    cache_dir: Path | None, workers: int | None, allow_weak_sandbox: bool) -> None:
    """`assay run polyglot/<lang> --tries 2 --edit-format diff`: aider's loop, scored as pass_rate_1 .. pass_rate_<tries>."""
    import os

    from assay.benchmarks.polyglot import run_tries, with_edit_format
    from assay.store import RunStoreError

    if not benchmark.startswith("polyglot/"):
        fail(f"--tries and --edit-format are for the polyglot benchmarks (polyglot/<lang>), not {benchmark}")
    bench, spec, api, _tmpl, config, _traffic, ids = _model_setup(
        benchmark, model, 1, temperature, top_p, max_tokens, None, seed, greedy, base_url, api_key_env, None, None,
        max_connections, None, None, 6, request_timeout, limit, task_ids, data_dir, dataset_file, cache_dir or default_cache_dir())
    try:
        bench = with_edit_format(bench, edit_format)
    except ValueError as exc:
        fail(str(exc))
    sandbox = _sandbox_for(bench, allow_weak_sandbox)
    folder = run_dir or Path("runs") / f"{bench.name.replace('/', '-')}--{spec.slug}--{edit_format}-tries{tries}"
    try:
        report = run_tries(bench, api, config, sandbox, folder / "tries.jsonl", tries=tries, task_ids=ids, workers=workers or os.cpu_count() or 1)
    except RunStoreError as exc:  # the run directory holds another run
        fail(str(exc))
    data = {**report.to_json(), "benchmark": bench.name, "version": bench.version, "content_hash": bench.content_hash, "model": model,
            "edit_format": edit_format}
    rates = ", ".join(f"pass_rate_{k} {data[f'pass_rate_{k}']:.1f}%" for k in range(1, tries + 1))
    console.print(f"{bench.name} ({edit_format}, {len(report.rows)} exercises): {rates}; malformed edits {data['malformed_edits_pct']:.1f}% of replies")
    console.print(f"per-exercise tries: {folder / 'tries.jsonl'}")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(data, indent=2))
    if data["errors"] == len(report.rows):
        raise typer.Exit(1)


def _model_command(benchmark: str, model: str, n: int, temperature: float, top_p: float, max_tokens: int, stop: list[str] | None, seed: int | None, greedy: bool,
                   base_url: str | None, api_key_env: str | None, prompt_style: str | None, template: Path | None, max_connections: int,
                   rpm: float | None, tpm: float | None, max_retries: int, request_timeout: float, prices: Path | None, limit: int | None, task_ids: str | None,
                   run_dir: Path | None, data_dir: Path | None, dataset_file: Path | None, cache_dir: Path | None, plain: bool,
                   *, execute: bool, output: Path | None = None, k: str = "1", json_out: Path | None = None, no_cache: bool = False, workers: int | None = None,
                   timeout: float | None = None, wall_timeout: float | None = None, allow_weak_sandbox: bool = False,
                   since: str | None = None, until: str | None = None, scheduler: SchedulerFactory | None = None) -> None:
    from assay.execution import JudgeSettings
    from assay.execution.sources import ModelSamples

    check_timeouts(timeout, wall_timeout)
    cache = cache_dir or default_cache_dir()
    if prices is not None and not prices.is_file():
        fail(f"--prices {prices}: no such file")
    ks = parse_ks(k)
    if not model.startswith("replay:"):
        ks = [x for x in ks if x <= n] or [1]
    bench, spec, api, tmpl, config, traffic, ids = _model_setup(
        benchmark, model, n, temperature, top_p, max_tokens, stop, seed, greedy, base_url, api_key_env, prompt_style, template,
        max_connections, rpm, tpm, max_retries, request_timeout, limit, task_ids, data_dir, dataset_file, cache, since, until)
    sandbox = _sandbox_for(bench, allow_weak_sandbox) if execute else None
    run_dir = run_dir or _default_run_dir(bench.name, spec, config, tmpl)
    source = ModelSamples(api, tmpl, config, traffic, prices_path=prices, task_ids=ids)
    result, elapsed = run_pipeline(bench, source, run_dir, sandbox, plain=plain, ks=ks, settings=JudgeSettings(timeout=timeout, wall_timeout=wall_timeout),
                                   workers=workers, cache=cache, use_cache=not no_cache, scheduler=scheduler)
    _show_generation(result)
    if output is not None and result.samples_path is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(result.samples_path.read_bytes())
    console.print(f"samples: {output or result.samples_path}")
    if result.evaluation is not None:
        show(result.evaluation, shown_name(bench), elapsed)
    if json_out:
        data: dict[str, Any] = result.evaluation.to_json() if result.evaluation is not None else {"config": result.config}
        data["generation"] = result.stats.to_json() if result.stats is not None else None
        data["generation_errors"] = result.errors
        data["wall_seconds"] = round(elapsed, 3)
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(data, indent=2))
        console.print(f"scores and configuration: {json_out}")
    exit_if_nothing(result)
