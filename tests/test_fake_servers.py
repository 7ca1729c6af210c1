"""The fake model servers, proved against the official openai and anthropic SDKs.

What each injected fault turns into (max_retries=0), as pinned down by the tests below:

    fault           openai SDK                                   anthropic SDK
    RATE_LIMIT      openai.RateLimitError (429)                  anthropic.RateLimitError (429)
    SERVER_ERROR    openai.InternalServerError (500)             anthropic.InternalServerError (500)
    OVERLOADED      openai.InternalServerError (503)             anthropic.OverloadedError (529; an InternalServerError)
    MALFORMED_JSON  json.JSONDecodeError  <-- NOT an SDK error   json.JSONDecodeError  <-- NOT an SDK error
    HANG            openai.APITimeoutError                       anthropic.APITimeoutError
    DROP            openai.APIConnectionError                    anthropic.APIConnectionError
    TRUNCATE        openai.APIConnectionError                    anthropic.APIConnectionError

APITimeoutError is a subclass of APIConnectionError in both SDKs; DROP and TRUNCATE have an
httpx RemoteProtocolError as __cause__. MALFORMED_JSON: a 200 reply with Content-Type
application/json whose body is not JSON makes both SDKs call response.json() and let the bare
json.JSONDecodeError (a ValueError) escape, with no response attached, and they do NOT retry it
whatever max_retries is. Client code must catch ValueError itself (and decide to retry).
"""

from __future__ import annotations

import concurrent.futures
import itertools
import json
import threading
import time
import urllib.error
import urllib.request

import anthropic
import openai
import pytest

from tests.fakes.model_servers import DEFAULT_REPLY, FakeAnthropicServer, FakeOpenAIServer, Fault

TIMEOUT = 5.0
_clients: list = []


@pytest.fixture(autouse=True)
def _close_clients():
    yield
    while _clients:
        _clients.pop().close()


def oa(server: FakeOpenAIServer, **kw) -> openai.OpenAI:
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout", TIMEOUT)
    kw.setdefault("api_key", "k")
    _clients.append(openai.OpenAI(base_url=server.url, **kw))
    return _clients[-1]


def an(server: FakeAnthropicServer, **kw) -> anthropic.Anthropic:
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout", TIMEOUT)
    kw.setdefault("api_key", "k")
    _clients.append(anthropic.Anthropic(base_url=server.url, **kw))
    return _clients[-1]


def chat(client: openai.OpenAI, text: str = "write a function", **kw):
    return client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}], **kw)


def message(client: anthropic.Anthropic, text: str = "write a function", max_tokens: int = 100, **kw):
    return client.messages.create(model="m", max_tokens=max_tokens,
                                  messages=[{"role": "user", "content": text}], **kw)


@pytest.fixture
def openai_server():
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def anthropic_server():
    with FakeAnthropicServer() as server:
        yield server


# -- normal replies ------------------------------------------------------------------------------


def test_openai_chat_reply_parses_and_carries_usage(openai_server):
    client = oa(openai_server)
    reply = client.chat.completions.create(
        model="gpt-x", messages=[{"role": "system", "content": "be brief"},
                                 {"role": "user", "content": "write a function"}])
    assert reply.model == "gpt-x"
    assert len(reply.choices) == 1
    assert reply.choices[0].message.content == DEFAULT_REPLY
    assert reply.choices[0].message.role == "assistant"
    assert reply.choices[0].finish_reason == "stop"
    words = len(DEFAULT_REPLY.split())
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (5, words, 5 + words)
    assert openai_server.url.endswith("/v1")
    (rec,) = openai_server.requests
    assert rec.path == "/v1/chat/completions" and rec.method == "POST" and rec.status == 200 and rec.fault is None
    assert rec.headers["authorization"] == "Bearer k"
    assert rec.body["model"] == "gpt-x"
    assert rec.prompt == "write a function"
    assert [c.text for c in rec.choices] == [DEFAULT_REPLY]
    assert openai_server.completions_served() == 1


def test_openai_completions_reply_parses_and_carries_usage(openai_server):
    reply = oa(openai_server).completions.create(model="m", prompt="def add(a, b):", max_tokens=100)
    assert reply.object == "text_completion"
    assert reply.choices[0].text == DEFAULT_REPLY
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage.prompt_tokens == 3
    assert reply.usage.completion_tokens == len(DEFAULT_REPLY.split())
    assert openai_server.served_per_prompt() == {"def add(a, b):": 1}


def test_openai_completions_with_a_batch_of_prompts_counts_per_prompt():
    with FakeOpenAIServer(responder=lambda body, i: f"{body['prompt']} #{i}") as server:
        reply = oa(server).completions.create(model="m", prompt=["p one", "p two"], n=2, max_tokens=50)
    assert [(c.index, c.text) for c in reply.choices] == [
        (0, "p one #0"), (1, "p one #1"), (2, "p two #0"), (3, "p two #1")]
    assert reply.usage.prompt_tokens == 4 and reply.usage.completion_tokens == 12
    assert server.served_per_prompt() == {"p one": 2, "p two": 2}
    assert server.completions_served() == 4


def test_openai_models_list(openai_server):
    assert [m.id for m in oa(openai_server).models.list()] == ["fake-model"]


def test_anthropic_message_reply_parses_and_carries_usage(anthropic_server):
    assert not anthropic_server.url.endswith("/v1")
    reply = an(anthropic_server).messages.create(
        model="claude-x", max_tokens=100, system="be brief",
        messages=[{"role": "user", "content": [{"type": "text", "text": "write a function"}]}])
    assert reply.type == "message" and reply.role == "assistant" and reply.model == "claude-x"
    assert reply.content[0].type == "text" and reply.content[0].text == DEFAULT_REPLY
    assert reply.stop_reason == "end_turn" and reply.stop_sequence is None
    assert reply.usage.input_tokens == 5
    assert reply.usage.output_tokens == len(DEFAULT_REPLY.split())
    (rec,) = anthropic_server.requests
    assert rec.path == "/v1/messages"
    # anthropic 2.x sends the key as "Authorization: Bearer k" (older releases: "x-api-key: k").
    assert rec.headers.get("x-api-key") == "k" or rec.headers.get("authorization") == "Bearer k"
    assert anthropic_server.served_per_prompt() == {"write a function": 1}


def test_n_choices_call_the_responder_per_choice():
    with FakeOpenAIServer(responder=lambda body, i: f"solution number {i}") as server:
        reply = chat(oa(server), n=3)
        assert [c.message.content for c in reply.choices] == [f"solution number {i}" for i in range(3)]
        assert [c.index for c in reply.choices] == [0, 1, 2]
        assert reply.usage.completion_tokens == 9
        chat(oa(server), "another prompt", n=2)
        assert server.completions_served() == 5
        assert server.served_per_prompt() == {"write a function": 3, "another prompt": 2}


def test_max_n_1_ignores_n_like_ollama():
    with FakeOpenAIServer(max_n=1) as server:
        reply = chat(oa(server), n=5)
        assert len(reply.choices) == 1
        assert server.completions_served() == 1


def test_responder_with_one_argument_is_accepted():
    with FakeOpenAIServer(responder=lambda body: body["messages"][-1]["content"].upper()) as server:
        assert chat(oa(server), "shout this").choices[0].message.content == "SHOUT THIS"


def test_openai_stop_and_max_tokens():
    text = "def f():\n    return 1\n\ndef g():\n    return 2\n"
    with FakeOpenAIServer(responder=lambda body, i: text) as server:
        client = oa(server)
        reply = chat(client, stop=["\ndef ", "\nclass "])
        assert reply.choices[0].message.content == "def f():\n    return 1\n"
        assert reply.choices[0].finish_reason == "stop"
        assert reply.usage.completion_tokens == 4
        reply = chat(client, stop="return")  # a single string
        assert reply.choices[0].message.content == "def f():\n    "
        reply = chat(client, max_tokens=3)
        assert reply.choices[0].message.content == "def f():\n    return"
        assert reply.choices[0].finish_reason == "length"
        assert reply.usage.completion_tokens == 3
        reply = client.completions.create(model="m", prompt="x", max_tokens=100, stop=["\n\n"])
        assert reply.choices[0].text == "def f():\n    return 1" and reply.choices[0].finish_reason == "stop"
        reply = client.completions.create(model="m", prompt="x", max_tokens=3)
        assert reply.choices[0].text == "def f():\n    return" and reply.choices[0].finish_reason == "length"
        assert server.requests[-1].choices[0].finish_reason == "length"


def test_anthropic_stop_sequences_and_max_tokens():
    text = "def f():\n    return 1\n\ndef g():\n    return 2\n"
    with FakeAnthropicServer(responder=lambda body, i: text) as server:
        client = an(server)
        reply = message(client, stop_sequences=["\nclass ", "\ndef "])
        assert reply.content[0].text == "def f():\n    return 1\n"
        assert reply.stop_reason == "stop_sequence" and reply.stop_sequence == "\ndef "
        assert reply.usage.output_tokens == 4
        reply = message(client, max_tokens=3)
        assert reply.content[0].text == "def f():\n    return"
        assert reply.stop_reason == "max_tokens" and reply.stop_sequence is None
        assert reply.usage.output_tokens == 3


# -- faults ----------------------------------------------------------------------------------------


def test_openai_rate_limit_carries_retry_after(openai_server):
    openai_server.inject(Fault.RATE_LIMIT, retry_after=0.2)
    with pytest.raises(openai.RateLimitError) as info:
        chat(oa(openai_server))
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "0.2"
    assert info.value.body["code"] == "rate_limit_exceeded"  # the SDK unwraps {"error": {...}}
    assert openai_server.requests[0].fault is Fault.RATE_LIMIT and openai_server.requests[0].status == 429
    assert openai_server.completions_served() == 0


def test_anthropic_rate_limit_carries_retry_after(anthropic_server):
    anthropic_server.inject(Fault.RATE_LIMIT, retry_after=3)
    with pytest.raises(anthropic.RateLimitError) as info:
        message(an(anthropic_server))
    assert info.value.response.headers["retry-after"] == "3"
    assert info.value.body["error"]["type"] == "rate_limit_error"


def test_rate_limit_without_retry_after(openai_server):
    openai_server.inject(Fault.RATE_LIMIT, retry_after=None)
    with pytest.raises(openai.RateLimitError) as info:
        chat(oa(openai_server))
    assert "retry-after" not in info.value.response.headers


@pytest.mark.parametrize(
    ("fault", "exc", "status"),
    [
        (Fault.SERVER_ERROR, openai.InternalServerError, 500),
        (Fault.OVERLOADED, openai.InternalServerError, 503),
    ],
)
def test_openai_status_faults(openai_server, fault, exc, status):
    openai_server.inject(fault)
    with pytest.raises(exc) as info:
        chat(oa(openai_server))
    assert info.value.status_code == status
    assert set(info.value.body) == {"message", "type", "param", "code"}


@pytest.mark.parametrize(
    ("fault", "exc", "status", "kind"),
    [
        (Fault.SERVER_ERROR, anthropic.InternalServerError, 500, "api_error"),
        (Fault.OVERLOADED, anthropic.OverloadedError, 529, "overloaded_error"),
    ],
)
def test_anthropic_status_faults(anthropic_server, fault, exc, status, kind):
    anthropic_server.inject(fault)
    with pytest.raises(exc) as info:
        message(an(anthropic_server))
    assert info.value.status_code == status
    assert info.value.body == {"type": "error", "error": {"type": kind, "message": info.value.body["error"]["message"]}}


def test_malformed_json_escapes_as_a_bare_json_decode_error_and_is_not_retried():
    # Both SDKs parse the 200 reply with response.json(); a non-JSON body raises json.JSONDecodeError
    # (a ValueError, not an openai/anthropic exception) and the SDK's retry loop never sees it.
    with FakeOpenAIServer() as server:
        server.inject(Fault.MALFORMED_JSON)
        with pytest.raises(json.JSONDecodeError):
            chat(oa(server, max_retries=3))
        assert len(server.requests) == 1 and server.requests[0].status == 200
        assert server.completions_served() == 0
        assert chat(oa(server)).choices[0].message.content == DEFAULT_REPLY  # connection still usable
    with FakeAnthropicServer() as server:
        server.inject(Fault.MALFORMED_JSON)
        with pytest.raises(json.JSONDecodeError):
            message(an(server, max_retries=3))
        assert len(server.requests) == 1


@pytest.mark.parametrize("fault", [Fault.DROP, Fault.TRUNCATE])
def test_drop_and_truncate_are_connection_errors(fault):
    with FakeOpenAIServer() as server:
        client = oa(server)
        server.inject(fault)
        with pytest.raises(openai.APIConnectionError) as info:
            chat(client)
        assert not isinstance(info.value, openai.APITimeoutError)
        assert type(info.value.__cause__).__name__ == "RemoteProtocolError"
        assert server.completions_served() == 0  # a truncated reply is not a served completion
        assert chat(client).choices[0].message.content == DEFAULT_REPLY  # the same client recovers
    with FakeAnthropicServer() as server:
        client = an(server)
        server.inject(fault)
        with pytest.raises(anthropic.APIConnectionError) as info:
            message(client)
        assert not isinstance(info.value, anthropic.APITimeoutError)
        assert type(info.value.__cause__).__name__ == "RemoteProtocolError"
        assert message(client).content[0].text == DEFAULT_REPLY


def test_hang_is_a_timeout():
    with FakeOpenAIServer() as server:
        server.inject(Fault.HANG, hang_s=10)
        start = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            chat(oa(server, timeout=0.3))
        assert time.monotonic() - start < 2
        assert server.requests[0].fault is Fault.HANG and server.requests[0].status is None
    with FakeAnthropicServer() as server:
        server.inject(Fault.HANG, hang_s=10)
        with pytest.raises(anthropic.APITimeoutError):
            message(an(server, timeout=0.3))


def test_close_returns_fast_while_a_hang_is_in_progress():
    server = FakeOpenAIServer().start()
    server.inject(Fault.HANG)  # default hang_s=30
    caught: list[BaseException] = []

    def call() -> None:
        try:
            chat(oa(server, timeout=30))
        except BaseException as exc:
            caught.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    deadline = time.monotonic() + 2
    while not server.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.requests, "the hanging request never arrived"
    start = time.monotonic()
    server.close()
    assert time.monotonic() - start < 2
    thread.join(timeout=2)
    assert not thread.is_alive()
    assert isinstance(caught[0], openai.APIConnectionError)
    server.close()  # idempotent


# -- retries through the SDK, FIFO, predicates, API keys ------------------------------------------


def test_sdk_retries_honour_fractional_retry_after(openai_server):
    openai_server.inject(Fault.RATE_LIMIT, times=2, retry_after=0.15)
    reply = chat(oa(openai_server, max_retries=2))
    assert reply.choices[0].message.content == DEFAULT_REPLY
    recs = openai_server.requests
    assert [r.fault for r in recs] == [Fault.RATE_LIMIT, Fault.RATE_LIMIT, None]
    assert all(b.time - a.time >= 0.14 for a, b in itertools.pairwise(recs))
    assert openai_server.completions_served() == 1
    assert openai_server.pending_faults() == 0


def test_sdk_retries_truncated_replies_and_only_the_full_one_counts(anthropic_server):
    anthropic_server.inject(Fault.TRUNCATE)
    reply = message(an(anthropic_server, max_retries=1))
    assert reply.content[0].text == DEFAULT_REPLY
    assert [r.fault for r in anthropic_server.requests] == [Fault.TRUNCATE, None]
    assert anthropic_server.completions_served() == 1


def test_faults_are_served_fifo_and_can_be_cleared(openai_server):
    client = oa(openai_server)
    openai_server.inject(Fault.SERVER_ERROR)
    openai_server.inject(Fault.RATE_LIMIT)
    with pytest.raises(openai.InternalServerError):
        chat(client)
    with pytest.raises(openai.RateLimitError):
        chat(client)
    chat(client)
    openai_server.inject(Fault.SERVER_ERROR, times=5)
    assert openai_server.pending_faults() == 5
    openai_server.clear_faults()
    chat(client)
    assert [r.status for r in openai_server.requests] == [500, 429, 200, 200]


def test_when_predicate_selects_requests(openai_server):
    client = oa(openai_server)
    openai_server.inject(Fault.SERVER_ERROR, times=1, when=lambda body: body["messages"][-1]["content"] == "task b")
    assert chat(client, "task a").choices  # does not match: served normally, fault kept
    assert openai_server.pending_faults() == 1
    openai_server.clear_requests()
    with pytest.raises(openai.InternalServerError):
        chat(client, "task b")
    chat(client, "task b")  # consumed
    assert [(r.prompt, r.status) for r in openai_server.requests] == [("task b", 500), ("task b", 200)]
    assert openai_server.served_per_prompt() == {"task b": 1}


def test_openai_api_key_check():
    with FakeOpenAIServer(require_api_key="secret") as server:
        with pytest.raises(openai.AuthenticationError) as info:
            chat(oa(server, api_key="wrong"))
        assert info.value.status_code == 401 and info.value.body["code"] == "invalid_api_key"
        assert chat(oa(server, api_key="secret")).choices
        assert server.completions_served() == 1


def test_anthropic_api_key_check():
    with FakeAnthropicServer(require_api_key="secret") as server:
        with pytest.raises(anthropic.AuthenticationError) as info:
            message(an(server, api_key="wrong"))
        assert info.value.body["error"]["type"] == "authentication_error"
        assert message(an(server, api_key="secret")).content


def test_responder_errors_become_500s(openai_server):
    openai_server.responder = lambda body, i: 1 / 0
    with pytest.raises(openai.InternalServerError, match="ZeroDivisionError"):
        chat(oa(openai_server))
    assert isinstance(openai_server.errors[0], ZeroDivisionError)


def test_unknown_path_is_a_json_404(openai_server):
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(openai_server.url + "/nope", timeout=TIMEOUT)
    assert info.value.code == 404
    assert json.loads(info.value.read())["error"]["type"] == "invalid_request_error"


# -- concurrency -----------------------------------------------------------------------------------


def test_many_concurrent_requests_on_keep_alive_connections():
    with FakeOpenAIServer(responder=lambda body, i: body["messages"][-1]["content"], latency_s=0.2) as server:
        client = oa(server, max_retries=3)  # one client, one connection pool, shared by all threads
        server.inject(Fault.RATE_LIMIT, times=3, retry_after=0.05)
        prompts = [f"prompt {k}" for k in range(40)]
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(40) as pool:
            replies = list(pool.map(lambda p: chat(client, p, n=2), prompts))
        assert time.monotonic() - start < 5  # served in parallel, not 40 x 0.2 s
    assert all(r.choices[0].message.content == p for r, p in zip(replies, prompts, strict=True))
    assert server.completions_served() == 80
    assert server.served_per_prompt() == {p: 2 for p in prompts}
    assert len(server.requests) == 43
    assert sum(r.fault is Fault.RATE_LIMIT for r in server.requests) == 3


def test_anthropic_accepts_the_x_api_key_header_too():
    with FakeAnthropicServer(require_api_key="secret") as server:
        body = json.dumps({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}).encode()

        def post(headers: dict[str, str]) -> int:
            request = urllib.request.Request(server.url + "/v1/messages", data=body, method="POST",
                                             headers={"content-type": "application/json", **headers})
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                    return response.status
            except urllib.error.HTTPError as err:
                return err.code

        assert post({"x-api-key": "secret"}) == 200
        assert post({"x-api-key": "wrong"}) == 401
        assert post({}) == 401
