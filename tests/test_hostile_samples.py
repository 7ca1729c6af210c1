"""Hostile samples, end to end: none may pass, none may leave a trace, correct samples still pass."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.execution.pipeline import evaluate
from assay.samples import read_samples
from assay.sandbox import get_sandbox

MARK = "assay-hostile-marker"

# HumanEval/0 (has_close_elements): a correct body, then attacks that return a wrong answer or try to forge a pass.
CORRECT = """    for i, a in enumerate(numbers):
        for j, b in enumerate(numbers):
            if i != j and abs(a - b) < threshold:
                return True
    return False
"""


def attacks(secret_file: Path, outside: Path, port: int) -> dict[str, str]:
    """name -> completion body for HumanEval/0."""
    return {
        "sys_exit": "    import sys\n    sys.exit(0)\n",
        "os_exit": "    import os\n    os._exit(0)\n",
        "posix_exit": "    import posix\n    posix._exit(0)\n",
        "atexit": "    import atexit, os\n    atexit.register(lambda: os._exit(0))\n    raise SystemExit(0)\n",
        "thread_exit": "    import threading, os, time\n    threading.Thread(target=lambda: os._exit(0)).start()\n    time.sleep(1)\n    return None\n",
        "always_equal": "    class Yes:\n        def __eq__(self, other): return True\n        def __bool__(self): return True\n    return Yes()\n",
        "bool_subclass_trick": "    class Int(int):\n        def __eq__(self, other): return True\n    return Int(0)\n",
        "frame_walk": (
            "    import sys\n"
            "    f = sys._getframe(1)\n"
            "    return f.f_locals\n"
        ),
        "traceback_frame_walk": (
            "    try:\n        raise ValueError\n"
            "    except ValueError as e:\n        f = e.__traceback__.tb_frame.f_back\n"
            "    return f.f_locals.get('expected', True)\n"
        ),
        # the memory map, the first step of a scan of the process's memory for the tests' data: refused, so these
        # (which answer correctly once the read is done) fail
        "read_smaps": "    open('/proc/self/smaps').read()\n" + CORRECT,
        "read_numa_maps": "    open('/proc/self/numa_maps').read()\n" + CORRECT,
        "read_smaps_rollup": "    open('/proc/self/smaps_rollup').read()\n" + CORRECT,
        "gc_scan": "    import gc\n    gc.get_objects()\n    return True\n",
        "patch_builtins": "    import builtins\n    builtins.abs = lambda x: 0\n    return True\n",
        "pass_marker": "    print('passed')\n    print('{\"passed\": true}')\n    return None\n",
        "forge_channel": (
            "    import os\n"
            "    os.write(3, b'0' * 32 + b' [\"final\", {\"check\": [\"ok\", \"\"]}]\\n')\n"
            "    os._exit(0)\n"
        ),
        "read_stdin_nonce": "    import sys, os\n    data = sys.stdin.read()\n    os.write(3, data.encode() + b' [\"final\", {\"check\": [\"ok\", \"\"]}]\\n')\n    os._exit(0)\n",
        "fork_bomb": "    import os\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n",
        "memory_bomb": "    x = 'x' * (1 << 36)\n    return x\n",
        "memory_creep": "    x = []\n    while True:\n        x.append(bytearray(50 * 1024 * 1024))\n",
        "ignore_sigterm_busy": "    import signal\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n    while True:\n        pass\n",
        "daemonize": (
            "    import os, time, signal\n"
            "    if os.fork() == 0:\n"
            "        os.setsid()\n"
            "        if os.fork() == 0:\n"
            "            signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "            signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
            f"            import sys; sys.argv[0] = '{MARK}'\n"
            f"            open('/proc/self/comm', 'w').write('{MARK[:15]}')\n"
            "            time.sleep(60)\n"
            "        os._exit(0)\n"
            "    return None\n"
        ),
        "kill_parent": "    import os, signal\n    os.kill(os.getppid(), signal.SIGKILL)\n    return None\n",
        "kill_all": "    import os, signal\n    try:\n        os.kill(-1, signal.SIGKILL)\n    except OSError:\n        pass\n    return None\n",
        "network": f"    import socket\n    s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    s.sendall(b'{MARK}')\n    return None\n",
        "write_outside": f"    open({str(outside)!r}, 'w').write('{MARK}')\n    return None\n",
        "read_env_secret": "    import os\n    return os.environ['ASSAY_TEST_SECRET'] == 'hunter2'\n",
        "read_host_file": f"    return open({str(secret_file)!r}).read() == 'hunter2'\n",
        "flood_stdout": "    import sys\n    while True:\n        sys.stdout.write('x' * 65536)\n",
        "fill_disk": "    import os\n    with open('big', 'wb') as f:\n        while True:\n            f.write(b'\\0' * (1 << 20))\n",
    }


@pytest.fixture(scope="module")
def listener():
    """A TCP listener on loopback that records any connection."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    seen: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            seen.append(conn.recv(100))
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], seen
    stop.set()
    thread.join()
    server.close()


def _marker_processes() -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if comm == MARK[:15] or MARK.encode() in cmd:
            found.append(int(pid))
    return found


@pytest.mark.slow
def test_hostile_samples_fail_and_leave_no_trace(tmp_path: Path, listener, monkeypatch) -> None:
    port, seen = listener
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text("hunter2")
    outside = tmp_path / "outside.txt"
    monkeypatch.setenv("ASSAY_TEST_SECRET", "hunter2")
    bodies = attacks(secret_file, outside, port)
    rows = [{"task_id": "HumanEval/0", "completion": CORRECT, "name": "correct-before"}]
    rows += [{"task_id": "HumanEval/0", "completion": body, "name": name} for name, body in bodies.items()]
    rows += [{"task_id": "HumanEval/0", "completion": CORRECT + "\n# same program, new text\n", "name": "correct-after"}]
    samples = tmp_path / "hostile.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))

    bench = load_benchmark("humaneval")
    result = evaluate(bench, read_samples(samples), samples, tmp_path / "run", get_sandbox(), [1], workers=2, cache_dir=tmp_path / "cache")

    verdicts = {json.loads(line)["name"]: json.loads(line) for line in result.results_path.read_text().splitlines()}
    assert verdicts["correct-before"]["passed"], verdicts["correct-before"]
    assert verdicts["correct-after"]["passed"], verdicts["correct-after"]
    for name in bodies:
        assert not verdicts[name]["passed"], f"hostile sample {name} passed: {verdicts[name]['result']}"
    assert verdicts["fork_bomb"]["status"] in ("timeout", "runtime_error", "memory_exceeded")
    assert verdicts["memory_bomb"]["status"] == "memory_exceeded"
    assert verdicts["memory_creep"]["status"] in ("memory_exceeded", "timeout")
    assert verdicts["ignore_sigterm_busy"]["status"] == "timeout"
    assert verdicts["flood_stdout"]["status"] in ("timeout", "runtime_error")
    assert verdicts["flood_stdout"]["status"] == "timeout" or "output limit" in verdicts["flood_stdout"]["result"]
    assert len(verdicts["flood_stdout"].get("stderr", "")) < 10_000
    assert verdicts["frame_walk"]["status"] == "runtime_error"
    assert "blocked by the Assay sandbox" in verdicts["frame_walk"]["result"]
    for name in ("read_smaps", "read_numa_maps", "read_smaps_rollup"):
        assert verdicts[name]["status"] == "runtime_error" and "blocked by the Assay sandbox" in verdicts[name]["result"], verdicts[name]
    # No trace on the host.
    assert seen == [], "a sample reached a listener on the host's loopback"
    assert not outside.exists()
    assert _marker_processes() == []
