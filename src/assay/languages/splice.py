"""Whole programs from chat models, for languages whose MultiPL-E prompt is one class (or object)
`Problem` that the tests close after their `main` (Java, Scala, C#): the class that defines the entry
point gives its members to `Problem`, the other top-level types go after the tests.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, ClassVar

from assay.problems import Problem, test_program


@dataclasses.dataclass
class Block:
    """A top-level declaration: its header (up to the opening brace), its body and its end."""

    start: int
    open: int  # index of "{"
    close: int  # index of the matching "}" (len(text) when never closed)
    header: str


class ClassSplicer:
    """Splices a whole program into prompt + tests: the members of the class that defines the entry
    point (minus any demo main) go into `Problem`, other top-level types after the tests.

    Subclasses of BraceLanguage mix this in and set the regexes."""

    import_re: ClassVar[re.Pattern[str]] = re.compile(r"^[ \t]*import\s+[\w.*\s]+;[ \t]*$", re.M)
    drop_re: ClassVar[re.Pattern[str]] = re.compile(r"^[ \t]*package\s+[\w.]+\s*;?[ \t]*$", re.M)
    type_re: ClassVar[re.Pattern[str]] = re.compile(r"\b(class|interface|enum|record)\s+(\w+)")
    container_re: ClassVar[re.Pattern[str] | None] = None  # blocks whose contents count as top level (C# namespaces)
    main_re: ClassVar[re.Pattern[str]] = re.compile(r"\bstatic\s+void\s+main\s*\(")
    decl_re: ClassVar[re.Pattern[str]] = re.compile(r"\b(class|interface|enum|record|public|private|protected|static|final)\b")
    statement_end: ClassVar[str] = ";"  # what ends a declaration without a body ("\n" for Scala)
    method_re: ClassVar[str] = r"\b{name}\s*[<(]"  # where the entry point is declared (formatted with name)
    dummy_open: ClassVar[str] = "    private static void assayUnused() {\n"  # reopened so the tests' "}" has something to close
    strip_public: ClassVar[bool] = True  # top-level public types must live in their own file (Java)
    triple_quotes: ClassVar[bool] = True
    char_literals: ClassVar[bool] = True

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """prompt + completion + tests (whole programs spliced into that shape), then the top-level rest."""
        code, trailer = self.splice(problem, code)
        return code + "\n" + self.wrap_tests(test_program(problem).code, marker) + trailer

    if TYPE_CHECKING:  # the Language's, which the classes that mix this in define

        def wrap_tests(self, tests: str, marker: str) -> str: ...

    def splice(self, problem: Problem, code: str) -> tuple[str, str]:
        """(prompt + completion, top-level declarations to put after the tests)."""
        if code.startswith(problem.prompt) and self.depth(code[len(problem.prompt):]) >= 0:
            return code, ""  # a completion that leaves the function open, as the tests expect
        spliced = self.whole_program(problem, code)
        return spliced if spliced is not None else (code, "")

    def whole_program(self, problem: Problem, code: str) -> tuple[str, str] | None:
        """The program rebuilt around the class that defines the entry point; None when there is none."""
        header = self.prompt_header(problem.prompt)
        if header is None:
            return None
        entry = re.compile(self.method_re.format(name=re.escape(problem.entry_point)))
        blocks = self.top_level_blocks(code)
        target = next((b for b in blocks if self.type_re.search(b.header) and self.declares(code[b.open + 1 : b.close], entry)), None)
        if target is not None:
            members = code[target.open + 1 : target.close]
            others = [b for b in blocks if b is not target and self.type_re.search(b.header) and not self.has_main(code[b.open + 1 : b.close])]
        else:  # bare methods, no class around them
            loose = self.outside_blocks(code, [b for b in blocks if self.type_re.search(b.header)])
            if not self.declares(loose, entry):
                return None
            members = self.import_re.sub("", loose)  # the imports go before the prompt's (below)
            others = [b for b in blocks if self.type_re.search(b.header)]
        members = self.drop_imports(self.remove_main(members))
        imports = [m.group(0).strip() for m in self.import_re.finditer(self.outside_blocks(code, blocks))]
        have = {line.strip() for line in header.splitlines()}
        extra = "".join(line + "\n" for line in dict.fromkeys(imports) if line not in have)
        trailer = "".join(self.top_level_text(code, b) + "\n" for b in others)
        loose_types = self.drop_re.sub("", self.import_re.sub("", self.outside_blocks(code, blocks))).strip()
        if target is not None and self.type_re.search(loose_types):
            trailer += loose_types + "\n"  # e.g. Scala's `case class Point(x: Int, y: Int)`
        return extra + header + members.rstrip() + "\n" + self.dummy_open, trailer

    # ------------------------------------------------------------ structure

    def prompt_header(self, prompt: str) -> str | None:
        """The prompt up to and including the line that opens class Problem."""
        match = re.search(r"^.*\b(class|object)\s+Problem\b.*\{[ \t]*\n", prompt, re.M)
        return prompt[: match.end()] if match else None

    def declares(self, body: str, entry: re.Pattern[str]) -> bool:
        """Whether body declares the entry point at its own top level (not just calls it)."""
        top = self.outside_blocks(body, self.top_level_blocks(body, flatten=False), keep_headers=True)
        for match in entry.finditer(top):
            line_start = top.rfind("\n", 0, match.start()) + 1
            before = top[line_start : match.start()]
            if re.search(r"[\w>\]]\s*$", before) and not re.search(r"(\breturn|=|\.|\(|,)\s*$", before):
                return True  # a type or keyword before the name: a declaration, not a call
            if re.search(r"\bdef\s*$", before):
                return True
        return False

    def has_main(self, body: str) -> bool:
        return bool(self.main_re.search(self.outside_blocks(body, self.top_level_blocks(body, flatten=False), keep_headers=True)))

    def remove_main(self, members: str) -> str:
        """Members without a `main` method (the tests bring their own)."""
        for _ in range(8):
            blocks = self.top_level_blocks(members, flatten=False)
            top = self.outside_blocks(members, blocks, keep_headers=True)
            match = self.main_re.search(top)
            if match is None:
                break
            line_start = members.rfind("\n", 0, match.start()) + 1
            block = next((b for b in blocks if b.start <= match.start() < b.open), None)
            if block is not None and not self.decl_re.search(members[match.end() : block.open]):
                end = block.close + 1  # main { ... }
            elif self.statement_end == ";":
                semi = top.find(";", match.end())  # static void Main() => ...;
                end = len(members) if semi < 0 else semi + 1
            else:  # def main(args: Array[String]): Unit = expression (maybe on the next line)
                end = members.find("\n", match.end())
                end = len(members) if end < 0 else end
                if members[line_start:end].rstrip().endswith("="):
                    nxt = members.find("\n", end + 1)
                    end = len(members) if nxt < 0 else nxt
            members = members[:line_start] + members[end:]
        return members

    def drop_imports(self, members: str) -> str:
        return self.drop_re.sub("", members)

    def top_level_text(self, code: str, block: Block) -> str:
        """A type's declaration, from the line of its keyword (not the imports before it) to its brace."""
        start = block.start
        kinds = list(self.type_re.finditer(code, block.start, block.open))
        if kinds:
            start = code.rfind("\n", block.start, kinds[-1].start()) + 1 or block.start
        text = code[start : block.close + 1]
        if block.close >= len(code):
            text = code[start:] + "\n}"
        if self.strip_public:
            text = re.sub(r"^(\s*(?:@\w+(?:\([^)]*\))?\s*)*)public\s+", r"\1", text, count=1)
        return text

    def top_level_blocks(self, text: str, flatten: bool = True) -> list[Block]:
        """Brace blocks at depth 0 with their headers (the text since the previous ; } { or blank start)."""
        blocks: list[Block] = []
        depth = 0
        boundary = 0  # where the current top-level statement started
        open_at = -1
        for i, ch in self.code_chars(text):
            if ch == "{":
                if depth == 0:
                    open_at = i
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    blocks.append(Block(boundary, open_at, i, text[boundary:open_at]))
                    boundary = i + 1
                elif depth < 0:
                    depth = 0
                    boundary = i + 1
            elif ch == ";" and depth == 0:
                boundary = i + 1
        if depth > 0 and open_at >= 0:
            blocks.append(Block(boundary, open_at, len(text), text[boundary:open_at]))
        for block in blocks:  # headers start at their first non-blank line
            stripped = len(block.header) - len(block.header.lstrip())
            if self.statement_end == "\n":  # no semicolons: the header is the last declaration's lines
                decls = list(self.decl_re.finditer(block.header))
                if decls:
                    stripped = block.header.rfind("\n", 0, decls[-1].start()) + 1
            block.start += stripped
            block.header = block.header[stripped:].strip()
        if flatten and self.container_re is not None:
            out: list[Block] = []
            for block in blocks:
                if self.container_re.search(block.header) and not self.type_re.search(block.header):
                    inner = text[block.open + 1 : block.close]
                    for sub in self.top_level_blocks(inner, flatten=True):
                        shift = block.open + 1
                        out.append(Block(sub.start + shift, sub.open + shift, min(sub.close + shift, block.close), sub.header))
                else:
                    out.append(block)
            blocks = out
        return blocks

    def outside_blocks(self, text: str, blocks: list[Block], keep_headers: bool = False) -> str:
        """text with the given blocks (header and body, or only the body) blanked out."""
        out = list(text)
        for block in blocks:
            start, end = (block.open + 1, block.close) if keep_headers else (block.start, block.close + 1)
            for i in range(start, min(end, len(text))):
                if out[i] != "\n":
                    out[i] = " "
        return "".join(out)

    def depth(self, text: str) -> int:
        depth = 0
        for _, ch in self.code_chars(text):
            depth += 1 if ch == "{" else -1 if ch == "}" else 0
        return depth

    def code_chars(self, text: str) -> list[tuple[int, str]]:
        """(index, char) of the braces and semicolons outside strings, chars and comments."""
        out: list[tuple[int, str]] = []
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch == "/" and text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif ch == "/" and text.startswith("/*", i):
                j = text.find("*/", i + 2)
                i = n if j < 0 else j + 2
            elif ch == '"' and self.triple_quotes and text.startswith('"""', i):
                j = text.find('"""', i + 3)
                i = n if j < 0 else j + 3
            elif ch == '"':
                verbatim = i > 0 and text[i - 1] == "@"  # C# @"..." (no escapes, "" is a quote)
                j = i + 1
                while j < n:
                    if verbatim and text.startswith('""', j):
                        j += 2
                    elif text[j] == '"' or (text[j] == "\n" and not verbatim):
                        break
                    else:
                        j += 2 if (text[j] == "\\" and not verbatim) else 1
                i = j + 1
            elif ch == "'" and self.char_literals:
                m = re.match(r"'(?:\\u[0-9a-fA-F]{4}|\\.|[^\\'\n])'", text[i : i + 8])
                i += len(m.group(0)) if m else 1
            else:
                if ch in "{};":
                    out.append((i, ch))
                i += 1
        return out


# ---------------------------------------------------------------- cases (Java, C#, Scala)


def assert_calls(tests: str, assert_prefix: str) -> list[str] | None:
    """The entry point's call in each `<assert_prefix>name(...)...` line of a MultiPL-E test section, in
    order (MultiPL-E calls the function by its own name there, not as `candidate`); None when a test
    line has no call to find."""
    from assay.languages.harness import NotSplittable, balanced

    head = re.compile(re.escape(assert_prefix) + r"\s*([A-Za-z_]\w*)\s*\(")
    calls: list[str] = []
    for line in tests.splitlines():
        stripped = line.strip()
        if not stripped.startswith(assert_prefix):
            continue
        match = head.match(stripped)
        if match is None:
            return None
        try:
            end = balanced(stripped, match.end() - 1, '"')
        except NotSplittable:
            return None
        calls.append(stripped[match.start(1) : end])
    return calls


def tests_prefix(tests: str, main: re.Pattern[str]) -> str:
    """What a MultiPL-E test section has before its `main`: the text that closes the prompt's function."""
    match = main.search(tests)
    if match is None:
        raise ValueError("the test section has no main")
    return tests[: tests.rfind("\n", 0, match.start()) + 1]
