"""Sampling completions from a model: concurrent requests, retries, rate limits, accounting, resume.

Each completion is written to the run store the moment it arrives, with everything that shaped
it, so a killed run asks again only for what is missing and never for a sample it already has.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from aiolimiter import AsyncLimiter
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from assay import extract
from assay.models.base import Completion, GenerateConfig, ModelAPI, ModelError, Prompt, RecordedSamples, Response, Usage
from assay.problems import Benchmark, Problem, ProgramTests, Runner
from assay.prompts import PromptTemplate
from assay.provenance import now_iso
from assay.samples import Sample
from assay.store import RunStore

SEQ_STRIDE = 1_000_000  # samples are ordered by problem, then index
FATAL_KINDS = {"auth", "not_found"}  # every other request would fail the same way
BATCH_PROMPTS = 64  # in-process engines: prompts per batch (what a kill can lose)


class GenerationAborted(RuntimeError):
    """The server refused in a way no retry fixes (bad key, unknown model); the message is one line."""


class _Cancelled(Exception):
    """Another request already found the server refusing: this one is not sent."""


@dataclass(frozen=True)
class Traffic:
    """How hard to push the server, and how patiently to retry."""

    max_connections: int = 16
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    max_retries: int = 6
    retry_initial: float = 1.0  # seconds; exponential backoff with full jitter from here
    retry_max: float = 60.0
    max_retry_after: float = 600.0  # a Retry-After longer than this is cut to this


@dataclass
class GenerationStats:
    """What generation did, for progress and the run record."""

    wanted: int = 0
    already: int = 0
    generated: int = 0
    failed: int = 0
    requests: int = 0
    retries: int = 0
    retry_kinds: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None

    def to_json(self) -> dict[str, Any]:
        """As plain data."""
        return {
            "wanted": self.wanted,
            "already_done": self.already,
            "generated": self.generated,
            "failed": self.failed,
            "requests": self.requests,
            "retries": self.retries,
            "retry_kinds": dict(self.retry_kinds),
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
        }


def load_prices(path: Path | None = None) -> dict[str, dict[str, float]]:
    """USD per million input/output tokens by 'backend/model' (the shipped table, or a user's JSON file)."""
    text = path.read_text() if path else resources.files("assay.models").joinpath("prices.json").read_text()
    data = json.loads(text)
    return {k: v for k, v in data.items() if not k.startswith("_")}


def price_of(prices: dict[str, dict[str, float]], backend: str, model: str, usage: Usage) -> float | None:
    """The cost of some usage, if the model is in the table."""
    entry = prices.get(f"{backend}/{model}") or prices.get(model)
    if entry is None:
        return None
    return (usage.input_tokens * entry["input"] + usage.output_tokens * entry["output"]) / 1e6


def code_of(problem: Problem, text: str, style: str, stops: tuple[str, ...]) -> tuple[str | None, str | None, str]:
    """(completion, solution, how): the code a reply stands for, continuing the prompt or replacing it."""
    if isinstance(problem.tests, ProgramTests) and problem.tests.runner in (Runner.PREDICT_INPUT, Runner.PREDICT_OUTPUT):
        from assay.judging.cruxeval import prediction_of  # CRUXEval: the reply's prediction, as upstream takes it

        return None, prediction_of(text, problem.tests.runner), "cruxeval-answer"
    if problem.extract == "edit":  # polyglot: the reply is an edit of the exercise's files, parsed by its judge
        return None, text, "polyglot-edit"
    if problem.extract == "last-fence":  # LiveCodeBench's own rule: the last fenced block (a base model's reply: all of it)
        return None, (text.strip() if style == "completion" else extract.last_fenced_block(text)), f"{problem.extract}:{style}"
    if style == "completion":
        got = extract.extract_completion(text, problem.language, problem.prompt, stops or None)
    else:
        got = extract.extract_instruct(text, problem.language, problem.entry_point, problem.prompt)
    if got.mode == "full_program":
        return None, got.code, got.how
    if problem.reference_is_program:  # the prompt is prose (MBPP's paper prompt, hand-written suites): the reply is the program
        return None, got.code, got.how + "+whole_program"
    return got.code, None, got.how


def stops_for(problem: Problem, template: PromptTemplate, config: GenerateConfig) -> tuple[str, ...]:
    """Stop strings sent with a request: the user's, else (completion style) the benchmark's or the language's."""
    if config.stop:
        return config.stop
    if template.style != "completion":
        return ()
    return stops_for_language(problem)


def stops_for_language(problem: Problem) -> tuple[str, ...]:
    """Where a completion ends: the benchmark's own stop strings, else the language's."""
    return problem.stops or extract.default_stops(problem.language)


class _Backoff:
    """Wait before a retry: what Retry-After asked for, else exponential backoff with full jitter."""

    def __init__(self, traffic: Traffic) -> None:
        self.traffic = traffic

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, ModelError) and exc.retry_after is not None:
            return min(exc.retry_after, self.traffic.max_retry_after)
        ceiling = min(self.traffic.retry_max, self.traffic.retry_initial * 2 ** (state.attempt_number - 1))
        return random.uniform(0, ceiling)


class Generator:
    """Fills a run store with n samples per problem from one model."""

    def __init__(
        self,
        benchmark: Benchmark,
        model: ModelAPI,
        template: PromptTemplate,
        config: GenerateConfig,
        store: RunStore,
        traffic: Traffic = Traffic(),
        prices: dict[str, dict[str, float]] | None = None,
        key: Callable[[Sample], str | None] | None = None,
        on_sample: Callable[[Sample], None] | None = None,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.benchmark = benchmark
        self.model = model
        # A replay serves recorded samples by task and index: a different source, not a model to prompt.
        self.recorded = model if isinstance(model, RecordedSamples) else None
        self.template = template
        self.config = config
        self.store = store
        self.traffic = traffic
        self.prices = prices if prices is not None else load_prices()
        self.key = key  # a sample's program hash, as the judge keys it (None: no judge, as in `assay generate`)
        self.on_sample = on_sample
        self.on_event = on_event or (lambda kind, info: None)
        self.stats = GenerationStats()
        self._order = {pid: i for i, pid in enumerate(benchmark.problems)}
        self._pause_until = 0.0  # a 429's Retry-After holds back every request, not just the one that got it
        self._fatal: str | None = None

    # ------------------------------------------------------------ planning

    def missing(self, task_ids: list[str] | None = None) -> dict[str, list[int]]:
        """Sample indexes each problem still needs (failed generations included: they are retried)."""
        have = self.store.generated()
        wanted: dict[str, list[int]] = {}
        for pid in task_ids or list(self.benchmark.problems):
            n = self._n_for(pid)
            todo = [i for i in range(n) if i not in have.get(pid, set())]
            self.stats.wanted += n
            self.stats.already += n - len(todo)
            if todo:
                wanted[pid] = todo
        return wanted

    def _n_for(self, task_id: str) -> int:
        return self.recorded.count(task_id) if self.recorded is not None else self.config.n

    # ------------------------------------------------------------ recording

    def _record(self, problem: Problem, idx: int, completion: Completion, attempts: int, latency: float, request_n: int, served: str | None,
                classeval_build: tuple[str, list[dict[str, str]]] | None = None) -> None:
        cost = price_of(self.prices, self.model.name, self.model.model, completion.usage)
        settings: dict[str, Any] = self.config.effective().to_json()
        settings["request_n"] = request_n
        if self.recorded is not None:
            settings = {"replayed_from": self.model.model}
        stops = stops_for(problem, self.template, self.config)
        if self.recorded is not None:
            replayed = self.recorded.sample(problem.id, idx)
            code, solution, how = replayed.completion, replayed.solution, "replay"
        elif classeval_build is not None:  # classeval-incremental/-compositional: the class assembled from its steps' replies
            code, solution, how = None, classeval_build[0], problem.extract
        else:
            code, solution, how = code_of(problem, completion.text, self.template.style, stops)
        record = {
            "model": self.model.model,
            "backend": self.model.name,
            "served_model": served,
            "settings": settings,
            "stop": list(stops),
            "prompt_style": self.template.style,
            "template": self.template.name,
            "template_sha256": self.template.to_json()["sha256"],
            "finish_reason": completion.finish_reason,
            "input_tokens": completion.usage.input_tokens,
            "output_tokens": completion.usage.output_tokens,
            "cost_usd": None if cost is None else round(cost, 8),
            "attempts": attempts,
            "latency_s": round(latency, 3),
            "generated_at": now_iso(),
        }
        extra: dict[str, Any] = {"raw_completion": completion.text, "extraction": how, "generation": record}
        if classeval_build is not None:
            extra["classeval_steps"] = classeval_build[1]
        sample = Sample(problem.id, idx, code, solution, 0, extra)
        if self.key is not None:
            sample = dataclasses.replace(sample, program_hash=self.key(sample))
        self.store.add_generation(problem.id, idx, record, sample, seq=self._order[problem.id] * SEQ_STRIDE + idx)
        self.stats.generated += 1
        self.stats.usage = self.stats.usage + completion.usage
        if cost is not None:
            self.stats.cost_usd = (self.stats.cost_usd or 0.0) + cost
        if self.on_sample:
            self.on_sample(sample)
        self.on_event("sample", {"task_id": problem.id, "index": idx})

    def _record_error(self, problem: Problem, indexes: list[int], error: ModelError, attempts: int) -> None:
        reason = f"{error.kind}: {error} (after {attempts} attempt{'s' if attempts != 1 else ''})"
        record = {"model": self.model.model, "backend": self.model.name, "attempts": attempts, "error_kind": error.kind, "failed_at": now_iso()}
        for idx in indexes:
            self.store.add_generation(problem.id, idx, record, None, error=reason)
        self.stats.failed += len(indexes)
        self.on_event("error", {"task_id": problem.id, "count": len(indexes), "reason": reason})

    # ------------------------------------------------------------ requests

    async def _request(
        self, prompt: Prompt, n: int, config: GenerateConfig, limiter: asyncio.Semaphore, rpm: AsyncLimiter | None, tpm: AsyncLimiter | None, attempts: list[int]
    ) -> tuple[Response, float]:
        """One request with retries; attempts[0] counts the tries (also when the last one fails)."""
        started = 0.0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.traffic.max_retries + 1),
            wait=_Backoff(self.traffic),
            retry=retry_if_exception(lambda e: isinstance(e, ModelError) and e.retryable),
            reraise=True,
            before_sleep=self._before_sleep,
        )
        async for attempt in retrying:
            with attempt:
                attempts[0] += 1
                async with limiter:
                    if self._fatal is not None:
                        raise _Cancelled()
                    delay = self._pause_until - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    if rpm is not None:
                        await rpm.acquire()
                    if tpm is not None:
                        estimate = len(prompt.text or "".join(c for _, c in prompt.messages)) // 4 + config.max_tokens * n
                        await tpm.acquire(min(estimate, tpm.max_rate))
                    self.stats.requests += 1
                    started = time.monotonic()
                    response = await self.model.generate(prompt, n, config)
        return response, time.monotonic() - started

    def _before_sleep(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        kind = exc.kind if isinstance(exc, ModelError) else type(exc).__name__
        self.stats.retries += 1
        self.stats.retry_kinds[kind] += 1
        if isinstance(exc, ModelError) and exc.retry_after is not None:
            self._pause_until = max(self._pause_until, time.monotonic() + min(exc.retry_after, self.traffic.max_retry_after))
        self.on_event("retry", {"kind": kind, "attempt": state.attempt_number, "message": str(exc)})

    async def _fill(self, problem: Problem, indexes: list[int], limiter: asyncio.Semaphore, rpm: AsyncLimiter | None, tpm: AsyncLimiter | None) -> None:
        """Get samples for these indexes, asking again for the rest when a server returns fewer than asked."""
        if problem.extract.startswith("classeval-"):  # classeval-incremental/-compositional: one request a method
            await asyncio.gather(*(self._fill_classeval(problem, idx, limiter, rpm, tpm) for idx in indexes))
            return
        prompt = self.template.render(problem)
        stops = stops_for(problem, self.template, self.config)
        todo = list(indexes)
        short_replies = 0
        while todo and self._fatal is None:
            n = min(len(todo), self.model.max_n_per_request)
            seed = None if self.config.seed is None else self.config.seed + todo[0]
            config = GenerateConfig(n, self.config.temperature, self.config.top_p, self.config.max_tokens, stops, seed, self.config.greedy)
            counter = [0]
            try:
                response, latency = await self._request(prompt, n, config, limiter, rpm, tpm, counter)
            except _Cancelled:
                return
            except ModelError as exc:
                self._record_error(problem, todo[:n], exc, counter[0])
                if exc.kind in FATAL_KINDS:
                    self._fatal = f"{self.model.name} refused {self.model.model}: {exc}"
                todo = todo[n:]
                continue
            got = response.completions[:n]
            if not got:
                short_replies += 1
                if short_replies > self.traffic.max_retries:
                    self._record_error(problem, todo[:n], ModelError("the server returned no completions", retryable=False, kind="malformed"), short_replies)
                    todo = todo[n:]
                continue
            for idx, completion in zip(todo, got, strict=False):
                self._record(problem, idx, completion, counter[0], latency, n, response.model)
            todo = todo[len(got) :]  # fewer than asked (Ollama ignores n): ask again for the rest

    async def _fill_classeval(self, problem: Problem, idx: int, limiter: asyncio.Semaphore, rpm: AsyncLimiter | None, tpm: AsyncLimiter | None) -> None:
        """One sample of classeval-incremental/-compositional: a class built method by method (classeval_strategies), one
        request a step, recorded as the assembled class; a step that fails fails the sample (a rerun asks for all of it)."""
        from assay.benchmarks.classeval_strategies import ClassBuild, ClassPlan

        build = ClassBuild(ClassPlan.from_json(problem.extra["plan"]), self.template.style)
        seed = None if self.config.seed is None else self.config.seed + idx
        config = GenerateConfig(1, self.config.temperature, self.config.top_p, self.config.max_tokens, stops_for(problem, self.template, self.config),
                                seed, self.config.greedy)
        counter, took = [0], [0.0]
        served: list[str | None] = [None]  # what the server said it is (classeval steps: the last one's)

        async def ask(text: str) -> Completion:
            response, latency = await self._request(self.template.render(dataclasses.replace(problem, prompt=text)), 1, config, limiter, rpm, tpm, counter)
            took[0] += latency
            served[0] = response.model
            if not response.completions:
                raise ModelError("the server returned no completions", retryable=False, kind="malformed")
            return response.completions[0]

        try:
            completion = await build.run(ask)
        except _Cancelled:
            return
        except ModelError as exc:
            self._record_error(problem, [idx], exc, counter[0])
            if exc.kind in FATAL_KINDS:
                self._fatal = f"{self.model.name} refused {self.model.model}: {exc}"
            return
        self._record(problem, idx, completion, counter[0], took[0], 1, served[0], classeval_build=(build.program(), build.steps_json()))

    async def _run_async(self, wanted: dict[str, list[int]]) -> None:
        limiter = asyncio.Semaphore(self.traffic.max_connections)
        # Requests are spaced evenly (no burst of a minute's worth at the start); tokens flow per second.
        rpm = AsyncLimiter(1, 60 / self.traffic.requests_per_minute) if self.traffic.requests_per_minute else None
        tpm = AsyncLimiter(max(1.0, self.traffic.tokens_per_minute / 60), 1) if self.traffic.tokens_per_minute else None
        jobs = []
        for pid, indexes in wanted.items():
            problem = self.benchmark.problems[pid]
            step = max(1, self.model.max_n_per_request)
            for start in range(0, len(indexes), step):
                jobs.append(self._fill(problem, indexes[start : start + step], limiter, rpm, tpm))
        try:
            await asyncio.gather(*jobs)
        finally:
            await self.model.aclose()

    def _run_batched(self, wanted: dict[str, list[int]]) -> None:
        by_count: dict[int, list[str]] = {}
        for pid, indexes in wanted.items():
            by_count.setdefault(len(indexes), []).append(pid)
        for count, pids in by_count.items():
            for start in range(0, len(pids), BATCH_PROMPTS):
                chunk = pids[start : start + BATCH_PROMPTS]
                problems = [self.benchmark.problems[p] for p in chunk]
                stops = stops_for(problems[0], self.template, self.config)
                config = GenerateConfig(count, self.config.temperature, self.config.top_p, self.config.max_tokens, stops, self.config.seed, self.config.greedy)
                began = time.monotonic()
                responses = self.model.generate_batch([self.template.render(p) for p in problems], count, config)  # type: ignore[attr-defined]
                latency = time.monotonic() - began
                self.stats.requests += 1
                for problem, response in zip(problems, responses, strict=False):
                    for idx, completion in zip(wanted[problem.id], response.completions, strict=False):
                        self._record(problem, idx, completion, 1, latency, count, response.model)

    def run(self, task_ids: list[str] | None = None) -> GenerationStats:
        """Generate every missing sample; raises GenerationAborted if the server refuses outright."""
        wanted = self.missing(task_ids)
        self.on_event("plan", {"wanted": self.stats.wanted, "already": self.stats.already})
        if self.recorded is not None:
            for pid, indexes in wanted.items():
                for idx in indexes:
                    self._record(self.benchmark.problems[pid], idx, self.recorded.completion(pid, idx), 0, 0.0, 1, None)
        elif self.model.batched and not any(self.benchmark.problems[p].extract.startswith("classeval-") for p in wanted):  # classeval steps: one by one
            self._run_batched(wanted)
        else:
            asyncio.run(self._run_async(wanted))
        if self._fatal:
            raise GenerationAborted(self._fatal)
        return self.stats
