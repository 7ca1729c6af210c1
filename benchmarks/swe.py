"""Repository tasks: wall time and disk per task in the bubblewrap workspace, against SWE-bench's published
requirement (120 GB of free disk and 8 cores for its Docker harness).

    .venv/bin/python benchmarks/swe.py [--tasks ../shared/data/repo-tasks] [--tasks mined.jsonl ...] [--repos DIR ...] [-j 2]

Grades every task's gold patch with `assay swe evaluate` (Assay's venv as the Python interpreter, so
nothing is downloaded), then reports, per task, the seconds and the workspace's size when its tests
ended (checkout, build outputs, scratch; the objects are shared with the repository's mirror), and the
mirrors' total size. Not a test: a measurement for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, action="append", default=[])
    parser.add_argument("--repos", type=Path, action="append", default=[])
    parser.add_argument("-j", "--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = args.tasks or [ROOT.parent / "shared" / "data" / "repo-tasks"]
    repos = args.repos or [ROOT.parent / "shared" / "data" / "repos"]
    with tempfile.TemporaryDirectory() as tmp:
        cache, out = Path(tmp) / "cache", Path(tmp) / "out"
        command = [str(ROOT / ".venv" / "bin" / "assay"), "swe", "evaluate", "--gold", "--out", str(out), "--cache-dir", str(cache),
                   "--python", sys.executable, "-j", str(args.workers)]
        for t in tasks:
            command += ["--tasks", str(t)]
        for r in repos:
            command += ["--repos", str(r)]
        subprocess.run(command, check=False, capture_output=True)
        rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        mirrors = sum(f.stat().st_size for f in (cache / "swe" / "repos").rglob("*") if f.is_file())
    print("| task | resolution | seconds | workspace MB |\n| --- | --- | ---: | ---: |")
    for r in sorted(rows, key=lambda r: r["instance_id"]):
        print(f"| {r['instance_id']} | {r['resolution']} | {r['seconds']:.1f} | {r['disk_bytes'] / 1e6:.1f} |")
    seconds = [r["seconds"] for r in rows]
    disk = [r["disk_bytes"] for r in rows]
    print(f"\n{len(rows)} tasks: {sum(seconds):.0f} s of task time, mean {sum(seconds) / len(rows):.1f} s, max {max(seconds):.1f} s; "
          f"workspace mean {sum(disk) / len(rows) / 1e6:.1f} MB, max {max(disk) / 1e6:.1f} MB; mirrors {mirrors / 1e6:.1f} MB in all "
          f"(SWE-bench's harness asks for 120 GB and 8 cores)")


if __name__ == "__main__":
    main()
