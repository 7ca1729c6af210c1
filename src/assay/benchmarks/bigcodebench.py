"""BigCodeBench (bigcode-project): 1,140 library-heavy Python tasks, each a `task_func` tested by a unittest `TestCases`.

Styles: Complete (`bigcodebench`: the prompt is `complete_prompt`, imports + signature + docstring, and the program is
prompt + completion, as upstream's reference `complete_prompt + "\\n" + canonical_solution`) and Instruct
(`bigcodebench-instruct`: `instruct_prompt` is a task in prose for a chat model, whose reply is the whole program).

Versions: the data stored is upstream's v0.1.0 (hf_data, the Hugging Face split v0.1.0_hf). `/v0.1.4` applies upstream's
fix scripts tools/fix_v019.py, fix_v020.py, fix_v022.py and fix_v023.py (ported below, same replacements), which made
the Hub's v0.1.1 .. v0.1.4; v0.1.4 is the harness's default and the one the plain names load. fix_v025 (v0.1.5) only
prepends `nltk.download(...)` to nine prompts, which needs the network: not offered.

Judging: as ClassEval's, in the sample's process under the unittest runner (assay.languages.python_unittest): every
test of TestCases must report ok on the private channel. Upstream's limits: 240 s per task (here CPU seconds for the
class), 30 GiB of address space. The tests import upstream's pinned libraries from the package environment
(assay.benchmarks.bigcodebench_env, `assay env build bigcodebench`), bound read-only into the sandbox; a task whose
libraries the environment lacks is skipped and labelled `env-gap:<module>`, never scored as the sample's failure.

Tags: `requires:<module>` for each library that is not in the standard library; `env-gap:<module>` where the
environment lacks it; `needs:network` / `needs:nltk-data` for tasks known to reach outside (the data README).
"""

from __future__ import annotations

import ast
import gzip
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.benchmarks import bigcodebench_env as envs
from assay.benchmarks._fetch import resolve_data_file, sha256_file
from assay.benchmarks.classeval import third_party as imported_modules
from assay.problems import Benchmark, PackageEnv, Problem, ProgramTests, Runner

SUBDIR = "bigcodebench/hf_data"
FILENAME = "BigCodeBench.jsonl.gz"
_ANNOTATION = "https://raw.githubusercontent.com/bigcode-project/bigcodebench-annotation/a3b89850db670d7302571142b881e4f85eef18e3"
URL = f"{_ANNOTATION}/hf_data/BigCodeBench.jsonl.gz"
SHA256 = "58142744edaf6036387f8761701f1b353432b0ed33f2edec1de8a59e7431ef7a"
REQUIREMENTS = "requirements-eval.txt"
REQUIREMENTS_URL = ("https://raw.githubusercontent.com/bigcode-project/bigcodebench/47eff25a9933ba89eee755bcf2696c4f17160b54/"
                    "Requirements/requirements-eval.txt")
REQUIREMENTS_SHA256 = "a4d01fb12cbce5223b51f982265cb7975bea770b758cd85cc91b803d3293e39f"
TIME_LIMIT = 240.0  # upstream's TIMEOUT_LIMIT (eval/utils.py)
MEMORY_LIMIT = 30 * 1024**3  # upstream's max_as_limit
REFERENCE_FLOOR = 0.99  # upstream warns when the ground truth's pass rate is at or below this
STYLES = ("complete", "instruct")
FIELDS = ("task_id", "complete_prompt", "instruct_prompt", "canonical_solution", "code_prompt", "test", "entry_point", "libs")
# Upstream's module namespace has sys, os and environ before the code runs, and tests use them unimported.
NAMESPACE = "import os\nimport sys\nenviron = os.environ\n"
NEEDS = {"BigCodeBench/1005": "network", "BigCodeBench/177": "nltk-data"}


def _fix_v019(row: dict[str, str]) -> None:
    if row["task_id"] == "BigCodeBench/1006":
        row["test"] = row["test"].replace(
            '    def test_valid_zip_url(self):\n        """Test a valid ZIP URL."""\n'
            '        url = "https://getsamplefiles.com/download/zip/sample-1.zip"\n        result = task_func(url)\n'
            '        self.assertTrue(result.startswith("mnt/data/downloads/"))\n        self.assertTrue(result.endswith("sample-1"))\n'
            '        shutil.rmtree("mnt/data/downloads")\n',
            '    @patch("requests.get")\n    def test_non_zip_content(self, mock_get):\n        """Test a valid ZIP URL."""\n'
            '        mock_get.return_value.status_code = 200\n        mock_get.return_value.headers = {"Content-Type": "application/zip"}\n'
            '        mock_get.return_value.content = b"1"\n        url = "https://valid-url.com/sample.zip"\n        result = task_func(url)\n')
    if row["task_id"] == "BigCodeBench/760":
        for k in row:
            if "prompt" in k:
                row[k] = row[k].replace("from datetime import datetime", "import datetime")
    if row["task_id"] == "BigCodeBench/178":
        for k in row:
            row[k] = row[k].replace("from urllib import request\n", "").replace("    - urllib.request\n", "")


def _fix_v020(row: dict[str, str]) -> None:
    if row["task_id"] == "BigCodeBench/16":
        for k in row:
            row[k] = row[k].replace("No logs found to backup.", "No logs found to backup")
    if row["task_id"] == "BigCodeBench/37":
        for k in row:
            if "prompt" in k:
                row[k] = ("import pandas as pd\n" + row[k]).replace("Requirements:\n    - sklearn.ensemble\n",
                                                                   "Requirements:\n    - pandas\n    - sklearn.ensemble\n")
    titles = {"BigCodeBench/241": ("The function will plot the original and normalized arrays using matplotlib.",
                                   "The function will plot the original and normalized arrays with a title of 'Original vs. Normalized Data'."),
              "BigCodeBench/267": ("Plots and returns the FFT of the signal.", "Plots and returns the FFT of the signal with a title of 'FFT of the signal'.")}
    if row["task_id"] in titles:
        old, new = titles[row["task_id"]]
        for k in row:
            if "prompt" in k:
                row[k] = row[k].replace(old, new)


def _fix_v022(row: dict[str, str]) -> None:
    if row["task_id"] == "BigCodeBench/1005":
        for k in row:
            row[k] = (row[k].replace("https://getsamplefiles.com/download/zip/sample-2.zip", "https://getsamplefiles.com/download/zip/sample-5.zip")
                      .replace("sample_2", "sample_5").replace("Sample 2", "Sample 5"))


def _fix_v023(row: dict[str, str]) -> None:
    if row["task_id"] == "BigCodeBench/211":
        row["test"] = row["test"].replace("\n        mock_response = MagicMock()\n        mock_response.content = MOCK_CONTENT\n",
                                          "\n        mock_response = MagicMock()\n        mock_response.content = MOCK_CONTENT\n"
                                          "        mock_response.status_code = 200\n")
    if row["task_id"] == "BigCodeBench/215":
        row["test"] = (row["test"].replace("\n        mock_response = Mock()\n", "\n        mock_response = Mock()\n        mock_response.status_code = 200\n")
                       .replace("\n        mock_response.text =", "\n        MOCK_TEXT =")
                       .replace("\n        mock_get.return_value = mock_response\n",
                                "\n        mock_response.text = MOCK_TEXT\n        mock_response.json = lambda: json.loads(MOCK_TEXT)\n"
                                "        mock_get.return_value = mock_response\n"))
        for k in ("complete_prompt", "instruct_prompt", "doc_struct"):
            if k in row:
                row[k] = row[k].replace("Thif function will raise", "This function will raise")


# version -> the fix scripts applied to v0.1.0, in upstream's order
VERSIONS: dict[str, tuple[tuple[str, Callable[[dict[str, str]], None]], ...]] = {
    "v0.1.0": (),
    "v0.1.4": (("fix_v019", _fix_v019), ("fix_v020", _fix_v020), ("fix_v022", _fix_v022), ("fix_v023", _fix_v023)),
}
LATEST = "v0.1.4"


class BigCodeBenchFormatError(ValueError):
    """A BigCodeBench data file that is not in the Hugging Face schema (one line)."""


def requirements_file(data_dir: Path | None = None, cache_dir: Path | None = None) -> Path:
    """Upstream's requirements-eval.txt (the pins the environment is built from)."""
    return resolve_data_file(REQUIREMENTS, subdir="bigcodebench", url=REQUIREMENTS_URL, data_dir=data_dir, cache_dir=cache_dir,
                             expected_sha256=REQUIREMENTS_SHA256)


def load_bigcodebench(style: str = "complete", version: str = LATEST, data_dir: Path | None = None, cache_dir: Path | None = None,
                      path: Path | None = None) -> Benchmark:
    """Load BigCodeBench (full) in a prompt style and version, its tests bound to the package environment if one is built."""
    if style not in STYLES:
        raise ValueError(f"BigCodeBench has no prompt style {style!r}; choose one of {', '.join(STYLES)}")
    if version not in VERSIONS:
        raise ValueError(f"BigCodeBench has no version {version!r} here; choose one of {', '.join(VERSIONS)}")
    source = Path(path) if path is not None else resolve_data_file(FILENAME, subdir=SUBDIR, url=URL, data_dir=data_dir,
                                                                   cache_dir=cache_dir, expected_sha256=SHA256)
    try:
        env = envs.find_env(cache_dir)
    except envs.EnvironmentError_ as exc:
        raise ValueError(str(exc)) from None
    provided = env.modules() if env is not None else set()
    package_env = (env.path.name, env.digest, (str(env.site_packages),)) if env is not None else ("none", "", ())
    problems = {}
    for row in read_rows(source):
        for _, fix in VERSIONS[version]:
            fix(row)
        problem = _problem(row, style, package_env, provided)
        problems[problem.id] = problem
    fixes = ", ".join(name for name, _ in VERSIONS[version])
    label = version + (f" (v0.1.0 + upstream's {fixes})" if fixes else " (as stored)")
    name = "bigcodebench" + ("-instruct" if style == "instruct" else "") + ("" if version == LATEST else f"/{version}")
    return Benchmark(name=name, version=label if path is None else f"local, {label}", content_hash=sha256_file(source),
                     source=str(source), problems=problems, environment=envs.record(env), reference_floor=REFERENCE_FLOOR)


def read_rows(source: Path) -> list[dict[str, str]]:
    """The file's tasks (JSONL, gzipped or not), each checked for the fields Assay reads."""
    opener: Any = gzip.open if source.suffix == ".gz" else open
    rows = []
    try:
        with opener(source, "rt", encoding="utf-8") as handle:
            for n, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                row = json.loads(line)
                missing = [f for f in FIELDS if not isinstance(row, dict) or not isinstance(row.get(f), str)]
                if missing:
                    raise BigCodeBenchFormatError(f"{source}: line {n} is not a BigCodeBench task (missing {', '.join(missing)})")
                rows.append(row)
    except (json.JSONDecodeError, OSError, EOFError) as exc:
        raise BigCodeBenchFormatError(f"{source}: not BigCodeBench's JSONL ({exc})") from None
    return rows


def third_party(libs: str) -> list[str]:
    """The task's `libs` that are not in the standard library."""
    try:
        names = ast.literal_eval(libs)
    except (ValueError, SyntaxError):
        names = []
    return sorted({str(n) for n in names if str(n) not in sys.stdlib_module_names})


def _problem(row: dict[str, str], style: str, package_env: tuple[str, str, tuple[str, ...]], provided: set[str]) -> Problem:
    task_id = row["task_id"]
    # the task's libs and whatever else its tests import (matplotlib, faker, requests_mock, pyfakefs...)
    needs = sorted({*third_party(row["libs"]), *imported_modules(row["test"]), *imported_modules(row["complete_prompt"])})
    missing = tuple(m for m in needs if m not in provided)
    tags = [f"requires:{m}" for m in needs] + [f"env-gap:{m}" for m in missing]
    if task_id in NEEDS:
        tags.append(f"needs:{NEEDS[task_id]}")
    env = PackageEnv(name=package_env[0], digest=package_env[1], site_packages=package_env[2], missing=missing)
    tests = ProgramTests(code=row["test"], runner=Runner.UNITTEST, test_classes=("TestCases",), env=env, cpu_seconds=TIME_LIMIT,
                         memory_bytes=MEMORY_LIMIT)
    complete = row["complete_prompt"]
    reference = "\n" + row["canonical_solution"]  # upstream's ground truth: complete_prompt + "\n" + canonical_solution
    extra = {"method_level": False, "libs": row["libs"], "code_prompt": row["code_prompt"], "doc_struct": row.get("doc_struct", "")}
    if style == "instruct":
        return Problem(id=task_id, language="python", prompt=row["instruct_prompt"], entry_point=row["entry_point"],
                       reference=complete + reference, tests=tests, tags=tuple(tags), reference_is_program=True,
                       prompt_is_instruction=True, context=NAMESPACE, extra=extra)
    return Problem(id=task_id, language="python", prompt=complete, entry_point=row["entry_point"], reference=reference, tests=tests,
                   tags=tuple(tags), context=NAMESPACE, extra=extra)


# BigCodeBench-Hard: 148 of the tasks (bigcode/bigcodebench-hard on the Hub, a split per version). Its rows are full
# task rows; only their ids are taken, and the tasks are the full benchmark's, at the same version and with the same fixes.
HARD_REPO = "bigcode/bigcodebench-hard"
HARD_SPLITS = {"v0.1.0": "v0.1.0_hf", "v0.1.4": "v0.1.4"}


def load_bigcodebench_hard(style: str = "complete", version: str = LATEST, data_dir: Path | None = None, cache_dir: Path | None = None,
                           path: Path | None = None, revision: str = "main") -> Benchmark:
    """BigCodeBench-Hard: the task ids of `path` (its rows, parquet / JSON Lines / JSON, or one id a line) or of the Hub's
    bigcode/bigcodebench-hard split for `version` (fetched once, the commit pinned in the cache), over the full set."""
    import hashlib

    from assay.benchmarks._fetch import default_cache_dir
    from assay.swe.datasets import DatasetUnavailable, fetch, rows_of

    full = load_bigcodebench(style, version, data_dir=data_dir, cache_dir=cache_dir)
    if path is not None:
        source, files = f"local {path}", [Path(path)]
    else:
        try:
            fetched = fetch(HARD_REPO, Path(cache_dir) if cache_dir is not None else default_cache_dir(), revision=revision,
                            split=HARD_SPLITS[version])
        except DatasetUnavailable as exc:
            raise ValueError(f"bigcodebench-hard: its task ids are on the Hub only ({exc}); or give its rows with --dataset-file") from None
        source, files = fetched.source, list(fetched.files)
    ids: list[str] = []
    for file in files:
        try:
            if file.suffix in (".parquet", ".jsonl", ".json"):
                ids += [str(row["task_id"]) for row in rows_of(file)]
            else:
                ids += [line.strip() for line in file.read_text().splitlines() if line.strip()]
        except (OSError, ValueError, KeyError, TypeError, DatasetUnavailable) as exc:
            raise ValueError(f"{file}: not BigCodeBench-Hard's rows (task_id) nor a list of ids ({type(exc).__name__}: {exc})") from None
    unknown = sorted(set(ids) - set(full.problems))
    if unknown or not ids:
        raise ValueError(f"{source}: " + (f"{len(unknown)} ids are not BigCodeBench tasks ({', '.join(unknown[:3])})" if unknown else "no task ids"))
    chosen = sorted(set(ids), key=lambda i: int(i.rsplit("/", 1)[-1]) if i.rsplit("/", 1)[-1].isdigit() else 0)
    digest = hashlib.sha256((full.content_hash + "\n" + "\n".join(chosen)).encode()).hexdigest()
    name = "bigcodebench" + ("-instruct" if style == "instruct" else "") + "-hard" + ("" if version == LATEST else f"/{version}")
    return Benchmark(name=name, version=f"{full.version}; Hard ids from {source}", content_hash=digest, source=f"{full.source} + {source}",
                     problems={i: full.problems[i] for i in chosen}, environment=full.environment, reference_floor=REFERENCE_FLOOR)
