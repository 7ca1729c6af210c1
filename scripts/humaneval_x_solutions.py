"""HumanEval-X's canonical solutions, real code in C++, Go, Java, JavaScript and Rust, judged on HumanEval+'s inputs.

    .venv/bin/python scripts/humaneval_x_solutions.py [--languages js,cpp,go,java,rs] [--failures 20] [--json out.json]

Each solution is fitted to MultiPL-E's prompt by an adapter (scripts/hx_adapters/<lang>.py) and
judged by `humaneval-plus/<lang>`: the Python reference labels the inputs, the language's case
harness reports the solution's outputs, Assay compares them under EvalPlus's rules. Prints the pass
rate per language and every failure with its message, for classification (a rendering bug of ours,
a translation defect of the benchmark, or a wrong reference).

Each failing solution is judged a second time on the cases inside the types HumanEval-X gave it
(`DOMAINS`: ints and floats within its integer type, strings it reads as such: C++'s and Go's
byte strings hold ASCII only, Java's and JavaScript's UTF-16 the Basic Multilingual Plane). One that
passes there fails only where its translation's types cannot follow Python (an `int` that overflows,
a string indexed by byte): a translation defect, told apart from the rest by measurement, not by eye.

Every other failure is classified by hand in scripts/hx_adapters/<lang>.classes.json
({"HumanEval_58_common": {"class": "wrong-reference", "why": "..."}}, classes in CLASSES); the script
prints the table per language and class, and flags a failure nobody classified or a classification
whose problem now passes.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import importlib
import json
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from assay.benchmarks import load_benchmark
from assay.benchmarks.plus_languages import python_id
from assay.execution import Executor
from assay.languages import toolchain_binds
from assay.problems import CaseTests, Problem, Status, Verdict
from assay.sandbox import get_sandbox

DATA = Path(os.environ.get("ASSAY_DATA_DIR") or os.environ.get("ASSAY_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
FILES = {"cpp": "cpp", "go": "go", "java": "java", "js": "js", "rs": "rust"}
# (integer bound, strings) of HumanEval-X's types per language: C++/Java/Rust `int`/`i32`, Go's 64-bit int,
# JavaScript's exact integers in a double.
DOMAINS: dict[str, tuple[int, str]] = {"cpp": (2**31, "ascii"), "java": (2**31, "bmp"), "rs": (2**31, "any"),
                                       "go": (2**63, "ascii"), "js": (2**53, "bmp")}

CLASSES = {
    "narrow-types": "fails only outside the types HumanEval-X gave it (measured: passes every case inside them)",
    "float32": "MultiPL-E's prompt (and HumanEval-X) use 32-bit float where Python computes in double",
    "wrong-reference": "HumanEval-X's solution is wrong on inputs its types hold (the Python reference, and the docstring, say otherwise)",
    "inherited": "HumanEval-X kept the original HumanEval ground truth that EvalPlus corrected",
    "too-slow": "correct, but past the time limit on HumanEval+'s inputs where the Python reference is fast",
    "environment": "needs a library this machine does not have (and MultiPL-E's image does not either)",
    "adapter": "our adapter cannot fit HumanEval-X's function to MultiPL-E's signature",
    "assay": "a bug of Assay's (rendering, decoding, comparison): fixed, so none may stay listed",
}


def classes_of(lang: str) -> dict[str, dict[str, str]]:
    path = Path(__file__).resolve().parent / "hx_adapters" / f"{lang}.classes.json"
    return json.loads(path.read_text()) if path.exists() else {}


def inside(value: Any, bound: int, strings: str) -> bool:
    """Whether a plain value is inside HumanEval-X's types: numbers within the bound, strings it reads as text."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return -bound <= value < bound
    if isinstance(value, float):
        return not math.isfinite(value) or abs(value) < bound
    if isinstance(value, str):
        return strings == "any" or all(ord(c) < (128 if strings == "ascii" else 0x10000) for c in value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(inside(v, bound, strings) for v in value)
    if isinstance(value, dict):
        return all(inside(k, bound, strings) and inside(v, bound, strings) for k, v in value.items())
    return False  # a digest-only huge output


def narrowed(executor: Executor, problem: Problem, lang: str) -> Problem:
    """The problem with only the cases (inputs and expected outputs) inside HumanEval-X's types."""
    tests = problem.tests
    assert isinstance(tests, CaseTests)
    exp = executor.expected(problem)
    bound, strings = DOMAINS[lang]
    bad = set(exp.invalid)
    cases = tuple(c for i, c in enumerate(tests.cases)
                  if i not in bad and inside(c.args, bound, strings) and inside(exp.values[i], bound, strings))
    return dataclasses.replace(problem, tests=dataclasses.replace(tests, cases=cases))


def judge_language(lang: str, args: argparse.Namespace) -> tuple[dict[str, Verdict], dict[str, tuple[int, Verdict]]]:
    """Every HumanEval-X solution in this language, adapted and judged on humaneval-plus/<lang>; each failure
    judged again inside its types (cases kept, verdict)."""
    adapter = importlib.import_module(f"hx_adapters.{lang}")
    cache = Path(os.environ.get("ASSAY_CACHE_DIR", Path.home() / ".cache" / "assay"))
    bench = load_benchmark(f"humaneval-plus/{lang}", data_dir=DATA, cache_dir=cache)
    with gzip.open(DATA / "humaneval-x" / f"humaneval_{FILES[lang]}.jsonl.gz", "rt") as rows_file:
        rows = {r["task_id"].split("/")[1]: r for r in map(json.loads, rows_file)}
    language = next(iter(bench.problems.values())).language
    sandbox = get_sandbox(ro_binds=toolchain_binds({language}))
    executor = Executor(sandbox, bench, workers=args.workers, cache_dir=cache)
    narrow = Executor(sandbox, bench, workers=args.workers, cache_dir=cache)  # plans of its own for the narrowed cases
    problems = list(bench.problems.values())[: args.limit or None]
    if args.only:
        wanted = set(args.only.split(","))
        problems = [p for p in problems if p.id.split("_")[1] in wanted]

    def judge(problem: Problem) -> tuple[str, Verdict | None, tuple[int, Verdict] | None]:
        row = rows.get(python_id("humaneval", problem.id).split("/")[1])
        if row is None:
            return problem.id, None, None
        try:
            code = adapter.adapt(problem, row)
            verdict = executor.judge(problem, code)
            if verdict.passed or not args.narrow:
                return problem.id, verdict, None
            inner = narrowed(executor, problem, lang)
            assert isinstance(inner.tests, CaseTests)
            return problem.id, verdict, (len(inner.tests.cases), narrow.judge(inner, code))
        except Exception as exc:  # a crash of Assay's (or of an adapter) is a verdict of its own here
            return problem.id, Verdict(Status.SANDBOX_ERROR, message=f"crashed: {type(exc).__name__}: {exc}"[:1000]), None

    try:
        with ThreadPoolExecutor(args.workers) as pool:
            results = list(pool.map(judge, problems))
    finally:
        close = getattr(sandbox, "close", None)
        if close:
            close()
    return ({pid: v for pid, v, _ in results if v is not None}, {pid: n for pid, _, n in results if n is not None})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default="js,cpp,go,java,rs")
    parser.add_argument("--failures", type=int, default=40, help="failures to print per language")
    parser.add_argument("--json", type=Path, help="write every verdict here")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N problems (0: all)")
    parser.add_argument("--only", default="", help="only these problem numbers (comma-separated: 12,90)")
    parser.add_argument("--no-narrow", dest="narrow", action="store_false", help="do not judge failures again inside their types")
    parser.add_argument("--no-int-limit", action="store_true",
                        help="lift Python's 4300-digit limit on int-to-str conversion (a plugin that formats a huge int crashes)")
    args = parser.parse_args()
    if args.no_int_limit:
        sys.set_int_max_str_digits(0)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    report: dict[str, dict[str, dict[str, Any]]] = {}
    for lang in args.languages.split(","):
        verdicts, inner = judge_language(lang, args)
        passed = sum(v.passed for v in verdicts.values())
        typed = sum(v.passed for _, v in inner.values())
        print(f"## {lang}: {passed}/{len(verdicts)} HumanEval-X solutions pass humaneval-plus/{lang};"
              f" {typed} more pass inside their types ({DOMAINS[lang]})", flush=True)
        failed = [(pid, v) for pid, v in verdicts.items() if not v.passed]
        for pid, v in failed[: args.failures]:
            kept, again = inner.get(pid, (0, None))
            within = f" [inside its types: {kept} cases, {again.status.value}]" if again is not None else ""
            print(f"- {pid}: {v.status.value}{within}: {v.message[:300]}")
        report[lang] = {pid: {"status": v.status.value, "message": v.message[:1000]} for pid, v in verdicts.items()}
        for pid, (kept, again) in inner.items():
            report[lang][pid]["inside_types"] = {"cases": kept, "status": again.status.value, "message": again.message[:1000]}
        known = classes_of(lang)
        for pid, _ in failed:
            again = inner.get(pid, (0, None))[1]
            cls = "narrow-types" if again is not None and again.passed else known.get(pid, {}).get("class", "unclassified")
            report[lang][pid]["class"] = cls
            if cls == "unclassified" and not args.only:
                print(f"  ! {pid} is not classified in hx_adapters/{lang}.classes.json")
        for pid in known:
            if pid in verdicts and verdicts[pid].passed:
                print(f"  ! {pid} is classified {known[pid]['class']!r} but passes now")
    print("\n| language | solutions | pass | " + " | ".join(c for c in CLASSES if c != "assay") + " | unclassified |")
    print("| --- " * (len(CLASSES) + 3) + "|")
    for lang, rows in report.items():
        counts = {c: sum(r.get("class") == c for r in rows.values()) for c in [*CLASSES, "unclassified"]}
        passed = sum(r["status"] == "passed" for r in rows.values())
        print(f"| {lang} | {len(rows)} | {passed} ({passed / max(len(rows), 1):.0%}) | "
              + " | ".join(str(counts[c]) for c in CLASSES if c != "assay") + f" | {counts['unclassified']} |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
