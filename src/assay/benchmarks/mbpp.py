"""Google's original MBPP: the full 974 problems (`mbpp.jsonl`) and the hand-verified 427 (`sanitized-mbpp.json`).

Tests are MBPP's own `assert` lines (`test_list`, plus `challenge_test_list` for `mbpp-challenge`), with
`test_setup_code` (the full set) or `test_imports` (the sanitized set) in front. They are judged as
HumanEval's `check(candidate)` is: the asserts run in the sandbox against a recording candidate, then
again on the trusted side against the recording, with the reference's names (its imports and classes,
MBPP's `Node` trees) in place of the sample's. So a forged `==`, a patched `assert` or an early exit in
the sample decides nothing. In the sandbox the asserts see the sample's own names, as upstream's
`exec(code + tests)` does.

The entry point is the function the asserts call that the reference defines. Where the asserts call
more than one of the reference's functions, the others are the reference's in the trusted replay: the
problem is tagged `calls-helpers` and its extra names them.

Prompts, two styles:
- `evalplus` (default): EvalPlus's MBPP prompt, a docstring with the task and its first assert
  (three double quotes, the text, the first assert, three double quotes); a completion continues it with the whole function.
- `paper`: the original paper's 3-shot prompt (tasks 2, 3 and 4 as shots): `You are an expert Python
  programmer, and here is your task: <text> Your code should pass these tests:` then the 3 asserts and `[BEGIN]`,
  stop `[DONE]`; the reply is a whole program.

Splits (the upstream README): 1-10 few-shot prompts, 11-510 test, 511-600 validation, 601-974 train.
Each problem is tagged `split:<name>`; `split="test"` keeps only the test split (the 500, or the
sanitized set's 257, that papers report).
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import resolve_data_file, sha256_file
from assay.problems import Benchmark, Problem, ProgramTests

SUBDIR = "mbpp"
URL = "https://raw.githubusercontent.com/google-research/google-research/master/mbpp/{filename}"
# The files as shared/data/mbpp has them (google-research's mbpp/, vendored unchanged at patdfb/TPC-EES 0f4e84d).
SHA256 = {
    "mbpp.jsonl": "ccf64ceae9c5403bf50a044cb6d505bfd2a2963ee58338ba268fd65beab92a9f",
    "sanitized-mbpp.json": "ca95deaa9a01ef0a6f439f88bcf0dd3db3563d22f22aad6cae04ebb9a8d8c8e9",
}
VERSION = "google-research-mbpp"
STYLES = ("evalplus", "paper")
SPLITS = {"prompt": (1, 10), "test": (11, 510), "validation": (511, 600), "train": (601, 974)}
SHOTS = (2, 3, 4)
PAPER_STOPS = ("[DONE]",)
_URL = re.compile(r"https?://\S+")


class MbppFormatError(ValueError):
    """An MBPP data file that is not in either upstream schema (one line)."""


def split_of(task_id: int) -> str:
    """The upstream split a task id belongs to."""
    return next((name for name, (lo, hi) in SPLITS.items() if lo <= task_id <= hi), "other")


def load_mbpp(
    sanitized: bool = False,
    style: str = "evalplus",
    split: str | None = None,
    challenge: bool = False,
    data_dir: Path | None = None,
    cache_dir: Path | None = None,
    path: Path | None = None,
) -> Benchmark:
    """Load MBPP (or its sanitized set) from a local file, the data dir, the cache or google-research."""
    if style not in STYLES:
        raise ValueError(f"MBPP has no prompt style {style!r}; choose one of {', '.join(STYLES)}")
    if split is not None and split not in SPLITS:
        raise ValueError(f"MBPP has no split {split!r}; choose one of {', '.join(SPLITS)}")
    filename = "sanitized-mbpp.json" if sanitized else "mbpp.jsonl"
    if path is not None:
        source = Path(path)
    else:
        source = resolve_data_file(filename, subdir=SUBDIR, url=URL.format(filename=filename), data_dir=data_dir,
                                   cache_dir=cache_dir, expected_sha256=SHA256[filename])
    rows = _read_rows(source)
    by_id = {int(row["task_id"]): row for row in rows}
    shots = [by_id[i] for i in SHOTS if i in by_id] if style == "paper" else []
    problems: dict[str, Problem] = {}
    for row in rows:
        task_id = int(row["task_id"])
        if split is not None and split_of(task_id) != split:
            continue
        problem = _problem(row, sanitized, style, challenge, shots)
        problems[problem.id] = problem
    name = "mbpp" + ("-sanitized" if sanitized else "") + (f"-{split}" if split else "") + ("-challenge" if challenge else "")
    name += "-paper" if style == "paper" else ""
    version = VERSION if path is None else "local"
    return Benchmark(name=name, version=version, content_hash=sha256_file(source), source=str(source), problems=problems)


def _read_rows(source: Path) -> list[dict[str, Any]]:
    text = source.read_text(encoding="utf-8")
    try:
        rows = json.loads(text) if text.lstrip().startswith("[") else [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise MbppFormatError(f"{source}: not MBPP's JSON/JSONL ({exc.msg} at line {exc.lineno})") from None
    for n, row in enumerate(rows, 1):
        missing = {"task_id", "code", "test_list"} - set(row) if isinstance(row, dict) else {"an object"}
        if missing or not ({"text", "prompt"} & set(row)):
            raise MbppFormatError(f"{source}: row {n} is not an MBPP row (missing {', '.join(sorted(missing)) or 'text/prompt'})")
    return rows


def _text(row: dict[str, Any], links: bool = False) -> str:
    """The task text; without `links`, its source links left out as EvalPlus's prompts leave them (378 of 378
    MBPP+ prompts equal)."""
    text = str(row.get("prompt") or row.get("text") or "").strip()
    return text if links else _URL.sub("", text)


def _code(row: dict[str, Any]) -> str:
    return str(row["code"]).replace("\r\n", "\n").replace("\r", "\n").rstrip() + "\n"


def _setup(row: dict[str, Any]) -> str:
    """What runs before the asserts: the sanitized set's test_imports, or the full set's test_setup_code."""
    lines = [str(line) for line in row.get("test_imports") or []]
    setup = str(row.get("test_setup_code") or "").replace("\r\n", "\n").replace("\r", "\n").strip()
    if setup:
        lines.append(setup)
    return "\n".join(lines)


def called_names(asserts: list[str]) -> list[str]:
    """Names called in the asserts, in order of first appearance."""
    seen: dict[str, None] = {}
    for line in asserts:
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                seen.setdefault(node.func.id, None)
    return list(seen)


def _defined(code: str) -> list[str]:
    with warnings.catch_warnings():  # MBPP's regexes in plain strings ("\\d"): a warning each, nothing wrong
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = ast.parse(code)
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return names


class _CallsTo(ast.NodeTransformer):
    def __init__(self, name: str) -> None:
        self.name = name

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == self.name:
            node.func = ast.Name("candidate", ast.Load())
        return node


def _unshadowed(line: str, entry_point: str) -> str:
    """An assert whose function is named `check` (Mbpp/349, 899, 967; Mbpp/56 calls an undefined `check`)
    or `candidate` would call the test program's own names: its calls to that name go to `candidate`."""
    if entry_point not in ("check", "candidate"):
        return line.strip()
    return ast.unparse(_CallsTo(entry_point).visit(ast.parse(line.strip())))


def test_program(setup: str, asserts: list[str], entry_point: str = "") -> str:
    """MBPP's asserts as a `check(candidate)` program (the setup at module level, as upstream's exec sees it)."""
    body = "\n".join("    " + _unshadowed(line, entry_point) for line in asserts) or "    pass"
    return (setup + "\n\n" if setup else "") + f"def check(candidate):\n{body}\n"


def _paper_block(row: dict[str, Any], with_code: bool) -> str:
    tests = "\n".join(str(t).strip() for t in row["test_list"])
    head = f"You are an expert Python programmer, and here is your task: {_text(row, links=True)} Your code should pass these tests:\n\n{tests}\n[BEGIN]\n"
    return head + (_code(row).rstrip() + "\n[DONE]\n" if with_code else "")


def _problem(row: dict[str, Any], sanitized: bool, style: str, challenge: bool, shots: list[dict[str, Any]]) -> Problem:
    task_id = int(row["task_id"])
    code = _code(row)
    asserts = [str(t) for t in row["test_list"]]
    challenge_asserts = [str(t) for t in row.get("challenge_test_list") or []]
    if challenge:
        asserts += challenge_asserts
    defined = _defined(code)
    called = [n for n in called_names(asserts) if n in defined]
    entry = called[0] if called else (defined[-1] if defined else "")
    tags = [f"split:{split_of(task_id)}"]
    extra: dict[str, Any] = {"text": _text(row), "test_list": asserts, "challenge_test_list": challenge_asserts}
    if len(called) > 1:
        tags.append("calls-helpers")
        extra["helpers_called"] = called[1:]
    if style == "paper":
        prompt = "".join(_paper_block(s, True) + "\n" for s in shots if int(s["task_id"]) != task_id) + _paper_block(row, False)
    else:
        prompt = f'"""\n{_text(row)}\n{asserts[0].strip()}\n"""\n'
    return Problem(
        id=f"Mbpp/{task_id}",
        language="python",
        prompt=prompt,
        entry_point=entry,
        reference=code,
        tests=ProgramTests(code=test_program(_setup(row), asserts, entry), sees_sample=True),
        tags=tuple(tags),
        stops=PAPER_STOPS if style == "paper" else (),
        reference_is_program=style == "paper",
        prompt_is_instruction=style == "paper",
        extra=extra,
    )
