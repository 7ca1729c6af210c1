"""Python test programs judged with the test and the sample in two processes (assay.languages.python_split).

The property that matters: the sample's process never holds the test's text, so no raw memory read of its own
(numpy's __array_interface__, ctypes) finds the expected values. Checked from outside, as root: the sample's
process and the test's process are read through /proc/PID/mem while the sample sleeps in a call.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
import time
from pathlib import Path

import pytest

from assay.execution import Executor
from assay.languages import python as py
from assay.problems import Benchmark, Problem, ProgramTests, Runner, Status
from assay.sandbox import get_sandbox
from assay.sandbox.base import SandboxLimits


def _bench(test: str, prompt: str = "def f(x):\n    pass\n", entry: str = "f") -> Benchmark:
    problem = Problem(id="T/0", language="python", prompt=prompt, entry_point=entry, reference="",
                      tests=ProgramTests(code=test, runner=Runner.CHECK))
    return Benchmark(name="split", version="1", content_hash=secrets.token_hex(8), source="test", problems={"T/0": problem})


@pytest.fixture(scope="module")
def sandbox():
    box = get_sandbox()
    yield box
    close = getattr(box, "close", None)
    if close:
        close()


def _memory(pid: int) -> bytes:
    """Every readable mapping of a process, read as root through /proc."""
    chunks = []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r") or line.rstrip().endswith("[vsyscall]"):
                continue
            lo, hi = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(lo)
                chunks.append(mem.read(hi - lo))
            except OSError:
                continue
    return b"".join(chunks)


def _find_marked(mark: str) -> int | None:
    """The process holding a file whose name is `mark` open (the sample's process is not dumpable, so it cannot
    rename itself; root still reads its descriptors)."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if any(mark in os.readlink(f"/proc/{name}/fd/{fd}") for fd in os.listdir(f"/proc/{name}/fd")):
                    return int(name)
            except OSError:
                continue
    return None


def _parent(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^PPid:\s+(\d+)", status, re.M).group(1))  # type: ignore[union-attr]


@pytest.mark.skipif(os.geteuid() != 0, reason="reading another process's memory through /proc needs root")
@pytest.mark.parametrize("split", [True, False])
def test_the_sample_process_never_holds_the_test(sandbox, tmp_path, split: bool) -> None:
    token = "assay-expected-" + secrets.token_hex(12)
    mark = "assay-split-" + secrets.token_hex(8)
    test = f"def check(candidate):\n    assert candidate(1) == {token!r}\n"
    sample = (
        "def f(x):\n    import time\n"
        f"    held = open('/tmp/{mark}', 'w')\n"
        "    time.sleep(4)\n    held.close()\n    return 'not it'\n"
    )
    found: dict[str, bool] = {}

    def probe() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            pid = _find_marked(mark)
            if pid is not None:
                time.sleep(0.2)
                found["sample"] = token.encode() in _memory(pid)
                found["test"] = token.encode() in _memory(_parent(pid))
                return
            time.sleep(0.02)

    thread = threading.Thread(target=probe)
    thread.start()
    job = py.program_job(sample, test, "f", "def f(x):\n    pass\n", 10.0, split=split)
    run = py.run_driver(sandbox, job, SandboxLimits(cpu_seconds=10, wall_seconds=30))
    thread.join()
    assert run.report is not None and run.report.get("check", [""])[0] == "assert", run.report
    assert "sample" in found, "the sample's process was never seen"
    if split:
        assert found == {"sample": False, "test": True}  # the test's process has it; the sample's never did
    else:
        assert found["sample"] is True  # the plain mode, for contrast: the test runs in the sample's process


def test_split_verdicts(sandbox, tmp_path) -> None:
    bench = _bench("def check(candidate):\n    assert candidate([3, 1, 2]) == [1, 2, 3]\n    assert candidate([]) == []\n")
    ex = Executor(sandbox, bench, cache_dir=tmp_path)
    problem = bench.problems["T/0"]
    judge = lambda code: ex.judge(problem, code)  # noqa: E731
    assert judge("def f(x):\n    return sorted(x)\n").status is Status.PASSED
    assert judge("def f(x):\n    x.sort()\n    return x\n").status is Status.PASSED  # a mutation, mirrored
    assert judge("def f(x):\n    return x\n").status is Status.FAILED
    raised = judge("def f(x):\n    return x[10]\n")
    assert raised.status is Status.RUNTIME_ERROR and "IndexError" in raised.message
    assert judge("def f(x)\n    return x\n").status is Status.COMPILE_ERROR
    assert judge("import nonexistent_module\ndef f(x):\n    return x\n").status is Status.RUNTIME_ERROR
    assert judge("def f(x):\n    while True:\n        pass\n").status is Status.TIMEOUT
    assert judge("def f(x):\n    return [bytearray(10**12)]\n").status is Status.MEMORY_EXCEEDED
    # the sample's process ends, kills the test's process, or stops it: never a pass
    for hostile in (
        "def f(x):\n    import os\n    os._exit(0)\n",
        "def f(x):\n    import os, signal\n    os.kill(os.getppid(), signal.SIGKILL)\n    return sorted(x)\n",
        "def f(x):\n    import os, signal\n    os.kill(-1, signal.SIGKILL)\n",
        "def f(x):\n    import os\n    os.write(3, b'forged')\n    return sorted(x)[::-1]\n",
        "def f(x):\n    import sys\n    return sys.stdin.read()\n",
        # the driver's stdin (the test, while the driver has not read it yet), its channel and its descriptors
        "def f(x):\n    import os\n    return open(f'/proc/{os.getppid()}/fd/0', 'rb').read().decode()\n",
        "def f(x):\n    import os\n    os.write(os.open(f'/proc/{os.getppid()}/fd/3', os.O_WRONLY), b'x\\n')\n    return sorted(x)[::-1]\n",
        "def f(x):\n    import os\n    return os.listdir(f'/proc/{os.getppid()}/fd')\n",
    ):
        verdict = judge(hostile)
        assert verdict.status is not Status.PASSED, (hostile, verdict)
    # the sample's process ends without a reply while a child it left holds the pipe open: the run ends with it
    orphan = judge("def f(x):\n    import os, time\n    if os.fork() == 0:\n        time.sleep(600)\n    os._exit(0)\n")
    assert orphan.status is Status.RUNTIME_ERROR and "ended during the call" in orphan.message, orphan


def test_a_test_that_passes_the_sample_a_function_runs_in_the_plain_mode(sandbox, tmp_path) -> None:
    bench = _bench("def check(candidate):\n    assert candidate(lambda v: v + 1) == 2\n", prompt="def f(g):\n    pass\n")
    ex = Executor(sandbox, bench, cache_dir=tmp_path)
    problem = bench.problems["T/0"]
    assert ex.judge(problem, "def f(g):\n    return g(1)\n").status is Status.PASSED
    assert ex.judge(problem, "def f(g):\n    return g(2)\n").status is Status.FAILED
    # a test that catches what its call raises cannot keep the run in the split mode by catching that too
    caught = _bench("def check(candidate):\n    try:\n        r = candidate(lambda v: v + 1)\n    except Exception:\n        r = None\n"
                    "    assert r == 2\n", prompt="def f(g):\n    pass\n")
    ex2 = Executor(sandbox, caught, cache_dir=tmp_path / "caught")
    assert ex2.judge(caught.problems["T/0"], "def f(g):\n    return g(1)\n").status is Status.PASSED


def test_the_sample_cannot_choose_the_plain_mode(sandbox, tmp_path) -> None:
    # The test hands the sample's own result back to it: an unplain result then fails the run in the split mode,
    # rather than sending it to the plain mode (where the sample shares the test's process).
    test = "def check(candidate):\n    r = candidate(1)\n    assert candidate(r) == 1\n"
    job = py.program_job("def f(x):\n    return object() if x == 1 else 1\n", test, "f", "def f(x):\n    pass\n", 10.0, split=True)
    run = py.run_driver(sandbox, job, SandboxLimits(cpu_seconds=10, wall_seconds=30))
    assert run.report is not None and "unsplittable" not in run.report, run.report
    assert run.report["check"][0] == "raise" and "its own result" in run.report["check"][1]
