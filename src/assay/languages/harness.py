"""Helpers the language plugins share to build case harnesses: finding each test's call in MultiPL-E's
translated tests, and describing a type to a harness's encoder.

A case harness calls the entry point once per case and writes one record per case to fd 3 (the format
is in assay.judging.records). What it writes is only ever compared on the trusted side.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from assay.values import Type


class NotSplittable(ValueError):
    """A test line whose call cannot be found."""


def balanced(text: str, start: int, quotes: str = "\"'", opener: str = "(", closer: str = ")", line_comment: str | None = None) -> int:
    """Index just after the bracket that closes the one at text[start], skipping string literals."""
    if text[start] != opener:
        raise NotSplittable(f"no {opener!r} at {start}")
    depth, i, n = 0, start, len(text)
    while i < n:
        ch = text[i]
        if line_comment and text.startswith(line_comment, i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch in quotes:
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise NotSplittable("unbalanced brackets")


def calls_after(tests: str, assert_prefix: str, callee: str = "candidate(", quotes: str = "\"'") -> list[str]:
    """The `callee(...)` text of each line that starts (after indentation) with assert_prefix, in order."""
    calls: list[str] = []
    for line in tests.splitlines():
        stripped = line.strip()
        if not stripped.startswith(assert_prefix):
            continue
        at = stripped.find(callee)
        if at < 0:
            raise NotSplittable(f"no {callee!r} in {stripped[:80]!r}")
        end = balanced(stripped, at + len(callee) - 1, quotes)
        calls.append(stripped[at:end])
    return calls


def descriptor(t: Type) -> object:
    """A JSON-able description of a type, for a harness whose encoder reads types at run time:
    "int", "float", "str", "bool", "none", "any", or [kind, *argument descriptors]."""
    if not t.args:
        return t.kind
    return [t.kind, *(descriptor(a) for a in t.args)]


def descriptor_json(t: Type) -> str:
    """The descriptor as JSON text (a literal in most languages' syntax too)."""
    return json.dumps(descriptor(t), separators=(",", ":"))


def numbered(calls: Sequence[str], line: Callable[[int, str], str]) -> str:
    """One harness line per case."""
    return "\n".join(line(i, call) for i, call in enumerate(calls))
