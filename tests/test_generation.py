"""Generation against loopback servers: retries, Retry-After, accounting, short replies, failures and their retry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.generation import GenerationAborted, Generator, Traffic, price_of
from assay.models.anthropic_api import AnthropicModel
from assay.models.base import GenerateConfig, Usage
from assay.models.openai_api import OpenAIModel
from assay.prompts import COMPLETION, INSTRUCT
from assay.store import RunStore
from tests.fakes.model_servers import FakeAnthropicServer, FakeOpenAIServer, Fault, count_tokens

IDS = ["HumanEval/0", "HumanEval/2", "HumanEval/4"]
FAST = Traffic(max_connections=4, max_retries=6, retry_initial=0.01, retry_max=0.05)


@pytest.fixture(scope="module")
def humaneval():  # type: ignore[no-untyped-def]
    bench = load_benchmark("humaneval")
    return bench


def _reply(body: dict, i: int) -> str:
    text = json.dumps(body)
    name = next((p for p in ("has_close_elements", "truncate_number", "mean_absolute_deviation") if p in text), "unknown")
    return f"Sure! Here it is:\n```python\ndef {name}(*args):\n    return {i}\n```\nHope this helps."


def _generator(bench, model, store, config=GenerateConfig(n=3), traffic=FAST, template=INSTRUCT, **kw):  # type: ignore[no-untyped-def]
    return Generator(bench, model, template, config, store, traffic, prices={}, **kw)


def _rows(store: RunStore) -> dict[tuple[str, int], dict]:
    return {(s.task_id, s.index): s.extra for s in store.samples()}


def test_samples_are_extracted_recorded_and_accounted(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(responder=_reply) as server:
        store = RunStore(tmp_path / "run")
        stats = _generator(humaneval, OpenAIModel("m", base_url=server.url), store).run(IDS)
        assert (stats.generated, stats.failed, stats.retries) == (9, 0, 0)
        assert stats.requests == 3  # the server's n parameter: one request per problem
        rows = _rows(store)
        assert len(rows) == 9
        extra = rows[("HumanEval/2", 1)]
        assert extra["raw_completion"].startswith("Sure!")
        assert extra["generation"]["settings"]["temperature"] == 0.2 and extra["generation"]["finish_reason"] == "stop"
        solutions = {(s.task_id, s.index): s.solution for s in store.samples()}
        assert "return 1" in solutions[("HumanEval/2", 1)] and "Hope this helps" not in solutions[("HumanEval/2", 1)]
        # Token accounting equals what the server counted, request by request.
        served_out = sum(count_tokens(_reply(r.body, i)) for r in server.requests for i in range(r.body.get("n", 1)))
        assert stats.usage.output_tokens == served_out
        assert sum(e["generation"]["output_tokens"] for e in rows.values()) == served_out
        store.close()


def test_every_fault_is_retried_and_counted(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(responder=_reply) as server:
        for fault in (Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.MALFORMED_JSON, Fault.DROP, Fault.TRUNCATE, Fault.HANG, Fault.OVERLOADED):
            server.inject(fault, retry_after=0.05, hang_s=5)
        store = RunStore(tmp_path / "run")
        model = OpenAIModel("m", base_url=server.url, timeout=1.0)
        stats = _generator(humaneval, model, store, traffic=Traffic(max_connections=1, max_retries=8, retry_initial=0.01, retry_max=0.05)).run(IDS)
        assert (stats.generated, stats.failed) == (9, 0)
        assert stats.retries == 7
        assert stats.retry_kinds == {"rate_limit": 1, "server_error": 2, "malformed": 1, "connection": 2, "timeout": 1}
        assert server.completions_served() == 9  # truncated replies are not counted as served
        rows = _rows(store)
        # One request per problem; every fault cost one extra attempt of some problem's request.
        assert sum(rows[(t, 0)]["generation"]["attempts"] - 1 for t in IDS) == 7
        store.close()


def test_retry_after_is_honoured_for_all_requests(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(responder=_reply) as server:
        server.inject(Fault.RATE_LIMIT, retry_after=0.6)
        store = RunStore(tmp_path / "run")
        stats = _generator(humaneval, OpenAIModel("m", base_url=server.url), store, traffic=Traffic(max_connections=1, retry_initial=0.01)).run(IDS)
        assert stats.retries == 1 and stats.generated == 9
        limited = server.requests[0]
        later = server.requests[1:]
        assert limited.fault is Fault.RATE_LIMIT
        assert all(r.time - limited.time >= 0.55 for r in later), [round(r.time - limited.time, 3) for r in later]
        store.close()


def test_server_without_n_gets_asked_again(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(responder=_reply, max_n=1) as server:  # like Ollama: n is ignored
        store = RunStore(tmp_path / "run")
        stats = _generator(humaneval, OpenAIModel("m", base_url=server.url), store).run(IDS)
        assert stats.generated == 9 and stats.requests == 9 and stats.failed == 0
        assert sorted(_rows(store)) == sorted((t, i) for t in IDS for i in range(3))
        store.close()


def test_exhausted_retries_are_recorded_then_only_those_are_retried(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    only_two = lambda body: "truncate_number" in json.dumps(body)  # noqa: E731
    with FakeOpenAIServer(responder=_reply) as server:
        server.inject(Fault.SERVER_ERROR, times=100, when=only_two)
        store = RunStore(tmp_path / "run")
        traffic = Traffic(max_connections=2, max_retries=2, retry_initial=0.01, retry_max=0.02)
        stats = _generator(humaneval, OpenAIModel("m", base_url=server.url), store, traffic=traffic).run(IDS)
        assert (stats.generated, stats.failed) == (6, 3)
        failures = [(t, i, e) for t, i, ok, e, _ in store.generation_records() if not ok]
        assert [(t, i) for t, i, _ in failures] == [("HumanEval/2", 0), ("HumanEval/2", 1), ("HumanEval/2", 2)]
        assert "server_error: HTTP 500" in failures[0][2] and "after 3 attempts" in failures[0][2]
        server.clear_faults()
        server.clear_requests()
        stats = _generator(humaneval, OpenAIModel("m", base_url=server.url), store, traffic=traffic).run(IDS)
        assert (stats.already, stats.generated, stats.failed) == (6, 3, 0)
        assert len(server.requests) == 1 and "truncate_number" in json.dumps(server.requests[0].body)
        assert all(ok for _, _, ok, _, _ in store.generation_records())
        store.close()


def test_refused_key_aborts_with_one_line(humaneval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ASSAY_TEST_KEY", "wrong")
    with FakeOpenAIServer(require_api_key="right") as server:
        store = RunStore(tmp_path / "run")
        model = OpenAIModel("m", base_url=server.url, api_key_env="ASSAY_TEST_KEY")
        with pytest.raises(GenerationAborted, match="HTTP 401") as info:
            _generator(humaneval, model, store, traffic=Traffic(max_connections=1)).run(IDS)
        assert "\n" not in str(info.value)
        assert len(server.requests) == 1  # nothing else was asked once the key was refused
        store.close()


def test_anthropic_one_request_per_sample_and_cost(humaneval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak")
    with FakeAnthropicServer(responder=_reply) as server:
        server.inject(Fault.OVERLOADED, retry_after=0.01)
        store = RunStore(tmp_path / "run")
        prices = {"anthropic/claude-x": {"input": 3.0, "output": 15.0}}
        gen = Generator(humaneval, AnthropicModel("claude-x", base_url=server.url), INSTRUCT, GenerateConfig(n=2), store, FAST, prices=prices)
        stats = gen.run(IDS)
        assert stats.generated == 6 and stats.requests == 7 and stats.retries == 1
        assert stats.cost_usd == pytest.approx(price_of(prices, "anthropic", "claude-x", stats.usage))
        assert stats.cost_usd == pytest.approx((stats.usage.input_tokens * 3 + stats.usage.output_tokens * 15) / 1e6)
        assert stats.usage.input_tokens > 0
        store.close()


def test_completion_style_uses_language_stops(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    continuation = "    return 0.0\n\n\ndef extra():\n    pass\n"
    with FakeOpenAIServer(responder=lambda body, i: continuation) as server:
        store = RunStore(tmp_path / "run")
        _generator(humaneval, OpenAIModel("m", base_url=server.url), store, config=GenerateConfig(n=1), template=COMPLETION).run(["HumanEval/2"])
        body = server.requests[0].body
        assert body["prompt"] == humaneval.problems["HumanEval/2"].prompt
        assert "\ndef" in body["stop"]
        (completion,) = [s.completion for s in store.samples()]
        assert completion.rstrip() == "    return 0.0"
        store.close()


def test_larger_n_on_rerun_adds_samples(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(responder=_reply) as server:
        store = RunStore(tmp_path / "run")
        _generator(humaneval, OpenAIModel("m", base_url=server.url), store, config=GenerateConfig(n=2)).run(IDS)
        server.clear_requests()
        stats = _generator(humaneval, OpenAIModel("m", base_url=server.url), store, config=GenerateConfig(n=5)).run(IDS)
        assert (stats.already, stats.generated) == (6, 9)
        assert [r.body["n"] for r in server.requests] == [3, 3, 3]
        store.close()


def test_usage_sums() -> None:
    assert Usage(1, 2) + Usage(3, 4) == Usage(4, 6)


def test_requests_per_minute_spaces_requests(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import time

    with FakeOpenAIServer(responder=_reply, max_n=1) as server:
        store = RunStore(tmp_path / "run")
        traffic = Traffic(max_connections=4, requests_per_minute=120)  # one request per 0.5 s
        started = time.monotonic()
        _generator(humaneval, OpenAIModel("m", base_url=server.url), store, config=GenerateConfig(n=2), traffic=traffic).run(IDS)
        elapsed = time.monotonic() - started
        assert len(server.requests) == 6
        # Six requests one per 0.5 s take at least 2.5 s (unlimited, they take a fraction of that).
        assert elapsed >= 2.45, elapsed
        store.close()


def test_a_reply_without_code_is_still_a_sample(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(responder=lambda body, i: "I cannot help with that.") as server:
        store = RunStore(tmp_path / "run")
        stats = _generator(humaneval, OpenAIModel("m", base_url=server.url), store, config=GenerateConfig(n=1)).run(IDS[:1])
        assert stats.generated == 1  # the model answered: judged (and failed), not a generation error
        (extra,) = _rows(store).values()
        assert extra["extraction"].startswith("empty") and extra["raw_completion"] == "I cannot help with that."
        store.close()


class _Archive:
    """Recorded samples from somewhere other than a replay file: the generator reads any such source by
    what it is (RecordedSamples), not by a backend's name."""

    name = "archive"
    model = "archive-2025"
    batched = False
    max_n_per_request = 1

    def __init__(self) -> None:
        from assay.samples import Sample

        self.rows = {"HumanEval/0": [Sample("HumanEval/0", 0, "    return True\n", None, 1),
                                     Sample("HumanEval/0", 1, "    return False\n", None, 2)]}

    def count(self, task_id: str) -> int:
        return len(self.rows.get(task_id, []))

    def sample(self, task_id: str, index: int):  # type: ignore[no-untyped-def]
        return self.rows[task_id][index]

    def completion(self, task_id: str, index: int):  # type: ignore[no-untyped-def]
        from assay.models.base import Completion

        return Completion(self.sample(task_id, index).completion or "", "replay", Usage())

    async def generate(self, prompt, n, config):  # type: ignore[no-untyped-def]
        raise AssertionError("a recorded source is never prompted")

    def describe(self) -> dict[str, str]:
        return {"backend": self.name, "model": self.model}

    async def aclose(self) -> None:
        pass


def test_a_recorded_source_is_read_by_task_and_index_whatever_its_name(humaneval, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store = RunStore(tmp_path / "run")
    stats = _generator(humaneval, _Archive(), store, config=GenerateConfig(n=5)).run(["HumanEval/0"])
    assert (stats.generated, stats.failed, stats.wanted) == (2, 0, 2)  # its own count, not --n
    rows = {(s.task_id, s.index): (s.completion, s.extra) for s in store.samples()}
    assert rows[("HumanEval/0", 1)][0] == "    return False\n" and rows[("HumanEval/0", 1)][1]["extraction"] == "replay"
    assert rows[("HumanEval/0", 0)][1]["generation"]["settings"] == {"replayed_from": "archive-2025"}
    store.close()
