"""Hand-written benchmarks as a directory, in the style of SwiftEval (format: docs/benchmark-format.md).

    my-benchmark/
      benchmark.yaml        name, version, language, description, licence, compile_flags
      <problem-id>/
        problem.yaml        title, entry_point, level (function|class), tags, imports
        task.md             the task text the model reads
        context.swift       optional code the solution may use (compiled with it)
        signature.swift     the declarations to implement, as shown to the model
        reference.swift     the reference solution (must pass its own tests)
        tests.swift         3-5 unit tests: `func test_<name>() throws` using the harness's expectations
        wrong/*.swift       plausible wrong solutions (Assay's own tests check that each one fails)
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from assay.benchmarks._fetch import DataUnavailable
from assay.problems import Benchmark, Problem, ProgramTests, Runner

REQUIRED = ("problem.yaml", "task.md", "signature", "reference", "tests")


def suite_languages() -> dict[str, str]:
    """The languages a directory benchmark may target -> their source extension: the plugins with
    `unit_test_suites`, whose hand-written suites run with each test reporting by name and token
    (swift_units): Swift only, so far. Other languages' suites would run their tests in the solution's
    process with nothing to hold them to, so they are refused."""
    from assay.languages import plugins

    return {name: plugin.extension for name, plugin in plugins().items() if plugin.unit_test_suites}


class BenchmarkFormatError(ValueError):
    """A benchmark directory that does not follow the format (one-line message naming the file)."""


def shipped(name: str) -> Path:
    """A benchmark directory that ships inside Assay (e.g. swift-suite)."""
    return Path(str(resources.files("assay").joinpath("data", name)))


def load_directory(path: Path | None = None, *, shipped_name: str | None = None, **_: Any) -> Benchmark:
    """Load a directory benchmark: a local folder, or one that ships with Assay."""
    root = Path(path) if path is not None else shipped(shipped_name or "")
    meta_file = root / "benchmark.yaml"
    if not meta_file.is_file():
        raise DataUnavailable(f"{root}: not a benchmark directory (no benchmark.yaml); see docs/benchmark-format.md")
    meta = _yaml(meta_file)
    language = str(meta.get("language", "")).lower()
    extensions = suite_languages()
    if language not in extensions:
        raise BenchmarkFormatError(f"{meta_file}: language must be one of {', '.join(extensions)} (the languages with a unit-test "
                                   f"runner; see docs/benchmark-format.md), got {language!r}")
    ext = extensions[language]
    name = str(meta.get("name") or root.name)
    digest = hashlib.sha256()
    problems: dict[str, Problem] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        files = {f.relative_to(folder).as_posix(): f.read_bytes() for f in sorted(folder.rglob("*")) if f.is_file()}
        for rel, data in files.items():
            digest.update(f"{folder.name}/{rel}\0".encode() + hashlib.sha256(data).digest())
        problems[f"{name}/{folder.name}"] = _problem(folder, name, language, ext, meta, files)
    if not problems:
        raise BenchmarkFormatError(f"{root}: no problem folders")
    digest.update(meta_file.read_bytes())
    return Benchmark(name=name, version=str(meta.get("version", "0")), content_hash=digest.hexdigest(), source=str(root), problems=problems)


def _problem(folder: Path, bench: str, language: str, ext: str, meta: dict[str, Any], files: dict[str, bytes]) -> Problem:
    def text(name: str, required: bool = True) -> str:
        data = files.get(name)
        if data is None:
            if required:
                raise BenchmarkFormatError(f"{folder}: missing {name}; see docs/benchmark-format.md")
            return ""
        return data.decode()

    info = _yaml(folder / "problem.yaml")
    entry_point = info.get("entry_point")
    if not entry_point:
        raise BenchmarkFormatError(f"{folder / 'problem.yaml'}: entry_point is required")
    level = info.get("level", "function")
    tags = list(info.get("tags") or [])
    if f"level:{level}" not in tags:
        tags.append(f"level:{level}")
    task, context, signature = text("task.md"), text(f"context{ext}", required=False), text(f"signature{ext}")
    tests = text(f"tests{ext}")
    fence = language
    parts = [task.strip(), ""]
    if context.strip():
        parts += ["This code is already part of the program (use it, do not repeat it):", f"```{fence}", context.strip(), "```", ""]
    parts += [f"Implement it in {fence.capitalize() if fence != 'cpp' else 'C++'}; reply with the complete implementation in one code block:",
              f"```{fence}", signature.strip(), "```", ""]
    wrong = {name.split("/", 1)[1]: data.decode() for name, data in files.items() if name.startswith("wrong/")}
    return Problem(
        id=f"{bench}/{folder.name}",
        language=language,
        prompt="\n".join(parts),
        entry_point=str(entry_point),
        reference=text(f"reference{ext}"),
        tests=ProgramTests(code=tests, runner=Runner.UNITS),
        context=context,
        tags=tuple(tags),
        reference_is_program=True,
        prompt_is_instruction=True,
        compile_flags=tuple(str(flag) for flag in meta.get("compile_flags") or ()),
        extra={
            "title": info.get("title", folder.name),
            "signature": signature,
            "imports": list(info.get("imports") or []),
            "wrong_solutions": wrong,
        },
    )


def _yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise BenchmarkFormatError(f"{path}: missing; see docs/benchmark-format.md") from None
    except yaml.YAMLError as exc:
        raise BenchmarkFormatError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise BenchmarkFormatError(f"{path}: must be a YAML mapping")
    return data
