"""Repository tasks: wall time and disk per task in the bubblewrap workspace and in podman, side by side,
against SWE-bench's published requirement (120 GB of free disk and 8 cores for its Docker harness).

    .venv/bin/python benchmarks/swe.py [--tasks ../shared/data/repo-tasks] [--tasks mined.jsonl ...] [--repos DIR ...] [-j 2]
                                       [--runtime bwrap --runtime podman]

Grades every task's gold patch with `assay swe evaluate` on each runtime (Assay's venv as the Python
interpreter, so nothing is downloaded; podman with the image `assay swe image build` makes), then
reports, per task, the resolution and seconds on each, the podman/bwrap time ratio, whether the
statuses agree, and the workspace's size when its tests ended (checkout, build outputs, scratch; the
objects are shared with the repository's mirror); and the mirrors' and the image's total size. Not a
test: a measurement for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def grade(runtime: str, tasks: list[Path], repos: list[Path], workers: int, tmp: Path) -> tuple[dict[str, dict[str, object]], int, float]:
    cache, out = tmp / "cache", tmp / f"out-{runtime}"
    command = [str(ROOT / ".venv" / "bin" / "assay"), "swe", "evaluate", "--gold", "--out", str(out), "--cache-dir", str(cache),
               "--python", sys.executable, "-j", str(workers), "--runtime", runtime]
    for t in tasks:
        command += ["--tasks", str(t)]
    for r in repos:
        command += ["--repos", str(r)]
    started = time.monotonic()
    subprocess.run(command, check=False, capture_output=True)
    wall = time.monotonic() - started
    rows = {r["instance_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    mirrors = sum(f.stat().st_size for f in (cache / "swe" / "repos").rglob("*") if f.is_file())
    return rows, mirrors, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, action="append", default=[])
    parser.add_argument("--repos", type=Path, action="append", default=[])
    parser.add_argument("--runtime", action="append", default=[])
    parser.add_argument("-j", "--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = args.tasks or [ROOT.parent / "shared" / "data" / "repo-tasks"]
    repos = args.repos or [ROOT.parent / "shared" / "data" / "repos"]
    runtimes = args.runtime or ["bwrap", "podman"]
    with tempfile.TemporaryDirectory() as tmp:
        graded = {rt: grade(rt, tasks, repos, args.workers, Path(tmp)) for rt in runtimes}
    first = runtimes[0]
    rows = graded[first][0]
    head = " | ".join(f"{rt} | {rt} s" for rt in runtimes)
    ratio = len(runtimes) > 1
    print(f"| task | {head} |{' ratio | same statuses |' if ratio else ''} workspace MB |")
    print("| --- |" + " --- | ---: |" * len(runtimes) + (" ---: | --- |" if ratio else "") + " ---: |")
    for iid in sorted(rows):
        cells = []
        for rt in runtimes:
            r = graded[rt][0].get(iid)
            cells.append(f"{r['resolution']} | {r['seconds']:.1f}" if r else "missing | -")
        extra = ""
        if ratio:
            other = graded[runtimes[1]][0].get(iid)
            extra = (f" {other['seconds'] / rows[iid]['seconds']:.2f} | {'yes' if other['statuses'] == rows[iid]['statuses'] else 'NO'} |"
                     if other else " - | - |")
        print(f"| {iid} | {' | '.join(cells)} |{extra} {rows[iid]['disk_bytes'] / 1e6:.1f} |")
    print()
    for rt in runtimes:
        got, mirrors, wall = graded[rt]
        seconds = [float(r["seconds"]) for r in got.values()]
        disk = [int(r["disk_bytes"]) for r in got.values()]
        resolved = sum(r["resolution"] == "RESOLVED_FULL" for r in got.values())
        print(f"{rt}: {len(got)} tasks, {resolved} resolved, {wall:.0f} s wall with -j {args.workers}; task time {sum(seconds):.0f} s, mean "
              f"{sum(seconds) / max(1, len(got)):.1f} s, max {max(seconds, default=0):.1f} s; workspace mean {sum(disk) / max(1, len(got)) / 1e6:.1f} MB, "
              f"max {max(disk, default=0) / 1e6:.1f} MB; mirrors {mirrors / 1e6:.1f} MB")
    if ratio:
        same = sum(graded[runtimes[1]][0].get(i, {}).get("statuses") == r["statuses"] for i, r in rows.items())
        print(f"statuses equal on {same} of {len(rows)} tasks; {runtimes[1]}/{first} task time "
              f"{sum(float(r['seconds']) for r in graded[runtimes[1]][0].values()) / sum(float(r['seconds']) for r in rows.values()):.2f}")
    if "podman" in runtimes:
        size = subprocess.run(["podman", "image", "inspect", "--format", "{{.Size}}", "localhost/assay-swe:bookworm"], capture_output=True,
                              text=True).stdout.strip()
        print(f"the podman image: {int(size) / 1e9:.2f} GB, shared by every task" if size.isdigit() else "")
    print("SWE-bench's harness asks for 120 GB of free disk and 8 cores")


if __name__ == "__main__":
    main()
