"""The in-sandbox runner for unittest modules that must run in the sample's process (standard library only).

It ships as `unittest_driver.py` next to the Python driver (`driver.py`) and `plaindata.py`, and uses the
driver's protocol: the first line of stdin is a nonce, `job.json` is read and deleted, events go to fd 3 as
`<nonce> <json>` lines, and the run ends with os._exit. What it adds for hand-written unittest classes:

- Tests are run one by one by this runner, not by unittest's runner: a test passed when its setUp, its
  method and its tearDown returned; every other ending (an assertion, an exception, SkipTest, an exit, a
  timeout) is reported as such. The trusted side knows from the test code which tests must report, so
  a test that never reports (the process ended, a loader was patched) has failed.
- The unittest classes, the test classes and builtins are snapshotted before the sample's module code runs
  and again once the test classes exist; after every test, and at every `self.assert*(...)` of the test
  code (rewritten to call the runner's own copy of the assertion), they are compared: a sample that changed
  them (patched assertEqual, TestResult, a test method, builtins.round) fails the run.
- Comparisons cannot be forged by the sample's classes: every `assert*` method, and every comparison in
  the test code (rewritten to pass its operands through a guard), refuses an operand whose class, or a
  class in its MRO, the sample made with its own __eq__, __bool__, __len__, __contains__, ... (library
  classes such as numpy's arrays and datetime keep theirs).
- Everything the runner decides with lives in closures made before the sample runs (the nonce, os.write,
  the snapshot): not in module globals, which a sample could reach through sys.modules.
"""

import ast
import builtins
import os
import signal
import sys
import time
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.languages import python_driver as driver
else:  # in the sandbox, next to this file as driver.py: its audit hook, timeout signal and exception text
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    import driver

# Dunders that decide what an equality, truth, ordering, closeness or type assertion sees: a class the sample
# made may not bring its own. (Its __iter__, __getitem__, __contains__, __len__ are its behaviour under test:
# `key in the_sample's_map` is what ClassEval_18 tests, and an answer forged that way is just a wrong answer.)
_SENSITIVE = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__sub__", "__rsub__", "__abs__",
                        "__round__", "__class__"})
_CONTAINERS = (list, tuple, dict, set, frozenset)
_HEAPTYPE = 1 << 9
GUARD = "__assay_operand__"


class UntrustedComparison(AssertionError):
    """An assertion or a comparison in the tests met an operand whose equality the sample defined."""


def make_guard(library_dirs: tuple[str, ...]) -> Any:
    """The operand guard: returns its argument, or raises if the sample could have forged how it compares."""
    mro_of = type.__dict__["__mro__"].__get__
    flags_of = type.__dict__["__flags__"].__get__
    dict_of = type.__dict__["__dict__"].__get__
    code_of = types.FunctionType.__dict__["__code__"].__get__
    function, wrapper, method = types.FunctionType, types.WrapperDescriptorType, types.MethodDescriptorType
    type_, id_, len_, isinstance_, str_ = type, id, len, isinstance, str
    sensitive, containers, heap, error = _SENSITIVE, _CONTAINERS, _HEAPTYPE, UntrustedComparison
    list_iter, dict_items, set_iter = list.__iter__, dict.items, set.__iter__
    tuple_iter, frozenset_iter = tuple.__iter__, frozenset.__iter__

    def trusted_class(cls: type) -> bool:
        for klass in mro_of(cls):
            if not flags_of(klass) & heap:
                continue  # a static (C) type: its slots are the interpreter's or the extension's
            attrs = dict_of(klass)
            for name in sensitive:
                if name not in attrs:
                    continue
                value = attrs[name]
                kind = type_(value)
                if value is None or ((kind is wrapper or kind is method) and value.__name__ == name):
                    continue
                if kind is function and str_(code_of(value).co_filename).startswith(library_dirs):
                    continue
                return False
        return True

    def check(value: Any, depth: int, seen: set[int]) -> None:
        kind = type_(value)
        if not trusted_class(kind):
            raise error(f"an operand of type {kind.__qualname__!s} compares by the sample's own rules; not trusted")
        if depth > 30 or not isinstance_(value, containers) or id_(value) in seen or len_(seen) > 100_000:
            return
        seen.add(id_(value))
        if isinstance_(value, dict):
            for key, item in dict_items(value):
                check(key, depth + 1, seen)
                check(item, depth + 1, seen)
            return
        items = (list_iter if isinstance_(value, list) else tuple_iter if isinstance_(value, tuple)
                 else set_iter if isinstance_(value, set) else frozenset_iter)(value)
        for item in items:
            check(item, depth + 1, seen)

    def operand(value: Any) -> Any:
        check(value, 0, set())
        return value

    return operand


_WRAPPER = """
def {name}(self, *args, **kwargs):
    for value in args:
        operand(value)
    for key, value in kwargs.items():
        if key != "msg":
            operand(value)
    return original(self, *args, **kwargs)
"""


def guard_assertions(case_class: type, operand: Any) -> None:
    """Wrap every assert* method of unittest.TestCase so that its operands pass the guard first. Each wrapper's
    globals are its own dict (the sample cannot read a function's __globals__), not a closure cell it could rewrite."""
    for name, fn in list(vars(case_class).items()):
        if not name.startswith(("assert", "fail")) or not isinstance(fn, types.FunctionType):
            continue
        private: dict[str, Any] = {"operand": operand, "original": fn, "__builtins__": {}}
        exec(compile(_WRAPPER.format(name=name), "<assay guard>", "exec", dont_inherit=True), private)
        setattr(case_class, name, private[name])


ASSERT = "__assay_assert__"


class _GuardCompares(ast.NodeTransformer):
    """`a == b` in the test code becomes `__assay_operand__(a) == __assay_operand__(b)` (every comparison), and
    `self.assertX(...)` becomes `__assay_assert__(self, "assertX", ...)`: the runner's own copy of the assertion,
    called after checking that nothing was patched (a patch that matters is in place while the assertion runs,
    even one the sample takes back before the test ends)."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr.startswith(("assert", "fail")):
            call = ast.Call(ast.Name(ASSERT, ast.Load()), [ast.Name("self", ast.Load()), ast.Constant(f.attr), *node.args], node.keywords)
            return ast.copy_location(call, node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        def wrap(e: ast.expr) -> ast.expr:
            return ast.Call(ast.Name(GUARD, ast.Load()), [e], [])

        return ast.copy_location(ast.Compare(wrap(node.left), node.ops, [wrap(c) for c in node.comparators]), node)


def guarded_test_code(test: str) -> Any:
    """The test module compiled with its comparisons guarded."""
    tree = ast.fix_missing_locations(_GuardCompares().visit(ast.parse(test)))
    return compile(tree, "<test>", "exec", dont_inherit=True)


_SIGNAL_GUARD = """
def signal(signalnum, handler):
    if handler is not SIG_DFL and handler is not SIG_IGN and not str(getframe(1).f_code.co_filename).startswith(library_dirs):
        raise RuntimeError("blocked by the Assay sandbox: a Python signal handler (it would get the runner's frames)")
    return original(signalnum, handler)
"""


def guard_signals(library_dirs: tuple[str, ...]) -> None:
    """signal.signal (and _signal's) accept only SIG_DFL and SIG_IGN from the sample's code from here on (library
    code may install its own handlers): a handler receives the frame it interrupted, which may be the runner's.
    The real function stays in a dict the sample cannot read; the guard is compiled as the runner's own code,
    which may look up its caller."""
    import _signal  # type: ignore[import-not-found]

    private: dict[str, Any] = {"original": _signal.signal, "SIG_DFL": _signal.SIG_DFL, "SIG_IGN": _signal.SIG_IGN,
                               "RuntimeError": RuntimeError, "str": str, "getframe": sys._getframe, "library_dirs": library_dirs,
                               "__builtins__": {}}
    exec(compile(_SIGNAL_GUARD, os.path.abspath(__file__), "exec", dont_inherit=True), private)
    _signal.signal = signal.signal = private["signal"]


def make_tamper_check() -> tuple[Any, Any]:
    """(snapshot, changed): what the sample may not change, and what it changed since ('' for nothing);
    identity, not equality, decides. Closures over private references, made before the sample runs. A test
    class is held to its functions only: its tests may keep state in class attributes (setUpClass does)."""
    vars_, len_, str_, getattr_, dict_, isinstance_ = vars, len, str, getattr, dict, isinstance
    functions = (types.FunctionType, classmethod, staticmethod)

    def snapshot(owners: list[Any], functions_only: bool = False, exempt: frozenset[str] = frozenset()) -> list[tuple[Any, dict[str, Any], bool, int]]:
        return [(o, {k: v for k, v in vars_(o).items() if (not functions_only or isinstance_(v, functions)) and k not in exempt},
                 functions_only, len_(vars_(o))) for o in owners]

    def changed(frozen: list[tuple[Any, dict[str, Any], bool, int]]) -> str:
        for owner, before, functions_only, size in frozen:
            now = vars_(owner)
            if not functions_only and len_(now) != size:
                return f"{str_(getattr_(owner, '__name__', '?'))} gained or lost attributes"
            for key, value in before.items():
                if key not in now or now[key] is not value:
                    return f"{str_(getattr_(owner, '__name__', '?'))}.{key} was replaced"
        return ""

    del dict_
    return snapshot, changed


class Tampered(BaseException):
    """An assertion found the test framework changed (BaseException: the sample's `except Exception` cannot eat it)."""


class ChannelTampered(BaseException):
    """fd 3 is no longer the result channel the runner started with: nothing more is written (the nonce would leak)."""


def make_emit(nonce: bytes) -> Any:
    """The one writer of authenticated events: each a line `<nonce> <ascii() of [kind, *fields]>`, without json (a
    sample could swap its encoder), written only while fd 3 is still the channel the run started with (a sample
    that puts a pipe of its own on fd 3 would read the nonce from it)."""
    write, fstat, ascii_, tampered = os.write, os.fstat, ascii, ChannelTampered
    identity = driver.channel_identity()

    def emit(kind: str, fields: list[str]) -> None:
        data = nonce + b" " + ascii_([kind, *fields]).encode("ascii") + b"\n"
        st = fstat(3)
        if (st.st_dev, st.st_ino) != identity:
            raise tampered("fd 3 was replaced")
        while data:
            data = data[write(3, data):]

    return emit


def run(job: dict[str, Any], emit: Any, library_dirs: tuple[str, ...]) -> None:
    """Load the sample, then the tests into their own namespace, and run each test; report each one."""
    import unittest
    import unittest.case
    import unittest.mock  # imported by some tests: loaded before the sample, so snapshotted as it is

    # Everything used after the sample's code has run is bound here, before it runs.
    cpu, setitimer, prof = time.process_time, signal.setitimer, signal.ITIMER_PROF
    isinstance_, issubclass_, getattr_, type_, zip_, list_, dict_, exec_ = isinstance, issubclass, getattr, type, zip, list, dict, exec
    base = unittest.TestCase
    skip, failure, timeout_error, baseexc = unittest.SkipTest, AssertionError, driver.CaseTimeout, BaseException
    describe, modules, tampered, at_assertion = driver.describe, sys.modules, ChannelTampered, Tampered

    operand = make_guard(library_dirs)
    guard_assertions(base, operand)
    assertions = {k: v for k, v in vars(base).items() if k.startswith(("assert", "fail")) and isinstance(v, types.FunctionType)}
    lookup = assertions.get
    snapshot, changed = make_tamper_check()
    framework = [base, unittest.TestResult, unittest.TestSuite, unittest.TestLoader, builtins, unittest, unittest.case,
                 unittest.mock.Mock, unittest.mock.MagicMock, unittest.mock.NonCallableMock]
    # builtins the test code itself patches (bigcodebench's @patch("builtins.open")) may differ while a test runs
    patched = frozenset(job.get("patched_builtins", ()))
    frozen = snapshot([o for o in framework if o is not builtins]) + snapshot([builtins], exempt=patched)
    framework_modules = {name: modules[name] for name in ("unittest", "unittest.case", "unittest.mock", "builtins")}
    test_code = guarded_test_code(job["test"])  # compiled before the sample runs: ast and compile are its to patch after
    try:
        compiled = compile(job["code"], "<sample>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        emit("compile", [f"{type(exc).__name__}: {exc}"])
        return
    guard_signals(library_dirs)
    sys.addaudithook(driver.make_audit_hook(library_dirs, driver_files=(os.path.abspath(__file__), os.path.abspath(driver.__file__)),
                                            strict=True, channel=driver.channel_identity()))
    # As upstream's module file: ClassEval_45's tests write next to __file__.
    namespace: dict[str, Any] = {"__name__": job.get("module", "solution"), "__builtins__": builtins,
                                 "__file__": os.path.join(os.getcwd(), "solution.py")}
    setitimer(prof, job["load_limit"])
    try:
        exec_(compiled, namespace)
        setitimer(prof, 0)
    except baseexc as exc:  # SystemExit at import is a runtime error too
        setitimer(prof, 0)
        emit("load", ["timeout" if isinstance_(exc, timeout_error) else "raise", describe(exc)])
        return
    what = changed(frozen) or next((f"sys.modules[{k!r}] was replaced" for k, m in framework_modules.items() if modules.get(k) is not m), "")
    if what:
        emit("tampered", [f"the sample's module code changed the test framework: {what}"])
        return
    tests = dict_(namespace)  # the sample's names, as upstream's one module has them; the tests' own dict
    tests[GUARD] = operand

    def assertion(case: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        what = changed(frozen)
        if what:
            raise Tampered(f"the sample changed the test framework before {name}: {what}")
        fn = lookup(name)
        return fn(case, *args, **kwargs) if fn is not None else getattr_(case, name)(*args, **kwargs)

    tests[ASSERT] = assertion
    try:
        exec_(test_code, tests)
    except baseexc as exc:
        emit("load", ["raise", "the test code failed to load: " + describe(exc)])
        return
    # A test class's bases must be the test code's own classes or unittest's (not a class the sample made).
    own = {id(v) for k, v in tests.items() if isinstance_(v, type_) and namespace.get(k) is not v}
    allowed = own | {id(c) for c in type_.__dict__["__mro__"].__get__(base)}
    classes: list[Any] = [tests.get(name) for name in job["test_classes"]]
    frozen += snapshot([c for c in classes if isinstance_(c, type_)], True)
    for name, cls in zip_(job["test_classes"], classes):
        if not (isinstance_(cls, type_) and issubclass_(cls, base)):
            emit("test", [name, "", "error", f"no unittest.TestCase named {name!r} in the tests"])
            continue
        if any(id(c) not in allowed for c in type_.__dict__["__mro__"].__get__(cls)):
            emit("tampered", [f"{name} derives from a class the sample made"])
            return
        if not job["tests"].get(name):
            emit("test", [name, "", "empty", "no tests"])  # as unittest: no tests, no class fixtures (ClassEval_69's base class)
            continue
        started = cpu()
        setitimer(prof, job["class_limit"])
        try:
            try:
                cls.setUpClass()
            except timeout_error:
                raise
            except baseexc as exc:
                emit("test", [name, "", "error", "setUpClass: " + describe(exc)])
                continue
            for method in list_(job["tests"].get(name, [])):
                outcome, message = "ok", ""
                try:
                    case = cls(method)
                    case.setUp()
                    try:
                        getattr_(case, method)()
                    finally:
                        case.tearDown()
                        case.doCleanups()
                except skip as exc:
                    outcome, message = "skipped", f"skipped: {exc}"
                except (timeout_error, tampered):
                    raise
                except at_assertion as exc:
                    emit("tampered", [f"{name}.{method}: {exc}"])
                    return
                except failure as exc:
                    outcome, message = "failed", describe(exc)
                except baseexc as exc:
                    outcome, message = "error", describe(exc)
                what = changed(frozen)
                if what:
                    emit("tampered", [f"the sample changed the test framework during {name}.{method}: {what}"])
                    return
                emit("test", [name, method, outcome, message, f"{cpu() - started:.4f}"])
            try:
                cls.tearDownClass()
            except timeout_error:
                raise
            except baseexc as exc:
                emit("test", [name, "", "error", "tearDownClass: " + describe(exc)])
        except timeout_error:
            emit("test", [name, "", "timeout", f"the test class ran past its {job['class_limit']} s of CPU"])
        finally:
            setitimer(prof, 0)


def main() -> None:
    nonce, job = driver.read_job()
    driver.disarm_frame_gadgets()
    library_dirs = driver._LIBRARY_DIRS + tuple(job.get("sys_path", []))
    emit = make_emit(nonce)
    del nonce
    try:
        run(job, emit, library_dirs)
        emit("final", [])
    except ChannelTampered:
        pass  # the trusted side sees no final event: the run failed
    except BaseException as exc:  # the runner must report, whatever the sample did
        try:  # noqa: SIM105 (contextlib is the sample's to patch by now)
            emit("driver_error", [driver.describe(exc)])
        except BaseException:
            pass
    os._exit(0)


if __name__ == "__main__":
    main()
