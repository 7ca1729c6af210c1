"""MultiPL-E: HumanEval and MBPP translated into ~20 languages (program = prompt + completion + tests).

Loads `humaneval-<lang>.jsonl` / `mbpp-<lang>.jsonl` from a data directory laid out like
shared/data (multipl-e/), a local file, or the Hugging Face dataset nuprl/MultiPL-E at a pinned
revision (needs the `datasets` extra and the network once; then its own cache).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from assay import values
from assay.benchmarks._fetch import DataUnavailable, sha256_file
from assay.languages import UnknownLanguage, get_language
from assay.problems import Benchmark, Case, CaseTests, Problem, ProgramTests, Runner
from assay.values import Signature, UnsupportedType, signature_of

HF_DATASET = "nuprl/MultiPL-E"
HF_REVISION = "28441b6024e71d4a1c1c0f6bf171c935cd5a43f2"  # MultiPL-E 3.1, as bigcode-evaluation-harness pins it

# MultiPL-E's languages that Assay loads but has no plugin for (their samples cannot run here).
_WITHOUT_PLUGIN = {"dart": "dart", "jl": "julia"}


def languages() -> dict[str, str]:
    """MultiPL-E's short names -> Assay's language names: each plugin's `multipl_e`, and the two without one."""
    from assay.languages import plugins

    found = {plugin.multipl_e: name for name, plugin in plugins().items() if plugin.multipl_e}
    return dict(sorted({**found, **_WITHOUT_PLUGIN}.items()))


SOURCES = ("humaneval", "mbpp")


def benchmark_names() -> list[str]:
    """multipl-e/humaneval-swift, multipl-e/mbpp-rs, ..."""
    return [f"multipl-e/{src}-{lang}" for src in SOURCES for lang in languages()]


# How MultiPL-E's test sections name the entry point, language by language: `candidate = f` (JS, C++,
# Rust, Lua, R, Go, D, Haskell, OCaml), `\&f` (Perl), method(:f) (Ruby), (define candidate f) and
# (let ((candidate f)) (Racket), (def candidate f) (Clojure), f(...$args) (PHP), f "$@" (Bash), check(f) (Python).
_TEST_BINDINGS = [
    re.compile(r"\bcandidate\s*(?:=|:=|<-)\s*\\?&?([A-Za-z_][\w']*)(?![\w'(])"),
    re.compile(r"method\(:(\w+)\)"),
    re.compile(r"\(define\s+candidate\s+([^\s()]+)\)"),
    re.compile(r"\(\(\s*candidate\s+([^\s()]+)\)\)"),
    re.compile(r"\(def\s+candidate\s+([^\s()]+)\)"),
    re.compile(r"return\s+(\w+)\(\.\.\.\$args\)"),
    re.compile(r"candidate\(\)\s*\{\s*([\w-]+)\s+\"\$@\""),
    re.compile(r"^\s*check\((\w+)\)", re.M),
]
_COMMENT = ("//", "#", "--", ";", "%", "*", "/*", "(*", ">>>", '"', "'", "|")
_DEFINITION = re.compile(r"\b(?:def|func|function|fn|sub|defn|define|let|fun|static|public|private|proc|auto|void|int|long|bool|string|float|double)\b|^\s*[A-Za-z_]\w*\s*::")


def entry_point_of(name: str, prompt: str, tests: str | None = None) -> str:
    """The function's name as the problem spells it: HumanEval_0_has_close_elements -> has_close_elements,
    hasCloseElements, HasCloseElements; `string_length` where C++ renames strlen. The test section's own
    binding of `candidate` says it best; else the name on the prompt's definition line."""
    for pattern in _TEST_BINDINGS if tests else ():
        found = pattern.search(tests or "")
        if found and found.group(1) != "candidate":
            return found.group(1)
    parts = name.split("_", 2)
    snake = parts[2] if len(parts) == 3 else name
    squashed = snake.replace("_", "").lower()
    hits: list[tuple[bool, bool, str]] = []  # (on a definition line, on a code line, token)
    for line in prompt.splitlines():
        code = not line.strip().startswith(_COMMENT)
        for token in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", line):
            if token.replace("_", "").lower() == squashed:
                hits.append((code and bool(_DEFINITION.search(line)), code, token))
    for rank in (0, 1):
        chosen = [token for flags in hits if flags[rank] for token in (flags[2],)]
        if chosen:
            return chosen[0] if rank == 0 else chosen[-1]
    return hits[-1][2] if hits else snake


def load_multipl_e(source: str, lang: str, *, path: Path | None = None, data_dir: Path | None = None, cache_dir: Path | None = None) -> Benchmark:
    """One MultiPL-E benchmark (source humaneval or mbpp, lang a MultiPL-E short name)."""
    name = f"multipl-e/{source}-{lang}"
    file = path
    if file is None and data_dir is not None:
        candidate = Path(data_dir) / "multipl-e" / f"{source}-{lang}.jsonl"
        if candidate.exists():
            file = candidate
    if file is not None:
        rows = [json.loads(line) for line in Path(file).read_text().splitlines() if line.strip()]
        digest, origin, version = sha256_file(Path(file)), str(file), "local"
    else:
        rows, origin = _from_hub(source, lang, cache_dir)
        digest = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
        version = f"{HF_DATASET}@{HF_REVISION}"
    originals = _python_originals(source, lang, rows, file, data_dir, cache_dir)
    problems: dict[str, Problem] = {}
    for row in rows:
        problems[row["name"]] = _problem(row, lang, originals.get(row["name"]))
    if originals:  # the Python originals decide the cases: they are part of what the verdicts come from
        digest = hashlib.sha256((digest + originals_digest(originals)).encode()).hexdigest()
    return Benchmark(name=name, version=version, content_hash=digest, source=origin, problems=problems)


def _problem(row: dict[str, Any], lang: str, original: dict[str, Any] | None) -> Problem:
    language = languages().get(lang, lang)
    entry_point = entry_point_of(row["name"], row["prompt"], row.get("tests"))
    program = ProgramTests(code=row["tests"], runner=Runner.SCRIPT)
    tests: ProgramTests | CaseTests = program
    try:
        tests = multipl_e_cases(row, language, entry_point, original)
    except NotCases as why:
        tests = dataclasses.replace(program, why=str(why))
    return Problem(
        id=row["name"],
        language=language,
        prompt=row["prompt"],
        entry_point=entry_point,
        reference="",  # MultiPL-E has no reference solutions outside Python
        tests=tests,
        tags=(f"source:{row.get('original', '').split('/')[0] or 'multipl-e'}",),
        stops=tuple(row.get("stop_tokens") or ()),
        extra={"doctests": row.get("doctests"), "original": row.get("original")},
    )


class NotCases(ValueError):
    """Why a MultiPL-E problem's tests are judged as a program ("program-judged") rather than as cases."""


def python_cases(original: dict[str, Any]) -> tuple[Signature, list[tuple[tuple[Any, ...], Any]]]:
    """The Python original's signature and its `assert candidate(args) == expected` lines as (args, expected)."""
    name = entry_point_of(original["name"], original["prompt"], original.get("tests"))
    try:
        signature = signature_of(original["prompt"], name)
    except (UnsupportedType, SyntaxError) as exc:
        raise NotCases(f"the Python signature is outside the value model ({exc})") from None
    tree = ast.parse(original["tests"])
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    if check is None:
        raise NotCases("the Python original has no check()")
    cases = []
    for node in check.body:
        test = node.test if isinstance(node, ast.Assert) else None
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name) and test.left.func.id == "candidate"):
            raise NotCases(f"a Python test is not `assert candidate(...) == ...`: {ast.unparse(node)[:120]}")
        try:
            args = tuple(ast.literal_eval(a) for a in test.left.args)
            expected = ast.literal_eval(test.comparators[0])
        except (ValueError, SyntaxError) as exc:
            raise NotCases(f"a Python test's values are not literals ({exc})") from None
        cases.append((args, expected))
    return signature, cases


def multipl_e_cases(row: dict[str, Any], language: str, entry_point: str, original: dict[str, Any] | None) -> CaseTests:
    """A MultiPL-E problem's tests as cases: the Python original's values, each matched to its translated call."""
    if original is None:
        raise NotCases("no Python original to read the cases from")
    signature, py_cases = python_cases(original)
    try:
        plugin = get_language(language)
    except UnknownLanguage as exc:
        raise NotCases(str(exc)) from None
    if not plugin.has_case_harness and language != "python":
        raise NotCases(f"the {plugin.display} plugin has no case harness")
    calls = [(f"candidate({', '.join(repr(a) for a in args)})", "") for args, _ in py_cases] if language == "python" else plugin.test_calls(row["tests"])
    if calls is None:
        raise NotCases(f"the {plugin.display} tests could not be split into calls")
    if len(calls) != len(py_cases):
        raise NotCases(f"{len(calls)} translated tests for {len(py_cases)} Python ones")
    try:
        for _args, expected in py_cases:
            values.coerce(expected, signature.returns)
    except UnsupportedType as exc:
        raise NotCases(f"an expected value does not fit the declared result type ({exc})") from None
    cases = tuple(Case(args, "base", expected, call, hint) for (args, expected), (call, hint) in zip(py_cases, calls, strict=True))
    return CaseTests(cases=cases, signature=dataclasses.replace(signature, name=entry_point), rule="exact",
                     program=ProgramTests(code=row["tests"], runner=Runner.SCRIPT))


def _python_originals(source: str, lang: str, rows: list[dict[str, Any]], file: Path | None, data_dir: Path | None,
                      cache_dir: Path | None) -> dict[str, dict[str, Any]]:
    """MultiPL-E's Python rows (typed prompt and asserts) by problem name: next to the file, or the Hub's."""
    if lang == "py":
        return {r["name"]: r for r in rows}
    candidates = [Path(file).with_name(f"{source}-py.jsonl")] if file is not None else []
    if data_dir is not None:
        candidates.append(Path(data_dir) / "multipl-e" / f"{source}-py.jsonl")
    for path in candidates:
        if path.exists():
            return {r["name"]: r for r in (json.loads(line) for line in path.read_text().splitlines() if line.strip())}
    if file is not None:
        return {}  # a local file without its Python originals: judged as programs
    py_rows, _ = _from_hub(source, "py", cache_dir)
    return {r["name"]: r for r in py_rows}


def originals_digest(originals: dict[str, dict[str, Any]]) -> str:
    """sha256 of the Python originals' prompts and tests."""
    h = hashlib.sha256()
    for name in sorted(originals):
        h.update(json.dumps([name, originals[name]["prompt"], originals[name]["tests"]]).encode())
    return h.hexdigest()


def _from_hub(source: str, lang: str, cache_dir: Path | None) -> tuple[list[dict[str, Any]], str]:
    try:
        import datasets  # type: ignore[import-not-found]
    except ImportError:
        raise DataUnavailable(
            f"multipl-e/{source}-{lang}: no local file; pass --data-dir (a folder with multipl-e/{source}-{lang}.jsonl), "
            f"--dataset-file, or pip install datasets to fetch {HF_DATASET} from the Hugging Face Hub"
        ) from None
    try:
        ds = datasets.load_dataset(HF_DATASET, f"{source}-{lang}", revision=HF_REVISION, split="test",
                                   cache_dir=str(cache_dir / "hf") if cache_dir else None)
    except Exception as exc:
        raise DataUnavailable(f"multipl-e/{source}-{lang}: could not load {HF_DATASET} from the Hub ({type(exc).__name__}: {exc})") from None
    return [dict(r) for r in ds], f"hf://{HF_DATASET}@{HF_REVISION}/{source}-{lang}"
