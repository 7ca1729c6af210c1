"""mxeval's Swift sets: MBXP (`mbxp/swift`, 966), Multilingual HumanEval (`multi-humaneval/swift`, 161)
and HumanEval-XL's English Swift prompts (`humaneval-xl/swift`, 80), which use mxeval's converter and tests.

Upstream runs `prompt + completion + test` with `swift` and calls a clean exit a pass. The tests are
blocks of `var argNK : T = <literal>`, `var xN : T = f(label : argN0, ...)`, `var vN : T = <literal>`
and `assert(xN == vN, ...)`. Assay judges each block as a case: in the sandbox the harness evaluates the
call (its arguments declared as the block declares them, in a closure) and reports the result under
xN's type; the expected literal is read here, under vN's type, and compared on the trusted side with
Swift's `==` (assay.languages.swift_cases.swift_equal: Bool apart from numbers, numbers by value
under AnyHashable, strings by canonical equivalence). A block whose literal this reader cannot take
as Swift does (an empty `[]` at a dictionary or an AnyHashable, an array of mixed kinds in an AnyHashable,
which Swift types `[Any]`, a dictionary inside an AnyHashable, whose order the wire would keep, keys or set
members that are arrays) leaves its problem
program-judged: the upstream program, run as mxeval runs it ("program-judged", with the reason).

The completion closes the function itself (mxeval's shape), so helpers after it are kept. The data
has no Swift reference solutions; MBXP's example completions (../samples/mxeval-examples) are a
harness check against the pass rate mxeval publishes for them. Known converter defects are tagged per
problem (`defect:anyhashable`, `defect:tuple-as-array`, `defect:none-string`, `defect:does-not-build`)
so that results and reports show them; `assay audit` explains each.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import resolve_data_file, sha256_file
from assay.benchmarks.directory import BenchmarkFormatError
from assay.problems import Benchmark, Case, CaseTests, Problem, ProgramTests, Runner
from assay.values import ANY, BOOL, FLOAT, INT, STR, Signature, Type

# name -> (data subdir, file, upstream repository@commit and path, sha256 of the file as shared/data has it)
DATASETS: dict[str, tuple[str, str, str, str, str]] = {
    "mbxp": ("mxeval", "mbswp_release_v1.jsonl", "amazon-science/mxeval", "e09974f/data/mbxp/mbswp_release_v1.jsonl",
             "b390ee15df6170386e5f5771f227ef4df3ea7eb994b09d39ecec888e77daefc9"),
    "multi-humaneval": ("mxeval", "HumanEval_swift_v1.1.jsonl", "amazon-science/mxeval",
                        "e09974f/data/multilingual_humaneval/HumanEval_swift_v1.1.jsonl",
                        "b0de1f4a223d9830c9ffc34eb313aa0a54d5565a6b71b2f88cab67f6db8ccfe0"),
    "humaneval-xl": ("humaneval-xl", "swift-English.jsonl", "FloatAI/humaneval-xl", "ad93b7c/data/swift/English.jsonl",
                     "c0b57e12e5f81824ea76800d94a5f333945063a3567c718b16d7fcd57124e180"),
}
URL = "https://raw.githubusercontent.com/{repo}/{path}"

# Problems whose prompt + stub + tests do not build with Swift 6.3.1 (`assay canary`, all 1,207): a test literal
# Swift types as [Any] (an empty or mixed array in an AnyHashable: "conflicting arguments to generic parameter",
# "type 'Any' cannot conform to 'Hashable'"), `[]` for an empty dictionary, or (MBSWP/676) a prompt whose doc
# comment never ends. No sample can pass them, here or upstream; kept here until the audit records them.
DOES_NOT_BUILD: frozenset[str] = frozenset(
    [f"MBSWP/{n}" for n in (115, 160, 215, 301, 307, 317, 361, 398, 568, 580, 582, 676, 941, 966)]
    + [f"HumanEval_swift/{n}" for n in (22, 78, 87, 95, 111)]
    + ["swift/37", "swift/41"]
)


class MxevalFormatError(BenchmarkFormatError):
    """A file that is not in mxeval's schema (one line; the CLI prints it without a traceback)."""


class NotCases(ValueError):
    """Why a problem's tests are run as mxeval's program rather than judged as cases."""


def load_mxeval(dataset: str, lang: str = "swift", *, data_dir: Path | None = None, cache_dir: Path | None = None,
                path: Path | None = None) -> Benchmark:
    """mbxp/swift, multi-humaneval/swift or humaneval-xl/swift: from `path`, the data dir, the cache or upstream."""
    if lang != "swift":
        raise ValueError(f"{dataset}/{lang}: Assay loads only the Swift files of mxeval and HumanEval-XL")
    subdir, filename, repo, upstream, sha = DATASETS[dataset]
    if path is not None:
        source, version = Path(path), "local"
    else:
        source = resolve_data_file(filename, subdir=subdir, url=URL.format(repo=repo, path=upstream), data_dir=data_dir,
                                   cache_dir=cache_dir, expected_sha256=sha)
        version = f"{repo}@{upstream.split('/')[0]}"
    problems: dict[str, Problem] = {}
    for n, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            problem = mxeval_problem(row)
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise MxevalFormatError(f"{source}: line {n} is not an mxeval row (task_id, prompt, test, entry_point): {exc}") from None
        problems[problem.id] = problem
    return Benchmark(name=f"{dataset}/{lang}", version=version, content_hash=sha256_file(source), source=str(source), problems=problems)


def mxeval_problem(row: dict[str, Any]) -> Problem:
    """One row as a Problem: cases where every block reads as one, else mxeval's program."""
    pid, prompt, test = str(row["task_id"]), str(row["prompt"]), str(row["test"])
    program = ProgramTests(code=test, runner=Runner.SCRIPT)
    tests: CaseTests | ProgramTests
    try:
        tests = mxeval_cases(prompt, test, str(row["entry_point"]))
    except NotCases as why:
        tests = dataclasses.replace(program, why=str(why))
    return Problem(
        id=pid,
        language="swift",
        prompt=prompt,
        entry_point=str(row["entry_point"]),
        reference=str(row.get("canonical_solution") or ""),
        tests=tests,
        tags=defect_tags(pid, prompt, test),
        extra={"description": row.get("description"), **({"natural_language": row["natural_language"]} if "natural_language" in row else {})},
    )


# ---------------------------------------------------------------- the test blocks

_VAR = re.compile(r"^var (arg\d+|x\d+|v\d+) : (.+?) = (.*)$")
_ASSERT = re.compile(r'^assert\(x(\d+) == v\1, "[^"\n]*"\)$')


@dataclasses.dataclass(frozen=True)
class Block:
    """One test case as the test program writes it."""

    args: tuple[tuple[str, str, str], ...]  # (name, type, literal)
    call_type: str
    call: str
    expected_type: str
    expected: str


def blocks_of(test: str) -> list[Block]:
    """The test program's cases, in order; raises NotCases for any other line."""
    out: list[Block] = []
    args: list[tuple[str, str, str]] = []
    call: tuple[str, str, str] | None = None
    value: tuple[str, str, str] | None = None
    for raw in test.splitlines():
        line = raw.strip()
        if not line:
            continue
        var = _VAR.match(line)
        parts = (var.group(1), var.group(2), var.group(3)) if var else ("", "", "")
        if var and parts[0].startswith("arg") and call is None:
            args.append(parts)
        elif var and parts[0].startswith("x") and call is None:
            call = parts
        elif var and call is not None and parts[0] == "v" + call[0][1:] and value is None:
            value = parts
        elif (found := _ASSERT.match(line)) and call is not None and value is not None and found.group(1) == call[0][1:]:
            out.append(Block(tuple(args), call[1], call[2], value[1], value[2]))
            args, call, value = [], None, None
        else:
            raise NotCases(f"a test line is not one of mxeval's var/assert lines: {line[:120]}")
    if args or call or value:
        raise NotCases("the test program ends inside a case")
    if not out:
        raise NotCases("the test program has no cases")
    return out


def case_call(block: Block) -> str:
    """The call as an expression of the declared result type, its arguments declared as the block declares them."""
    decls = "".join(f"let {name} : {t} = {lit}; " for name, t, lit in block.args)  # `let`: no never-mutated warnings
    return f"{{ () -> {block.call_type} in {decls}return {block.call} }}()"


def mxeval_cases(prompt: str, test: str, entry_point: str) -> CaseTests:
    """The blocks as cases: expected values read here under their declared types; the upstream program kept."""
    blocks = blocks_of(test)
    types = {b.call_type for b in blocks} | {b.expected_type for b in blocks}
    if len(types) != 1:
        raise NotCases(f"the cases declare different result types: {', '.join(sorted(types))}")
    returns = swift_type_of(blocks[0].call_type)
    cases = []
    for b in blocks:
        expected = swift_literal(b.expected, returns)
        args = []
        for _, t, lit in b.args:
            try:
                args.append(swift_literal(lit, swift_type_of(t)))
            except NotCases:
                args.append(lit)  # shown only (the call carries the literal itself)
        cases.append(Case(tuple(args), "base", expected, case_call(b)))
    signature = Signature(entry_point, params_of(prompt, entry_point), returns)
    return CaseTests(cases=tuple(cases), signature=signature, rule="exact", program=ProgramTests(code=test, runner=Runner.SCRIPT))


def params_of(prompt: str, entry_point: str) -> tuple[tuple[str, Type], ...]:
    """`func f(a : [Int], b : String) -> ...` -> (("a", list[int]), ("b", str)); a type outside the model is `any`."""
    found = re.search(rf"func {re.escape(entry_point)}\s*\((.*)\)\s*(?:->|\{{)", prompt)
    if found is None:
        return ()
    params = []
    for piece in _split_top(found.group(1)):
        name, _, t = piece.partition(":")
        try:
            kind = swift_type_of(t.strip())
        except NotCases:
            kind = ANY
        params.append((name.split()[-1] if name.split() else name.strip(), kind))
    return tuple(params)


def _split_top(text: str) -> list[str]:
    parts, depth = [""], 0
    for ch in text:
        depth += (ch in "[(<") - (ch in "])>")
        if ch == "," and depth == 0:
            parts.append("")
        else:
            parts[-1] += ch
    return [p.strip() for p in parts if p.strip()]


# ---------------------------------------------------------------- Swift types and literals

_SCALAR_TYPES = {"Int": INT, "Double": FLOAT, "String": STR, "Bool": BOOL, "AnyHashable": ANY}


def swift_type_of(text: str) -> Type:
    """A Swift type as the value model's: Int, Double, String, Bool, AnyHashable, [T], [K : V], Set<T>."""
    t = text.strip()
    if t in _SCALAR_TYPES:
        return _SCALAR_TYPES[t]
    if t.startswith("Set<") and t.endswith(">"):
        return Type("set", (swift_type_of(t[4:-1]),))
    if t.startswith("[") and t.endswith("]"):
        inner = t[1:-1]
        depth = 0
        for i, ch in enumerate(inner):
            depth += (ch in "[(<") - (ch in "])>")
            if ch == ":" and depth == 0:
                return Type("dict", (swift_type_of(inner[:i]), swift_type_of(inner[i + 1 :])))
        return Type("list", (swift_type_of(inner),))
    raise NotCases(f"the Swift type {t!r} is outside what Assay reads")


_TOKEN = re.compile(r'\s*(?:(#"(?:(?!"#).)*"#)|("(?:\\.|[^"\\])*")|(-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+)|(-?\d+)|(true|false|nil)|([\[\]:,]))')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def _tokens(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    at = 0
    while at < len(text.rstrip()):
        m = _TOKEN.match(text, at)
        if m is None:
            raise NotCases(f"a literal Assay does not read: {text[at:at + 60]!r}")
        raw, plain, real, whole, word, punct = m.groups()
        if raw is not None:
            out.append(("str", raw[2:-2]))
        elif plain is not None:
            out.append(("str", _unescape(plain[1:-1])))
        elif real is not None:
            out.append(("float", float(real)))
        elif whole is not None:
            out.append(("int", int(whole)))
        elif word is not None:
            out.append(("word", word))
        else:
            out.append(("punct", punct))
        at = m.end()
    return out


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "u":
            end = body.index("}", i)
            out.append(chr(int(body[i + 3 : end], 16)))
            i = end + 1
        elif nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            raise NotCases(f"a string escape Assay does not read: \\{nxt}")
    return "".join(out)


def swift_literal(text: str, t: Type) -> Any:
    """A Swift literal at a declared type as a plain value; raises NotCases where Swift might read it otherwise
    (or not at all)."""
    tokens = _tokens(text)
    value, at = _value(tokens, 0, t)
    if at != len(tokens):
        raise NotCases(f"a literal with more after it: {text[:80]!r}")
    return value


def _value(tokens: list[tuple[str, Any]], at: int, t: Type) -> tuple[Any, int]:
    if at >= len(tokens):
        raise NotCases("a literal ends early")
    kind, tok = tokens[at]
    k = t.kind
    if kind == "punct" and tok == "[":
        return _collection(tokens, at + 1, t)
    if kind == "word" and tok in ("true", "false") and k in ("bool", "any"):
        return tok == "true", at + 1
    if kind == "int" and k in ("int", "any"):
        return tok, at + 1
    if kind in ("int", "float") and k == "float":
        return float(tok), at + 1
    if kind == "float" and k == "any":
        return tok, at + 1
    if kind == "str" and k in ("str", "any"):
        return tok, at + 1
    raise NotCases(f"{tok!r} is not a {t} literal Assay reads")


def _collection(tokens: list[tuple[str, Any]], at: int, t: Type) -> tuple[Any, int]:
    """After `[`: an array, set or dictionary literal at type t."""
    k = t.kind
    if tokens[at : at + 2] == [("punct", ":"), ("punct", "]")]:
        if k != "dict":
            raise NotCases(f"[:] at {t}")
        return {}, at + 2
    if tokens[at : at + 1] == [("punct", "]")]:
        if k == "list":
            return [], at + 1
        if k == "set":
            return set(), at + 1
        raise NotCases(f"an empty [] at {t} (Swift needs [:] for a dictionary, and a type for AnyHashable)")
    is_dict = _top_colon(tokens, at)
    if is_dict and k == "any":
        raise NotCases("a dictionary inside an AnyHashable (its order would decide the comparison)")
    if is_dict != (k == "dict") and k != "any":
        raise NotCases(f"a {'dictionary' if is_dict else 'array'} literal at {t}")
    items: list[Any] = []
    pairs: dict[Any, Any] = {}
    while True:
        if k == "dict":
            key, at = _value(tokens, at, t.args[0])
            if not _hashable_plain(key):
                raise NotCases(f"a dictionary key that is not a scalar: {key!r}")
            if tokens[at : at + 1] != [("punct", ":")]:
                raise NotCases("a dictionary entry without its `:`")
            item, at = _value(tokens, at + 1, t.args[1])
            if key in pairs:
                raise NotCases(f"the key {key!r} twice in one dictionary literal")
            pairs[key] = item
        else:
            item, at = _value(tokens, at, ANY if k == "any" else t.args[0])
            items.append(item)
        if at >= len(tokens):
            raise NotCases("a collection literal without its `]`")
        kind, tok = tokens[at]
        if (kind, tok) == ("punct", "]"):
            at += 1
            break
        if (kind, tok) != ("punct", ","):
            raise NotCases(f"{tok!r} inside a collection literal")
        at += 1
    if k == "dict":
        return pairs, at
    if k == "any" and len({_literal_kind(v) for v in items}) > 1:
        raise NotCases("an array literal of mixed kinds inside an AnyHashable (Swift infers [Any], which is not Hashable)")
    if k == "set":
        if not all(_hashable_plain(v) for v in items) or len({_set_key(v) for v in items}) != len(items):
            raise NotCases("a set literal with array members or repeated members")
        return set(items), at
    return items, at


def _top_colon(tokens: list[tuple[str, Any]], at: int) -> bool:
    """Whether the collection that starts at `at` (after its `[`) is a dictionary: a `:` at its own depth."""
    depth = 0
    for kind, tok in tokens[at:]:
        if kind != "punct":
            continue
        if tok == "[":
            depth += 1
        elif tok == "]":
            if depth == 0:
                return False
            depth -= 1
        elif tok == ":" and depth == 0:
            return True
    return False


def _literal_kind(value: Any) -> str:
    """What Swift infers an untyped array literal's element as: numbers (Int and Double: [Double]), strings, Bools, arrays."""
    if isinstance(value, bool):
        return "bool"
    return "number" if isinstance(value, (int, float)) else "str" if isinstance(value, str) else "array"


def _hashable_plain(value: Any) -> bool:
    return isinstance(value, (bool, int, float, str))


def _set_key(value: Any) -> tuple[str, Any]:
    return (type(value).__name__, value)


# ---------------------------------------------------------------- defects the converter is known for


def defect_tags(pid: str, prompt: str, test: str) -> tuple[str, ...]:
    """The converter defects the audit's lints find in a row (no Python original needed), as `defect:` tags."""
    from assay.audit.lints import LintItem, any_parameter, none_as_string, variable_length_tuple

    item = LintItem(pid, "swift", prompt, test)
    tags = []
    if any_parameter(item):
        tags.append("defect:anyhashable")
    if variable_length_tuple(item):
        tags.append("defect:tuple-as-array")
    if none_as_string(item):
        tags.append("defect:none-string")
    if pid in DOES_NOT_BUILD:
        tags.append("defect:does-not-build")
    return tuple(tags)


def defects_of(problem: Problem) -> list[str]:
    """A problem's `defect:` tags (what results and reports show until the audit records them)."""
    return [t for t in problem.tags if t.startswith("defect:")]
