"""Anthropic's Messages API through the official anthropic SDK."""

from __future__ import annotations

import os
from typing import Any

import anthropic

from assay.models._http import malformed, sdk_error
from assay.models.base import Completion, GenerateConfig, ModelConfigError, Prompt, Response, Usage

ANTHROPIC_MAX_TEMPERATURE = 1.0


class AnthropicModel:
    """Claude models; one completion per request (the API has no `n`)."""

    name = "anthropic"
    batched = False
    max_n_per_request = 1

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "ANTHROPIC_API_KEY",
        timeout: float = 600.0,
        max_connections: int = 64,
    ) -> None:
        self.model = model
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        key = os.environ.get(api_key_env)
        if not key:
            raise ModelConfigError(f"set {api_key_env} to your Anthropic API key (or name another variable with --api-key-env)")
        self.api_key_env = api_key_env
        import httpx

        # Any: SDKs built on httpx2 type this as httpx2.Limits, older ones as httpx.Limits; both read it by attribute.
        limits: Any = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        self.client = anthropic.AsyncAnthropic(
            api_key=key,
            base_url=self.base_url,
            timeout=timeout,
            max_retries=0,  # Assay retries, and counts the retries, itself
            http_client=anthropic.DefaultAsyncHttpxClient(limits=limits, timeout=timeout),
        )

    @property
    def _sdk_takes_sampling(self) -> bool:
        import inspect

        return "temperature" in inspect.signature(self.client.messages.create).parameters

    def describe(self) -> dict[str, Any]:
        """Backend, model and endpoint (the key's variable name, never the key)."""
        return {"backend": self.name, "model": self.model, "base_url": self.base_url or "https://api.anthropic.com", "api_key_env": self.api_key_env}

    async def generate(self, prompt: Prompt, n: int, config: GenerateConfig) -> Response:
        """One request, one completion (n is ignored beyond 1)."""
        cfg = config.effective()
        if prompt.is_chat:
            system = "\n\n".join(content for role, content in prompt.messages if role == "system")
            messages = [m for m in prompt.chat() if m["role"] != "system"]
        else:
            # Completion style on a chat-only API: the prompt is prefilled as the assistant's turn to continue.
            system = ""
            messages = [
                {"role": "user", "content": "Continue the code exactly where it stops. Reply with the continuation only."},
                {"role": "assistant", "content": (prompt.text or "").rstrip()},
            ]
        params: dict[str, Any] = {"model": self.model, "messages": messages, "max_tokens": cfg.max_tokens}
        sampling: dict[str, Any] = {"temperature": min(cfg.temperature, ANTHROPIC_MAX_TEMPERATURE)}
        # Recent Claude models reject temperature and top_p together; top_p is sent only when it narrows sampling.
        if cfg.top_p < 1.0 and not cfg.greedy:
            sampling["top_p"] = cfg.top_p
        if self._sdk_takes_sampling:
            params.update(sampling)
        else:  # newer SDKs dropped the arguments; the API still reads them from the body
            params["extra_body"] = sampling
        if system:
            params["system"] = system
        if cfg.stop:
            params["stop_sequences"] = [s for s in cfg.stop if s.strip()]  # the API rejects whitespace-only stops
            if not params["stop_sequences"]:
                del params["stop_sequences"]
        try:
            reply: Any = await self.client.messages.create(**params)
        except Exception as exc:  # every SDK failure becomes a classified ModelError
            raise sdk_error(exc, anthropic) from exc
        content = getattr(reply, "content", None)
        if not isinstance(content, list):
            raise malformed("no content in the reply")
        text = "".join(getattr(block, "text", "") or "" for block in content if getattr(block, "type", "") == "text")
        usage = Usage()
        if getattr(reply, "usage", None) is not None:
            usage = Usage(reply.usage.input_tokens or 0, reply.usage.output_tokens or 0)
        reason = getattr(reply, "stop_reason", None)
        finish = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}.get(reason or "", reason)
        return Response([Completion(text, finish, usage)], usage, getattr(reply, "model", None))

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self.client.close()
