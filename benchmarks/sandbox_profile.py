"""Where a sandboxed run's time goes: the zygote sandbox's steps, timed from inside, for a run of two phases.

    .venv/bin/python benchmarks/sandbox_profile.py [--runs 300] [--argv /bin/true]
    .venv/bin/python benchmarks/sandbox_profile.py --bare-cost [--benchmark humaneval] [--workers 2]

The zygote's source is copied with time stamps added at each step (the copy is what runs; Assay's own file
is not changed), then one worker runs the same two-phase job (a build and a run of `argv`, the shape of an
interpreted language's case run) many times, under the zygote's Python init and then under the C run init
(_run_init.c, which phased runs use where a C compiler built it; only the zygote's steps around it are
stamped). Each step's median is printed, from the host's send to the host's reply: how long the zygote takes to make the run's namespaces (fork, unshare, the id maps, fork of the
run's init), the init's mounts and files, each phase's start and end, the namespaces' teardown.

--bare-cost judges the distinct programs of the real samples (WizardCoder-34B's, as benchmarks/speed.py) with the
executor and its workers, and compares the workers' time with the bare cost of the same work: for each program
a sandbox launch (the median wall time of a run of /bin/true, measured first)
plus the CPU time the run itself used (the driver, the sample and its tests, as the run's init measured it).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import statistics
import tempfile
import time
from pathlib import Path

import assay.sandbox.zygote as zygote_module
from assay.sandbox import SandboxLimits, ZygoteSandbox
from assay.sandbox.base import Phase

# (anchor in _zygote_main.py, the same text with a stamp added)
STAMPS = [
    ('def init(header: dict[str, Any], fds: list[int], blob: bytes) -> None:\n    """G: pid 1 of the run\'s namespaces. Mount, fork the program (or each phase), reap, report, exit."""\n',
     "STAMPS = []\n\n\ndef stamp(name):\n    STAMPS.append((name, time.monotonic()))\n\n\n"
     'def init(header: dict[str, Any], fds: list[int], blob: bytes) -> None:\n    """G: pid 1 of the run\'s namespaces. Mount, fork the program (or each phase), reap, report, exit."""\n'
     '    stamp("init starts (pid 1 of the new namespaces)")\n'),
    ('    os.chdir(WORK)\n    if header.get("phases"):', '    os.chdir(WORK)\n    stamp("mounts made, files written")\n    if header.get("phases"):'),
    ("        fds, status_fd = moved, moved[4]\n", '        fds, status_fd = moved, moved[4]\n    stamp("capabilities dropped, descriptors moved")\n'),
    ("        pidfd = os.pidfd_open(pid)\n", '        stamp("phase " + phase["name"] + " spawned")\n        pidfd = os.pidfd_open(pid)\n'),
    ("        os.close(pidfd)\n        if timed_out:", '        stamp("phase ended")\n        os.close(pidfd)\n        if timed_out:'),
    ("        kill_all_but_me()\n        cpu =", '        kill_all_but_me()\n        stamp("phase reaped, the rest killed")\n        cpu ='),
    ('    for fd in fds[:4]:\n        os.close(fd)\n    os.write(status_fd, "".join(results).encode())',
     '    os.write(fds[2], ("STAMPS " + json.dumps(STAMPS) + "\\n").encode())\n    for fd in fds[:4]:\n        os.close(fd)\n    os.write(status_fd, "".join(results).encode())'),
    ("        g = start_native_job(", "        t_recv = time.monotonic()\n        g = start_native_job("),
    ('        sock.sendall(json.dumps({"timed_out": bool(timed_out), "started": g > 0}).encode() + b"\\n")',
     '        sock.sendall(json.dumps({"timed_out": bool(timed_out), "started": g > 0, "t": [t_recv, time.monotonic()]}).encode() + b"\\n")'),
]


def instrumented(source: str) -> str:
    for anchor, replacement in STAMPS:
        if anchor not in source:
            raise SystemExit(f"the zygote's source changed: no {anchor[:60]!r}; update benchmarks/sandbox_profile.py")
        source = source.replace(anchor, replacement, 1)
    return source


def bare_cost(benchmark: str, workers: int, samples_file: str) -> None:
    import dataclasses
    import os
    import threading

    from assay.benchmarks import load_benchmark
    from assay.execution import Executor
    from assay.samples import read_samples
    from assay.sandbox import get_sandbox
    from assay.store import RunStore

    data = Path(os.environ.get("ASSAY_DATA_DIR") or Path(__file__).resolve().parents[2] / "shared" / "data")
    bench = load_benchmark(benchmark, data_dir=data)
    samples = [s for s in read_samples(data / samples_file) if s.task_id in bench.problems]
    sandbox = get_sandbox()
    limits = SandboxLimits(cpu_seconds=5, wall_seconds=10, memory_bytes=1 << 31, processes=64, file_size_bytes=1 << 24, open_files=256)
    launches = []
    for _ in range(100):
        start = time.monotonic()
        sandbox.run(["/bin/true"], {}, limits)
        launches.append(time.monotonic() - start)
    launch = statistics.median(launches[10:])
    cpu: list[float] = []
    lock = threading.Lock()
    run = sandbox.run

    def counted(*a, **k):  # type: ignore[no-untyped-def]
        result = run(*a, **k)
        with lock:
            cpu.append(result.cpu_seconds)
        return result

    sandbox.run = counted  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "run")
        executor = Executor(sandbox, bench, workers=workers)
        firsts = list({s.task_id: s for s in reversed(samples)}.values())
        warm = RunStore(Path(tmp) / "warm")  # references and labels first, as in a warm cache
        warm.add_samples([dataclasses.replace(s, program_hash=executor.key(s)) for s in firsts])
        executor.run(firsts, warm)
        warm.close()
        cpu.clear()
        store.add_samples([dataclasses.replace(s, program_hash=executor.key(s)) for s in samples])
        start = time.monotonic()
        executor.run(samples, store)
        wall = time.monotonic() - start
        store.close()
    close = getattr(sandbox, "close", None)
    if close:
        close()
    bare = len(cpu) * launch + sum(cpu)
    print(f"{benchmark}: {len(samples)} samples, {len(cpu)} sandboxed runs, {workers} workers, {wall:.1f} s wall")
    print(f"  a sandbox launch (a run of /bin/true): {launch * 1000:.1f} ms; the runs' own CPU: {sum(cpu):.1f} s")
    print(f"  bare cost: {len(cpu)} launches + their CPU = {bare:.1f} s; the workers' time: {workers} x {wall:.1f} = {workers * wall:.1f} s")
    print(f"  workers' time / bare cost = {workers * wall / bare:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--argv", default="/bin/true")
    parser.add_argument("--bare-cost", action="store_true")
    parser.add_argument("--benchmark", default="humaneval")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--samples", default="samples/fasteval/WizardLM--WizardCoder-Python-34B-V1.0/samples.jsonl")
    args = parser.parse_args()
    if args.bare_cost:
        bare_cost(args.benchmark, args.workers, args.samples)
        return
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "zygote_main.py"
        copy.write_text(instrumented(zygote_module._MAIN.read_text()))
        zygote_module._MAIN = copy
        argv = tuple(args.argv.split())
        for c_init in (False, True):
            steps, totals = profile(argv, args.runs, c_init)
            which = "the C run init (_run_init.c)" if c_init else "the zygote's Python init"
            print(f"{args.runs} runs of two phases of {args.argv!r} under {which}, one worker; median ms per step:")
            for name, values in steps.items():
                print(f"{statistics.median(values):7.3f}  {name}")
            print(f"{statistics.median(totals):7.3f}  total (median; best {min(totals):.3f})")


def profile(argv: tuple[str, ...], runs: int, c_init: bool) -> tuple[dict[str, list[float]], list[float]]:
    """Each step's times over `runs` runs of a two-phase job; the C init's steps are timed from the zygote only."""
    limits = SandboxLimits(cpu_seconds=5, wall_seconds=10, memory_bytes=1 << 31, processes=64, file_size_bytes=1 << 24, open_files=256)
    sandbox = ZygoteSandbox(c_init=c_init)
    if c_init and not sandbox.run_init:
        raise SystemExit("the C run init could not be built here (no C compiler?)")
    sandbox.run(["/bin/true"], {}, limits)
    zygote = sandbox._all[0]
    pump, replies = zygote._pump, []

    def spy(*a, **k):  # type: ignore[no-untyped-def]
        out = pump(*a, **k)
        replies.append(out[0])
        return out

    zygote._pump = spy  # type: ignore[method-assign]
    phases = [Phase("build", argv, 5, 10), Phase("run", argv, 5, 10)]
    steps: dict[str, list[float]] = collections.defaultdict(list)
    totals = []
    for _ in range(runs):
        start = time.monotonic()
        result = sandbox.run_phases(phases, {"main.sh": b"x" * 2000}, limits)
        end = time.monotonic()
        inside = [] if c_init else json.loads(result.stderr.decode().split("STAMPS ", 1)[1])
        received, replied = replies[-1]["t"]
        last = "zygote has reaped the init (namespaces gone)"
        points = [("host sends the job", start), ("zygote has read it", received), *inside, (last, replied), ("host has the reply", end)]
        for (a, ta), (b, tb) in itertools.pairwise(points):
            steps[f"{a} -> {b}"].append((tb - ta) * 1000)
        totals.append((end - start) * 1000)
    sandbox.close()
    return steps, totals


if __name__ == "__main__":
    main()
