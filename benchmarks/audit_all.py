"""`assay audit` over everything in shared/data: counts of findings per check and benchmark, as a markdown table.

    .venv/bin/python benchmarks/audit_all.py [--data-dir ../shared/data] [--strength] [--canary] [--cross-references] [--out audit-all.md]

By default the slow checks (mutants, canary builds, HumanEval-X's solutions built and judged) are off:
what runs is the translation lints on every MultiPL-E file and on the mxeval / HumanEval-XL files, and
the reference checks (and HumanEval against HumanEval+) of the Python benchmarks. Not a test: a
measurement for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--strength", action="store_true", help="also measure test strength (slow)")
    parser.add_argument("--canary", action="store_true", help="also build prompt + stub + tests (slow: every compiler)")
    parser.add_argument("--cross-references", action="store_true", help="also judge HumanEval-X's solutions (slow: five compilers)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from assay.audit.checks import CHECKS
    from assay.benchmarks import benchmark_names

    names = ["humaneval", "humaneval-plus", "mbpp-plus", "swift-suite"] + [n for n in benchmark_names() if n.startswith("multipl-e/")]
    names += [str(p) for p in sorted((args.data_dir / "mxeval").glob("*.jsonl")) + sorted((args.data_dir / "humaneval-xl").glob("*.jsonl"))]
    env = {**os.environ, "ASSAY_DATA_DIR": str(args.data_dir)}
    rows: list[tuple[str, int, dict[str, int], float]] = []
    for name in names:
        flags = [] if args.strength else ["--no-strength"]
        flags += [] if args.canary else ["--no-canary"]
        flags += [] if args.cross_references else ["--no-cross-references"]
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "assay.cli", "audit", name, "--format", "json", *flags], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(f"{name}: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}", file=sys.stderr)
            continue
        data = json.loads(proc.stdout)
        rows.append((Path(name).name if "/" in name and Path(name).exists() else name, data["n_problems"], data["counts"], time.monotonic() - started))
        print(f"{name}: {sum(data['counts'].values())} findings", file=sys.stderr)
    checks = [c for c in CHECKS if any(c in counts for _, _, counts, _ in rows)]
    lines = ["| benchmark | problems | " + " | ".join(checks) + " | seconds |", "| --- | ---: | " + " | ".join("---:" for _ in checks) + " | ---: |"]
    for name, n, counts, seconds in rows:
        lines.append(f"| {name} | {n} | " + " | ".join(str(counts[c]) if c in counts else "-" for c in checks) + f" | {seconds:.0f} |")
    totals = {c: sum(counts.get(c, 0) for _, _, counts, _ in rows) for c in checks}
    lines.append(f"| **total** | {sum(n for _, n, _, _ in rows)} | " + " | ".join(str(totals[c]) for c in checks) + " | |")
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
