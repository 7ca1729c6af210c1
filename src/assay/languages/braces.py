"""Languages whose functions close with a brace (C++, Java, Rust, Swift, Scala, C#, Bash): a whole program a model
wrote is spliced into the shape MultiPL-E's tests expect (the prompt, then the body up to the brace that closes
it), by a scanner that counts braces outside strings and comments."""

from __future__ import annotations

import re
from typing import ClassVar

from assay.languages.base import Language
from assay.problems import Problem, test_program


class BraceLanguage(Language):
    """A language whose MultiPL-E tests begin by closing the prompt's function (`}`): C++, Java, Rust, Swift...

    A sample that is a whole program (an instruction-tuned model's reply) is spliced into that shape:
    the body after the prompt's signature, up to the brace that closes it, follows the prompt.
    """

    line_comment: ClassVar[str] = "//"
    # The `main` of a whole program (C++, Rust): when set, the code around the function is kept too (with_extras).
    own_main: ClassVar[re.Pattern[str] | None] = None

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """prompt + completion + tests, as MultiPL-E runs it (whole programs are spliced first)."""
        code = self.as_completion(problem, code)
        return code + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def as_completion(self, problem: Problem, code: str) -> str:
        """prompt + body, whether the sample continued the prompt or rewrote the whole function."""
        if code.startswith(problem.prompt) and brace_depth(code[len(problem.prompt) :], self.line_comment) > -1:
            return code  # a completion that leaves the function open, as the tests expect
        signature = _last_line(problem.prompt)
        at = _find_line(code, signature)
        if at is None:
            return code  # not recognisable: judged as written (most likely a compile error)
        body = code[at:]
        end = closing_brace(body, self.line_comment)
        spliced = problem.prompt + (body[:end] if end is not None else body)
        if self.own_main is None:
            return spliced
        return with_extras(problem, code, spliced, self.own_main, self.line_comment)


def with_extras(problem: Problem, code: str, spliced: str, main: re.Pattern[str], line_comment: str = "//") -> str:
    """A whole program spliced into the prompt's shape keeps the code around the function (includes,
    imports, helpers before or after it), placed before the prompt, less its own `main` and what the
    prompt already has. The base splice keeps only the function's body."""
    if spliced is code or code.startswith(problem.prompt):
        return spliced  # a continued prompt, or not recognisable
    signature = _last_line(problem.prompt)
    after = _find_line(code, signature)
    if after is None:
        return spliced
    before = code[:after].splitlines(keepends=True)[:-1]
    while before and before[-1].strip().startswith(("///", "#[", "//")):
        before.pop()  # the function's own doc comment and attributes
    body = code[after:]
    end = closing_brace(body, line_comment)
    tail = body[end + 1 :] if end is not None else ""
    found = main.search(tail)
    if found:
        close = closing_brace(tail[found.end() :], line_comment)
        tail = tail[: found.start()] + (tail[found.end() + close + 1 :] if close is not None else "")
    imports = {line.strip() for line in problem.prompt.splitlines() if line.startswith("use ")}  # Rust: E0252 twice
    extras = [line for line in "".join(before).splitlines() + tail.splitlines() if line.strip() not in imports]
    text = "\n".join(extras).strip("\n")
    return text + "\n\n" + spliced if text.strip() else spliced


def brace_depth(text: str, line_comment: str = "//") -> int:
    """How many braces text opens (negative: it closes more than it opens), outside strings and comments."""
    depth = 0
    for ch in _code_chars(text, line_comment):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
    return depth


def closing_brace(body: str, line_comment: str = "//") -> int | None:
    """Index of the brace that closes a function whose body starts at body[0] (depth 1)."""
    depth = 1
    for i, ch in _code_chars_indexed(body, line_comment):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _code_chars(text: str, line_comment: str) -> list[str]:
    return [ch for _, ch in _code_chars_indexed(text, line_comment)]


def _code_chars_indexed(text: str, line_comment: str) -> list[tuple[int, str]]:
    """Characters outside string literals and comments, with their indexes (a rough but safe scanner)."""
    out: list[tuple[int, str]] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith(line_comment, i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        ch = text[i]
        if ch == "'":  # a char literal ('}', '\n', '\''); a Rust lifetime ('a) has no closing quote two or three on
            if i + 2 < n and text[i + 1] != "\\" and text[i + 2] == "'":
                i += 3
                continue
            if i + 3 < n and text[i + 1] == "\\" and text[i + 3] == "'":
                i += 4
                continue
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        out.append((i, ch))
        i += 1
    return out


def _last_line(text: str) -> str:
    return next((line for line in reversed(text.splitlines()) if line.strip()), "")


def _norm(line: str) -> str:
    return "".join(line.split())


def _find_line(code: str, signature: str) -> int | None:
    """Offset just after the line of code that matches the signature (whitespace ignored)."""
    want = _norm(signature)
    offset = 0
    for line in code.splitlines(keepends=True):
        offset += len(line)
        if want and _norm(line) == want:
            return offset
    return None
