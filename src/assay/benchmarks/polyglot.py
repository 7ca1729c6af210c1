"""Aider's polyglot benchmark: 225 Exercism exercises in C++, Go, Java, JavaScript, Python and Rust.

An *editing* benchmark (Aider-AI/polyglot-benchmark at 7e0611e, as aider's `benchmark/benchmark.py`
runs it): the model gets the exercise's instructions (`.docs/introduction.md`, `instructions.md`,
`instructions.append.md`, then aider's addendum naming the files) and the stub files
(`.meta/config.json` `files.solution`), and replies with edited files in an edit format: "whole" (each
file's path, then its full new content in a fence) or "diff" (aider's SEARCH/REPLACE blocks). The reply
is parsed on the trusted side (assay.judging.polyglot); only the solution files are written, the tests
and every other file of the exercise come from the pristine tree, and the exercise's own tests run in
the sandbox with upstream's 180 s timeout.

Problem ids are `<exercise>` (e.g. `bowling`); the prompt is the instructions, the addendum and the
stubs; the reference is the exercise's example solution (`files.example`) written over the stubs, in
the whole format. The exercise's files travel in the problem's tests (ProgramTests.code, JSON), so the
verdict key covers them.

Data: `--data-dir` (`polyglot/<lang>/exercises/practice/...`, with the data's SHA256SUMS), or a local
checkout of the repository (`--dataset-file PATH`: the repository root, or one language's folder).
There is no download: a checkout (git clone of Aider-AI/polyglot-benchmark) plus this loader is enough.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.benchmarks._fetch import DataUnavailable
from assay.models.base import Prompt
from assay.problems import Benchmark, Problem, ProgramTests, Runner

if TYPE_CHECKING:
    from assay.models.base import GenerateConfig, ModelAPI
    from assay.sandbox.base import Sandbox

SUBDIR = "polyglot"
COMMIT = "7e0611e77b54e2dea774cdc0aa00cf9f7ed6144f"
VERSION = f"Aider-AI/polyglot-benchmark@{COMMIT[:7]}"
LANGUAGES = ("cpp", "go", "java", "javascript", "python", "rust")
EDIT_FORMATS = ("whole", "diff")
TEST_TIMEOUT_S = 180.0  # upstream's run_unit_tests: subprocess.run(..., timeout=60 * 3)
# aider's benchmark/prompts.py
ADDENDUM = """
####

Use the above instructions to modify the supplied files: {file_list}
Don't change the names of existing functions or classes, as they may be referenced from other code like unit tests, etc.
Only use standard libraries, don't suggest installing any packages.
"""
TEST_FAILURES = """
####

See the testing errors above.
The tests are correct, don't try and change them.
Fix the code in {file_list} to resolve the errors.
"""
SYSTEM = {
    "whole": (
        "Act as an expert software developer. Take requests for changes to the supplied code.\n"
        "Return every file you change in full: its path alone on a line, then a fenced code block with the file's "
        "entire new content (no elisions such as '... rest of code ...'). Only change the files you were given.\n\n"
        "Example:\n\nsrc/hello.py\n```python\ndef hello():\n    return 'hi'\n```\n"
    ),
    "diff": (
        "Act as an expert software developer. Take requests for changes to the supplied code.\n"
        "Describe each change with a SEARCH/REPLACE block: the file's path alone on a line, the opening fence, "
        "`<<<<<<< SEARCH`, a contiguous chunk of lines that exists in the file exactly (every character), `=======`, "
        "the lines to replace it with, `>>>>>>> REPLACE`, the closing fence. Keep each SEARCH short but unique; "
        "only the first match is replaced. Only change the files you were given.\n\n"
        "Example:\n\nsrc/hello.py\n```python\n<<<<<<< SEARCH\n    return 'hi'\n=======\n    return 'hello'\n>>>>>>> REPLACE\n```\n"
    ),
}
# Per "<lang>/<exercise>": what this machine lacks to run it (measured: docs in README.md).
NEEDS: dict[str, tuple[str, ...]] = {
    "go/dnd-character": ("needs:go-1.21",),  # the reference uses the `slices` package (Go 1.21); Debian 12 has Go 1.19
    "java/hangman": ("needs:rxjava",),  # io.reactivex: not in Debian
    "java/rest-api": ("needs:org.json",),  # json.org's; Debian has only Android's rewrite (a checked JSONException)
    "java/mazy-mice": ("needs:assertj-3.25",),  # the tests' hasDimensions (2D arrays) is newer than Debian's AssertJ 3.14
    "go/counter": ("defect:no-tests",),  # deprecated: its test file is empty ("Define your tests here"); upstream passes any code
    "rust/gigasecond": ("needs:crate-time",),
    "rust/grep": ("needs:crate-anyhow",),
    "rust/simple-cipher": ("needs:crate-rand",),
    "rust/alphametics": ("needs:crate-itertools",),
    "rust/decimal": ("needs:crate-num-bigint",),
    "rust/pig-latin": ("needs:crate-regex",),
    "rust/poker": ("needs:crate-counter",),
    "rust/robot-name": ("needs:crate-rand",),
}
_SKIP_DIRS = (".meta", ".docs", ".approaches", ".articles")
_FENCE = {"cpp": "cpp", "go": "go", "java": "java", "javascript": "javascript", "python": "python", "rust": "rust"}


def benchmark_names() -> list[str]:
    """polyglot/cpp, polyglot/go, ..."""
    return [f"polyglot/{lang}" for lang in LANGUAGES]


def load_polyglot(lang: str, edit_format: str = "whole", data_dir: Path | None = None, cache_dir: Path | None = None,
                  path: Path | None = None) -> Benchmark:
    """One language of the polyglot benchmark from a checkout (`path`) or the data dir's `polyglot/`."""
    if lang not in LANGUAGES:
        raise ValueError(f"the polyglot benchmark has no language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    if edit_format not in EDIT_FORMATS:
        raise ValueError(f"unknown edit format {edit_format!r}; choose one of {', '.join(EDIT_FORMATS)}")
    root = _root(lang, data_dir, path)
    practice = root / lang / "exercises" / "practice"
    problems: dict[str, Problem] = {}
    for exercise in sorted(p for p in practice.iterdir() if p.is_dir()):
        problem = exercise_problem(exercise, lang, edit_format)
        problems[problem.id] = problem
    sums = root / "SHA256SUMS"
    content_hash = hashlib.sha256(sums.read_bytes()).hexdigest() if sums.is_file() else tree_hash(practice)
    version = VERSION if sums.is_file() else "local"
    return Benchmark(name=f"polyglot/{lang}", version=version, content_hash=content_hash, source=str(practice), problems=problems)


def _root(lang: str, data_dir: Path | None, path: Path | None) -> Path:
    candidates: list[Path] = []
    if path is not None:
        path = Path(path)
        candidates += [path, path.parent] if path.name == lang else [path]
    else:
        base = data_dir or (Path(os.environ["ASSAY_DATA_DIR"]) if os.environ.get("ASSAY_DATA_DIR") else None)
        if base is not None:
            candidates.append(Path(base) / SUBDIR)
    for root in candidates:
        if (root / lang / "exercises" / "practice").is_dir():
            return root
    where = ", ".join(str(c) for c in candidates) or "no --data-dir given"
    raise DataUnavailable(f"polyglot/{lang}: no {lang}/exercises/practice under {where}; pass --data-dir (with polyglot/) "
                          "or --dataset-file PATH to a checkout of Aider-AI/polyglot-benchmark")


def tree_hash(folder: Path) -> str:
    """sha256 over every file's relative path and bytes, in sorted order."""
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(folder)).encode() + b"\0" + hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def instructions(exercise: Path) -> str:
    """What aider sends first: introduction.md (if any) + instructions.md + instructions.append.md (if any)."""
    docs = exercise / ".docs"
    text = ""
    for name in ("introduction.md", "instructions.md", "instructions.append.md"):
        if (docs / name).is_file():
            text += (docs / name).read_text(encoding="utf-8")
    return text


def file_list(solution: list[str]) -> str:
    """aider's file_list: the solution files' names, space-separated."""
    return " ".join(Path(s).name for s in solution)


def render_files(files: dict[str, str], lang: str) -> str:
    """Files as the whole format shows them: the path on a line, then the content in a fence."""
    out = ""
    for name, text in files.items():
        ticks = "`" * max(3, 1 + max((len(m) for m in re.findall(r"^\s*(`{3,})", text, re.M)), default=0))  # longer than any fence inside
        out += f"{name}\n{ticks}{_FENCE.get(lang, '')}\n{text}{'' if text.endswith(chr(10)) or not text else chr(10)}{ticks}\n\n"
    return out


def exercise_problem(exercise: Path, lang: str, edit_format: str = "whole") -> Problem:
    """One exercise as a Problem: prompt, system message, example solution, and its files in the tests."""
    config: dict[str, Any] = json.loads((exercise / ".meta" / "config.json").read_text(encoding="utf-8"))
    files_cfg = config.get("files", {})
    solution = [str(s) for s in files_cfg.get("solution", [])]
    tests = [str(s) for s in files_cfg.get("test", [])]
    examples = [str(s) for s in files_cfg.get("example", [])]
    pristine: dict[str, str] = {}
    for file in sorted(p for p in exercise.rglob("*") if p.is_file()):
        rel = file.relative_to(exercise).as_posix()
        if rel.split("/", 1)[0] in _SKIP_DIRS:
            continue
        pristine[rel] = file.read_text(encoding="utf-8", errors="surrogateescape")
    stubs = {s: pristine.get(s, "") for s in solution}
    reference = _reference(exercise, solution, examples)
    if lang == "java":  # Java's reference has a file per class (.meta/src/reference/java/*.java), some beyond files.example
        for extra_file in sorted((exercise / ".meta" / "src" / "reference" / "java").glob("*.java")):
            reference.setdefault(f"src/main/java/{extra_file.name}", extra_file.read_text(encoding="utf-8"))
    listing = file_list(solution)
    prompt = instructions(exercise) + ADDENDUM.format(file_list=listing) + "\n" + render_files(stubs, lang)
    spec = {"lang": lang, "exercise": exercise.name, "solution": solution, "test": tests, "files": pristine}
    if (exercise / ".meta" / "Cargo-example.toml").is_file():  # the example's own dependencies (the crates it uses)
        spec["reference_cargo"] = (exercise / ".meta" / "Cargo-example.toml").read_text(encoding="utf-8")
    return Problem(
        id=exercise.name,
        language=lang,
        prompt=prompt,
        entry_point="",
        reference=render_files(reference, lang),
        tests=ProgramTests(code=json.dumps(spec, sort_keys=True), runner=Runner.POLYGLOT),
        tags=(f"edit-format:{edit_format}", *NEEDS.get(f"{lang}/{exercise.name}", ())),
        reference_is_program=True,
        prompt_is_instruction=True,
        system=SYSTEM[edit_format],
        extract="edit",
        extra={"blurb": config.get("blurb", ""), "solution": solution, "test": tests, "file_list": listing},
    )


def _reference(exercise: Path, solution: list[str], examples: list[str]) -> dict[str, str]:
    """The example files mapped onto the solution paths: by file name, else by extension, else in order."""
    out: dict[str, str] = {}
    left = list(solution)
    for example in examples:
        text = (exercise / example).read_text(encoding="utf-8")
        name, suffix = Path(example).name, Path(example).suffix
        if Path(example).parent.name == "java" and not any(Path(s).name == name for s in left):
            out[f"src/main/java/{name}"] = text  # another class of Java's reference: a file of its own
            continue
        target = next((s for s in left if Path(s).name == name), None) or next((s for s in left if Path(s).suffix == suffix), None)
        if target is None and left:
            target = left[0]
        if target is None:
            continue
        left.remove(target)
        out[target] = text
    return out


def spec_of(problem: Problem) -> dict[str, Any]:
    """The exercise's files and their roles, as the loader put them in the problem's tests."""
    assert isinstance(problem.tests, ProgramTests)
    data: dict[str, Any] = json.loads(problem.tests.code)
    return data


# ------------------------------------------------------------------ edit formats and aider's two tries


def with_edit_format(benchmark: Benchmark, edit_format: str) -> Benchmark:
    """The benchmark with every problem's system message (and edit-format tag) for this edit format."""
    if edit_format not in EDIT_FORMATS:
        raise ValueError(f"unknown edit format {edit_format!r}; choose one of {', '.join(EDIT_FORMATS)}")
    problems = {
        pid: dataclasses.replace(p, system=SYSTEM[edit_format],
                                 tags=(f"edit-format:{edit_format}", *(t for t in p.tags if not t.startswith("edit-format:"))))
        for pid, p in benchmark.problems.items()
    }
    return dataclasses.replace(benchmark, problems=problems)


@dataclass
class TryOutcome:
    """One exercise after its tries: each try's verdict, reply and whether its edit was malformed."""

    task_id: str
    outcomes: list[bool] = field(default_factory=list)  # aider's tests_outcomes
    malformed: list[bool] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    error: str = ""  # the model could not be asked (after its retries)

    def to_json(self) -> dict[str, Any]:
        """As a row of tries.jsonl."""
        return {"task_id": self.task_id, "tests_outcomes": self.outcomes, "malformed": self.malformed, "statuses": self.statuses,
                "messages": self.messages, "replies": self.replies, "error": self.error}


@dataclass
class TriesReport:
    """pass_rate_1 .. pass_rate_<tries> (percent of the exercises whose tests all passed by that try), as aider reports."""

    tries: int
    rows: list[TryOutcome]

    def pass_rate(self, k: int) -> float:
        """Percent of the exercises passing by try k (aider's pass_rate_k)."""
        return 100.0 * sum(any(r.outcomes[:k]) for r in self.rows) / len(self.rows) if self.rows else 0.0

    def malformed_share(self) -> float:
        """Percent of the replies whose edit could not be applied."""
        replies = [m for r in self.rows for m in r.malformed]
        return 100.0 * sum(replies) / len(replies) if replies else 0.0

    def to_json(self) -> dict[str, Any]:
        """The scores as plain data."""
        return {"tries": self.tries, "n_problems": len(self.rows), "malformed_edits_pct": round(self.malformed_share(), 2),
                "errors": sum(bool(r.error) for r in self.rows),
                **{f"pass_rate_{k}": round(self.pass_rate(k), 2) for k in range(1, self.tries + 1)}}


def tries_identity(benchmark: Benchmark, model: ModelAPI, config: GenerateConfig) -> dict[str, Any]:
    """What makes two runs' tries interchangeable (the run store's identity). The number of tries is left out: a rerun
    with more tries continues the stored ones."""
    sampling = config.effective().to_json()
    sampling.pop("n")
    edit_formats = sorted({t for p in benchmark.problems.values() for t in p.tags if t.startswith("edit-format:")})
    return {"kind": "polyglot-tries", "benchmark": benchmark.name, "benchmark_hash": benchmark.content_hash, "edit_format": edit_formats,
            "model": {k: v for k, v in model.describe().items() if k not in ("base_url", "api_key_env")}, "sampling": sampling}


def run_tries(benchmark: Benchmark, model: ModelAPI, config: GenerateConfig, sandbox: Sandbox, out: Path, tries: int = 2,
              task_ids: list[str] | None = None, workers: int = 2) -> TriesReport:
    """aider's loop: ask, apply the edit, run the tests; after a failure send the (capped) test output back and ask again,
    up to `tries` times. Each try (reply and verdict) goes to the run store (`out`'s folder, run.sqlite) when it is judged,
    so a killed run, run again, asks only for the tries not stored and replays the stored ones (the same edits, the same
    test output sent back); each exercise's row is appended to `out` (JSONL) when it is done, and `out` is rewritten in
    task order at the end."""
    from assay.store import RunStore

    ids = [i for i in (task_ids or list(benchmark.problems)) if i in benchmark.problems]
    store = RunStore(out.parent)
    done: dict[str, TryOutcome] = {}
    try:
        store.claim(tries_identity(benchmark, model, config))
        stored: dict[str, list[dict[str, Any]]] = {}
        for task_id, idx, ok, _error, record in store.generation_records():
            if ok and record.get("kind") == "polyglot-try":
                stored.setdefault(task_id, []).append({**record, "idx": idx})
        for rows in stored.values():
            rows.sort(key=lambda r: r["idx"])

        async def main() -> None:
            judges = asyncio.Semaphore(max(1, workers))
            lock = asyncio.Lock()

            async def one(task_id: str) -> None:
                earlier = [r for i, r in enumerate(stored.get(task_id, [])) if r["idx"] == i]  # a contiguous prefix of tries
                row = await _tries_of(benchmark.problems[task_id], model, config, sandbox, tries, judges, store, earlier)
                async with lock:
                    done[task_id] = row
                    with out.open("a") as handle:
                        handle.write(json.dumps(row.to_json()) + "\n")

            try:
                await asyncio.gather(*(one(t) for t in ids))
            finally:
                await model.aclose()

        asyncio.run(main())
    finally:
        store.close()
    partial = out.with_name(out.name + ".part")
    partial.write_text("".join(json.dumps(done[i].to_json()) + "\n" for i in ids))
    partial.replace(out)
    return TriesReport(tries, [done[i] for i in ids])


async def _tries_of(problem: Problem, model: ModelAPI, config: GenerateConfig, sandbox: Sandbox, tries: int,
                    judges: asyncio.Semaphore, store: Any = None, earlier: list[dict[str, Any]] | None = None) -> TryOutcome:
    from assay.judging.polyglot import MalformedEdit, feedback, parse_edit
    from assay.languages import get_language
    from assay.models.base import ModelError
    from assay.problems import Verdict
    from assay.samples import Sample
    from assay.store import verdict_from_json, verdict_to_json

    spec = spec_of(problem)
    files: dict[str, str] = {s: spec["files"].get(s, "") for s in spec["solution"]}  # the solution files as they stand
    messages: list[tuple[str, str]] = [("system", problem.system), ("user", problem.prompt)]
    row = TryOutcome(problem.id)
    language = get_language(problem.language)
    earlier = list(earlier or [])
    for attempt in range(tries):
        verdict: Verdict | None = None
        if attempt < len(earlier):  # a try the store holds: replayed, not asked again
            reply = str(earlier[attempt]["reply"])
            verdict = verdict_from_json(earlier[attempt]["verdict"])
        else:
            try:
                response = await model.generate(Prompt(messages=tuple(messages)), 1, dataclasses.replace(config, n=1))
            except ModelError as exc:
                row.error = f"{exc.kind}: {exc}"
                return row
            reply = response.completions[0].text if response.completions else ""
        row.replies.append(reply)
        try:
            edit = parse_edit(reply, files, set(spec["files"]))
            files = {**files, **edit.files}
            row.malformed.append(False)
        except MalformedEdit:
            row.malformed.append(True)  # the files stay as they were; the tests run on them, as aider's would
        if verdict is None:
            code = render_files(files, problem.language)
            async with judges:
                verdict = await asyncio.to_thread(language.judge, sandbox, problem, code)
            if store is not None:  # stored before the next try is asked for
                record = {"kind": "polyglot-try", "reply": reply, "malformed": row.malformed[-1], "verdict": verdict_to_json(verdict)}
                store.add_generation(problem.id, attempt, record, Sample(problem.id, attempt, reply, code, extra={"try": attempt + 1}))
        row.outcomes.append(verdict.passed)
        row.statuses.append(verdict.status.value)
        row.messages.append(verdict.message)
        if verdict.passed:
            break
        messages += [("assistant", reply), ("user", feedback(verdict, file_list(spec["solution"])))]
    return row
