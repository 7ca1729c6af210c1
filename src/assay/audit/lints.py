"""Translation lints: static checks for the defects the literature names in benchmarks translated from Python.

Each check reads one LintItem (a problem's prompt, test program, test calls and, when known, its Python
original) and returns Findings that name the problem, quote what was found and say how to fix it. Nothing
is run: these are cheap, explainable flags for a human audit, not verdicts.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assay.audit.lexer import _SYNTAX, _code, _lex  # noqa: F401 - the lexer's tables are shared with the checks
from assay.problems import Benchmark, CaseTests, ProgramTests


@dataclass(frozen=True)
class LintItem:
    """One problem as the lints see it."""

    id: str
    language: str
    prompt: str
    tests: str  # the test program text as the benchmark writes it
    python_reference: str = ""  # the Python original's prompt + canonical solution, when known
    calls: tuple[tuple[str, Any], ...] = ()  # (call text as written in the language, expected value) per test case
    param_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    """One flagged defect: `check` is a kebab-case name from CHECKS; evidence and fix are one line each."""

    problem: str
    check: str
    evidence: str
    fix: str


CHECKS: dict[str, str] = {
    "bankers-rounding": "the Python original calls round(), which rounds half to even; most languages round half away from zero",
    "reserved-word-parameter": "a parameter is named with a reserved word of the item's language",
    "variable-length-tuple": "a Python tuple changes shape: a fixed tuple is returned as an array, or Tuple[X, ...] as a fixed tuple",
    "any-parameter": "the translated signature uses an Any-like type (AnyHashable, std::any, Object, interface{}) where Python is precise",
    "none-as-string": "a test expects the string \"none\"/\"None\" where the Python original returns None",
    "collapsed-literals": "two test calls read the same in the language (3.0 and 3 are one value) but expect different results",
    "platform-api": "the task needs an API that Linux lacks (Swift: CryptoKit, CommonCrypto, AppKit/UIKit, MD5/SHA)",
    "python-word-leak": "the prompt names Python, or a rewording pass mangled it (\"swiftthon\", \"cppthon\")",
    "raw-newline-in-string": "a test string literal spans a raw newline in a language whose string literals cannot",
}


# The lexer (strings and comments per language) is in assay.audit.lexer.


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets: the pieces of a parameter list."""
    parts, depth = [""], 0
    for ch in text:
        depth += (ch in "([{<") - (ch in ")]}>")
        if ch == "," and depth == 0:
            parts.append("")
        else:
            parts[-1] += ch
    return [part.strip() for part in parts if part.strip()]


def _closing(code: str, start: int) -> int:
    """The index of the parenthesis that closes the one at `start` (len(code) if none)."""
    depth = 0
    for k in range(start, len(code)):
        depth += (code[k] == "(") - (code[k] == ")")
        if depth == 0:
            return k
    return len(code)


_UNDECLARED = frozenset({"haskell", "ocaml", "racket", "clojure", "bash", "perl"})  # no `name(params)` declaration line


def _declaration(item: LintItem) -> tuple[str, list[str], str] | None:
    """(declaration line, parameter pieces, return type) of the prompt's last code line with a parameter list."""
    lines = [line for line in _code(item.prompt, item.language).splitlines() if "(" in line and ")" in line]
    if not lines or item.language in _UNDECLARED:
        return None
    line = lines[-1].strip()
    start = line.index("(")
    end = _closing(line, start)
    params = _split_top(line[start + 1 : end])
    after = line[end + 1 :].strip().rstrip(" {=").removeprefix("->").removeprefix(":").strip()
    before = re.sub(r"\b(?:public|private|static|final|inline|export|function|func|fn|def)\b", "", line[:start]).split()
    returns = after or " ".join(before[:-1])
    return line, params, returns


def _param_name(piece: str, language: str) -> str:
    """The parameter's name in one piece of a declaration: `name: T` (Swift, Rust, TS), `name T` (Go), `T name` (C-likes)."""
    labelled = re.match(r"\s*(?:[\w$]+\s+)?([\w$]+)\s*:(?!:)", piece.replace("::", ":") if language == "julia" else piece)  # `label name: T`
    words = re.findall(r"[A-Za-z_$][\w$]*", piece.split("=")[0])
    name = labelled.group(1) if labelled else words[0] if language == "go" and words else words[-1] if words else ""
    return name.lstrip("$")


def _declared_names(item: LintItem) -> tuple[str, ...]:
    declared = _declaration(item)
    return tuple(n for n in (_param_name(piece, item.language) for piece in (declared[1] if declared else [])) if n)


# --- the Python original -------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _python_tree(source: str) -> ast.Module | None:
    """The Python original, parsed (None when unknown)."""
    try:
        return ast.parse(source) if source.strip() else None
    except SyntaxError:
        return None


def _python_def(item: LintItem) -> ast.FunctionDef | None:
    """The entry function of the Python original: its last top-level def."""
    tree = _python_tree(item.python_reference)
    defs = [node for node in tree.body if isinstance(node, ast.FunctionDef)] if tree else []
    return defs[-1] if defs else None


def _precise(annotation: ast.expr | None) -> bool:
    """A Python annotation that says what the value is (not missing, not Any/object)."""
    text = ast.unparse(annotation) if annotation is not None else "Any"
    return not re.search(r"\b(?:Any|object)\b|\b(?:[Ll]ist|[Dd]ict|[Tt]uple|[Ss]et)\b(?!\[)", text)


def _returns(func: ast.FunctionDef) -> list[ast.Return]:
    """The function's own return statements (not those of functions nested in it)."""
    found: list[ast.Return] = []
    todo: list[ast.AST] = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))
    return found


def _line_of(text: str, pos: int) -> str:
    return text[text.rfind("\n", 0, pos) + 1 : (text.find("\n", pos) + 1 or len(text) + 1) - 1].strip()


# --- the checks ----------------------------------------------------------------------------------------------------


def bankers_rounding(item: LintItem) -> list[Finding]:
    """Python's round() rounds ties to even (round(2.5) == 2), so expected outputs may differ from a port's round."""
    tree = _python_tree(item.python_reference)
    if item.language == "python" or tree is None:
        return []
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "round"]
    if not calls:
        return []
    return [Finding(item.id, "bankers-rounding", f"Python original: {ast.unparse(calls[0])}",
                    "check the tests at .5 ties; say 'round half to even' in the prompt, or drop tie inputs")]


_KEYWORDS: dict[str, str] = {  # reserved words that cannot name a parameter (contextual keywords left out)
    "swift": "associatedtype class deinit enum extension fileprivate func import init inout internal let open operator private precedencegroup protocol public rethrows static struct subscript typealias var break case catch continue default defer do else fallthrough for guard if in repeat return throw switch where while as false is nil self Self super throws true try await Any",
    "javascript": "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await",
    "java": "abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null _",
    "c": "auto break case char const continue default do double else enum extern float for goto if inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while _Bool bool true false",
    "cpp": "alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq",
    "csharp": "abstract as base bool break byte case catch char checked class const continue decimal default delegate do double else enum event explicit extern false finally fixed float for foreach goto if implicit in int interface internal is lock long namespace new null object operator out override params private protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while",
    "rust": "as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while async await dyn abstract become box do final macro override priv typeof unsized virtual yield try",
    "go": "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
    "kotlin": "as break class continue do else false for fun if in interface is null object package return super this throw true try typealias typeof val var when while",
    "scala": "abstract case catch class def do else extends false final finally for forSome if implicit import lazy match new null object override package private protected return sealed super this throw trait try true type val var while with yield given enum export then",
    "php": "this",  # parameters carry a `$`, so only $this is refused
    "ruby": "__FILE__ __LINE__ BEGIN END alias and begin break case class def defined? do else elsif end ensure false for if in module next nil not or redo rescue retry return self super then true undef unless until when while yield",
    "lua": "and break do else elseif end false for function goto if in local nil not or repeat return then true until while",
    "haskell": "case class data default deriving do else foreign if import in infix infixl infixr instance let module newtype of then type where",
    "ocaml": "and as assert asr begin class constraint do done downto else end exception external false for fun function functor if in include inherit initializer land lazy let lor lsl lsr lxor match method mod module mutable new nonrec object of open or private rec sig struct then to true try type val virtual when while with",
    "r": "if else repeat while function for next break TRUE FALSE NULL Inf NaN NA NA_integer_ NA_real_ NA_character_ in",
    "julia": "baremodule begin break catch const continue do else elseif end export false finally for function global if import let local macro module quote return struct true try using while",
    "d": "abstract alias align asm assert auto body bool break byte case cast catch cdouble cent cfloat char class const continue creal dchar debug default delegate delete deprecated do double else enum export extern false final finally float for foreach foreach_reverse function goto idouble if ifloat immutable import in inout int interface invariant ireal is lazy long macro mixin module new nothrow null out override package pragma private protected public pure real ref return scope shared short static struct super switch synchronized template this throw true try typeid typeof ubyte ucent uint ulong union unittest ushort version void wchar while with",
    "dart": "assert break case catch class const continue default do else enum extends false final finally for if in is new null rethrow return super switch this throw true try var void while with",
    "elixir": "true false nil when and or not in fn do end catch rescue after else",
    "perl": "",  # variables carry a sigil ($x, @xs): no keyword can collide
}
_KEYWORDS["typescript"] = _KEYWORDS["javascript"]
_KEYWORD_SETS = {lang: frozenset(words.split()) for lang, words in _KEYWORDS.items()}


def reserved_word_parameter(item: LintItem) -> list[Finding]:
    """A parameter named `operator` or `type` may not compile, or must be quoted, in the target language."""
    reserved = _KEYWORD_SETS.get(item.language, frozenset())
    declared = _declaration(item)
    names = set(_declared_names(item))
    code = _code(item.prompt, item.language)
    found = []
    for name in item.param_names:  # declared so in the prompt (C#'s `string str` is no `string` parameter), else in its code
        if name in reserved and (name in names if declared else re.search(rf"(?<!\w)\$?{re.escape(name)}(?!\w)", code)):
            fix = f"rename the parameter (e.g. `{name}` -> `{name}_`)"
            if item.language == "swift":
                fix += f"; Swift accepts it as a label, but the body must write it back-quoted, `{name}`"
            found.append(Finding(item.id, "reserved-word-parameter", f"parameter `{name}` is a {item.language} keyword", fix))
    return found


_ARRAY = re.compile(r"^\[[^:]*\]\??$|^(?:std::)?vector<|^Vec<|^(?:Array)?List[<\[]|^Array<|^Seq\[|\[\]$")
_FIXED_TUPLE = re.compile(r"^\(.*,.*\)\??$|^std::(?:tuple|pair)<|^(?:Pair|Triplet|Quartet|Tuple\d?)[<\[!]|^\[[^\[\]]*,[^\[\]]*\]$")
_TUPLE_DOCTEST = re.compile(r"^\(.*,.*\)$")


def _python_tuple(item: LintItem) -> str:
    """How the Python original returns: "fixed", "variable" (Tuple[X, ...]) or "" (not a tuple, or unknown)."""
    func = _python_def(item)
    if func is not None and func.returns is not None:
        text = ast.unparse(func.returns)
        if not re.match(r"(?:typing\.)?[Tt]uple\[", text):
            return ""
        return "variable" if text.rstrip("]").endswith("...") else "fixed"
    if func is not None:
        returns = [n.value for n in _returns(func) if n.value is not None]
        return "fixed" if returns and all(isinstance(v, ast.Tuple) for v in returns) else ""
    lines = [re.sub(r"^[\s*/#;-]*", "", line).strip() for line in item.prompt.splitlines()]
    shown = [lines[k + 1] for k, line in enumerate(lines[:-1]) if ">>>" in line and lines[k + 1]]  # doctest outputs
    return "fixed" if shown and all(_TUPLE_DOCTEST.match(s) for s in shown) else ""


def variable_length_tuple(item: LintItem) -> list[Finding]:
    """Python tuples carry their arity in the type. MBXP/HumanEval-XL turn fixed tuples into arrays (`-> [Int]` where the
    prompt shows `(0, 1)`); a Tuple[X, ...] turned into a fixed tuple would reject valid lengths. Go has no tuples: skipped."""
    declared = _declaration(item)
    if item.language in ("python", "go") or declared is None or not declared[2]:
        return []
    shape, returns = _python_tuple(item), declared[2]
    if shape == "fixed" and _ARRAY.search(returns) and not _FIXED_TUPLE.search(returns):  # TS's [number, number] is a tuple
        return [Finding(item.id, "variable-length-tuple", f"Python returns a fixed tuple; the translation returns an array: {declared[0]}",
                        "return the language's tuple type (Swift `(Int, Int)`), or say in the prompt that the array has a fixed length")]
    if shape == "variable" and _FIXED_TUPLE.search(returns):
        return [Finding(item.id, "variable-length-tuple", f"Python returns Tuple[X, ...] (any length); the translation fixes it: {declared[0]}",
                        "return an array/list of X")]
    return []


_ANY_TYPES: dict[str, str] = {
    "swift": r"\b(?:AnyHashable|AnyObject|Any)\b", "cpp": r"std::any\b", "java": r"\bObject\b", "csharp": r"\b(?:object|dynamic)\b",
    "go": r"interface\{\}|\bany\b", "typescript": r"\b(?:any|unknown)\b", "rust": r"\bdyn\s+Any\b", "scala": r"\bAny\b",
    "kotlin": r"\bAny\b", "dart": r"\b(?:dynamic|Object)\b", "d": r"\bVariant\b",
}


def any_parameter(item: LintItem) -> list[Finding]:
    """A loose type (`[AnyHashable]` for List[int]) hides the element type from the model and lets wrong values type-check.
    With the Python original, only flags where Python's own annotation is precise; without it, every Any-like type."""
    pattern = _ANY_TYPES.get(item.language)
    declared = _declaration(item)
    if pattern is None or declared is None:
        return []
    line, pieces, returns = declared
    func = _python_def(item)
    py_params = func.args.args if func is not None else []
    loose = []
    for k, piece in enumerate(pieces):
        typed = piece.split(":", 1)[1] if item.language == "swift" and ":" in piece else piece
        if re.search(pattern, typed) and (func is None or (len(py_params) == len(pieces) and _precise(py_params[k].annotation))):
            loose.append(piece)
    if re.search(pattern, returns) and (func is None or _precise(func.returns)):
        loose.append(f"returns {returns}")
    if not loose:
        return []
    return [Finding(item.id, "any-parameter", f"loose type(s) {'; '.join(loose)} in: {line}",
                    "use the precise element type of the Python original (List[int] -> [Int])")]


_NONE_STRING = re.compile(r"(?<!#)\"(?:none|None)\"(?!#)|'(?:none|None)'")


def none_as_string(item: LintItem) -> list[Finding]:
    """Python's None translated as the string "none": the prompt asks for an absent value and the tests want a word.
    MBXP's converter writes Python strings raw (#"x"#) and None as a plain "none", so there the literal is proof; else
    it needs the Python original returning None (or Optional), or a prompt that says None. Bash is skipped: all its values are text."""
    found = _NONE_STRING.search(item.tests)
    if item.language in ("python", "bash") or found is None:
        return []
    func = _python_def(item)
    if re.search(r"^var x\d+ : ", item.tests, re.M):  # MBXP's converter: "none" is its spelling of None
        pass
    elif func is not None:
        optional = func.returns is not None and re.search(r"\bOptional\b|\bNone\b", ast.unparse(func.returns))
        returns_none = any(r.value is None or any(isinstance(n, ast.Constant) and n.value is None for n in ast.walk(r.value))
                           for r in _returns(func))
        if not (optional or returns_none):
            return []
    elif not re.search(r"\bNone\b|(?i:\breturns?\s+none\b)", item.prompt):
        return []
    return [Finding(item.id, "none-as-string", f"test spells None as a string: {_line_of(item.tests, found.start())}",
                    "expect the language's absent value (Swift nil with a String? result), as the Python original returns None")]


# Languages where 3 and 3.0 are different values a program can tell apart (Python int/float, Ruby Integer/Float, Lua
# math.type, Julia Int64/Float64, ...): their calls are compared as written. Elsewhere a literal is converted to the
# parameter's declared type (Swift, C++, Java, Rust, Go, Haskell, ...) or all numbers are doubles (JS, TS, R, Perl).
_DISTINCT_NUMBERS = frozenset({"python", "ruby", "php", "lua", "julia", "elixir", "clojure", "racket", "bash"})
_STRING_LITERAL = re.compile(r"(\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')")
_NUMBER = r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"


def _number(found: re.Match[str]) -> str:
    value = float(found.group(0))
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def _normalise(call: str, language: str, loose: bool) -> str:
    """The call as the language's values see it: spaces gone; unless numbers stay distinct (or the parameters are
    Any-like), casts, literal suffixes and parentheses around a number dropped and 3.0 written 3. Strings are kept."""
    parts = _STRING_LITERAL.split(call)  # code, string, code, string, ...
    for k in range(0, len(parts), 2):
        piece = re.sub(r"\s+", "", parts[k])
        if language in _DISTINCT_NUMBERS or loose:
            parts[k] = piece
            continue
        piece = re.sub(r"\((?:float|double|long|int|short)\)(?=-?\d)", "", piece)
        piece = re.sub(rf"\b(?:float|double|long|int)\(({_NUMBER})\)", r"\1", piece)
        piece = re.sub(rf"(?<![\w.])({_NUMBER})(?:_?(?:f32|f64|[iu](?:8|16|32|64|128|size))|[fFdDlLuU]+)(?![\w.])", r"\1", piece)
        piece = re.sub(rf"(?<![\w.]){_NUMBER}(?![\w.])", _number, piece)
        while (stripped := re.sub(rf"(?<=[(,])\(({_NUMBER})\)", r"\1", piece)) != piece:
            piece = stripped
        parts[k] = piece
    return "".join(parts)


def _differ(a: Any, b: Any, language: str) -> bool:
    """Expected values that are not the same value (3 and 3.0 are; NaN is never "different"; in Bash 2 and "2" are)."""
    if language == "bash":
        return str(a) != str(b)
    try:
        return bool(a != b) and a == a and b == b
    except Exception:
        return repr(a) != repr(b)


def _program_calls(tests: str, language: str) -> tuple[tuple[str, str], ...]:
    """Without cases: each test line's `candidate(...)` call, with the rest of the line (which holds the expected value)."""
    out = []
    for line, code in zip(tests.splitlines(), _code(tests, language).splitlines(), strict=True):
        start = code.find("candidate(")
        end = _closing(code, start + len("candidate")) + 1 if start >= 0 else 0
        if 0 < end <= len(code):
            out.append((line[start:end].strip(), re.sub(r"\s+", "", line[:start] + "@" + line[end:])))
    return tuple(out)


def collapsed_literals(item: LintItem) -> list[Finding]:
    """If two calls are one call in the language but expect different results, no program passes both
    (HumanEval_92: any_int(3, 4, 7) is true, any_int(3.0, 4, 7) false; with Double parameters they are the same call).
    Python itself is not checked: its calls are the originals, and a repeated call there is a repeated test."""
    if item.language == "python":
        return []
    declared = _declaration(item)
    pattern = _ANY_TYPES.get(item.language)
    loose = bool(pattern and declared and re.search(pattern, declared[0]))
    seen: dict[str, tuple[str, Any]] = {}
    found = []
    for call, expected in item.calls or _program_calls(item.tests, item.language):
        key = _normalise(call, item.language, loose)
        if key in seen and _differ(seen[key][1], expected, item.language):
            first, before = seen[key]
            found.append(Finding(item.id, "collapsed-literals", f"{first} expects {before!r} but {call} expects {expected!r}",
                                 "drop one of the two tests, or give the parameter a type that keeps them apart"))
        seen.setdefault(key, (call, expected))
    return found


_APPLE_ONLY = re.compile(r"\bimport\s+(CryptoKit|CommonCrypto|Cocoa|AppKit|UIKit|Darwin)\b")
_HASH_TASK = re.compile(r"\b(md5|sha-?(?:1|224|256|384|512))\b", re.I)


def platform_api(item: LintItem) -> list[Finding]:
    """Swift on Linux has no CryptoKit, CommonCrypto, AppKit/UIKit or Darwin, and its Foundation has no MD5/SHA:
    a hash task cannot be solved with the toolchain alone there (short of hand-writing the digest)."""
    if item.language != "swift":
        return []
    imported = _APPLE_ONLY.search(item.prompt + "\n" + item.tests)
    if imported:
        return [Finding(item.id, "platform-api", f"imports {imported.group(1)}: {_line_of(imported.string, imported.start())}",
                        "drop the Apple-only import; use Foundation/Glibc, or mark the problem Apple-only")]
    task = _HASH_TASK.search(item.prompt)
    if task:
        return [Finding(item.id, "platform-api", f"task needs {task.group(1)}: {_line_of(item.prompt, task.start())}",
                        "Linux Swift has no MD5/SHA (CryptoKit is Apple-only): mark it Apple-only, or ship a digest helper")]
    return []


_ENGLISH_THON = frozenset({"marathon", "telethon", "walkathon"})


def python_word_leak(item: LintItem) -> list[Finding]:
    """A prompt in another language that says "python" (MBPP's "Write a python function"), or MultiPL-E's "reworded"
    pass that replaced "py" inside "python" ("any swiftthon values"): the model is told the wrong language."""
    if item.language == "python":
        return []
    found = []
    for word in re.finditer(r"\b\w*thon\b", item.prompt, re.I):
        lower, line = word.group(0).lower(), _line_of(item.prompt, word.start())
        prose = ">>>" not in line and not re.search(rf"[\"'][^\"']*\b{word.group(0)}\b[^\"']*[\"']", line)  # not example data
        named = lower.endswith("python")
        if (named and prose) or not (named or lower in _ENGLISH_THON):
            what = "names Python" if named else "mangled word"
            found.append(Finding(item.id, "python-word-leak", f"{what} {word.group(0)!r}: {line}",
                                 "reword the sentence for the target language (\"any values\", \"Write a function\")"))
    return found


# Languages whose ordinary "..." (and, where listed, '...') literals end at the line: a raw newline is a syntax error.
# Ruby, Perl, Rust, PHP, R, Julia, Elixir, D, OCaml, Bash and the Lisps accept one, so they are not checked.
RAW_NEWLINE_REJECTED = frozenset({"javascript", "typescript", "java", "csharp", "c", "cpp", "go", "swift", "kotlin", "scala", "dart",
                                  "haskell", "lua", "python"})


def raw_newline_in_string(item: LintItem) -> list[Finding]:
    """A test string with a raw newline in a language that rejects it: the test program does not parse, so nothing passes
    (MultiPL-E's JS and Haskell HumanEval_51, whose translators did not escape the Python "\\n")."""
    if item.language not in RAW_NEWLINE_REJECTED:
        return []
    for kind, start, end, bad in _lex(item.tests, item.language):
        if kind == "string" and bad:
            literal = item.tests[start:end]
            return [Finding(item.id, "raw-newline-in-string", f"line {item.tests.count(chr(10), 0, start) + 1}: {literal.splitlines()[0]}⏎...",
                            "write the newline as an escape (\\n) in the translated test")]
    return []


_CHECK_FUNCTIONS: dict[str, Callable[[LintItem], list[Finding]]] = {
    "bankers-rounding": bankers_rounding, "reserved-word-parameter": reserved_word_parameter, "variable-length-tuple": variable_length_tuple,
    "any-parameter": any_parameter, "none-as-string": none_as_string, "collapsed-literals": collapsed_literals,
    "platform-api": platform_api, "python-word-leak": python_word_leak, "raw-newline-in-string": raw_newline_in_string,
}


def lint(items: Iterable[LintItem]) -> list[Finding]:
    """Every check on every item, in item order then CHECKS order."""
    return [finding for item in items for check in _CHECK_FUNCTIONS.values() for finding in check(item)]


# --- building items ------------------------------------------------------------------------------------------------


def _python_for(pid: str, python: Benchmark | None) -> str:
    """The Python original's prompt + canonical solution: the same id, else HumanEval_103_x -> HumanEval/103, mbpp_3_x -> Mbpp/3."""
    number = re.match(r"(HumanEval|mbpp|MB)\w*?[_/](\d+)", pid)
    problem = None if python is None else python.problems.get(pid) or (
        python.problems.get(f"{'HumanEval' if number.group(1) == 'HumanEval' else 'Mbpp'}/{number.group(2)}") if number else None)
    return problem.prompt + problem.reference if problem is not None else ""


def items_from_benchmark(bench: Benchmark, python: Benchmark | None = None) -> list[LintItem]:
    """One LintItem per problem of an Assay benchmark; `python` (e.g. load_benchmark("humaneval")) gives the originals."""
    items = []
    for problem in bench.problems.values():
        tests = problem.tests
        calls: tuple[tuple[str, Any], ...] = ()
        names: tuple[str, ...] = ()
        if isinstance(tests, CaseTests):
            calls = tuple((case.call, case.expected) for case in tests.cases if case.call is not None)
            names = tuple(name for name, _ in tests.signature.params) if tests.signature else ()
            program = tests.program.code if isinstance(tests.program, ProgramTests) else ""
        else:
            program = tests.code
        item = LintItem(problem.id, problem.language, problem.prompt, program, _python_for(problem.id, python), calls, names)
        items.append(item if names else replace(item, param_names=_declared_names(item)))
    return items


_MX_VAR = re.compile(r"^var\s+(\w+)\s*:\s*[^=]+?=\s*(.*)$")


def _swift_value(text: str) -> Any:
    """An mxeval expected value as a Python value when it is a plain literal (#"x"# strings, true/false/nil), else the text."""
    literal = re.sub(r'#"(.*?)"#', lambda m: repr(m.group(1)), text)
    literal = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnil\b", "None", literal)))
    try:
        return ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def _mxeval_calls(test: str) -> tuple[tuple[str, Any], ...]:
    """MBXP's `var argNM : T = ...; var xN : T = f(...); var vN : T = ...` blocks as (call with the arguments in place, expected value)."""
    values: dict[str, str] = {}
    calls: dict[str, str] = {}
    out = []
    for line in test.splitlines():
        found = _MX_VAR.match(line.strip())
        if not found:
            continue
        name, value = found.groups()
        if name.startswith("arg"):
            values[name] = value
        elif name.startswith("x"):
            calls[name[1:]] = re.sub(r"\barg\d+\b", lambda m: values.get(m.group(0), m.group(0)), value)
        elif name.startswith("v") and name[1:] in calls:
            out.append((calls[name[1:]], _swift_value(value)))
    return tuple(out)


def read_mxeval(path: Path, python: Benchmark | None = None) -> list[LintItem]:
    """Rows of an mxeval / HumanEval-XL JSONL file (task_id, language, prompt, test, entry_point, canonical_solution) as
    LintItems. `python` gives originals: HumanEval for HumanEval_swift/N (by number) and HumanEval-XL (by entry point),
    MBPP+ for MBSWP/N (Mbpp/N)."""
    by_entry = {re.sub(r"_", "", p.entry_point).lower(): p for p in python.problems.values()} if python else {}
    items = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        language = {"js": "javascript", "ts": "typescript", "cs": "csharp"}.get(row["language"], row["language"])
        # HumanEval_swift/12 -> HumanEval/12, MBSWP/3 -> Mbpp/3 (MBXP keeps MBPP's numbers); HumanEval-XL renumbers: by entry point
        original = by_entry.get(row["entry_point"].lower()) if row["task_id"].startswith(row["language"] + "/") else None
        reference = original.prompt + original.reference if original else _python_for(row["task_id"], python)
        item = LintItem(row["task_id"], language, row["prompt"], row["test"], reference, _mxeval_calls(row["test"]))
        items.append(replace(item, param_names=_declared_names(item)))
    return items
