"""LiveCodeBench code generation (`livecodebench/code_generation_lite` on the Hugging Face Hub), release v1 to v6.

Rows are upstream's `CodeGenerationProblem` (lcb_runner/benchmarks/code_generation.py). Each release adds a
file: release_v1 is `test.jsonl` (400 problems), release_vN also reads `test2.jsonl` .. `testN.jsonl` (511,
612, 713, 880, 1055); `livecodebench` is the latest (v6). Private test cases are JSON text, or (lite)
base64 -> zlib -> pickle -> JSON text. Pickle from the network runs code when loaded, so it is read with an
unpickler that only builds str, list and dict and refuses anything else, and its size is capped.

Where the files come from, first found: `--dataset-file` (one JSON Lines file, read as it is, or a folder with
the release's files, e.g. a `huggingface-cli download` of the repository); `--data-dir` (`livecodebench/test*.jsonl`);
the cache; the Hub. From the Hub the revision (default `main`) is resolved to its commit through the Hub's API,
the files are downloaded from that commit (`/resolve/<commit>/<file>`) into `<cache>/livecodebench/<commit>/`
with their sha256 in a manifest, and the commit is pinned, so later loads are offline and checked against the
manifest. `HF_ENDPOINT` names another Hub (a mirror); ASSAY_OFFLINE=1 forbids the network.

Tests: a problem with `metadata.func_name` is LeetCode's (rule "call": each input line is one JSON argument of
`Solution().<func_name>`); the others are stdin/stdout (rule "stdio", LiveCodeBench's comparison). Both are
judged on the trusted side (assay.judging.stdio); public tests first, then private, as upstream. The problem's
context is upstream's `import_string` (the star imports every program runs after). There are no reference
solutions upstream. The prompt is LiveCodeBench's generic chat prompt with its system message; a reply's code
is its last fenced block, as upstream extracts it. Each problem has `released` (its contest date) for
`--since/--until`, and the problems in upstream's ERRATA.md are tagged `errata:<kind>`.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import pickle
import re
import urllib.parse
import zlib
from pathlib import Path
from typing import Any

import httpx

from assay.benchmarks._fetch import ChecksumMismatch, DataUnavailable, _download, _offline, default_cache_dir, sha256_file
from assay.problems import Benchmark, Case, CaseTests, Problem

SUBDIR = "livecodebench"
REPO_ID = "livecodebench/code_generation_lite"
FILES = ("test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl", "test6.jsonl")
LATEST = 6
SIZES = {1: 400, 2: 511, 3: 612, 4: 713, 5: 880, 6: 1055}  # upstream README "Dataset Versions"
MAX_DECODED = 1 << 30  # bytes of one row's decompressed private tests

# lcb_runner/evaluation/testing_util.py `import_string`: what every program runs after (its own imports win).
_STAR = ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics", "itertools",
         "functools", "operator", "io", "sys", "json", "builtins", "typing")
_PLAIN = tuple(m for m in _STAR if m not in ("builtins", "typing"))
IMPORTS = "".join(f"from {m} import *\n" for m in _STAR) + "".join(f"import {m}\n" for m in _PLAIN) + "sys.setrecursionlimit(50000)\n"

# lcb_runner/prompts/code_generation.py (PromptConstants, get_generic_question_template_answer).
SYSTEM = ("You are an expert Python programmer. You will be given a question (problem specification) and will generate a correct "
          "Python program that matches the specification and passes all tests.")
WITH_STARTER = "You will use the following starter code to write the solution to the problem and enclose your code within delimiters."
WITHOUT_STARTER = ("Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). "
                   "Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the "
                   "algorithm and writes output to STDOUT.")

# ERRATA.md at LiveCodeBench 28fef95 (last changed b0fc86b, 2025-07-08): question_id -> (tag, upstream's words).
ERRATA: dict[str, tuple[str, str]] = {
    **{q: ("errata:multiple-answers", "accepts several outputs, but one is graded") for q in (
        "abc311_c", "abc326_d", "abc327_b", "abc333_e", "abc343_e", "abc362_c", "find-words-containing-character", "find-the-peaks",
        "generate-binary-strings-without-adjacent-zeros", "arc185_c", "abc343_a")},
    **{q: ("errata:interactive", "interactive: cannot be solved by a program that only reads stdin") for q in ("abc337_e", "abc355_e")},
    "abc350_c": ("errata:wrong-tests", "erroneous test cases"),
    "apply-operations-to-make-string-empty": ("errata:wrong-tests", "erroneous test case of the empty string"),
    "most-frequent-ids": ("errata:wrong-tests", "an input that breaks the problem's constraints"),
    "arc189_a": ("errata:wrong-tests", "one test case with a wrong output"),
}


class LiveCodeBenchFormatError(ValueError):
    """A file or row that is not in LiveCodeBench's format (one line)."""


class _PlainDataOnly(pickle.Unpickler):
    """An unpickler that builds str, list and dict only: a pickle naming anything else (os.system, eval) is refused."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in ("str", "list", "dict"):
            return {"str": str, "list": list, "dict": dict}[name]
        raise pickle.UnpicklingError(f"refused to load {module}.{name}: LiveCodeBench's tests are a str")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused a persistent id")


def decode_tests(text: str) -> list[dict[str, Any]]:
    """A row's test cases: JSON text, or base64(zlib(pickle(JSON text))) as the lite rows keep private tests."""
    try:
        data = json.loads(text)
    except ValueError:
        data = json.loads(_unpickled(text))
    if not isinstance(data, list) or not all(isinstance(t, dict) and {"input", "output"} <= set(t) for t in data):
        raise LiveCodeBenchFormatError("test cases are not a list of {input, output, testtype}")
    return data


def _unpickled(text: str) -> str:
    """The JSON text inside base64(zlib(pickle(...))), unpickled with str, list and dict only."""
    try:
        raw = base64.b64decode(text.encode("utf-8"), validate=False)
        inflate = zlib.decompressobj()
        unpacked = inflate.decompress(raw, MAX_DECODED)
        too_big = bool(inflate.unconsumed_tail)
        inner = None if too_big else _PlainDataOnly(io.BytesIO(unpacked)).load()
    except (ValueError, zlib.error, pickle.UnpicklingError, EOFError) as exc:
        raise LiveCodeBenchFormatError(f"private tests are neither JSON nor base64(zlib(pickle(JSON))): {exc}") from None
    if too_big:
        raise LiveCodeBenchFormatError(f"private tests larger than {MAX_DECODED} bytes decompressed: refused")
    if not isinstance(inner, str):
        raise LiveCodeBenchFormatError(f"private tests unpickle to a {type(inner).__name__}, not JSON text")
    return inner


# ---------------------------------------------------------------- where the files come from


def _endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def fetch_release(files: tuple[str, ...], cache_dir: Path, revision: str = "main", refresh: bool = False) -> tuple[str, list[Path]]:
    """(commit, paths) of these files of the Hub dataset at `revision`, from the cache when it has them."""
    root = cache_dir / SUBDIR
    pins_path = root / "pins.json"
    pins: dict[str, str] = json.loads(pins_path.read_text()) if pins_path.is_file() else {}
    commit = revision if re.fullmatch(r"[0-9a-f]{40}", revision) else ("" if refresh else pins.get(revision, ""))
    if commit and _cached(root / commit, files):
        return commit, [root / commit / f for f in files]
    base = _endpoint()
    where = f"{REPO_ID}@{revision}"
    hint = f"fetch it once with network, or give the files with --dataset-file (or --data-dir DIR with DIR/{SUBDIR}/test.jsonl ...)"
    if _offline():
        raise DataUnavailable(f"{where}: not in the cache ({root}) and ASSAY_OFFLINE forbids the Hub; {hint}")
    try:
        if not commit:
            info = httpx.get(f"{base}/api/datasets/{REPO_ID}/revision/{urllib.parse.quote(revision, safe='')}", timeout=60, follow_redirects=True)
            if info.status_code == 404:
                raise DataUnavailable(f"{REPO_ID}: no revision {revision!r} on {base} (a branch, a tag or a 40-hex commit)")
            info.raise_for_status()
            commit = str(info.json()["sha"])
            if not re.fullmatch(r"[0-9a-f]{40}", commit):
                raise ValueError(f"commit {commit[:60]!r}")
        folder = root / commit
        manifest = _manifest(folder)
        for name in files:
            path = folder / name
            if name in manifest and path.is_file():
                continue
            _download(f"{base}/datasets/{REPO_ID}/resolve/{commit}/{name}", path, None)
            manifest[name] = sha256_file(path)
            (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    except httpx.HTTPError as exc:
        raise DataUnavailable(f"{where}: not in the cache and not fetched from {base} ({type(exc).__name__}: {exc}); {hint}") from None
    except (KeyError, ValueError) as exc:
        raise DataUnavailable(f"{REPO_ID}: {base} answered with something that is not the Hub's API ({exc})") from None
    if not re.fullmatch(r"[0-9a-f]{40}", revision):
        pins[revision] = commit
        pins_path.parent.mkdir(parents=True, exist_ok=True)
        pins_path.write_text(json.dumps(pins, indent=1, sort_keys=True))
    _cached(folder, files)  # checks what was just written too
    return commit, [folder / f for f in files]


def _manifest(folder: Path) -> dict[str, str]:
    path = folder / "manifest.json"
    return dict(json.loads(path.read_text())) if path.is_file() else {}


def _cached(folder: Path, files: tuple[str, ...]) -> bool:
    """Whether the folder holds all the files; a file whose sha256 is not its manifest's is an error."""
    manifest = _manifest(folder)
    if not all(f in manifest and (folder / f).is_file() for f in files):
        return False
    for f in files:
        actual = sha256_file(folder / f)
        if actual != manifest[f]:
            raise ChecksumMismatch(f"{folder / f} has sha256 {actual}, but {manifest[f]} was downloaded; delete {folder} and it is fetched again")
    return True


def _files_of(release: int, path: Path | None, data_dir: Path | None, cache_dir: Path | None, revision: str) -> tuple[list[Path], str, str]:
    """(files, version, source) of a release."""
    files = FILES[:release]
    tag = f"release_v{release}"
    if path is not None:
        path = Path(path)
        if path.is_dir():
            missing = [f for f in files if not (path / f).is_file()]
            if missing:
                raise DataUnavailable(f"{path}: {tag} needs {', '.join(missing)} there (the Hub repository's files)")
            return [path / f for f in files], f"{tag} (local)", str(path)
        if not path.is_file():
            raise FileNotFoundError(f"--dataset-file {path}: no such file")
        return [path], "local", str(path)
    data_root = data_dir if data_dir is not None else os.environ.get("ASSAY_DATA_DIR")
    if data_root and all((Path(data_root) / SUBDIR / f).is_file() for f in files):
        folder = Path(data_root) / SUBDIR
        return [folder / f for f in files], f"{tag} (data dir)", str(folder)
    commit, paths = fetch_release(files, Path(cache_dir) if cache_dir is not None else default_cache_dir(), revision)
    return paths, f"{tag}@{commit[:12]}", f"hf://{REPO_ID}@{commit}"


# ---------------------------------------------------------------- rows to problems


def load_livecodebench(
    release: int = LATEST,
    latest: bool = False,
    revision: str = "main",
    data_dir: Path | None = None,
    cache_dir: Path | None = None,
    path: Path | None = None,
) -> Benchmark:
    """LiveCodeBench's release_v<release> (cumulative), from a local file or folder, the data dir, the cache or the Hub."""
    if release not in SIZES:
        raise ValueError(f"LiveCodeBench has releases v1 to v{LATEST}, not v{release}")
    files, version, source = _files_of(release, path, data_dir, cache_dir, revision)
    problems: dict[str, Problem] = {}
    digest = hashlib.sha256()
    for file in files:
        sha = sha256_file(file)
        digest.update(f"{file.name} {sha}\n".encode())
        with open(file, encoding="utf-8") as handle:
            for n, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise LiveCodeBenchFormatError(f"{file}:{n}: not JSON ({exc})") from None
                try:
                    problem = problem_of(row)
                except LiveCodeBenchFormatError as exc:
                    raise LiveCodeBenchFormatError(f"{file}:{n}: {exc}") from None
                problems[problem.id] = problem
    content_hash = sha256_file(files[0]) if len(files) == 1 else digest.hexdigest()
    name = "livecodebench" if latest else f"livecodebench/v{release}"
    return Benchmark(name=name, version=version, content_hash=content_hash, source=source, problems=problems)


_FIELDS = ("question_title", "question_content", "platform", "question_id", "contest_date", "starter_code", "difficulty",
           "public_test_cases", "private_test_cases", "metadata")


def prompt_of(content: str, starter_code: str) -> str:
    """LiveCodeBench's generic question prompt (get_generic_question_template_answer)."""
    prompt = f"### Question:\n{content}\n\n"
    if starter_code:
        prompt += f"### Format: {WITH_STARTER}\n```python\n{starter_code}\n```\n\n"
    else:
        prompt += f"### Format: {WITHOUT_STARTER}\n```python\n# YOUR CODE HERE\n```\n\n"
    return prompt + "### Answer: (use the provided format with backticks)\n\n"


def problem_of(row: dict[str, Any]) -> Problem:
    """One upstream row as a problem."""
    if not isinstance(row, dict):
        raise LiveCodeBenchFormatError("a row is not an object")
    missing = [f for f in _FIELDS if f not in row]
    if missing:
        raise LiveCodeBenchFormatError(f"not a LiveCodeBench row (missing {', '.join(missing)})")
    qid = str(row["question_id"])
    public = row["public_test_cases"]
    public = public if isinstance(public, list) else decode_tests(str(public))
    private = row["private_test_cases"]
    private = private if isinstance(private, list) else decode_tests(str(private))
    metadata = row["metadata"] if isinstance(row["metadata"], dict) else json.loads(row["metadata"] or "{}")
    func = metadata.get("func_name")
    tagged = [("public", t) for t in public] + [("private", t) for t in private]
    cases: list[Case] = []
    bad = 0
    for suite, t in tagged:
        if func:
            try:
                args = tuple(json.loads(line) for line in str(t["input"]).split("\n"))
                expected = json.loads(str(t["output"]))
            except ValueError:
                bad += 1  # upstream would fail every sample on it: left out, and said
                continue
            cases.append(Case(args=args, suite=suite, expected=expected))
        else:
            cases.append(Case(args=(str(t["input"]),), suite=suite, expected=str(t["output"])))
    date = str(row["contest_date"])
    if not re.match(r"\d{4}-\d{2}-\d{2}", date):
        raise LiveCodeBenchFormatError(f"{qid}: contest_date {date!r} is not an ISO date")
    platform, difficulty = str(row["platform"]), str(row["difficulty"])
    tags = [f"platform:{platform}", f"difficulty:{difficulty}", "tests:call" if func else "tests:stdin"]
    extra: dict[str, Any] = {"title": row["question_title"], "released": date[:10], "contest_date": date, "contest_id": row.get("contest_id", ""),
                             "platform": platform, "difficulty": difficulty, "starter_code": row["starter_code"], "func_name": func,
                             "n_public": len(public), "n_private": len(private)}
    if qid in ERRATA:
        tags.append(ERRATA[qid][0])
        extra["errata"] = ERRATA[qid][1]
    if bad:
        tags.append("defect:unparseable-tests")
        extra["left_out"] = f"{bad} tests whose input or output is not JSON"
    return Problem(
        id=qid,
        language="python",
        prompt=prompt_of(str(row["question_content"]), str(row["starter_code"] or "")),
        entry_point=str(func or ""),
        reference="",
        tests=CaseTests(cases=tuple(cases), rule="call" if func else "stdio"),
        context=IMPORTS,
        tags=tuple(tags),
        reference_is_program=True,
        prompt_is_instruction=True,
        system=SYSTEM,
        extract="last-fence",
        extra=extra,
    )
