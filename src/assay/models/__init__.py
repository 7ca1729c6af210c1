"""The model registry: `backend/model-name` (or `replay:PATH`) maps to a lazily imported backend."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from assay.models.base import ModelAPI, ModelConfigError

# backend -> (module, class); heavy backends are imported only when used.
REGISTRY: dict[str, tuple[str, str]] = {
    "openai": ("assay.models.openai_api", "OpenAIModel"),
    "anthropic": ("assay.models.anthropic_api", "AnthropicModel"),
    "vllm": ("assay.models.local", "VLLMModel"),
    "hf": ("assay.models.local", "HFModel"),
    "replay": ("assay.models.replay", "ReplayModel"),
}


@dataclass(frozen=True)
class ModelSpec:
    """A parsed --model value."""

    backend: str
    model: str

    @property
    def slug(self) -> str:
        """A file-name-safe form, for default run directories."""
        name = self.model.rsplit("/", 1)[-1] if self.backend != "replay" else self.model.rsplit("/", 1)[-1].split(".")[0]
        return "".join(c if c.isalnum() or c in "-_." else "-" for c in f"{self.backend}-{name}")


def parse_model_spec(spec: str) -> ModelSpec:
    """'openai/gpt-4o-mini' -> (openai, gpt-4o-mini); 'vllm/bigcode/starcoder2-15b' keeps the slash; 'replay:FILE'."""
    if spec.startswith("replay:"):
        path = spec[len("replay:") :]
        if not path:
            raise ModelConfigError("replay needs a file: --model replay:samples.jsonl")
        return ModelSpec("replay", path)
    backend, sep, model = spec.partition("/")
    if not sep or not model:
        raise ModelConfigError(f"--model must be BACKEND/MODEL or replay:FILE (backends: {', '.join(REGISTRY)}), got {spec!r}")
    if backend not in REGISTRY:
        raise ModelConfigError(f"unknown model backend {backend!r} in {spec!r}; known: {', '.join(REGISTRY)}")
    return ModelSpec(backend, model)


def get_model(spec: ModelSpec, **options: Any) -> ModelAPI:
    """Instantiate a backend; options it does not take are dropped (e.g. base_url for replay)."""
    module, cls_name = REGISTRY[spec.backend]
    cls = getattr(importlib.import_module(module), cls_name)
    import inspect

    accepted = inspect.signature(cls).parameters
    kwargs = {k: v for k, v in options.items() if k in accepted and v is not None}
    if spec.backend == "replay":
        return cls(spec.model)  # type: ignore[no-any-return]
    return cls(spec.model, **kwargs)  # type: ignore[no-any-return]
