"""Samples per second per language: build + run in the sandbox, with the executor's parallel workers.

    .venv/bin/python benchmarks/languages.py [--languages swift,rust,...] [--per-language 20] [--workers 2]
    .venv/bin/python benchmarks/languages.py --swifteval     # SwiftEval's setting: 28 problems x 20 samples
    .venv/bin/python benchmarks/languages.py --bare          # also MultiPL-E's own commands, bare, side by side
    .venv/bin/python benchmarks/languages.py --paths         # judged as cases against the program path, side by side
    .venv/bin/python benchmarks/languages.py --per-language 161 --samples 5 --bare   # 5 distinct samples a problem

MultiPL-E has no reference solutions outside Python, so the per-language workload is the canary's
program (prompt + stub + the real tests): a full build of the real test code plus a run. The
SwiftEval setting uses swift-suite's references, each of the 20 samples made distinct (a comment
with its number) so that nothing is deduplicated; a second pass with 20 identical samples per
problem shows what deduplication saves. Results are printed as a Markdown table.

--samples N judges N distinct samples of each problem (the canary's program with N different numbers of
trailing blank lines, so none is deduplicated), as a run of n samples a problem does: a few milliseconds'
programs then weigh more than the sandbox's one-time start and the machine's noise.

--bare also runs the same programs with the commands MultiPL-E's evaluator uses for each language
(evaluation/src/eval_<lang>.py upstream: `swiftc f.swift -o f && ./f`, `rustc f.rs -o f`, `go test
f_test.go`, `javac -d out f.java && java -ea -cp out Problem`, ...), directly on the host with the
same number of parallel workers: no sandbox, no limits, no phase classification. That is the peer:
what MultiPL-E's evaluation does inside its container, minus the container.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from assay.benchmarks import load_benchmark
from assay.execution import Executor
from assay.languages import get_language, language_names, toolchain_binds
from assay.languages.base import ToolchainMissing
from assay.problems import test_program
from assay.samples import Sample
from assay.sandbox import get_sandbox
from assay.store import RunStore

DATA = Path(os.environ.get("ASSAY_DATA_DIR") or os.environ.get("ASSAY_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
SHORT = {"python": "py", "rust": "rs", "csharp": "cs", "javascript": "js", "typescript": "ts", "ruby": "rb", "perl": "pl",
         "racket": "rkt", "bash": "sh", "haskell": "hs", "ocaml": "ml", "clojure": "clj"}  # fmt: skip


def timed_run(bench, samples: list[Sample], workers: int) -> tuple[float, dict[str, int]]:  # type: ignore[no-untyped-def]
    """Wall seconds to judge these samples in a fresh run store, and the status counts."""
    languages = {bench.problems[s.task_id].language for s in samples}
    sandbox = get_sandbox(ro_binds=toolchain_binds(languages))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = RunStore(Path(tmp) / "run")
            executor = Executor(sandbox, bench, workers=workers)
            store.add_samples([dataclasses.replace(s, program_hash=executor.key(s)) for s in samples])
            started = time.monotonic()
            executor.run(samples, store)
            elapsed = time.monotonic() - started
            counts: dict[str, int] = {}
            for *_, verdict in store.results():
                if verdict is not None:
                    counts[verdict.status.value] = counts.get(verdict.status.value, 0) + 1
            store.close()
    finally:
        close = getattr(sandbox, "close", None)
        if close:
            close()
    return elapsed, counts


# MultiPL-E's commands per language (evaluation/src/eval_<lang>.py), run in the program's own temp
# dir; {f} is the program file, {b} the file without its extension, {cp} the javatuples classes.
BARE: dict[str, tuple[str, list[str]]] = {
    "python": ("py", ["python3 {f}"]),
    "javascript": ("js", ["node {f}"]),
    "lua": ("lua", ["lua5.4 {f}"]),
    "ruby": ("rb", ["ruby {f}"]),
    "php": ("php", ["php {f}"]),
    "perl": ("pl", ["perl {f}"]),
    "bash": ("sh", ["bash {f}"]),
    "r": ("r", ["Rscript {f}"]),
    "racket": ("rkt", ["racket {f}"]),
    "swift": ("swift", ["swiftc {f} -o {b}", "{b}"]),
    "rust": ("rs", ["rustc {f} -o {b}", "{b}"]),
    "cpp": ("cpp", ["g++ {f} -o {b} -std=c++17", "{b}"]),
    "go": ("go", ["go test {f}"]),
    "java": ("java", ["javac -encoding UTF8 -cp {cp} -d out {f}", "java -ea -cp out:{cp} Problem"]),
    "scala": ("scala", ["scalac -d out {f}", "scala -cp out Problem"]),
}


def step(tool: str) -> str:
    """A command's name for the outcome counts: the tool, or "program" for the built binary."""
    name = os.path.basename(tool)
    return "program" if name[:1] == "p" and name[1:].isdigit() else name


def bare_run(language: str, programs: list[str], workers: int) -> tuple[float, dict[str, int]] | None:
    """Wall seconds for MultiPL-E's own commands over these programs, on the host, and how far each
    got (the step that failed: a compile error would make the peer look faster); None: no command."""
    if language not in BARE:
        return None
    ext, commands = BARE[language]
    javatuples = next(iter(glob.glob(os.path.expanduser("~/.cache/assay/toolchains/java-*/javatuples"))), "")
    with tempfile.TemporaryDirectory() as shared:
        env = {**os.environ, "GOCACHE": f"{shared}/go-build", "GOFLAGS": "-count=1"}  # a cold Go cache per batch

        def one(index: int, program: str) -> str:
            with tempfile.TemporaryDirectory() as tmp:
                name = f"p{index}_test" if language == "go" else f"p{index}"
                path = Path(tmp) / f"{name}.{ext}"
                path.write_text(program)
                (Path(tmp) / "out").mkdir()
                for command in commands:
                    argv = command.format(f=path, b=Path(tmp) / name, cp=javatuples).split()
                    try:
                        done = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, timeout=60)
                    except subprocess.TimeoutExpired:
                        return f"timeout in {step(argv[0])}"
                    if done.returncode != 0:
                        return f"exit {done.returncode} from {step(argv[0])}"
                return "exit 0"

        started = time.monotonic()
        with ThreadPoolExecutor(workers) as pool:
            outcomes = list(pool.map(one, range(len(programs)), programs))
        elapsed = time.monotonic() - started
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome] = counts.get(outcome, 0) + 1
    return elapsed, counts


def as_programs(bench):  # type: ignore[no-untyped-def]
    """The same benchmark judged the old way: MultiPL-E's own test section, in the sample's process."""
    problems = {pid: dataclasses.replace(p, tests=test_program(p)) for pid, p in bench.problems.items()}
    return dataclasses.replace(bench, name=bench.name + " (program)", problems=problems)


def paths(names: list[str], n: int, workers: int) -> None:
    """Cases (the harness reports outputs, Assay compares) against the program path, side by side."""
    print("| language | programs | program path: wall s | cases: wall s | cases ÷ program (time) | cases statuses |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name in names:
        language = get_language(name)
        try:
            language.toolchain()
        except ToolchainMissing as exc:
            print(f"| {name} | missing: {exc} | | | | |")
            continue
        bench = load_benchmark(f"multipl-e/humaneval-{SHORT.get(name, name)}", data_dir=DATA)
        problems = list(bench.problems.values())[:n]
        samples = [Sample(p.id, 0, None, p.prompt + language.stub, i) for i, p in enumerate(problems)]
        program, _ = timed_run(as_programs(bench), samples, workers)
        cases, counts = timed_run(bench, samples, workers)
        print(f"| {name} | {len(samples)} | {program:.1f} | {cases:.1f} | {cases / program:.2f} | {counts} |", flush=True)


def canaries(problems, stub: str, samples: int) -> list[Sample]:  # type: ignore[no-untyped-def]
    """The canary's program for each problem, `samples` distinct ones a problem (trailing blank lines)."""
    return [Sample(p.id, r, None, p.prompt + stub + "\n" * r, i) for r in range(samples) for i, p in enumerate(problems)]


def per_language(names: list[str], n: int, workers: int, bare: bool = False, samples: int = 1) -> None:
    head = "| language | toolchain | programs | wall s | programs/s | statuses |"
    if bare:
        head += " bare MultiPL-E commands: wall s | their outcomes | speed-up (bare ÷ Assay) |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for name in names:
        language = get_language(name)
        try:
            version = language.toolchain().version
        except ToolchainMissing as exc:
            print(f"| {name} | missing: {exc} | | | | |")
            continue
        bench = load_benchmark(f"multipl-e/humaneval-{SHORT.get(name, name)}", data_dir=DATA)
        problems = list(bench.problems.values())[:n]
        judged = canaries(problems, language.stub, samples)
        elapsed, counts = timed_run(bench, judged, workers)
        row = f"| {name} | {version[:40]} | {len(judged)} | {elapsed:.1f} | {len(judged) / elapsed:.2f} | {counts} |"
        if bare:
            programs = [str(s.solution) + test_program(bench.problems[s.task_id]).code for s in judged]
            peer = bare_run(name, programs, workers)
            row += f" {peer[0]:.1f} | {peer[1]} | {peer[0] / elapsed:.2f}x |" if peer else " — | — | — |"
        print(row, flush=True)


def swifteval(workers: int, problems: int = 28, n: int = 20) -> None:
    bench = load_benchmark("swift-suite")
    chosen = list(bench.problems.values())[:problems]
    distinct = [Sample(p.id, i, None, p.reference_program() + f"\n// sample {i}\n", 0) for p in chosen for i in range(n)]
    same = [Sample(p.id, i, None, p.reference_program(), 0) for p in chosen for i in range(n)]
    for label, samples in (("distinct samples", distinct), ("identical samples (deduplicated)", same)):
        elapsed, counts = timed_run(bench, samples, workers)
        print(f"swift-suite {len(chosen)} problems x {n} samples, {label}: {elapsed:.1f} s, {len(samples) / elapsed:.2f} samples/s, {counts}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default=",".join(language_names()))
    parser.add_argument("--per-language", type=int, default=20)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--samples", type=int, default=1, help="distinct samples a problem (default 1)")
    parser.add_argument("--swifteval", action="store_true")
    parser.add_argument("--bare", action="store_true", help="also time MultiPL-E's own commands on the host")
    parser.add_argument("--paths", action="store_true", help="cases against the program path (MultiPL-E's test section), side by side")
    args = parser.parse_args()
    if args.swifteval:
        swifteval(args.workers)
    elif args.paths:
        paths([n for n in args.languages.split(",") if n], args.per_language, args.workers)
    else:
        per_language([n for n in args.languages.split(",") if n], args.per_language, args.workers, args.bare, args.samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
