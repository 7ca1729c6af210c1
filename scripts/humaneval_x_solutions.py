"""HumanEval-X's canonical solutions, real code in C++, Go, Java, JavaScript and Rust, judged on HumanEval+'s inputs.

    .venv/bin/python scripts/humaneval_x_solutions.py [--languages js,cpp,go,java,rs] [--failures 20] [--json out.json]

Each solution is fitted to MultiPL-E's prompt by an adapter (src/assay/audit/crossref/<lang>.py) and
judged by `humaneval-plus/<lang>`: the Python reference labels the inputs, the language's case
harness reports the solution's outputs, Assay compares them under EvalPlus's rules. Prints the pass
rate per language and every failure with its message, for classification (a rendering bug of ours,
a translation defect of the benchmark, or a wrong reference).

Each failing solution is judged a second time on the cases inside the types HumanEval-X gave it
(`DOMAINS`: ints and floats within its integer type, strings it reads as such: C++'s and Go's
byte strings hold ASCII only, Java's and JavaScript's UTF-16 the Basic Multilingual Plane). One that
passes there fails only where its translation's types cannot follow Python (an `int` that overflows,
a string indexed by byte): a translation defect, told apart from the rest by measurement, not by eye.

Every other failure is classified by hand in src/assay/audit/crossref/<lang>.classes.json
({"HumanEval_58_common": {"class": "wrong-reference", "why": "..."}}, classes in CLASSES); the script
prints the table per language and class, and flags a failure nobody classified or a classification
whose problem now passes. `assay audit humaneval-plus/<lang>` reports the same disagreements as findings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from assay.audit.crossref import CLASSES, DOMAINS, LANGUAGE, Judged, classes_of, judge_language
from assay.benchmarks import load_benchmark
from assay.languages import toolchain_binds
from assay.sandbox import get_sandbox

DATA = Path(os.environ.get("ASSAY_DATA_DIR") or os.environ.get("ASSAY_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


def run_language(lang: str, args: argparse.Namespace) -> list[Judged]:
    """Every HumanEval-X solution of the language, judged on humaneval-plus/<lang> (failures again inside their types)."""
    cache = Path(os.environ.get("ASSAY_CACHE_DIR", Path.home() / ".cache" / "assay"))
    bench = load_benchmark(f"humaneval-plus/{lang}", data_dir=DATA, cache_dir=cache)
    sandbox = get_sandbox(ro_binds=toolchain_binds({LANGUAGE[lang]}))
    try:
        only = set(args.only.split(",")) if args.only else None
        judged = judge_language(lang, bench, sandbox, DATA, workers=args.workers, cache_dir=cache, only=only, narrow=args.narrow)
    finally:
        close = getattr(sandbox, "close", None)
        if close:
            close()
    return judged[: args.limit] if args.limit else judged


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
    report: dict[str, dict[str, dict[str, Any]]] = {}
    for lang in args.languages.split(","):
        judged = run_language(lang, args)
        passed = sum(j.verdict.passed for j in judged)
        typed = sum(1 for j in judged if j.inside is not None and j.inside[1].passed)
        print(f"## {lang}: {passed}/{len(judged)} HumanEval-X solutions pass humaneval-plus/{lang};"
              f" {typed} more pass inside their types ({DOMAINS[lang]})", flush=True)
        failed = [j for j in judged if not j.verdict.passed]
        for j in failed[: args.failures]:
            within = f" [inside its types: {j.inside[0]} cases, {j.inside[1].status.value}]" if j.inside is not None else ""
            print(f"- {j.problem}: {j.verdict.status.value}{within}: {j.verdict.message[:300]}")
        report[lang] = {j.problem: {"status": j.verdict.status.value, "message": j.verdict.message[:1000]} for j in judged}
        for j in judged:
            if j.inside is not None:
                report[lang][j.problem]["inside_types"] = {"cases": j.inside[0], "status": j.inside[1].status.value,
                                                           "message": j.inside[1].message[:1000]}
        known = classes_of(lang)
        for j in failed:
            report[lang][j.problem]["class"] = cls = j.cls(lang)
            if cls == "unclassified" and not args.only:
                print(f"  ! {j.problem} is not classified in src/assay/audit/crossref/{lang}.classes.json")
        verdicts = {j.problem: j.verdict for j in judged}
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
