"""Program mode with the test program and the sample in two processes (standard library only; `split.py` in the sandbox).

In the driver's plain program mode the test program runs in the sample's process, so its constants (the
expected values of its asserts) are in the sample's memory, and Python gives a sample raw reads of that
memory (numpy's `__array_interface__` at an address, ctypes' pointer types). Here the driver forks the
sample's process (S) before it has read the test: S closes stdin and the result channel, loads the sample
and serves calls over a pipe, plain data in and out. The driver (the test's process) then reads the nonce and
the test program from stdin, which the zygote only handed on and never read, so no process S descends from
ever held the test's text; it runs `check` with a candidate that forwards each call to S, records it as the
plain program mode does, and writes every event itself. The driver is not dumpable (the zygote made it so),
so S cannot read its memory through /proc or ptrace. The trusted side replays the calls as before.

What the test hands the candidate must be plain data to cross the pipe; where a test passes something else
(a function of its own), or its prompt's helpers do not run on their own, the driver reports the run as
`unsplittable` and the host runs it again in the plain program mode. A sample cannot cause that: the
arguments come from the test's code, and an argument that is the sample's own earlier unplain result fails
the run instead.

No `from __future__ import annotations` here: compile() would pass it on to the test's code.
"""

import json
import os
import select
import signal
import struct
import sys
from typing import Any

_LENGTH = struct.Struct("<Q")
_KINDS = ("ok", "unplain", "raise", "memory", "timeout")


def _send(fd: int, value: Any) -> None:
    data = json.dumps(value, separators=(",", ":"), allow_nan=False).encode()
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _read(fd: int, size: int, watch: Any = None) -> bytes | None:
    """`size` bytes from fd, or None at its end; `watch` (the test's side): a poll of fd and S's pidfd, so that S
    gone with its reply unsent ends the wait even while a child it left holds the pipe open."""
    parts, left = [], size
    while left:
        if watch is not None and fd not in {ready for ready, _ in watch.poll()}:
            return None
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _receive(fd: int, watch: Any = None) -> Any:
    """The next message, or None at the end of the pipe, when S is gone (`watch`), or for a message that does not parse."""
    head = _read(fd, _LENGTH.size, watch)
    if head is None:
        return None
    data = _read(fd, _LENGTH.unpack(head)[0], watch)
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def _serve(job: dict[str, Any], driver: Any, calls: int, replies: int) -> None:
    """S: load the sample, then answer each call with what the plain mode's recording candidate records."""
    plaindata = driver.plaindata
    sys.addaudithook(driver.make_audit_hook(driver._LIBRARY_DIRS + tuple(job.get("sys_path", []))))
    report: dict[str, Any] = {"load_limit": job.get("load_limit", 10.0)}
    fn = driver.load_sample(job["code"], job["entry_point"], report)
    if fn is None:
        _send(replies, ["load", {key: report[key] for key in ("stage", "kind", "error") if key in report}])
        return
    report.clear()  # the sample's namespace: nothing of it is sent
    _send(replies, ["loaded"])
    # One CPU budget for loading and every call, as the plain mode's (the test's own CPU is the driver's).
    signal.setitimer(signal.ITIMER_PROF, max(0.01, job["check_limit"] - driver._cpu()))
    while True:
        before = None
        start = driver._cpu()
        try:
            before = _receive(calls)
            if before is None:
                return
            args, kwargs = plaindata.decode(before)
            start = driver._cpu()
            result = fn(*args, **kwargs)
            entry: dict[str, Any] = {"outcome": driver._encode_or_refuse(result), "cpu": driver._cpu() - start}
            entry.update(driver.args_after(args, kwargs, before))
        except BaseException as exc:  # every way a call ends is recorded (a timeout, a MemoryError, SystemExit)
            entry = {"outcome": [driver._kind(exc), driver.describe(exc)], "cpu": driver._cpu() - start}
        result = None
        _send(replies, entry)
        if entry["outcome"][0] == "timeout":
            return  # the budget is spent: the test stops at this call


def start(job: dict[str, Any], driver: Any) -> tuple[int, int, int]:
    """Fork S before the test or the nonce is read; returns (S's pid, the calls pipe, the replies pipe)."""
    calls_read, calls_write = os.pipe()
    replies_read, replies_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(calls_write)
            os.close(replies_read)
            stdin_to_devnull()  # never the stdin that carries the nonce and the test
            try:  # noqa: SIM105
                os.close(3)  # nor the result channel
            except OSError:
                pass
            _serve(job, driver, calls_read, replies_write)
        except BaseException:  # S's end is the driver's to report: the pipe closes
            pass
        os._exit(0)
    os.close(calls_read)
    os.close(replies_write)
    return pid, calls_write, replies_read


def stdin_to_devnull() -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def read_secrets() -> tuple[bytes, str]:
    """The nonce (first line of stdin) and the test program (the rest), then stdin closed to /dev/null."""
    parts = []
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        parts.append(chunk)
    data = b"".join(parts)
    stdin_to_devnull()
    nonce, _, test = data.partition(b"\n")
    return nonce, test.decode()


class Unsplittable(BaseException):
    """The test needs the sample in its own process: the host runs the job again in the plain program mode
    (BaseException: a test's own `except Exception` around the call cannot swallow it)."""


class _Relayed(Exception):
    """The sample's call raised (in S): carried into the test as the plain mode's exception would be."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(text)
        self.kind, self.text = kind, text


class _RelayedTimeout(BaseException):  # as CaseTimeout: `except Exception` in a test cannot eat it
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.kind, self.text = "timeout", text


class _RelayedMemory(MemoryError):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.kind, self.text = "memory", text


class _Unplain:
    """What the test gets for a result that was not plain data: it equals nothing (the replay fails it anyway)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    def __bool__(self) -> bool:
        return False


def apply_mutation(args: tuple[Any, ...], after: list[Any]) -> None:
    """Mirror in-place changes the sample made to its arguments, so later test calls see them (the test's process
    here, the trusted replay on the host)."""
    for current, new in zip(args, after, strict=False):
        if type(current) is list and type(new) is list:
            current[:] = new
        elif (type(current) is dict and type(new) is dict) or (type(current) is set and type(new) is set):
            current.clear()
            current.update(new)


def _checked(entry: Any) -> dict[str, Any]:
    """S's reply as a call record, its shape checked (its values are the sample's, as in the plain mode)."""
    outcome = entry.get("outcome") if isinstance(entry, dict) else None
    if not (isinstance(outcome, list) and len(outcome) == 2 and outcome[0] in _KINDS):
        return {"outcome": ["raise", "the sample's process sent a reply that is not a call's outcome"], "cpu": 0.0}
    cpu = entry.get("cpu")
    record: dict[str, Any] = {"outcome": outcome, "cpu": float(cpu) if type(cpu) in (int, float) else 0.0}
    if "args_after" in entry:
        record["args_after"] = entry["args_after"]
    return record


def run(job: dict[str, Any], report: dict[str, Any], driver: Any) -> bytes:
    """The test's process: fork S, read the secrets, run `check` against S; returns the nonce for the final event."""
    pid, calls, replies = start(job, driver)
    nonce, test = read_secrets()
    pidfd, watch = None, None
    try:
        pidfd = os.pidfd_open(pid)
        watch = select.poll()
        watch.register(replies, select.POLLIN)
        watch.register(pidfd, select.POLLIN)
    except OSError:
        watch = None
    try:
        _check(job, report, driver, nonce, test, calls, replies, watch)
    except Unsplittable as exc:
        signal.setitimer(signal.ITIMER_PROF, 0)
        report["unsplittable"] = str(exc)
        report.pop("check", None)
    except BaseException as exc:  # the driver must report, whatever happened
        signal.setitimer(signal.ITIMER_PROF, 0)
        report["driver_error"] = driver.describe(exc)
    for fd in (calls, replies, *([] if pidfd is None else [pidfd])):  # S sees the end of its calls and leaves
        try:  # noqa: SIM105 (as the driver: nothing imported that it does not need)
            os.close(fd)
        except OSError:
            pass
    if "unsplittable" in report:
        try:  # noqa: SIM105
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        _, _, usage = os.wait4(pid, 0)
        sample_cpu = usage.ru_utime + usage.ru_stime
    except ChildProcessError:
        sample_cpu = 0.0
    report["cpu"] = driver._cpu() + sample_cpu
    return nonce


def _check(job: dict[str, Any], report: dict[str, Any], driver: Any, nonce: bytes, test: str, calls: int, replies: int,
           watch: Any) -> None:
    """Run the test's `check` with a candidate that forwards each call to S and records it."""
    plaindata, emit = driver.plaindata, driver.emit
    loaded = _receive(replies, watch)
    if not (isinstance(loaded, list) and loaded and loaded[0] in ("loaded", "load")):
        report.update(stage="load", kind="raise", error="the sample's process ended while loading the sample")
        return
    if loaded[0] == "load":
        given = loaded[1] if len(loaded) > 1 and isinstance(loaded[1], dict) else {}
        report.update({k: v for k, v in given.items() if k in ("stage", "kind", "error") and isinstance(v, str)})
        report.setdefault("stage", "load")
        return
    pristine = dict(vars(driver.builtins))
    pristine["__import__"] = driver._private_random_importer(job.get("seed", 0))
    namespace: dict[str, Any] = {"__builtins__": pristine}
    try:
        exec(compile(job.get("helpers", ""), "<prompt>", "exec"), namespace)
    except BaseException as exc:
        raise Unsplittable(f"the prompt's helpers do not run without the sample ({type(exc).__name__})") from None
    seen_unplain = [False]

    def candidate(*args: Any, **kwargs: Any) -> Any:
        try:
            before = plaindata.encode([list(args), kwargs])
        except (plaindata.NotPlainData, RecursionError):
            if seen_unplain[0]:  # the sample's own unplain result handed back: its failure, never a second run
                raise _Relayed("raise", "the test passed the sample its own result, which is not plain data") from None
            raise Unsplittable("the test passes the sample an argument that is not plain data") from None
        _send(calls, before)
        entry = _receive(replies, watch)
        record: dict[str, Any] = _checked(entry) if entry is not None else {
            "outcome": ["raise", "the sample's process ended during the call"], "cpu": 0.0}
        emit(nonce, "call", {"args": before, **record})
        if "args_after" in record:
            try:
                after_args = plaindata.decode(record["args_after"])[0]
            except Exception:  # the sample's data: not mirrored if it does not decode
                after_args = None
            if isinstance(after_args, list):
                apply_mutation(args, after_args)
        kind, payload = record["outcome"]
        if kind == "ok":
            return plaindata.decode(payload)
        if kind == "unplain":
            seen_unplain[0] = True
            return _Unplain()
        text = str(payload)
        if kind == "timeout":
            raise _RelayedTimeout(text)
        if kind == "memory":
            raise _RelayedMemory(text)
        raise _Relayed(kind, text)

    namespace[job["entry_point"]] = candidate  # tests that call the function by its own name (HumanEval/33)
    signal.setitimer(signal.ITIMER_PROF, max(0.01, job["check_limit"] - driver._cpu()))
    try:
        exec(compile(test, "<test>", "exec"), namespace)
        namespace["check"](candidate)
        signal.setitimer(signal.ITIMER_PROF, 0)
        report["check"] = ["ok", ""]
    except Unsplittable:
        raise
    except (_Relayed, _RelayedTimeout, _RelayedMemory) as exc:
        signal.setitimer(signal.ITIMER_PROF, 0)
        report["check"] = [exc.kind, exc.text]
    except BaseException as exc:
        signal.setitimer(signal.ITIMER_PROF, 0)
        report["check"] = [driver._kind(exc) if not isinstance(exc, AssertionError) else "assert", driver.describe(exc)]
