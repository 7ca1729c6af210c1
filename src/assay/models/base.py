"""What every model backend shares: the request it gets, the completions it returns, the errors it raises."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from assay.samples import Sample


@dataclass(frozen=True)
class GenerateConfig:
    """Sampling settings; everything here is recorded with every sample it shaped."""

    n: int = 1
    temperature: float = 0.2
    top_p: float = 0.95
    max_tokens: int = 1024
    stop: tuple[str, ...] = ()
    seed: int | None = None
    greedy: bool = False

    def effective(self) -> GenerateConfig:
        """Greedy decoding is temperature 0 and top-p 1 (what the server is actually sent)."""
        if self.greedy:
            return GenerateConfig(self.n, 0.0, 1.0, self.max_tokens, self.stop, self.seed, True)
        return self

    def to_json(self) -> dict[str, Any]:
        """The settings as plain data."""
        data = asdict(self)
        data["stop"] = list(self.stop)
        return data


@dataclass(frozen=True)
class Prompt:
    """What the model is given: plain text (completion style) or chat messages (instruction style)."""

    text: str | None = None
    messages: tuple[tuple[str, str], ...] = ()  # (role, content); role is "system", "user" or "assistant"

    @property
    def is_chat(self) -> bool:
        return self.text is None

    def chat(self) -> list[dict[str, str]]:
        """The messages as the OpenAI/Anthropic APIs spell them."""
        return [{"role": role, "content": content} for role, content in self.messages]


@dataclass
class Usage:
    """Tokens a request consumed, as the server reported them."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


@dataclass
class Completion:
    """One sampled reply."""

    text: str
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)  # this completion's share of its request's usage


@dataclass
class Response:
    """What one request returned: one or more completions and the request's token usage."""

    completions: list[Completion]
    usage: Usage
    model: str | None = None  # the model name the server reported


class ModelError(Exception):
    """A request that failed; `retryable` says whether trying again can help."""

    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None, kind: str = "error") -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after  # seconds the server asked us to wait (Retry-After), if it did
        self.kind = kind  # short label for progress and records: rate_limit, server_error, timeout, connection, malformed...


class ModelConfigError(ValueError):
    """A model spec or backend setting the user must fix (one-line message)."""


class ModelAPI(Protocol):
    """A backend: turns one prompt into completions."""

    name: str  # the backend's registry name, e.g. "openai"
    model: str  # the model as the backend addresses it
    max_n_per_request: int  # 1 when the server cannot sample several completions in one request
    batched: bool  # True: generate_batch serves many prompts at once (in-process engines)

    async def generate(self, prompt: Prompt, n: int, config: GenerateConfig) -> Response:
        """Sample up to n completions for one prompt (a server may return fewer); raises ModelError."""
        ...

    def describe(self) -> dict[str, Any]:
        """What identifies this backend in a run record (never an API key)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


@runtime_checkable
class RecordedSamples(Protocol):
    """A source of samples made before (replay of a samples file): the generator asks it for each
    task's count and for each sample by index, instead of prompting a model."""

    def count(self, task_id: str) -> int:
        """How many samples it has for a task."""
        ...

    def sample(self, task_id: str, index: int) -> Sample:
        """One recorded sample: its completion or solution as it was given."""
        ...

    def completion(self, task_id: str, index: int) -> Completion:
        """The recorded sample as a completion (its raw text)."""
        ...


def split_usage(usage: Usage, parts: int) -> list[Usage]:
    """Share a request's usage among its completions (input tokens evenly, remainders to the first ones)."""
    parts = max(1, parts)
    shares = []
    for i in range(parts):
        shares.append(
            Usage(
                usage.input_tokens // parts + (1 if i < usage.input_tokens % parts else 0),
                usage.output_tokens // parts + (1 if i < usage.output_tokens % parts else 0),
            )
        )
    return shares
