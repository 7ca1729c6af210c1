"""Mutants of a reference written in a brace language (Swift, C, C++, Java, C#, JavaScript, TypeScript,
Go, Rust, Kotlin, Scala, D, PHP), made on its source text with the same six operators as Python's:
arithmetic, comparison and boolean swaps, a constant off by one, a deleted statement, a swapped branch.

The text is scanned once to mark what is code (strings, characters and comments are never changed).
Each mutant changes one place. A change that makes the program not compile (a `<` of a generic, a
deleted declaration) is a stillborn mutant: it is judged like the others and left out of the score.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from assay.augment.mutants import Mutant

_ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "/"}
_COMPARE = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_BOOL = {"&&": "||", "||": "&&", "true": "false", "false": "true"}
# A binary operator between operands: not ++, --, +=, ->, =>, <<, >>, //, /*, and not generics' < > (left to stillbirth).
_OPERATOR = re.compile(r"(?<=[\w)\]\s])(<=|>=|==|!=|&&|\|\||[+\-*/%<>])(?=[\s\w(\[!-])")
_WORD = re.compile(r"\b(true|false)\b")
_INT = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
_IF = re.compile(r"\bif\s*(\(?)")


@dataclass(frozen=True)
class _Code:
    """The source with everything that is not code blanked out (same length), for finding sites."""

    text: str
    code: str


def _blank(text: str) -> str:
    """Strings ("", '', ``, Swift/Kotlin/Scala triple quotes), // and /* */ comments blanked to spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def clear(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            clear(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            clear(i, end)
            i = end
        elif text.startswith('"""', i):
            end = text.find('"""', i + 3)
            end = n if end < 0 else end + 3
            clear(i, end)
            i = end
        elif text[i] in "\"'`":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and (quote == "`" or text[j] != "\n"):
                j += 2 if text[j] == "\\" else 1
            clear(i, j + 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _statement_lines(code: str) -> list[tuple[int, int]]:
    """(start, end) of lines that are one simple statement: not a brace, not a declaration header, not a return."""
    spans = []
    start = 0
    for line in code.split("\n"):
        stripped = line.strip()
        end = start + len(line)
        if (stripped and not stripped.startswith(("}", "{", "return", "func ", "fn ", "def ", "case ", "default", "#", "@", "import ", "package "))
                and not stripped.endswith(("{", ",", "(")) and stripped.count("(") == stripped.count(")")
                and stripped.count("{") == stripped.count("}")):
            spans.append((start, end))
        start = end + 1
    return spans


def source_mutants(program: str, limit: int | None = None, seed: int = 0) -> list[Mutant]:
    """Mutants of a brace-language program, at most `limit` (a fixed random choice by `seed`)."""
    code = _blank(program)
    edits: list[tuple[str, int, int, str]] = []  # operator, start, end, replacement
    for m in _OPERATOR.finditer(code):
        op = m.group(1)
        if op in _COMPARE:
            edits.append(("comparison", m.start(1), m.end(1), _COMPARE[op]))
        elif op in _BOOL:
            edits.append(("boolean", m.start(1), m.end(1), _BOOL[op]))
        elif op in _ARITH:
            edits.append(("arithmetic", m.start(1), m.end(1), _ARITH[op]))
    for m in _WORD.finditer(code):
        edits.append(("boolean", m.start(1), m.end(1), _BOOL[m.group(1)]))
    for m in _INT.finditer(code):
        value = int(m.group(1))
        edits.append(("constant", m.start(1), m.end(1), str(value + 1)))
        if value > 0:
            edits.append(("constant", m.start(1), m.end(1), str(value - 1)))
    for m in _IF.finditer(code):
        cond_end = _condition_end(code, m.end(), bool(m.group(1)))
        if cond_end > m.end():
            start = m.end() - (1 if m.group(1) else 0)
            edits.append(("swapped-branch", start, cond_end, "(!(" + program[start:cond_end].strip() + "))" + (" " if not m.group(1) else "")))
    for start, end in _statement_lines(code):
        edits.append(("deleted-statement", start, end, ""))
    seen: set[str] = {program}
    mutants = []
    for operator, start, end, replacement in edits:
        text = program[:start] + replacement + program[end:]
        if text in seen:
            continue
        seen.add(text)
        mutants.append(Mutant(operator, program.count("\n", 0, start) + 1, text))
    if limit is not None and len(mutants) > limit:
        mutants = sorted(random.Random(seed).sample(mutants, limit), key=lambda m: (m.line, m.operator))
    return mutants


def _condition_end(code: str, at: int, parenthesized: bool) -> int:
    """Where an `if`'s condition ends: its closing parenthesis (C-like), or the `{` that opens the branch (Swift, Go, Rust)."""
    depth = 1 if parenthesized else 0
    for i in range(at, len(code)):
        ch = code[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if parenthesized and depth == 0:
                return i + 1
        elif ch == "{" and not parenthesized and depth == 0:
            return i
        elif ch == "\n" and not parenthesized and depth == 0:
            return -1
    return -1
