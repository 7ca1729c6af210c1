"""Turn what a model emitted into the code Assay runs, for completion-style and instruction-style prompts."""

from __future__ import annotations

import ast
import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.languages.base import Language


@dataclass(frozen=True)
class Extracted:
    """The code to run, whether it continues the prompt or replaces it, and a label of what was done."""

    code: str  # for "completion": the text that follows the prompt; for "full_program": the whole program
    mode: str  # "completion" | "full_program"
    how: str  # e.g. "fenced", "fenced:several->entry_point", "thinking_removed+unfenced", "empty"


def default_stops(language: str) -> tuple[str, ...]:
    """Where a completion in this language ends when the benchmark gives no stops: the plugin's (`Language.stops`)."""
    plugin = _plugin(language)
    return plugin.stops if plugin is not None else ()


@functools.cache
def _plugin(language: str) -> Language | None:
    """The plugin a language name, alias or fence tag means (one instance per name: extraction asks
    several times a sample)."""
    from assay.languages import UnknownLanguage, by_fence, get_language, plugins

    low = language.strip().lower()
    try:
        return get_language(low)
    except UnknownLanguage:
        name = by_fence(low)
        return plugins()[name] if name else None


def _tags(lang: str) -> tuple[str, ...]:
    plugin = _plugin(lang)
    return plugin.fences() if plugin is not None else (lang,)


# (opener, closer) of reasoning sections: DeepSeek-R1/Qwen3 <think>, Claude-style <thinking>, OpenThoughts'
# <|begin_of_thought|>, Kimi's ◁think▷.
_THINK = [
    (re.compile(o, re.I), re.compile(c, re.I))
    for o, c in [("<think>", "</think>"), ("<thinking>", "</thinking>"), ("<reasoning>", "</reasoning>"),
                 (r"<\|begin_of_thought\|>", r"<\|end_of_thought\|>"), ("◁think▷", "◁/think▷")]
]  # fmt: skip
_SOLUTION_MARKERS = re.compile(r"<\|(?:begin|end)_of_solution\|>", re.I)
_HARMONY_FINAL = re.compile(r"<\|channel\|>\s*final\s*<\|message\|>")  # gpt-oss raw output
_HARMONY_CHANNEL = re.compile(r"<\|channel\|>")
# End-of-turn tokens that raw outputs sometimes keep (Phi-3, ChatML, Llama 3, harmony): never code.
_SPECIAL = re.compile(r"<\|(?:end|return|im_end|eot_id|endoftext)\|>|<\|start\|>(?:assistant)?")
_OPEN_FENCE = re.compile(r"^(?P<ind>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FENCE_LINE = re.compile(r"\n[ \t]*(?:```|~~~)")
_FENCE_START = re.compile(r"^[ \t]*(?:```|~~~)", re.M)
_PY_CODE_START = re.compile(r"(?:async\s+def|def|class|import|from)\s|@|if __name__|[A-Za-z_]\w*\s*(?::[^=]+)?=[^=]")
_MAIN = re.compile(r"\b(?:main|Main)\s*\(")
_NOT_TYPES = {"return", "else", "new", "await", "throw", "case", "yield", "delete", "print"}


def strip_thinking(text: str) -> str:
    """Remove reasoning sections and end-of-turn tokens; an unclosed section (stopped while thinking) takes the rest."""
    return _strip_thinking(_norm(text))[0]


def fenced_blocks(text: str) -> list[tuple[str, str, bool]]:
    """Markdown code blocks as (lowercased tag, code, terminated), in order."""
    lines = _norm(text).split("\n")
    blocks: list[tuple[str, str, bool]] = []
    i = 0
    while i < len(lines):
        m = _OPEN_FENCE.match(lines[i])
        i += 1
        if not m or (m["fence"][0] == "`" and "`" in m["info"]):  # CommonMark: no backticks in the info
            continue
        char, width, indent = m["fence"][0], len(m["fence"]), len(m["ind"])
        closer = re.compile(rf"[ \t]*{re.escape(char)}{{{width},}}[ \t]*")
        end = next((j for j in range(i, len(lines)) if closer.fullmatch(lines[j])), None)
        chunk, i = lines[i:end], len(lines) if end is None else end + 1
        # Fences indented inside list items indent their code by as much; remove that much, no more.
        code = "\n".join(ln[min(len(ln) - len(ln.lstrip(" \t")), indent) :] for ln in chunk)
        blocks.append((_fence_tag(m["info"]), code, end is not None))
    return blocks


def truncate_at_stops(text: str, stops: Sequence[str]) -> str:
    """Cut text at the earliest occurrence of any (non-empty) stop string."""
    cut = min((i for s in stops if s and (i := text.find(s)) >= 0), default=len(text))
    return text[:cut]


def extract_completion(text: str, language: str, prompt: str, stops: Sequence[str] | None = None) -> Extracted:
    """Completion style: the text that continues the prompt, cut at stop strings."""
    lang = _canon(language)
    if stops is None:
        stops = default_stops(lang)
        if not stops:
            raise ValueError(f"no default stop strings for language {language!r}; pass stops=")
    body, how = _prepare(text)
    if body is None:
        return Extracted("", "completion", "empty:thinking_unterminated")
    prompt = _norm(prompt)
    blocks = [b for b in fenced_blocks(body) if b[1].strip()]
    pre = body[: m.start()] if (m := _FENCE_START.search(body)) else body
    if blocks and all(not ln[:1].isspace() for ln in pre.split("\n") if ln.strip()):
        # Only prose (or nothing) before the first fence: the model wrapped its continuation in a fence.
        tags = _tags(lang)
        _, body, terminated = next((b for b in blocks if b[0] in tags or not b[0]), blocks[0])
        how.append("fenced" if terminated else "unterminated_fence")
    else:
        how.append("unfenced")
    stripped = body.lstrip()
    head = prompt.strip()
    first_line = next((ln for ln in body.split("\n") if ln.strip()), "")
    if head and stripped.startswith(head):
        body = stripped[len(head) :]
        tail = prompt[len(prompt.rstrip()) :]
        body = body[len(tail) :] if body.startswith(tail) else body.removeprefix("\n")
        how.append("prompt_stripped")
    elif lang == "python" and first_line and not first_line[0].isspace():
        entry = _prompt_entry(prompt)
        code = _python_unfenced(body, entry)[0] if entry else None
        if code is not None and entry in python_defined(code):
            how.append("full_program")
            return Extracted(_python_program(prompt, code, entry), "full_program", "+".join(how))
        if code and (found := _python_body(code)):  # prose, then the body
            body = found
            how.append("prose_removed")
    elif lang != "python":
        signature = re.sub(r"\s", "", next((ln for ln in reversed(prompt.split("\n")) if ln.strip()), ""))
        lines = body.split("\n")
        hit = next((k for k, ln in enumerate(lines) if len(signature) > 4 and re.sub(r"\s", "", ln) == signature), None)
        if hit is not None:
            body = "\n".join(lines[hit + 1 :])
            how.append("signature_stripped")
    code = truncate_at_stops(body, stops)
    code = code[: m.start()] if (m := _FENCE_LINE.search(code)) else code  # a fence line is markdown, never code
    if not code.strip():
        return Extracted("", "completion", "empty")
    return Extracted(code, "completion", "+".join(how))


def extract_instruct(reply: str, language: str, entry_point: str | None, prompt: str) -> Extracted:
    """Instruction style: pick the code from a chat reply (prose and markdown), as a program or a body."""
    lang = _canon(language)
    text, how = _prepare(reply)
    if text is None:
        return Extracted("", "full_program", "empty:thinking_unterminated")
    tags = _tags(lang)
    blocks = [b for b in fenced_blocks(text) if b[1].strip()]
    candidates = [b for b in blocks if b[0] in tags or not b[0]]
    if not candidates and entry_point:
        # A mislabeled fence (```javascript for TypeScript, ```c for C++) still counts if it defines the function.
        candidates = [b for b in blocks if _defines(b[1], lang, entry_point)]
    code: str | None
    if candidates:
        codes = [b[1] for b in candidates]
        if lang == "python":
            code, pick = _pick_python(codes, entry_point)
        else:
            code, pick = _pick_other(codes, lang, entry_point)
        terminated = next(b[2] for b in candidates if b[1] in code or code in b[1])
        how.append(("fenced" if terminated else "unterminated_fence") + (f":several->{pick}" if pick else ""))
    elif lang == "python":
        code, label = _python_unfenced(text, entry_point)
        how.append(label)
    else:
        code = _strip_prose(text)
        how.append("unfenced")
    if code is None or not code.strip():
        return Extracted("", "full_program", "empty")
    if lang != "python":
        full = entry_point is None or _defines(code, lang, entry_point)
        return Extracted(code.strip("\n") + "\n", "full_program" if full else "completion", "+".join(how))
    if entry_point is None or entry_point in python_defined(code):
        return Extracted(_python_program(_norm(prompt), code, entry_point), "full_program", "+".join(how))
    body = _python_body(code)
    if body is not None:
        return Extracted(body, "completion", "+".join([*how, "body"]))
    return Extracted(_python_program(_norm(prompt), code, entry_point), "full_program", "+".join([*how, "no_entry_point"]))


def last_fenced_block(reply: str) -> str:
    """LiveCodeBench's extraction (lcb_runner/utils/extraction_utils.py): the lines between the last two lines
    that hold a ``` fence, as they are; "" when there are fewer than two."""
    lines = reply.split("\n")
    fences = [i for i, line in enumerate(lines) if "```" in line]
    return "\n".join(lines[fences[-2] + 1 : fences[-1]]) if len(fences) >= 2 else ""


def sanitize_python(code: str, entry_point: str | None) -> str:
    """Keep imports and the entry point's dependency closure of top-level defs; drop tests, prints and mains."""
    code = _norm(code)
    parsed = _parse_prefix(code)
    if parsed is None:
        return code
    tree, src = parsed
    lines = src.split("\n")
    imports = [n for n in tree.body if _is_import(n)]
    defs = [(names, n) for n in tree.body if not _is_import(n) and (names := _bound(n))]
    # Keep the last definition of a name, as Python itself does (EvalPlus keeps the first): a model that
    # writes a second, corrected version of a function means the second.
    last = {name: k for k, (names, _) in enumerate(defs) for name in names}
    defs = [(names, n) for k, (names, n) in enumerate(defs) if any(last[x] == k for x in names)]
    if entry_point and entry_point in last:
        refs: dict[str, set[str]] = {}
        for names, node in defs:
            for name in names:
                refs.setdefault(name, set()).update(_names_used(node))
        keep, todo = {entry_point}, [entry_point]
        while todo:
            for dep in refs.get(todo.pop(), ()):
                if dep in refs and dep not in keep:
                    keep.add(dep)
                    todo.append(dep)
        defs = [(names, n) for names, n in defs if keep & set(names)]
    defined = {name for names, _ in defs for name in names}
    # `from solution import f` (test scaffolding) would replace or shadow the very function being kept.
    imports = [n for n in imports if not defined & set(_bound(n))]
    nodes = sorted(imports + [n for _, n in defs], key=lambda n: n.lineno)
    gaps = ["\n" if _is_import(a) and _is_import(b) else "\n\n\n" for a, b in itertools.pairwise(nodes)]
    out = "".join(gap + _segment(lines, n) for gap, n in zip(["", *gaps], nodes, strict=False))
    return out + "\n" if out else ""


# ---------------------------------------------------------------- shared helpers


def _norm(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _canon(language: str) -> str:
    plugin = _plugin(language)
    return plugin.name if plugin is not None else language.strip().lower()


def _fence_tag(info: str) -> str:
    # ```python title="x.py"  ```{python}  ```rust,ignore  ```py:main.py  -> the first word
    return re.split(r"[\s,:;{}=]", info.strip().lstrip("{.").strip(), maxsplit=1)[0].lower()


def _strip_thinking(text: str) -> tuple[str, str | None]:
    """(text without reasoning, "removed" | "unterminated" | None)."""
    status: str | None = None
    if _HARMONY_FINAL.search(text):
        text = _HARMONY_FINAL.split(text)[-1]
        status = "removed"
    elif _HARMONY_CHANNEL.search(text):
        return "", "unterminated"  # gpt-oss stopped in its analysis channel
    text = _SPECIAL.sub("", text)
    for opener, closer in _THINK:
        while True:
            o, c = opener.search(text), closer.search(text)
            if not o and not c:
                break
            if c and (not o or c.start() < o.start()):
                text = text[c.end() :]  # the opening tag was in the chat template, not the output
            elif o and (c := closer.search(text, o.end())):
                text = text[: o.start()] + text[c.end() :]
            elif o:
                # Stopped while thinking: code in there is a draft, not an answer; crediting it would score
                # a reply the model never gave.
                return text[: o.start()], "unterminated"
            status = "removed"
    text = _SOLUTION_MARKERS.sub("", text)
    if status:
        text = re.sub(r"^(?:[ \t]*\n)+", "", text)
    return text, status


def _prepare(text: str) -> tuple[str | None, list[str]]:
    stripped, status = _strip_thinking(_norm(text))
    if status == "unterminated" and not stripped.strip():
        return None, []
    return stripped, ["thinking_removed"] if status else []


def _strip_prose(text: str) -> str:
    """Drop leading and trailing lines that read as sentences (for languages we cannot parse)."""

    def prose(line: str) -> bool:
        s = line.strip()
        words = s.split()
        if not s or len(words) < 3 or not s[0].isalpha():
            return False
        return s[-1] in ".:!?" or (s[0].isupper() and not re.search(r"[;{}()=<>\[\]]", s))

    lines = [ln for ln in text.split("\n") if not _OPEN_FENCE.match(ln)]
    while lines and (not lines[0].strip() or prose(lines[0])):
        lines.pop(0)
    while lines and (not lines[-1].strip() or prose(lines[-1])):
        lines.pop()
    return "\n".join(lines)


def _defines(code: str, lang: str, name: str) -> bool:
    """Whether code seems to define `name`, not merely call it (the language's own rule where it has a plugin)."""
    plugin = _plugin(lang)
    return plugin.defines(code, name) if plugin is not None else defines_generically(code, name)


def defines_generically(code: str, name: str, typed: bool = False, extra: str = "") -> bool:
    """The definition forms most languages share (`func name`, `fn name`, `(define (name`, `name <- function`,
    `const name =`, ...), a typed C-like declaration where `typed`, and the language's own `extra` regex
    (its `{name}` placeholder stands for the name)."""
    n = re.escape(name)
    keyword = rf"(?:\b(?:func|fn|def|function|sub|proc)\s+{n}\b|\(define\s+\(?{n}[\s)]|\b{n}\s*(?:<-|=)\s*function\b"
    keyword += rf"|^\s*(?:function\s+)?{n}\s*\(\)\s*\{{?|\b(?:const|let|var)\s+{n}\s*(?::[^=]+)?=)"
    if re.search(keyword, code, re.M) or (extra and re.search(extra.replace("{name}", n), code, re.M)):
        return True
    if typed:  # a typed declaration: `bool name(...) {`, not a call ending with `;`
        for m in re.finditer(rf"^\s*((?:[\w:<>,\[\]*&.]+\s+)+)[*&]?\s*{n}\s*(?:<[^>]*>)?\s*\((.*)$", code, re.M):
            if m[1].split()[-1] not in _NOT_TYPES and not m[2].rstrip().endswith(";"):
                return True
    return False


def _pick_other(codes: list[str], lang: str, entry: str | None) -> tuple[str, str]:
    if len(codes) == 1:
        return codes[0], ""
    definers = [c for c in codes if entry and _defines(c, lang, entry)]
    if definers:
        # A later "complete program" block adds a main() that collides with the benchmark's test harness.
        without_main = [c for c in definers if entry in ("main", "Main") or not _MAIN.search(c)]
        return (without_main or definers)[-1], "entry_point"
    return max(codes, key=lambda c: len(c.strip())), "longest"


# ---------------------------------------------------------------- Python


def _parse_prefix(code: str) -> tuple[ast.Module, str] | None:
    """Parse code, cutting trailing lines until it parses (truncated generations); None if nothing does."""
    lines = code.split("\n")
    n = len(lines)
    while n > 0:
        src = "\n".join(lines[:n])
        try:
            return ast.parse(src), src
        except (SyntaxError, ValueError) as err:
            # Any prefix that still holds the reported line fails the same way, so jump above it.
            line = getattr(err, "lineno", None)
            n = min(n - 1, line - 1) if isinstance(line, int) and line > 0 else n - 1
    return None


def _is_import(node: ast.stmt) -> bool:
    if isinstance(node, ast.Try):  # try: import x / except ImportError: ... is an import too
        return bool(node.body) and all(isinstance(s, ast.Import | ast.ImportFrom) for s in node.body)
    return isinstance(node, ast.Import | ast.ImportFrom)


def _bound(node: ast.stmt) -> list[str]:
    """Names a top-level import, def, class or assignment binds (empty for anything else)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"]
    if isinstance(node, ast.Try) and _is_import(node):
        return [x for s in node.body for x in _bound(s)]
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    elif type(node).__name__ == "TypeAlias":  # `type X = ...` (3.12+)
        targets = [node.name]  # type: ignore[attr-defined]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def python_defined(code: str | ast.Module) -> set[str]:
    """Top-level names the code defines itself (an import, e.g. `from solution import f`, defines nothing)."""
    tree = code if isinstance(code, ast.Module) else (_parse_prefix(code) or (ast.Module([], []),))[0]
    return {x for n in tree.body if not _is_import(n) for x in _bound(n)}


def _segment(lines: list[str], node: ast.stmt) -> str:
    """The node's exact source, decorators included (ast columns count UTF-8 bytes)."""
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno] + [d.lineno for d in decorators])
    start = node.col_offset if first == node.lineno else 0
    end, end_col = node.end_lineno or node.lineno, node.end_col_offset
    chunk = [ln.encode() for ln in lines[first - 1 : end]]
    chunk[-1] = chunk[-1][:end_col]
    chunk[0] = chunk[0][start:]
    return b"\n".join(chunk).decode()


def _prompt_entry(prompt: str) -> str | None:
    names = re.findall(r"^(?:async\s+)?def\s+(\w+)", prompt, re.M)
    return names[-1] if names else None


def _python_program(prompt: str, code: str, entry: str | None) -> str:
    """Prompt imports + prompt helpers the code does not redefine + the sanitized code."""
    body = sanitize_python(code, entry)
    lines = prompt.split("\n")
    last = next((ln for ln in reversed(lines) if ln.strip()), "")
    indent = last[: len(last) - len(last.lstrip())]
    tree = None
    # A prompt ends in a function with no body; give it one so the helpers and imports above it parse.
    for tail in ("", f"\n{indent}pass", "\n    pass", f"\n{indent}    pass", "\n\tpass"):
        try:
            tree = ast.parse(prompt + tail)
            break
        except (SyntaxError, ValueError):
            continue
    if tree is None:
        return body
    have = python_defined(body)
    parts: list[str] = []
    for node in tree.body:
        stub = (node.end_lineno or 0) > len(lines) or (entry is not None and entry in _bound(node))
        if _is_import(node) or (not stub and (names := _bound(node)) and not have & set(names)):
            seg = _segment(lines, node)
            if seg not in body:
                parts.append(seg)
    head = "\n".join(p for p in parts if "\n" not in p) + "\n"
    helpers = "".join(f"\n\n{p}\n" for p in parts if "\n" in p)
    return (head.lstrip("\n") + helpers + "\n\n" + body).lstrip("\n") if parts else body


def _pick_python(codes: list[str], entry: str | None) -> tuple[str, str]:
    if len(codes) == 1:
        return codes[0], ""
    parsed = [_parse_prefix(c) for c in codes]
    definers = [k for k, p in enumerate(parsed) if p and entry and entry in python_defined(p[0])]
    if not definers:
        return max(codes, key=lambda c: len(c.strip())), "longest"
    k = definers[-1]  # a later version of the function is the model's final answer
    chosen = parsed[k]
    assert chosen is not None
    have = {x for n in chosen[0].body for x in _bound(n)}
    need = _names_used(chosen[0]) - have
    extra: list[str] = []
    changed = True
    while changed:  # helpers the chosen block calls but another block defines, and what those call
        changed = False
        for j, p in enumerate(parsed):
            if j == k or p is None:
                continue
            for node in p[0].body:
                names = set(_bound(node))
                if names & need and not names & have:
                    extra.append(_segment(p[1].split("\n"), node))
                    have |= names
                    need |= _names_used(node) - have
                    changed = True
    if not extra:
        return codes[k], "entry_point"
    return "\n\n\n".join([*extra, codes[k]]), "entry_point+merged"


def _python_unfenced(text: str, entry: str | None) -> tuple[str | None, str]:
    """Code from a reply without fences: all of it if it parses, else the best span of lines that does."""

    def real(tree: ast.Module) -> bool:  # a stray word ("Sure") parses as a name: that is not code
        return any(not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Name | ast.Constant)) for n in tree.body)

    try:
        if real(ast.parse(text)):
            return text, "unfenced"
    except (SyntaxError, ValueError):
        pass
    lines = text.split("\n")
    best: tuple[bool, int, str] | None = None
    for k, line in enumerate(lines):
        # Spans start at a column-0 line that opens code (a decorator's def is inside its decorator's span).
        if not _PY_CODE_START.match(line) or (k and lines[k - 1].startswith("@")):
            continue
        parsed = _parse_prefix("\n".join(lines[k:]))  # the longest span from here that parses
        if parsed and real(parsed[0]):
            src = parsed[1].rstrip()
            score = (entry in python_defined(parsed[0]), sum(1 for ln in src.split("\n") if ln.strip()), src)
            best = max(best, score) if best else score
    if best and best[0]:
        return best[2], "unfenced:prose_removed"
    body = _indented_run(lines)
    if body is not None:
        return body, "unfenced:prose_removed"
    return (best[2], "unfenced:prose_removed") if best else (None, "unfenced")


def _indented_run(lines: list[str]) -> str | None:
    """The longest run of indented lines that parses as a function body (a reply that is only the body)."""
    runs: list[list[str]] = [[]]
    for ln in lines:
        if ln.strip() and not ln[:1].isspace():
            runs.append([])
        else:
            runs[-1].append(ln)
    for run in sorted(runs, key=lambda r: -sum(1 for ln in r if ln.strip())):
        src = "\n".join(run).strip("\n")
        if src.strip() and _python_body(src) is not None:
            return src
    return None


def _python_body(code: str) -> str | None:
    """The code as a function body to append to the prompt, if it is one (indented, or with a bare return)."""
    code = code.strip("\n").rstrip() + "\n"
    if code[:1].isspace():
        code = truncate_at_stops(code, default_stops("python")).rstrip() + "\n"  # drop column-0 test code
    else:  # a body written at column 0 has a top-level `return`; indent it
        parsed = _parse_prefix(code)
        if not parsed or not any(isinstance(n, ast.Return) for n in parsed[0].body):
            return None
        code = "\n".join(f"    {ln}" if ln.strip() else ln for ln in code.split("\n"))
    try:
        ast.parse("def _body():\n" + code)
    except (SyntaxError, ValueError):
        return None
    return code
