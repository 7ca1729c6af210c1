"""In-process models: vLLM (batched) and Hugging Face transformers. Both are optional extras."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from assay.models.base import Completion, GenerateConfig, ModelConfigError, Prompt, Response, Usage


def _require(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelConfigError(f"the {extra} backend needs {module}: pip install 'assay[{extra}]' (or pip install {module})") from None


def chat_text(tokenizer: Any, prompt: Prompt) -> str:
    """The prompt as the model was trained to see it: its tokenizer's own chat template for chat prompts."""
    if not prompt.is_chat:
        return prompt.text or ""
    if getattr(tokenizer, "chat_template", None):
        text: str = tokenizer.apply_chat_template(prompt.chat(), tokenize=False, add_generation_prompt=True)
        return text
    # A base model has no chat template: the messages are joined plainly.
    return "\n\n".join(content for _, content in prompt.messages) + "\n"


def has_chat_template(tokenizer: Any) -> bool:
    """Whether the tokenizer ships a chat template (then instruction-style prompts are the default)."""
    return bool(getattr(tokenizer, "chat_template", None))


class VLLMModel:
    """vLLM's offline engine: every prompt of a batch is generated in one call."""

    name = "vllm"
    batched = True
    max_n_per_request = 1024

    def __init__(self, model: str, **engine_args: Any) -> None:
        vllm = _require("vllm", "vllm")
        self.model = model
        self.engine_args = engine_args
        self._vllm = vllm
        self.llm = vllm.LLM(model=model, **engine_args)
        self.tokenizer = self.llm.get_tokenizer()
        self._lock = asyncio.Lock()

    def describe(self) -> dict[str, Any]:
        """Model, engine arguments and vLLM's version."""
        return {"backend": self.name, "model": self.model, "engine_args": self.engine_args, "vllm": getattr(self._vllm, "__version__", None)}

    def generate_batch(self, prompts: list[Prompt], n: int, config: GenerateConfig) -> list[Response]:
        """All prompts at once; n completions each."""
        cfg = config.effective()
        params = self._vllm.SamplingParams(
            n=n, temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=cfg.max_tokens, stop=list(cfg.stop) or None, seed=cfg.seed
        )
        outputs = self.llm.generate([chat_text(self.tokenizer, p) for p in prompts], params, use_tqdm=False)
        responses = []
        for out in outputs:
            prompt_tokens = len(out.prompt_token_ids or [])
            completions = [Completion(o.text, o.finish_reason, Usage(prompt_tokens if i == 0 else 0, len(o.token_ids))) for i, o in enumerate(out.outputs)]
            usage = Usage(prompt_tokens, sum(c.usage.output_tokens for c in completions))
            responses.append(Response(completions, usage, self.model))
        return responses

    async def generate(self, prompt: Prompt, n: int, config: GenerateConfig) -> Response:
        """One prompt (the generator prefers generate_batch)."""
        async with self._lock:
            return (await asyncio.to_thread(self.generate_batch, [prompt], n, config))[0]

    async def aclose(self) -> None:
        """vLLM frees its engine when the process ends."""


class HFModel:
    """transformers: model.generate on the available device, chat template applied for chat models."""

    name = "hf"
    batched = True
    max_n_per_request = 64

    def __init__(self, model: str, device: str | None = None, dtype: str = "auto", batch_size: int = 8) -> None:
        transformers = _require("transformers", "hf")
        torch = _require("torch", "hf")
        self._torch = torch
        self._transformers = transformers
        self.model = model
        self.batch_size = batch_size
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(model)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"  # decoder-only models continue from the right edge
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.lm = transformers.AutoModelForCausalLM.from_pretrained(model, torch_dtype=dtype).to(self.device)
        self.lm.eval()
        self._lock = asyncio.Lock()

    def describe(self) -> dict[str, Any]:
        """Model, device and transformers' version."""
        return {"backend": self.name, "model": self.model, "device": self.device, "transformers": self._transformers.__version__}

    def _generate_one(self, text: str, n: int, cfg: GenerateConfig) -> Response:
        torch = self._torch
        enc = self.tokenizer([text], return_tensors="pt", padding=True).to(self.device)
        kwargs: dict[str, Any] = {"max_new_tokens": cfg.max_tokens, "num_return_sequences": n, "pad_token_id": self.tokenizer.pad_token_id}
        if cfg.greedy or cfg.temperature == 0:
            kwargs["do_sample"] = False
        else:
            kwargs.update(do_sample=True, temperature=cfg.temperature, top_p=cfg.top_p)
        if cfg.seed is not None:
            torch.manual_seed(cfg.seed)
        with torch.no_grad():
            out = self.lm.generate(**enc, **kwargs)
        prompt_len = enc["input_ids"].shape[1]
        completions = []
        for i, seq in enumerate(out):
            new = seq[prompt_len:]
            text_out = self.tokenizer.decode(new, skip_special_tokens=True)
            reason = "length" if len(new) >= cfg.max_tokens else "stop"
            for stop in cfg.stop:  # transformers has no stop strings of its own in every version
                cut = text_out.find(stop)
                if cut >= 0:
                    text_out, reason = text_out[:cut], "stop"
            completions.append(Completion(text_out, reason, Usage(prompt_len if i == 0 else 0, len(new))))
        return Response(completions, Usage(prompt_len, sum(c.usage.output_tokens for c in completions)), self.model)

    def generate_batch(self, prompts: list[Prompt], n: int, config: GenerateConfig) -> list[Response]:
        """Prompts one after another (generation itself is batched over the n samples)."""
        cfg = config.effective()
        return [self._generate_one(chat_text(self.tokenizer, p), n, cfg) for p in prompts]

    async def generate(self, prompt: Prompt, n: int, config: GenerateConfig) -> Response:
        """One prompt, in a worker thread."""
        async with self._lock:
            return (await asyncio.to_thread(self.generate_batch, [prompt], n, config))[0]

    async def aclose(self) -> None:
        """Nothing to release."""
