"""OpenAI-compatible servers through the official openai SDK: OpenAI, vLLM, SGLang, TGI, Ollama, llama.cpp, OpenRouter."""

from __future__ import annotations

import os
import time
from typing import Any

import openai

from assay.models._http import malformed, sdk_error
from assay.models.base import Completion, GenerateConfig, ModelConfigError, Prompt, Response, Usage, split_usage

OFFICIAL_HOST = "api.openai.com"
OFFICIAL_MAX_STOP = 4  # api.openai.com rejects more than 4 stop sequences; the rest are applied client-side


class OpenAIModel:
    """Chat completions (instruction prompts) or plain completions (completion prompts) over HTTP.

    `base_url` may name several servers of the same model, comma-separated (vLLM on each of a cluster's
    GPU nodes): each request goes to the one with the fewest requests in flight, and a server whose last
    request could not connect is passed over for a few seconds while another one answers."""

    name = "openai"
    batched = False

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 600.0,
        max_n_per_request: int = 128,
        max_connections: int = 64,
    ) -> None:
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = os.environ.get(api_key_env)
        if not key:
            if self.base_url is None:
                raise ModelConfigError(f"set {api_key_env} to your OpenAI API key (or name another variable with --api-key-env), "
                                       "or pass --base-url for a local server")
            key = "EMPTY"  # vLLM, Ollama and llama.cpp accept any key; the SDK insists on one
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.base_urls: list[str | None] = [u.strip() for u in self.base_url.split(",") if u.strip()] if self.base_url else [None]
        self.official = self.base_url is None or OFFICIAL_HOST in self.base_url
        self.max_n_per_request = max(1, max_n_per_request)
        import httpx

        # Any: SDKs built on httpx2 type this as httpx2.Limits, older ones as httpx.Limits; both read it by attribute.
        limits: Any = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        # The SDK's own retries are off: Assay retries (and counts the retries) itself.
        self.clients = [
            openai.AsyncOpenAI(api_key=key, base_url=url, timeout=timeout, max_retries=0,
                               http_client=openai.DefaultAsyncHttpxClient(limits=limits, timeout=timeout))
            for url in self.base_urls
        ]
        self.client = self.clients[0]
        self.in_flight = [0] * len(self.clients)
        self.sent = [0] * len(self.clients)  # requests sent to each server (the run's traffic by server)
        self._unreachable_until = [0.0] * len(self.clients)
        self._turn = 0

    def describe(self) -> dict[str, Any]:
        """Backend, model and endpoint (the key's variable name, never the key)."""
        return {"backend": self.name, "model": self.model, "base_url": self.base_url or "https://api.openai.com/v1", "api_key_env": self.api_key_env}

    def _pick(self) -> int:
        """The server for the next request: reachable ones first, then the fewest in flight, in turn on ties."""
        now = time.monotonic()
        count = len(self.clients)
        self._turn = (self._turn + 1) % count
        order = [(self._unreachable_until[i] > now, self.in_flight[i], (i - self._turn) % count, i) for i in range(count)]
        return min(order)[3]

    def _params(self, n: int, config: GenerateConfig) -> dict[str, Any]:
        cfg = config.effective()
        params: dict[str, Any] = {"model": self.model, "temperature": cfg.temperature, "top_p": cfg.top_p}
        if n > 1:
            params["n"] = n
        if self.official:
            params["max_completion_tokens"] = cfg.max_tokens
        else:
            params["max_tokens"] = cfg.max_tokens
        if cfg.stop:
            params["stop"] = list(cfg.stop[:OFFICIAL_MAX_STOP] if self.official else cfg.stop)
        if cfg.seed is not None:
            params["seed"] = cfg.seed
        return params

    async def generate(self, prompt: Prompt, n: int, config: GenerateConfig) -> Response:
        """One request for up to n completions."""
        params = self._params(n, config)
        server = self._pick()
        client = self.clients[server]
        self.in_flight[server] += 1
        self.sent[server] += 1
        try:
            if prompt.is_chat:
                reply: Any = await client.chat.completions.create(messages=prompt.chat(), **params)  # type: ignore[arg-type]
            else:
                params.pop("max_completion_tokens", None)
                params["max_tokens"] = config.max_tokens
                reply = await client.completions.create(prompt=prompt.text or "", **params)
        except Exception as exc:  # every SDK failure becomes a classified ModelError
            error = sdk_error(exc, openai)
            if error.kind == "connection" and len(self.clients) > 1:
                self._unreachable_until[server] = time.monotonic() + 5.0  # its retry goes to another server
            raise error from exc
        finally:
            self.in_flight[server] -= 1
        choices = getattr(reply, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise malformed("no choices in the reply")
        texts: list[tuple[str, str | None]] = []
        for choice in sorted(choices, key=lambda c: getattr(c, "index", 0) or 0):
            if prompt.is_chat:
                message = getattr(choice, "message", None)
                if message is None:
                    raise malformed("a choice has no message")
                text = message.content or ""
            else:
                text = getattr(choice, "text", None)
                if text is None:
                    raise malformed("a choice has no text")
            texts.append((text, getattr(choice, "finish_reason", None)))
        usage = Usage()
        if getattr(reply, "usage", None) is not None:
            usage = Usage(reply.usage.prompt_tokens or 0, reply.usage.completion_tokens or 0)
        shares = split_usage(usage, len(texts))
        completions = [Completion(text, reason, share) for (text, reason), share in zip(texts, shares, strict=False)]
        return Response(completions, usage, getattr(reply, "model", None))

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        for client in self.clients:
            await client.close()
