"""Real HTTP test doubles for the OpenAI and Anthropic model APIs.

The servers are plain ``http.server.ThreadingHTTPServer`` instances bound to
127.0.0.1 on an ephemeral port and served from a daemon thread, so Assay's model
clients can be exercised end to end through the official ``openai`` and
``anthropic`` SDKs: retries, accounting and resume are tested against real
sockets, real status codes and real (mis)behaviour, not mocks.

Typical use::

    with FakeOpenAIServer(responder=lambda body, i: f"answer {i}") as server:
        server.inject(Fault.RATE_LIMIT, times=2, retry_after=0.1)
        client = openai.OpenAI(base_url=server.url, api_key="k")
        ...
        assert server.completions_served() == 5
        assert server.served_per_prompt()["def f():"] == 5

Behaviour worth knowing (see tests/test_fake_servers.py for the proof):

* Injected faults are checked before the API key, so a fault is always served
  to the request it was meant for.
* ``Fault.HANG`` sends nothing for ``hang_s`` seconds and then closes the
  connection without a response (it is a hang, not a slow reply; use
  ``latency_s`` for slow replies). ``close()`` aborts it at once.
* ``Fault.TRUNCATE`` sends the headers of a genuine reply (full
  Content-Length) and then half of its body; the choices in it are *not*
  counted as served.
* Tokens are whitespace-separated words, so usage figures are deterministic.
* Header names in :class:`RecordedRequest` are lower-cased.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import inspect
import itertools
import json
import re
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar
from urllib.parse import urlsplit

__all__ = [
    "DEFAULT_REPLY",
    "FakeAnthropicServer",
    "FakeOpenAIServer",
    "FakeServer",
    "Fault",
    "RecordedRequest",
    "ServedChoice",
    "count_tokens",
    "prompt_key",
]

DEFAULT_REPLY = "This is a reply from the fake model server."
MALFORMED_BODY = b'{"id": "x", "choices": ['

Responder = Callable[..., str]  # responder(body) or responder(body, i) -> reply text of choice i


class Fault(enum.StrEnum):
    RATE_LIMIT = "rate_limit"  # 429 + Retry-After (if retry_after is not None) + the API's error JSON
    SERVER_ERROR = "server_error"  # 500 + the API's error JSON
    OVERLOADED = "overloaded"  # 529 (Anthropic) / 503 (OpenAI) + the API's error JSON
    MALFORMED_JSON = "malformed_json"  # 200, application/json, body that is not JSON
    HANG = "hang"  # send nothing for hang_s seconds, then close the connection
    DROP = "drop"  # close the connection without any response
    TRUNCATE = "truncate"  # headers with the full Content-Length, then half the body, then close


@dataclass
class ServedChoice:
    """One choice (OpenAI) or message (Anthropic) handed out in a successful reply."""

    index: int
    prompt: Hashable | None  # see RecordedRequest.prompt
    text: str
    finish_reason: str  # OpenAI finish_reason / Anthropic stop_reason


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict | None  # parsed JSON body; None when absent or not a JSON object
    fault: Fault | None  # the injected fault this request got, if any
    time: float  # time.monotonic() when the request was received
    method: str = "POST"
    status: int | None = None  # HTTP status sent; None while in progress or when no response was sent
    choices: list[ServedChoice] = field(default_factory=list)  # served choices (successful replies only)

    @property
    def prompt(self) -> Hashable | None:
        """The request's prompt key: the completions ``prompt`` or the last user message's text."""
        return prompt_key(self.body)


def count_tokens(text: str) -> int:
    """The fake tokenizer: whitespace-separated words."""
    return len(text.split())


def _content_text(content: Any) -> str:
    """Text of an OpenAI/Anthropic message content (a string or a list of parts/blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def _single_prompt_key(prompt: Any) -> Hashable | None:
    if isinstance(prompt, str):
        return prompt
    if prompt is None:
        return None
    return json.dumps(prompt)  # token ids


def prompt_key(body: dict | None) -> Hashable | None:
    if not isinstance(body, dict):
        return None
    if "prompt" in body:
        prompt = body["prompt"]
        if isinstance(prompt, list) and prompt and all(isinstance(p, str) for p in prompt):
            return tuple(prompt)
        return _single_prompt_key(prompt)
    messages = body.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "user":
                return _content_text(message.get("content"))
    return None


def _shape(text: str, stop: Any, max_tokens: Any) -> tuple[str, str, str | None]:
    """Apply stop strings, then max_tokens. Returns (text, why, matched stop) with why in natural/stop/length."""
    stops = [stop] if isinstance(stop, str) else list(stop or [])
    stops = [s for s in stops if isinstance(s, str) and s]
    why, matched = "natural", None
    best = None
    for s in stops:
        pos = text.find(s)
        if pos >= 0 and (best is None or pos < best):
            best, matched = pos, s
    if best is not None:
        text, why = text[:best], "stop"
    else:
        matched = None
    if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) and max_tokens >= 0:
        words = list(re.finditer(r"\S+", text))
        if len(words) > max_tokens:
            text = text[: words[max_tokens - 1].end()] if max_tokens > 0 else ""
            why, matched = "length", None
    return text, why, matched


def _fmt_seconds(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


@dataclass
class _Injection:
    fault: Fault
    remaining: int
    retry_after: float | None
    hang_s: float
    when: Callable[[dict], bool] | None

    def matches(self, body: dict | None) -> bool:
        if self.when is None:
            return True
        try:
            return bool(self.when(body if body is not None else {}))
        except Exception:  # a predicate that cannot judge this body (e.g. KeyError) does not match
            return False


@dataclass
class _Reply:
    status: int
    payload: Any  # JSON-able
    headers: dict[str, str] = field(default_factory=dict)
    choices: list[ServedChoice] = field(default_factory=list)


class _ServerError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 256  # the clients open many connections at once

    def __init__(self, fake: FakeServer) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup that can stall.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # peers hanging up mid-reply are expected (timeouts, DROP, close()); stay quiet


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.server.fake._track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._untrack(self.connection)

    def do_GET(self) -> None:
        self.server.fake._handle(self, "GET")

    def do_POST(self) -> None:
        self.server.fake._handle(self, "POST")


class FakeServer:
    """Base class: a model API on 127.0.0.1:<ephemeral port>, with fault injection and a request log."""

    overloaded_status = 503
    url_suffix = ""

    def __init__(self, responder: Responder | None = None, *, require_api_key: str | None = None,
                 latency_s: float = 0.0, model: str = "fake-model") -> None:
        self.responder = responder if responder is not None else (lambda body, i: DEFAULT_REPLY)
        self.require_api_key = require_api_key
        self.latency_s = latency_s
        self.model = model
        self.port: int | None = None
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._faults: list[_Injection] = []
        self._served = 0
        self._ids = itertools.count(1)
        self._conns: set[socket.socket] = set()
        self._closing = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.errors: list[BaseException] = []  # exceptions raised by the responder (or the fake itself)

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeServer:
        if self._httpd is not None:
            raise RuntimeError("server already started")
        self._httpd = _HTTPServer(self)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"{type(self).__name__}:{self.port}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving; aborts hangs and latency waits and cuts open connections. Idempotent."""
        httpd = self._httpd
        if httpd is None or self._closing.is_set():
            return
        self._closing.set()
        httpd.shutdown()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def root_url(self) -> str:
        if self.port is None:
            raise RuntimeError("server not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The base URL to hand to the SDK."""
        return self.root_url + self.url_suffix

    # -- responder ---------------------------------------------------------------------------

    @property
    def responder(self) -> Responder:
        return self._responder

    @responder.setter
    def responder(self, fn: Responder) -> None:
        self._responder = fn
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            self._responder_takes_index = True
            return
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
        self._responder_takes_index = varargs or len(positional) >= 2

    def _reply_text(self, body: dict, i: int) -> str:
        try:
            text = self._responder(body, i) if self._responder_takes_index else self._responder(body)
        except Exception as exc:
            with self._lock:
                self.errors.append(exc)
            raise _ServerError("server_error", f"responder raised {type(exc).__name__}: {exc}") from exc
        return text if isinstance(text, str) else str(text)

    # -- fault injection and inspection --------------------------------------------------------

    def inject(self, fault: Fault, times: int = 1, retry_after: float | None = 1.0, hang_s: float = 30.0,
               when: Callable[[dict], bool] | None = None) -> None:
        """The next `times` requests whose body matches `when` (all if None) get this fault instead of a normal
        reply (FIFO among injected faults). `when` gets the parsed body ({} when there is none)."""
        if times < 1:
            raise ValueError("times must be >= 1")
        with self._lock:
            self._faults.append(_Injection(Fault(fault), times, retry_after, hang_s, when))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def pending_faults(self) -> int:
        """How many injected faults are still to be served."""
        with self._lock:
            return sum(f.remaining for f in self._faults)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a snapshot copy)."""
        with self._lock:
            return list(self._requests)

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def completions_served(self) -> int:
        """Number of choices (OpenAI) / messages (Anthropic) returned in successful replies so far."""
        with self._lock:
            return self._served

    def served_per_prompt(self) -> collections.Counter:
        """prompt -> number of choices served for it (completions with a list of prompts count per prompt)."""
        counts: collections.Counter = collections.Counter()
        for rec in self.requests:
            for choice in rec.choices:
                counts[choice.prompt] += 1
        return counts

    # -- internals ---------------------------------------------------------------------------

    def _track(self, conn: socket.socket) -> None:
        with self._lock:
            self._conns.add(conn)

    def _untrack(self, conn: socket.socket) -> None:
        with self._lock:
            self._conns.discard(conn)

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _handle(self, handler: _Handler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length > 0 else b""
        body: dict | None = None
        bad_json = False
        if raw:
            try:
                parsed = json.loads(raw)
            except ValueError:
                bad_json = True
            else:
                body = parsed if isinstance(parsed, dict) else None
                bad_json = body is None
        rec = RecordedRequest(path=urlsplit(handler.path).path, headers={k.lower(): v for k, v in handler.headers.items()},
                              body=body, fault=None, time=time.monotonic(), method=method)
        with self._lock:
            injection = None
            for candidate in self._faults:
                if candidate.matches(body):
                    injection = candidate
                    candidate.remaining -= 1
                    if candidate.remaining <= 0:
                        self._faults.remove(candidate)
                    break
            rec.fault = injection.fault if injection else None
            self._requests.append(rec)

        if injection is not None:
            self._serve_fault(handler, rec, injection)
            return

        try:
            if bad_json:
                raise _ServerError("bad_request", "request body is not a JSON object")
            self._check_auth(rec.headers)
            reply = self._route(method, rec.path.rstrip("/"), body)
        except _ServerError as err:
            reply = self._error_reply(err.kind, err.message)
        except Exception as exc:  # a bug in the fake or a responder returning junk: say so in a 500
            with self._lock:
                self.errors.append(exc)
            reply = self._error_reply("server_error", f"fake server error {type(exc).__name__}: {exc}")
        if self.latency_s > 0:
            self._closing.wait(self.latency_s)
        rec.status = reply.status
        if reply.status == 200 and reply.choices:
            with self._lock:
                rec.choices = reply.choices
                self._served += len(reply.choices)
        self._send(handler, reply.status, self._encode(reply.payload), reply.headers)

    def _serve_fault(self, handler: _Handler, rec: RecordedRequest, inj: _Injection) -> None:
        fault = inj.fault
        if fault is Fault.RATE_LIMIT:
            reply = self._error_reply("rate_limit", "Rate limit reached (injected by the fake server).")
            if inj.retry_after is not None:
                reply.headers["Retry-After"] = _fmt_seconds(inj.retry_after)
        elif fault is Fault.SERVER_ERROR:
            reply = self._error_reply("server_error", "Internal server error (injected by the fake server).")
        elif fault is Fault.OVERLOADED:
            reply = self._error_reply("overloaded", "Overloaded (injected by the fake server).")
        elif fault is Fault.MALFORMED_JSON:
            rec.status = 200
            self._send(handler, 200, MALFORMED_BODY, {})
            return
        elif fault is Fault.HANG:
            self._closing.wait(inj.hang_s)
            handler.close_connection = True
            return
        elif fault is Fault.DROP:
            handler.close_connection = True
            return
        elif fault is Fault.TRUNCATE:
            try:
                reply = self._route(rec.method, rec.path.rstrip("/"), rec.body)
            except _ServerError as err:
                reply = self._error_reply(err.kind, err.message)
            data = self._encode(reply.payload)
            rec.status = reply.status
            handler.close_connection = True
            handler.send_response(reply.status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data[: len(data) // 2])
            handler.wfile.flush()
            return
        else:  # pragma: no cover
            raise AssertionError(fault)
        rec.status = reply.status
        self._send(handler, reply.status, self._encode(reply.payload), reply.headers)

    @staticmethod
    def _encode(payload: Any) -> bytes:
        return json.dumps(payload).encode()

    def _send(self, handler: _Handler, status: int, data: bytes, headers: dict[str, str]) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        if handler.close_connection:
            handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()

    # -- API-specific hooks --------------------------------------------------------------------

    def _check_auth(self, headers: dict[str, str]) -> None:
        raise NotImplementedError

    def _route(self, method: str, path: str, body: dict | None) -> _Reply:
        raise NotImplementedError

    def _error_reply(self, kind: str, message: str) -> _Reply:
        raise NotImplementedError

    def _status_for(self, kind: str) -> int:
        return {"rate_limit": 429, "server_error": 500, "overloaded": self.overloaded_status, "auth": 401,
                "not_found": 404, "bad_request": 400}[kind]


def _int_param(body: dict, name: str, default: int | None) -> int | None:
    value = body.get(name, default)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _ServerError("bad_request", f"'{name}' must be a non-negative integer, got {value!r}")
    return value


class FakeOpenAIServer(FakeServer):
    """OpenAI-compatible: POST /v1/chat/completions, POST /v1/completions, GET /v1/models."""

    overloaded_status = 503
    url_suffix = "/v1"

    def __init__(self, responder: Responder | None = None, *, max_n: int | None = None,
                 require_api_key: str | None = None, latency_s: float = 0.0, model: str = "fake-model") -> None:
        super().__init__(responder, require_api_key=require_api_key, latency_s=latency_s, model=model)
        self.max_n = max_n

    _ERRORS: ClassVar[dict[str, tuple[str, str | None]]] = {
        "rate_limit": ("requests", "rate_limit_exceeded"),
        "server_error": ("server_error", None),
        "overloaded": ("server_error", "overloaded"),
        "auth": ("invalid_request_error", "invalid_api_key"),
        "not_found": ("invalid_request_error", "unknown_url"),
        "bad_request": ("invalid_request_error", None),
    }

    def _error_reply(self, kind: str, message: str) -> _Reply:
        type_, code = self._ERRORS[kind]
        payload = {"error": {"message": message, "type": type_, "param": None, "code": code}}
        return _Reply(self._status_for(kind), payload, {"x-request-id": f"req_fake{self._next_id()}"})

    def _check_auth(self, headers: dict[str, str]) -> None:
        if self.require_api_key is not None and headers.get("authorization") != f"Bearer {self.require_api_key}":
            raise _ServerError("auth", "Incorrect API key provided.")

    def _route(self, method: str, path: str, body: dict | None) -> _Reply:
        if method == "GET" and path == "/v1/models":
            return _Reply(200, {"object": "list", "data": [
                {"id": self.model, "object": "model", "created": 0, "owned_by": "fake"}]})
        if method == "POST" and path == "/v1/chat/completions":
            return self._chat(body or {})
        if method == "POST" and path == "/v1/completions":
            return self._completions(body or {})
        raise _ServerError("not_found", f"Unknown request URL: {method} {path}")

    def _n(self, body: dict) -> int:
        n = _int_param(body, "n", 1) or 1
        return n if self.max_n is None else max(1, min(n, self.max_n))

    def _common(self, body: dict) -> None:
        if body.get("stream"):
            raise _ServerError("bad_request", "the fake server does not support streaming")

    def _chat(self, body: dict) -> _Reply:
        self._common(body)
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise _ServerError("bad_request", "'messages' must be a non-empty list")
        max_tokens = _int_param(body, "max_completion_tokens", None)
        if max_tokens is None:
            max_tokens = _int_param(body, "max_tokens", None)
        prompt_tokens = sum(count_tokens(_content_text(m.get("content"))) for m in messages if isinstance(m, dict))
        key = prompt_key(body)
        choices, served = [], []
        for i in range(self._n(body)):
            text, why, _ = _shape(self._reply_text(body, i), body.get("stop"), max_tokens)
            finish = "length" if why == "length" else "stop"
            choices.append({"index": i, "message": {"role": "assistant", "content": text, "refusal": None},
                            "finish_reason": finish, "logprobs": None})
            served.append(ServedChoice(i, key, text, finish))
        completion_tokens = sum(count_tokens(c.text) for c in served)
        n = self._next_id()
        payload = {
            "id": f"chatcmpl-fake{n}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", self.model), "choices": choices, "system_fingerprint": None,
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }
        return _Reply(200, payload, {"x-request-id": f"req_fake{n}"}, served)

    def _completions(self, body: dict) -> _Reply:
        self._common(body)
        if "prompt" not in body:
            raise _ServerError("bad_request", "'prompt' is required")
        prompt = body["prompt"]
        # a batch of prompts (strings or token-id lists), or one prompt
        prompts = prompt if isinstance(prompt, list) and prompt and all(isinstance(p, (str, list)) for p in prompt) else [prompt]
        max_tokens = _int_param(body, "max_tokens", 16)  # the OpenAI default for /v1/completions
        prompt_tokens = sum(count_tokens(p) if isinstance(p, str) else len(p) if isinstance(p, list) else 0
                            for p in prompts)
        n_choices = self._n(body)
        choices, served = [], []
        for p_index, single in enumerate(prompts):
            sub_body = body if len(prompts) == 1 else {**body, "prompt": single}
            for i in range(n_choices):
                index = p_index * n_choices + i
                text, why, _ = _shape(self._reply_text(sub_body, i), body.get("stop"), max_tokens)
                finish = "length" if why == "length" else "stop"
                choices.append({"text": text, "index": index, "logprobs": None, "finish_reason": finish})
                served.append(ServedChoice(index, _single_prompt_key(single), text, finish))
        completion_tokens = sum(count_tokens(c.text) for c in served)
        n = self._next_id()
        payload = {
            "id": f"cmpl-fake{n}", "object": "text_completion", "created": int(time.time()),
            "model": body.get("model", self.model), "choices": choices, "system_fingerprint": None,
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }
        return _Reply(200, payload, {"x-request-id": f"req_fake{n}"}, served)


class FakeAnthropicServer(FakeServer):
    """Anthropic Messages API: POST /v1/messages (base URL without /v1, as the SDK expects)."""

    overloaded_status = 529
    url_suffix = ""

    _ERRORS: ClassVar[dict[str, str]] = {
        "rate_limit": "rate_limit_error",
        "server_error": "api_error",
        "overloaded": "overloaded_error",
        "auth": "authentication_error",
        "not_found": "not_found_error",
        "bad_request": "invalid_request_error",
    }

    def _error_reply(self, kind: str, message: str) -> _Reply:
        payload = {"type": "error", "error": {"type": self._ERRORS[kind], "message": message}}
        return _Reply(self._status_for(kind), payload, {"request-id": f"req_fake{self._next_id()}"})

    def _check_auth(self, headers: dict[str, str]) -> None:
        # Older SDKs send the key as x-api-key; anthropic>=2 sends "Authorization: Bearer KEY". Accept either.
        key = self.require_api_key
        if key is not None and headers.get("x-api-key") != key and headers.get("authorization") != f"Bearer {key}":
            raise _ServerError("auth", "invalid x-api-key")

    def _route(self, method: str, path: str, body: dict | None) -> _Reply:
        if method == "POST" and path == "/v1/messages":
            return self._messages(body or {})
        raise _ServerError("not_found", f"Not found: {method} {path}")

    def _messages(self, body: dict) -> _Reply:
        if body.get("stream"):
            raise _ServerError("bad_request", "the fake server does not support streaming")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise _ServerError("bad_request", "messages: field required")
        max_tokens = _int_param(body, "max_tokens", None)
        if max_tokens is None:
            raise _ServerError("bad_request", "max_tokens: field required")
        input_tokens = count_tokens(_content_text(body.get("system"))) + sum(
            count_tokens(_content_text(m.get("content"))) for m in messages if isinstance(m, dict))
        text, why, matched = _shape(self._reply_text(body, 0), body.get("stop_sequences"), max_tokens)
        stop_reason = {"natural": "end_turn", "stop": "stop_sequence", "length": "max_tokens"}[why]
        n = self._next_id()
        payload = {
            "id": f"msg_fake{n}", "type": "message", "role": "assistant", "model": body.get("model", self.model),
            "content": [{"type": "text", "text": text}], "stop_reason": stop_reason, "stop_sequence": matched,
            "usage": {"input_tokens": input_tokens, "output_tokens": count_tokens(text)},
        }
        return _Reply(200, payload, {"request-id": f"req_fake{n}"},
                      [ServedChoice(0, prompt_key(body), text, stop_reason)])
