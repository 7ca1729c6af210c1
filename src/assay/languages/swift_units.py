"""Hand-written Swift unit-test suites (runner "units"): the program, its per-run secrets, and how its report is read.

The tests run in the sample's own process (that is what unit tests with expectations are), so the
harness makes a pass hard to forge rather than impossible:

* Per run, every test gets a fresh random token, and the run one more for its end line. The tokens
  reach the program only on stdin (the run phase's; the build never has it), masked (each XOR a
  random mask that comes after them), read to the end by the generated main before any test runs;
  stdin is then /dev/null, and no file holds a token. A test that passes reports
  `test <name> ok <its token>` on fd 3, unmasked byte by byte into the line being written (zeroed
  after); one that fails `test <name> fail <message>`, which carries no token. After the last
  test comes `end <end token>`. The trusted side requires every test the suite declares, in
  order, exactly once, each with its own token, then the end line, and exit status 0
  (`read_report`). A forged line, an early exit, a skipped test or a fail line rewritten as ok
  (it lacks the token) is a failed run; a scan of the process's memory for tokens finds no text.
* Per build, every name of the prelude (expect, expectEqual, ...) and every test function gets a
  random suffix, in the prelude, the tests and the generated main alike: a solution cannot
  overload an expectation or replace the runner, because it cannot know their names.
* The generated main reaches the C library only as `Glibc.read`, `Glibc.write`, ..., calls no
  member of a standard-library type where it handles tokens, and types every operand there; the
  prelude names the standard library as `Swift.X`. `solution_violations` (checked on the trusted
  side, before anything is built) refuses a solution that could redirect those: one that declares
  the names `Glibc` or `Swift` or a default literal type, defines or renames C symbols (`@_cdecl`,
  `@_silgen_name`, ...), or declares an existing operator for types that are not its own (an `==`
  that makes a context type, `[Int]` or `Int` equal to anything).

What remains (docs/verdicts.md): the sample shares the process, so a solution written against this
harness can still forge a pass: find the masked tokens and their masks in its heap (or read them
from main's stack, or wait in a thread for the line buffer), patch code, or race main for fd 3;
and where a test compares values of a type the solution itself declares, the solution's own `==`
decides.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from assay.languages.base import ASSERT_EXIT

PRELUDE = Path(__file__).with_name("swift_prelude.swift")
# A test is a top-level `func test_<name>() throws` or `func test_<name>() async throws`.
TEST_FUNC = re.compile(r"^func[ \t]+(test_\w+)[ \t]*\([ \t]*\)[ \t]*(async[ \t]+)?throws[ \t]*\{", re.M)
_PRELUDE_DECL = re.compile(r"^(?:(?:private|fileprivate|internal)[ \t]+)?(?:func|struct|class|enum|protocol|typealias)[ \t]+(\w+)", re.M)
TOKEN_BYTES = 16  # a token is 32 hex digits in the report; on stdin, 16 bytes XOR a 16-byte mask
MESSAGE_LIMIT = 1000  # characters of a failure message the harness reports


def test_names(tests: str) -> list[tuple[str, bool]]:
    """The suite's tests, in source order: (name, is_async)."""
    return [(m.group(1), bool(m.group(2))) for m in TEST_FUNC.finditer(tests)]


def prelude_names(prelude: str) -> list[str]:
    """The names the prelude declares at top level (expect, expectEqual, AssayExpectationFailure, ...)."""
    return list(dict.fromkeys(_PRELUDE_DECL.findall(prelude)))


@dataclass
class UnitRun:
    """One run's files, its stdin (the tokens) and what the trusted side checks its report against."""

    files: dict[str, bytes]
    stdin: bytes
    tests: list[str]
    tokens: list[str]
    end: str = ""


def unit_run(tests: str, solution: str, context: str = "", prelude: str | None = None) -> UnitRun:
    """prelude.swift, context.swift (if any), solution.swift, tests.swift and main.swift, with fresh names and tokens."""
    prelude = PRELUDE.read_text() if prelude is None else prelude
    suffix = "_" + secrets.token_hex(6)
    names = prelude_names(prelude)
    if names:
        whole = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
        calls = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")(?=\s*[({])")
        prelude = whole.sub(lambda m: m.group(1) + suffix, prelude)
        tests_text = calls.sub(lambda m: m.group(1) + suffix, tests)
    else:
        tests_text = tests
    declared = test_names(tests)
    tests_text = TEST_FUNC.sub(lambda m: m.group(0).replace(m.group(1), m.group(1) + suffix, 1), tests_text)
    tokens = [secrets.token_hex(TOKEN_BYTES) for _ in declared]
    end = secrets.token_hex(TOKEN_BYTES)
    # On stdin every token is masked: all the tokens XOR their masks, then all the masks. So no token is
    # in the program's memory as its hex text but on the line being written (a scan of the process's
    # memory for 32 hex digits finds nothing).
    masks = [secrets.token_bytes(TOKEN_BYTES) for _ in range(len(tokens) + 1)]
    masked = [bytes(a ^ b for a, b in zip(bytes.fromhex(t), m, strict=True)) for t, m in zip([*tokens, end], masks, strict=True)]
    stdin = b"".join(masked) + b"".join(masks)
    files = {"prelude.swift": prelude.encode(), "solution.swift": solution.encode(), "tests.swift": tests_text.encode(),
             "main.swift": unit_main(declared, suffix).encode()}
    if context.strip():
        files["context.swift"] = context.encode()
    return UnitRun(files, stdin, [n for n, _ in declared], tokens, end)


def unit_main(tests: list[tuple[str, bool]], suffix: str) -> str:
    """main.swift: read the masked tokens (all of stdin) before any test runs, then each test in order, reporting on fd 3.

    Where the tokens are handled, no member of a standard-library type is called (a solution's
    extension could shadow it), the C library is named as Glibc, and every operand has an explicit
    standard-library type (no literal is left to the module's default literal types): what
    `solution_violations` lets a solution declare cannot be chosen there by overload resolution.
    A token is unmasked into the line being written, byte by byte, and the line is zeroed after.
    """
    count = len(tests) + 1
    size = 2 * count * TOKEN_BYTES
    s = suffix

    def n(value: int, kind: str = "Int") -> str:
        return f"({value} as Swift.{kind})"

    lines = [
        "// Generated by Assay for one run: each test in source order, one report each on fd 3, then the end line.",
        "#if canImport(Glibc)",
        "import Glibc",
        "#endif",
        "do {",
        f"    let assaySize{s}: Swift.Int = {n(size)}",
        f"    let assayIn{s}: Swift.UnsafeMutableRawPointer = Glibc.malloc(assaySize{s})!",
        f"    var assayHave{s}: Swift.Int = {n(0)}",
        f"    while assayHave{s} < assaySize{s} {{",
        f"        let got: Swift.Int = Glibc.read({n(0, 'Int32')}, assayIn{s} + assayHave{s}, assaySize{s} - assayHave{s})",
        f"        if got <= {n(0)} {{ break }}",
        f"        assayHave{s} += got",
        "    }",
        # stdin becomes /dev/null (closed, fd 0 would be the next file a test opens: Process's pipes)
        f'    let assayNull{s}: Swift.Int32 = Glibc.open("/dev/null", Glibc.O_RDONLY)',
        f"    if assayNull{s} > {n(0, 'Int32')} {{ _ = Glibc.dup2(assayNull{s}, {n(0, 'Int32')}); _ = Glibc.close(assayNull{s}) }}",
        f"    if assayHave{s} != assaySize{s} {{ Glibc._exit({n(3, 'Int32')}) }}",
        f"    let assayHex{s}: Swift.UnsafeMutableRawPointer = Glibc.malloc({n(16)})!",
        f'    _ = Glibc.memcpy(assayHex{s}, "0123456789abcdef", {n(16)})',
        f"    let assayLine{s}: Swift.UnsafeMutableRawPointer = Glibc.malloc({n(256)})!",
        f"    var assayStatus{s}: Swift.Int32 = {n(0, 'Int32')}",
    ]

    def ok_line(head: str, index: int) -> list[str]:
        k = len(head)
        length = k + 2 * TOKEN_BYTES + 1
        return [
            f'        _ = Glibc.memcpy(assayLine{s}, "{head}", {n(k)})',
            f"        assayUnmask{s}(assayLine{s} + {n(k)}, assayIn{s} + {n(index * TOKEN_BYTES)}, "
            f"assayIn{s} + {n((count + index) * TOKEN_BYTES)}, assayHex{s})",
            f'        _ = Glibc.memcpy(assayLine{s} + {n(length - 1)}, "\\n", {n(1)})',
            f"        assayPut{s}(assayLine{s}, {n(length)})",
            f"        _ = Glibc.memset(assayLine{s}, {n(0, 'Int32')}, {n(length)})",
        ]

    for i, (name, is_async) in enumerate(tests):
        call = f"try await {name}{s}()" if is_async else f"try {name}{s}()"
        lines += ["    do {", f"        {call}", *ok_line(f"test {name} ok ", i), "    } catch {",
                  f"        assayStatus{s} = {n(ASSERT_EXIT, 'Int32')}", f'        assayFail{s}("test {name} fail ", error)', "    }"]
    lines += ["    do {", *ok_line("end ", len(tests)), "    }", "    _ = Glibc.fflush(nil)", f"    Glibc._exit(assayStatus{s})", "}"]
    lines += [
        "// The hex digits of (masked XOR mask), one byte at a time, into `to`.",
        f"func assayUnmask{s}(_ to: Swift.UnsafeMutableRawPointer, _ masked: Swift.UnsafeRawPointer, _ mask: Swift.UnsafeRawPointer,",
        "                  _ hex: Swift.UnsafeRawPointer) {",
        f"    var i: Swift.Int = {n(0)}",
        f"    while i < {n(TOKEN_BYTES)} {{",
        f"        var a: Swift.UInt8 = {n(0, 'UInt8')}",
        f"        var b: Swift.UInt8 = {n(0, 'UInt8')}",
        f"        _ = Glibc.memcpy(&a, masked + i, {n(1)})",
        f"        _ = Glibc.memcpy(&b, mask + i, {n(1)})",
        "        a = a ^ b",
        f"        var high: Swift.UInt8 = a >> {n(4, 'UInt8')}",
        f"        var low: Swift.UInt8 = a & {n(15, 'UInt8')}",
        f"        var h: Swift.Int = {n(0)}",
        f"        var l: Swift.Int = {n(0)}",
        f"        _ = Glibc.memcpy(&h, &high, {n(1)})",
        f"        _ = Glibc.memcpy(&l, &low, {n(1)})",
        f"        _ = Glibc.memcpy(to + (i + i), hex + h, {n(1)})",
        f"        _ = Glibc.memcpy(to + (i + i + {n(1)}), hex + l, {n(1)})",
        f"        a = {n(0, 'UInt8')}; high = {n(0, 'UInt8')}; low = {n(0, 'UInt8')}",
        f"        i += {n(1)}",
        "    }",
        "}",
        f"func assayPut{s}(_ p: Swift.UnsafeRawPointer, _ count: Swift.Int) {{",
        f"    var done: Swift.Int = {n(0)}",
        "    while done < count {",
        f"        let w: Swift.Int = Glibc.write({n(3, 'Int32')}, p + done, count - done)",
        f"        if w <= {n(0)} {{ Glibc._exit({n(70, 'Int32')}) }}",
        "        done += w",
        "    }",
        "}",
        "// A failure's message: one line, at most MESSAGE_LIMIT characters (it carries no token: nothing to protect).",
        f"func assayFail{s}(_ head: Swift.String, _ error: any Swift.Error) {{",
        "    var text = head",
        "    var count = 0",
        "    for u in Swift.String(describing: error).unicodeScalars {",
        f"        if count >= {MESSAGE_LIMIT} {{ break }}",
        "        count += 1",
        '        if u == "\\n" { text += "\\\\n" } else if u == "\\r" { text += "\\\\r" } else { text.unicodeScalars.append(u) }',
        "    }",
        '    text += "\\n"',
        "    let bytes = Swift.Array(text.utf8)",
        f"    bytes.withUnsafeBytes {{ assayPut{s}($0.baseAddress!, $0.count) }}",
        "}",
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the trusted side


@dataclass
class UnitReport:
    """What a run reported, as far as it follows the format: per test (name, passed, message), in order."""

    results: list[tuple[str, bool, str]] = field(default_factory=list)
    ended: bool = False
    forged: str = ""  # why the channel cannot have come from the harness alone ("" when it could)


def read_report(channel: bytes, run: UnitRun) -> UnitReport:
    """Each declared test's line in order (ok with its own token, or fail), then `end <token>`, nothing else."""
    out = UnitReport()
    lines = channel.split(b"\n")
    lines = lines[:-1]  # the last piece is "" or an unfinished line (the run was cut short while writing it)
    for number, raw in enumerate(lines, 1):
        line = raw.decode("utf-8", "replace")
        if out.ended:
            out.forged = f"line {number}: data after the end line"
            return out
        at = len(out.results)
        if at == len(run.tests):
            if line != f"end {run.end}":
                out.forged = f"line {number}: not the end line: {line[:80]!r}"
                return out
            out.ended = True
            continue
        name = run.tests[at]
        if line == f"test {name} ok {run.tokens[at]}":
            out.results.append((name, True, ""))
        elif line.startswith(f"test {name} fail "):
            out.results.append((name, False, line[len(f"test {name} fail ") :]))
        elif line.startswith(f"test {name} ok"):
            out.forged = f"line {number}: {name} reported ok without its token"
            return out
        else:
            out.forged = f"line {number}: not the report of {name}: {line[:80]!r}"
            return out
    return out


# ---------------------------------------------------------------- what a solution may not declare

_ATTRIBUTES = re.compile(r"@_(?:cdecl|silgen_name|extern|dynamicReplacement|section|used|expose)\b")
# Names the harness relies on: the modules it names, and the default literal types (a solution's
# `typealias IntegerLiteralType = Mine` would change what every untyped literal of the program is).
_RESERVED = re.compile(r"\b(Glibc|Swift|IntegerLiteralType|FloatLiteralType|BooleanLiteralType|StringLiteralType"
                       r"|UnicodeScalarType|ExtendedGraphemeClusterType)\b")
_CONCRETE = re.compile(r"\b(?:struct|class|enum|actor)\s+(\w+)")
_ANY_TYPE = re.compile(r"\b(?:struct|class|enum|actor|protocol|typealias|associatedtype)\s+(\w+)")
_ALIAS = re.compile(r"\b(?:typealias|associatedtype)\s+(\w+)")
_OPERATOR = re.compile(r"\bfunc\s*([/=\-+!*%<>&|^~?.]+)\s*(?:<[^>{]*>)?\s*\(")
_OWN_OPERATOR = re.compile(r"\b(?:prefix|infix|postfix)\s+operator\s+([/=\-+!*%<>&|^~?.]+)")
_HOST = re.compile(r"\b(struct|class|enum|actor|extension|protocol)\s+(?:[\w.]+\.)?(\w+)")


def code_only(text: str) -> str:
    """The text with comments and string literals blanked (same length, newlines kept): Swift's nested
    block comments, multi-line and raw (#"..."#) strings included; an interpolation is skipped with its
    string, quotes inside it and all, so the scan never loses its place."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        for j in range(a, min(b, n)):
            if out[j] != "\n":
                out[j] = " "

    while i < n:
        if text.startswith("//", i) or text.startswith("/*", i):
            j = _skip_comment(text, i)
        elif _opens_string(text, i):
            j = _skip_string(text, i)
        else:
            i += 1
            continue
        blank(i, j)
        i = j
    return "".join(out)


def _opens_string(text: str, i: int) -> bool:
    return text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:]) is not None)


def _skip_comment(text: str, i: int) -> int:
    """Index just after the comment at i (a line comment ends before its newline; block comments nest)."""
    if text.startswith("//", i):
        j = text.find("\n", i)
        return len(text) if j < 0 else j
    depth, j = 1, i + 2
    while j < len(text) and depth:
        if text.startswith("/*", j):
            depth, j = depth + 1, j + 2
        elif text.startswith("*/", j):
            depth, j = depth - 1, j + 2
        else:
            j += 1
    return j


def _skip_string(text: str, i: int) -> int:
    """Index just after the string literal that starts at i (its #s, then one or three quotes)."""
    n = len(text)
    hashes = len(text[i:]) - len(text[i:].lstrip("#"))
    j = i + hashes
    triple = text.startswith('"""', j)
    close = ('"""' if triple else '"') + "#" * hashes
    escape = "\\" + "#" * hashes
    j += 3 if triple else 1
    while j < n:
        if text.startswith(close, j):
            return j + len(close)
        if text.startswith(escape, j):
            k = j + len(escape)
            j = _skip_parens(text, k) if k < n and text[k] == "(" else k + 1
            continue
        if text[j] == "\n" and not triple:
            return j
        j += 1
    return n


def _skip_parens(text: str, k: int) -> int:
    """Index just after the parenthesis that closes the one at k: an interpolation, strings and comments in it skipped."""
    depth, j = 0, k
    while j < len(text):
        if text.startswith("//", j) or text.startswith("/*", j):
            j = _skip_comment(text, j)
            continue
        if _opens_string(text, j):
            j = _skip_string(text, j)
            continue
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(text)


def solution_violations(solution: str, context: str = "") -> list[str]:
    """What in a solution could subvert the in-process harness (see the module docstring); [] when nothing."""
    problems: list[str] = []
    code = code_only(solution)
    for m in _ATTRIBUTES.finditer(solution):
        problems.append(f"line {_line(solution, m.start())}: {m.group(0)} (C symbols are the harness's)")
    for m in _RESERVED.finditer(code):
        after = code[m.end() :].lstrip()
        before = code[: m.start()].rstrip()
        if after.startswith(".") or before.endswith("canImport(") or re.search(r"\bimport\s*$", before):
            continue
        problems.append(f"line {_line(code, m.start())}: declares or rebinds the name {m.group(1)}")
    context_names = set(_ANY_TYPE.findall(code_only(context)))
    own = set(_CONCRETE.findall(code)) - context_names - set(_ALIAS.findall(code))
    heads = _brace_heads(code)
    own_operators = set(_OWN_OPERATOR.findall(code))  # an operator the solution introduces: nothing else uses it
    for m in _OPERATOR.finditer(code):
        op = m.group(1)
        if op in own_operators:
            continue
        try:
            params = code[m.end() - 1 : _matching(code, m.end() - 1)]
        except ValueError:
            continue
        types = " ".join(p.split(":", 1)[1] for p in params[1:-1].split(",") if ":" in p)
        host = None
        for head in reversed(heads_at(heads, m.start())):
            found = _HOST.search(head)
            if found:
                host = found
                break
        host_is_own = host is not None and host.group(1) != "protocol" and host.group(2) in own
        mentions = {w for w in re.findall(r"\w+", types)}
        if mentions & own or ("Self" in mentions and host_is_own):
            continue
        where = f"in {host.group(1)} {host.group(2)}" if host else "at file scope"
        problems.append(f"line {_line(code, m.start())}: declares operator {op} {where} for types it does not declare")
    return problems


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _matching(code: str, start: int) -> int:
    depth = 0
    for j in range(start, len(code)):
        if code[j] == "(":
            depth += 1
        elif code[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError("unbalanced")


def _brace_heads(code: str) -> list[tuple[int, int, str]]:
    """Every brace block: (open, close, the text before it back to the previous `{`, `}` or `;`)."""
    blocks: list[tuple[int, int, str]] = []
    stack: list[tuple[int, str]] = []
    boundary = 0
    for j, ch in enumerate(code):
        if ch == "{":
            stack.append((j, code[boundary:j]))
            boundary = j + 1
        elif ch == "}":
            if stack:
                start, head = stack.pop()
                blocks.append((start, j, head))
            boundary = j + 1
        elif ch == ";":
            boundary = j + 1
    blocks.extend((start, len(code), head) for start, head in stack)
    return blocks


def heads_at(blocks: list[tuple[int, int, str]], at: int) -> list[str]:
    """The heads of the blocks around a position, outermost first."""
    return [head for start, end, head in sorted(blocks) if start < at < end]
