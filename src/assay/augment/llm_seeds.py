"""Seeds from a model, as EvalPlus made them with ChatGPT: the reference and a few inputs in the prompt,
"complex, corner-case, difficult inputs" asked for, each reply's calls read back as argument tuples.

A seed from a model is an input like any generated one: it is labelled by the reference (with its
contract) and dropped if the reference rejects it; it also joins the pool mutation starts from.
Nothing a model writes is run: the calls are read with `ast.literal_eval`.
"""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Sequence
from typing import Any

from assay.models.base import GenerateConfig, ModelAPI, ModelError, Prompt
from assay.problems import Problem

# EvalPlus's seed prompt (evalplus/gen/chatgpt_gen.py), with the inputs as calls so replies come back as calls.
SEED_PROMPT = """Here is a function that we want to test:
```python
{code}
```
These are some example inputs used to test the function, one call a line:
```python
{examples}
```
Please generate complex inputs to test the function: corner cases and difficult inputs that the examples
miss. Write {count} new calls of `{entry_point}`, one a line, in a ```python block, with literal arguments only."""


def seed_prompt(problem: Problem, seeds: Sequence[tuple[Any, ...]], count: int = 10) -> Prompt:
    """The request for one problem (its reference, and up to five of its seeds as examples)."""
    examples = "\n".join(f"{problem.entry_point}({', '.join(repr(a) for a in args)})" for args in seeds[:5])
    text = SEED_PROMPT.format(code=(problem.prompt + problem.reference).strip(), examples=examples, count=count, entry_point=problem.entry_point)
    return Prompt(messages=(("user", text),))


def parse_calls(text: str, entry_point: str) -> list[tuple[Any, ...]]:
    """Argument tuples of every `entry_point(...)` call with literal arguments in a reply (anything else is passed over)."""
    found: list[tuple[Any, ...]] = []
    for line in text.splitlines():
        start = line.find(entry_point + "(")
        if start < 0:
            continue
        try:
            node = ast.parse(_call_text(line, start, start + len(entry_point)), mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(node, ast.Call) or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        try:
            found.append(tuple(ast.literal_eval(a) for a in node.args))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
    return found


def _call_text(line: str, start: int, open_at: int) -> str:
    """From the name at `start` to its closing parenthesis: `print(f(1))` gives `f(1)` (quotes respected)."""
    depth, quote, i = 0, "", open_at
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                break
        i += 1
    return line[start:i + 1]


async def _ask_all(model: ModelAPI, requests: dict[str, Prompt], config: GenerateConfig, connections: int) -> dict[str, str | ModelError]:
    limiter = asyncio.Semaphore(connections)

    async def one(pid: str, prompt: Prompt) -> tuple[str, str | ModelError]:
        async with limiter:
            try:
                response = await model.generate(prompt, 1, config)
            except ModelError as exc:
                return pid, exc
        return pid, "\n".join(c.text for c in response.completions)

    try:
        return dict(await asyncio.gather(*(one(pid, p) for pid, p in requests.items())))
    finally:
        await model.aclose()


def model_seeds(model: ModelAPI, problems: dict[str, Problem], seeds: dict[str, list[tuple[Any, ...]]], *, count: int = 10,
                temperature: float = 0.8, max_tokens: int = 1024, connections: int = 8) -> tuple[dict[str, list[tuple[Any, ...]]], dict[str, str]]:
    """Per problem, the inputs the model proposed (new ones only, deduplicated); and the problems whose request failed, with why."""
    config = GenerateConfig(n=1, temperature=temperature, top_p=0.95, max_tokens=max_tokens)
    requests = {pid: seed_prompt(p, seeds.get(pid, []), count) for pid, p in problems.items()}
    replies = asyncio.run(_ask_all(model, requests, config, connections))
    out: dict[str, list[tuple[Any, ...]]] = {}
    failed: dict[str, str] = {}
    for pid, reply in replies.items():
        if isinstance(reply, ModelError):
            failed[pid] = f"{reply.kind}: {reply}"
            continue
        known = {repr(s) for s in seeds.get(pid, [])}
        fresh: list[tuple[Any, ...]] = []
        for args in parse_calls(reply, problems[pid].entry_point):
            if repr(args) not in known:
                known.add(repr(args))
                fresh.append(args)
        out[pid] = fresh
    return out, failed
