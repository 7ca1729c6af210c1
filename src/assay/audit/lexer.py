"""A small lexer for the translation lints: where string literals and comments run, per language,
enough to blank comments and to see a string literal that spans a raw newline."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class _Syntax:
    line: tuple[str, ...] = ("//",)  # line comment openers
    block: tuple[tuple[str, str], ...] = (("/*", "*/"),)
    strings: tuple[tuple[str, str, bool, bool], ...] = (('"', '"', True, True),)  # (open, close, escapes, may span lines)
    char: bool = False  # ' opens a character literal ('x', '\n'), else ' is code (or a string, if listed in strings)


_DQ, _SQ = ('"', '"', True, False), ("'", "'", True, False)  # escaped strings that cannot span a line
_SYNTAX: dict[str, _Syntax] = {
    "javascript": _Syntax(strings=(("`", "`", True, True), _DQ, _SQ)),
    "java": _Syntax(strings=(('"""', '"""', True, True), _DQ), char=True),
    "csharp": _Syntax(strings=(('"""', '"""', False, True), ('@"', '"', False, True), _DQ), char=True),
    "c": _Syntax(strings=(_DQ,), char=True), "cpp": _Syntax(strings=(('R"(', ')"', False, True), _DQ), char=True),
    "go": _Syntax(strings=(("`", "`", False, True), _DQ), char=True),
    "swift": _Syntax(strings=(('#"""', '"""#', False, True), ('"""', '"""', True, True), ('#"', '"#', False, False), _DQ)),
    "kotlin": _Syntax(strings=(('"""', '"""', False, True), _DQ), char=True),
    "scala": _Syntax(strings=(('"""', '"""', False, True), _DQ), char=True),
    "dart": _Syntax(strings=(("'''", "'''", True, True), ('"""', '"""', True, True), _DQ, _SQ)),
    "haskell": _Syntax(line=("--",), block=(("{-", "-}"),), strings=(_DQ,), char=True),
    "lua": _Syntax(line=("--",), block=(("--[[", "]]"),), strings=(("[[", "]]", False, True), _DQ, _SQ)),
    "python": _Syntax(line=("#",), block=(), strings=(('"""', '"""', True, True), ("'''", "'''", True, True), _DQ, _SQ)),
    "rust": _Syntax(strings=(('r#"', '"#', False, True), ('"', '"', True, True)), char=True),
    "d": _Syntax(block=(("/*", "*/"), ("/+", "+/")), strings=(("`", "`", False, True), ('"', '"', True, True)), char=True),
    "ocaml": _Syntax(line=(), block=(("(*", "*)"),), char=True),
    "julia": _Syntax(line=("#",), block=(("#=", "=#"),), strings=(('"""', '"""', True, True), ('"', '"', True, True)), char=True),
    "elixir": _Syntax(line=("#",), block=(), strings=(('"""', '"""', True, True), ('"', '"', True, True), ("'", "'", True, True))),
    "php": _Syntax(line=("//", "#"), strings=(('"', '"', True, True), ("'", "'", True, True))),
}
_SYNTAX["typescript"] = _SYNTAX["javascript"]
for _lang in ("ruby", "perl", "r", "bash"):
    _SYNTAX[_lang] = _Syntax(line=("#",), block=(), strings=(('"', '"', True, True), ("'", "'", True, True)))
for _lang in ("racket", "clojure"):
    _SYNTAX[_lang] = _Syntax(line=(";",), block=())
_CHAR = re.compile(r"'(?:\\.[^']{0,8}|[^'\\\n])'")


def _lex(text: str, language: str) -> Iterator[tuple[str, int, int, bool]]:
    """(kind, start, end, spans-a-raw-newline-it-may-not) for each comment and string literal in `text`."""
    syntax = _SYNTAX.get(language, _Syntax(line=("#", "//")))
    i, n, starts = 0, len(text), _openers(syntax)
    while (jump := starts.search(text, i)) is not None:
        i = jump.start()
        comment = next((b for b in (*syntax.block, *((o, "\n") for o in syntax.line)) if text.startswith(b[0], i)), None)
        if comment:
            end = text.find(comment[1], i + len(comment[0]))
            end = n if end < 0 else end + (len(comment[1]) if comment[1] != "\n" else 0)
            yield "comment", i, end, False
            i = end
            continue
        form = next((s for s in syntax.strings if text.startswith(s[0], i)), None)
        if form:
            opener, closer, escapes, spans = form
            j = i + len(opener)
            while j < n and not text.startswith(closer, j):
                j += 2 if escapes and text[j] == "\\" else 1
            end = min(n, j + len(closer))
            yield "string", i, end, not spans and "\n" in text[i:end]
            i = end
            continue
        if syntax.char and text[i] == "'":
            found = _CHAR.match(text, i)
            if found:
                yield "string", i, found.end(), False
                i = found.end()
                continue
        i += 1


@functools.cache
def _openers(syntax: _Syntax) -> re.Pattern[str]:
    """Where a comment or literal may start: _lex jumps from one to the next instead of walking every character."""
    tokens = [b[0] for b in syntax.block] + list(syntax.line) + [s[0] for s in syntax.strings] + (["'"] if syntax.char else [])
    return re.compile("|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True)))


@functools.lru_cache(maxsize=8192)
def _code(text: str, language: str) -> str:
    """`text` with comments and the insides of string literals blanked (newlines kept), so prose is not read as code."""
    out = list(text)
    for kind, start, end, _ in _lex(text, language):
        lo, hi = (start, end) if kind == "comment" else (start + 1, end - 1)
        for k in range(lo, hi):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


