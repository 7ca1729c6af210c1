"""Model backends against real HTTP servers on loopback: replies, usage, keys, and how each fault is classified."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay.models import get_model, parse_model_spec
from assay.models._http import retry_after_seconds
from assay.models.anthropic_api import AnthropicModel
from assay.models.base import GenerateConfig, ModelConfigError, ModelError, Prompt, Usage, split_usage
from assay.models.openai_api import OpenAIModel
from tests.fakes.model_servers import FakeAnthropicServer, FakeOpenAIServer, Fault

CHAT = Prompt(messages=(("system", "be brief"), ("user", "write f")))
TEXT = Prompt(text="def f():\n")
CFG = GenerateConfig(n=1, temperature=0.2, top_p=0.95, max_tokens=50)


def _run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


async def _generate(model, prompt: Prompt, n: int, config: GenerateConfig = CFG):  # type: ignore[no-untyped-def]
    try:
        return await model.generate(prompt, n, config)
    finally:
        await model.aclose()


@pytest.fixture
def openai_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ASSAY_TEST_OPENAI_KEY", "sk-test-123")
    return "sk-test-123"


def test_spec_parsing() -> None:
    assert parse_model_spec("openai/gpt-4o-mini").model == "gpt-4o-mini"
    spec = parse_model_spec("vllm/bigcode/starcoder2-15b")
    assert (spec.backend, spec.model, spec.slug) == ("vllm", "bigcode/starcoder2-15b", "vllm-starcoder2-15b")
    assert parse_model_spec("replay:runs/x/samples.jsonl").backend == "replay"
    for bad in ("gpt-4o", "nope/model", "openai/", "replay:"):
        with pytest.raises(ModelConfigError):
            parse_model_spec(bad)


def test_missing_key_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY"):
        OpenAIModel("gpt-4o-mini")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicModel("claude-sonnet-4-5")


def test_heavy_backends_give_an_install_hint() -> None:
    with pytest.raises(ModelConfigError, match=r"pip install 'assay\[vllm\]'"):
        get_model(parse_model_spec("vllm/some/model"))


def test_openai_chat_n_choices_usage_and_key(openai_key: str) -> None:
    with FakeOpenAIServer(responder=lambda body, i: f"reply number {i}", require_api_key=openai_key) as server:
        model = OpenAIModel("qwen-coder", base_url=server.url, api_key_env="ASSAY_TEST_OPENAI_KEY")
        response = _run(_generate(model, CHAT, 3))
        assert [c.text for c in response.completions] == ["reply number 0", "reply number 1", "reply number 2"]
        # Usage as the server reported it, shared out among the completions.
        assert response.usage.output_tokens == 9
        assert sum((c.usage for c in response.completions), Usage()) == response.usage
        body = server.requests[0].body
        assert body["n"] == 3 and body["model"] == "qwen-coder" and body["messages"][0] == {"role": "system", "content": "be brief"}
        assert server.requests[0].headers["authorization"] == f"Bearer {openai_key}"
        assert openai_key not in str(model.describe())


def test_openai_completions_endpoint_with_stop() -> None:
    with FakeOpenAIServer(responder=lambda body, i: "    return 1\ndef g():\n    pass") as server:
        model = OpenAIModel("starcoder", base_url=server.url)
        config = GenerateConfig(n=1, max_tokens=50, stop=("\ndef ",))
        response = _run(_generate(model, TEXT, 1, config))
        assert response.completions[0].text == "    return 1"
        assert response.completions[0].finish_reason == "stop"
        assert server.requests[0].path.endswith("/completions") and server.requests[0].body["prompt"] == "def f():\n"
        assert server.requests[0].body["stop"] == ["\ndef "]


def test_greedy_is_sent_as_temperature_zero() -> None:
    with FakeOpenAIServer() as server:
        _run(_generate(OpenAIModel("m", base_url=server.url), CHAT, 1, GenerateConfig(greedy=True, temperature=0.8)))
        body = server.requests[0].body
        assert body["temperature"] == 0.0 and body["top_p"] == 1.0


def test_anthropic_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-test")
    with FakeAnthropicServer(responder=lambda body, i: "```python\ndef f():\n    return 1\n```", require_api_key="ak-test") as server:
        model = AnthropicModel("claude-test", base_url=server.url)
        response = _run(_generate(model, CHAT, 1))
        assert response.completions[0].text.startswith("```python")
        assert response.completions[0].finish_reason == "stop"
        assert response.usage.output_tokens > 0 and response.usage.input_tokens > 0
        body = server.requests[0].body
        assert body["system"] == "be brief" and body["messages"] == [{"role": "user", "content": "write f"}]
        assert body["temperature"] == 0.2 and body["top_p"] == 0.95
        headers = server.requests[0].headers  # SDKs send x-api-key, or (2.x) a bearer token
        assert headers.get("x-api-key") == "ak-test" or headers.get("authorization") == "Bearer ak-test"


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        (Fault.RATE_LIMIT, "rate_limit"),
        (Fault.SERVER_ERROR, "server_error"),
        (Fault.OVERLOADED, "server_error"),
        (Fault.MALFORMED_JSON, "malformed"),
        (Fault.HANG, "timeout"),
        (Fault.DROP, "connection"),
        (Fault.TRUNCATE, "connection"),
    ],
)
@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_each_fault_is_a_retryable_model_error(api: str, fault: Fault, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-test")
    server_cls = FakeOpenAIServer if api == "openai" else FakeAnthropicServer
    with server_cls() as server:
        server.inject(fault, retry_after=0.25, hang_s=10)
        model = OpenAIModel("m", base_url=server.url, timeout=1.0) if api == "openai" else AnthropicModel("m", base_url=server.url, timeout=1.0)
        with pytest.raises(ModelError) as info:
            _run(_generate(model, CHAT, 1))
        assert info.value.retryable, str(info.value)
        assert info.value.kind == kind, str(info.value)
        if fault is Fault.RATE_LIMIT:
            assert info.value.retry_after == pytest.approx(0.25)


def test_bad_key_is_not_retryable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_TEST_OPENAI_KEY", "wrong")
    with FakeOpenAIServer(require_api_key="right") as server:
        with pytest.raises(ModelError) as info:
            _run(_generate(OpenAIModel("m", base_url=server.url, api_key_env="ASSAY_TEST_OPENAI_KEY"), CHAT, 1))
        assert not info.value.retryable and info.value.kind == "auth"


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past: no wait
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_split_usage_is_exact() -> None:
    shares = split_usage(Usage(10, 7), 3)
    assert sum((s for s in shares), Usage()) == Usage(10, 7)


def test_replay_reads_a_samples_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"task_id": "T/0", "completion": "a", "completion_id": 1}\n{"task_id": "T/0", "solution": "b", "completion_id": 0}\n')
    model = get_model(parse_model_spec(f"replay:{path}"))
    assert model.count("T/0") == 2 and model.count("T/1") == 0  # type: ignore[attr-defined]
    assert model.completion("T/0", 0).text == "b"  # type: ignore[attr-defined]
    with pytest.raises(ModelConfigError, match="cannot answer a new prompt"):
        asyncio.run(model.generate(Prompt(text="def f():"), 1, GenerateConfig()))
    with pytest.raises(ModelConfigError):
        get_model(parse_model_spec(f"replay:{tmp_path / 'missing.jsonl'}"))
