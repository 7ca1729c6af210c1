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


class UntrustedComparison(AssertionError):
    """An assertion or a comparison in the tests met an operand whose equality the sample defined."""


def make_is_library(library_dirs: tuple[str, ...]) -> Any:
    """is_library(filename): Python source under the library dirs, as the audit hook decides it (not code compiled
    from a template there)."""
    startswith, endswith = str.startswith, str.endswith

    def is_library(filename: str) -> bool:
        return startswith(filename, library_dirs) and endswith(filename, ".py")

    return is_library


def make_guard(library_dirs: tuple[str, ...]) -> Any:
    """The operand guard: returns its argument, or raises if the sample could have forged how it compares."""
    mro_of = type.__dict__["__mro__"].__get__
    flags_of = type.__dict__["__flags__"].__get__
    dict_of = type.__dict__["__dict__"].__get__
    code_of = types.FunctionType.__dict__["__code__"].__get__
    function, wrapper, method = types.FunctionType, types.WrapperDescriptorType, types.MethodDescriptorType
    type_, id_, len_, isinstance_, str_ = type, id, len, isinstance, str
    library = make_is_library(library_dirs)
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
                if kind is function and library(str_(code_of(value).co_filename)):
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


def marker(what: str) -> str:
    """A string constant that `bake` turns into an object: unguessable, so no string of the sample's or the tests' is one."""
    return f"\x00assay:{what}:{os.urandom(8).hex()}"


def bake(code: types.CodeType, values: dict[str, Any]) -> types.CodeType:
    """The code with each marker constant (in its nested code too) replaced by its object. Code that calls through
    a constant looks nothing up by name: a sample that reaches the code's functions, and their __globals__ or
    __builtins__ (readable, and writable dicts), cannot change what it calls. Runs before the sample does."""
    consts = tuple(bake(c, values) if isinstance(c, types.CodeType) else values[c] if type(c) is str and c in values else c
                   for c in code.co_consts)
    return code.replace(co_consts=consts)


def compile_baked(tree: ast.Module, filename: str, values: dict[str, Any]) -> types.CodeType:
    import warnings

    with warnings.catch_warnings():  # calling a str constant: "'str' object is not callable" (it is not a str once baked)
        warnings.simplefilter("ignore")
        return bake(compile(tree, filename, "exec", dont_inherit=True), values)


_WRAPPER = """
def {name}(self, *args, **kwargs):
    for value in args:
        {operand!r}(value)
    for key, value in kwargs.items():
        if key != "msg":
            {operand!r}(value)
    return {original!r}(self, *args, **kwargs)
"""


def guard_assertions(case_class: type, operand: Any) -> None:
    """Wrap every assert* method of unittest.TestCase so that its operands pass the guard first. The guard and the
    original method are constants of each wrapper's code, not names in its globals (which a sample can read through
    __globals__ and rewrite) nor closure cells (writable through __closure__)."""
    for name, fn in list(vars(case_class).items()):
        if not name.startswith(("assert", "fail")) or not isinstance(fn, types.FunctionType):
            continue
        names = {"operand": marker("operand"), "original": marker("original")}
        private: dict[str, Any] = {"__builtins__": {}}
        source = ast.parse(_WRAPPER.format(name=name, **names))
        exec(compile_baked(source, "<assay guard>", {names["operand"]: operand, names["original"]: fn}), private)
        setattr(case_class, name, private[name])


class _GuardCompares(ast.NodeTransformer):
    """`a == b` in the test code becomes `operand(a) == operand(b)` (every comparison), and `self.assertX(...)`
    becomes `assertion(self, "assertX", ...)`: the runner's own copy of the assertion, called after checking that
    nothing was patched (a patch that matters is in place while the assertion runs, even one the sample takes
    back before the test ends). Both are called through marker constants that `bake` turns into the functions."""

    def __init__(self, operand: str, assertion: str) -> None:
        self.operand, self.assertion = operand, assertion

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr.startswith(("assert", "fail")):
            call = ast.Call(ast.Constant(self.assertion), [ast.Name("self", ast.Load()), ast.Constant(f.attr), *node.args], node.keywords)
            return ast.copy_location(call, node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        def wrap(e: ast.expr) -> ast.expr:
            return ast.Call(ast.Constant(self.operand), [e], [])

        return ast.copy_location(ast.Compare(wrap(node.left), node.ops, [wrap(c) for c in node.comparators]), node)


def guarded_test_code(test: str, operand: Any, assertion: Any) -> Any:
    """The test module compiled with its comparisons guarded and its assertions the runner's, both baked in."""
    names = (marker("operand"), marker("assertion"))
    tree = ast.fix_missing_locations(_GuardCompares(*names).visit(ast.parse(test)))
    return compile_baked(tree, "<test>", {names[0]: operand, names[1]: assertion})


_SIGNAL_GUARD = """
def signal(signalnum, handler):
    caller = {str!r}({getframe!r}(1).f_code.co_filename)
    if handler is not {SIG_DFL!r} and handler is not {SIG_IGN!r} and not (caller.startswith({library_dirs!r}) and caller.endswith(".py")):
        raise {RuntimeError!r}("blocked by the Assay sandbox: a Python signal handler (it would get the runner's frames)")
    return {original!r}(signalnum, handler)
"""


def guard_signals(library_dirs: tuple[str, ...]) -> None:
    """signal.signal (and _signal's) accept only SIG_DFL and SIG_IGN from the sample's code from here on (library
    code may install its own handlers): a handler receives the frame it interrupted, which may be the runner's.
    The real function, and all the guard uses, are constants of its code (not names in its globals, which the
    sample can read through __globals__ and rewrite); the guard is compiled as the runner's own code, which may
    look up its caller."""
    import _signal  # type: ignore[import-not-found]

    values: dict[str, Any] = {"original": _signal.signal, "SIG_DFL": _signal.SIG_DFL, "SIG_IGN": _signal.SIG_IGN,
                              "RuntimeError": RuntimeError, "str": str, "getframe": sys._getframe, "library_dirs": library_dirs}
    names = {k: marker(k) for k in values}
    private: dict[str, Any] = {"__builtins__": {}}
    source = ast.parse(_SIGNAL_GUARD.format(**names))
    exec(compile_baked(source, os.path.abspath(__file__), {names[k]: v for k, v in values.items()}), private)
    _signal.signal = signal.signal = private["signal"]


_PLAIN = (str, int, float, bool, type(None), tuple, list, dict, set, frozenset, types.GetSetDescriptorType, types.MemberDescriptorType)
_HOOKS = frozenset({"__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__new__", "__init_subclass__", "__class__"})


def make_library_class(library_dirs: tuple[str, ...]) -> Any:
    """library_class(cls): whether a class in a test class's MRO is plain library code (pyfakefs' TestCaseMixin, under
    BigCodeBench/719's tests): each function it holds (plain, class or static method, property) is compiled from a
    library file, its other values are plain data, and it brings none of the hooks that decide attribute look-up
    or the guarded comparisons. Made before the sample runs, from references bound then."""
    vars_, type_, str_, isinstance_ = vars, type, str, isinstance
    library = make_is_library(library_dirs)
    code_of = types.FunctionType.__dict__["__code__"].__get__
    function, wrappers, prop, plain = types.FunctionType, (classmethod, staticmethod), property, _PLAIN
    hooks = _HOOKS | _SENSITIVE
    func_of = {classmethod: classmethod.__dict__["__func__"].__get__, staticmethod: staticmethod.__dict__["__func__"].__get__}
    fget, fset, fdel = (property.__dict__[k].__get__ for k in ("fget", "fset", "fdel"))

    def library_function(value: Any) -> bool:
        return value is None or (type_(value) is function and library(str_(code_of(value).co_filename)))

    def library_class(cls: type) -> bool:
        for key, value in vars_(cls).items():
            kind = type_(value)
            if key in hooks:
                return False
            if kind is function:
                ok = library_function(value)
            elif kind in wrappers:
                ok = library_function(func_of[kind](value))
            elif kind is prop:
                ok = library_function(fget(value)) and library_function(fset(value)) and library_function(fdel(value))
            else:
                ok = isinstance_(value, plain)
            if not ok:
                return False
        return True

    return library_class


def make_tamper_check() -> tuple[Any, Any]:
    """(snapshot, changed): what the sample may not change, and what it changed since ('' for nothing);
    identity, not equality, decides. Closures over private references, made before the sample runs. A test
    class is held to its functions only: its tests may keep state in class attributes (setUpClass does).
    pybind11's extension modules (scipy's, sklearn's, as they load) add one `__pybind11_internals_v4_...__` name to
    builtins, and a warning attributed to unittest's frames adds `__warningregistry__` to unittest.case (352); such
    names are not counted (a new name the tests never use changes nothing they see)."""
    vars_, len_, str_, getattr_, dict_, isinstance_, type_ = vars, len, str, getattr, dict, isinstance, type
    startswith, pybind11 = str.startswith, "__pybind11_internals_"
    functions = (types.FunctionType, classmethod, staticmethod)

    def size_of(attrs: dict[Any, Any]) -> int:
        return len_(attrs) - len_([k for k in attrs if type_(k) is str_ and (startswith(k, pybind11) or k == "__warningregistry__")])

    def snapshot(owners: list[Any], functions_only: bool = False, exempt: frozenset[str] = frozenset()) -> list[tuple[Any, dict[str, Any], bool, int]]:
        return [(o, {k: v for k, v in vars_(o).items() if (not functions_only or isinstance_(v, functions)) and k not in exempt},
                 functions_only, size_of(vars_(o))) for o in owners]

    def changed(frozen: list[tuple[Any, dict[str, Any], bool, int]]) -> str:
        for owner, before, functions_only, size in frozen:
            now = vars_(owner)
            if not functions_only and size_of(now) != size:
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
    library_class = make_library_class(library_dirs)
    framework = [base, unittest.TestResult, unittest.TestSuite, unittest.TestLoader, builtins, unittest, unittest.case,
                 unittest.mock.Mock, unittest.mock.MagicMock, unittest.mock.NonCallableMock]
    # builtins the test code itself patches (bigcodebench's @patch("builtins.open")) may differ while a test runs
    patched = frozenset(job.get("patched_builtins", ()))
    frozen = snapshot([o for o in framework if o is not builtins]) + snapshot([builtins], exempt=patched)
    framework_modules = {name: modules[name] for name in ("unittest", "unittest.case", "unittest.mock", "builtins")}

    def assertion(case: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        what = changed(frozen)
        if what:
            raise at_assertion(f"the sample changed the test framework before {name}: {what}")
        fn = lookup(name)
        return fn(case, *args, **kwargs) if fn is not None else getattr_(case, name)(*args, **kwargs)

    test_code = guarded_test_code(job["test"], operand, assertion)  # before the sample runs: ast and compile are its to patch after
    try:
        compiled = compile(job["code"], "<sample>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        emit("compile", [f"{type(exc).__name__}: {exc}"])
        return
    guard_signals(library_dirs)
    sys.addaudithook(driver.make_audit_hook(library_dirs, driver_files=(os.path.abspath(__file__), os.path.abspath(driver.__file__)),
                                            strict=True, channel=driver.channel_identity()))
    # The sample is a module importable by its name, as upstream's is (bigcodebench registers its `__test__` module):
    # pickle finds its functions by name (multiprocessing's Pool, BigCodeBench/205, 363), and the tests' patch(__name__
    # + ".choice") patches what the sample's functions see (612). As upstream's module file: ClassEval_45's tests
    # write next to __file__. The verdict never looks the module up: what sys.modules holds decides nothing.
    module_name = job.get("module", "solution")
    module = types.ModuleType(module_name)
    namespace: dict[str, Any] = vars(module)
    namespace.update({"__builtins__": builtins, "__file__": os.path.join(os.getcwd(), module_name + ".py")})
    modules[module_name] = module
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
    try:
        exec_(test_code, tests)
    except baseexc as exc:
        emit("load", ["raise", "the test code failed to load: " + describe(exc)])
        return
    # A test class's bases must be the test code's own classes or unittest's (not a class the sample made).
    own = {id(v) for k, v in tests.items() if isinstance_(v, type_) and namespace.get(k) is not v}
    # Upstream runs the sample and the tests as one module, so the sample's functions see the tests' top-level names
    # (BigCodeBench/632's reference uses the json its tests import): they are copied into the sample's namespace,
    # the test's binding winning as in one module. Only that way: what the sample writes to its own globals later
    # stays out of the tests' dict.
    for key, value in list_(tests.items()):
        if namespace.get(key, tests) is not value:
            namespace[key] = value
    allowed = own | {id(c) for c in type_.__dict__["__mro__"].__get__(base)}
    classes: list[Any] = [tests.get(name) for name in job["test_classes"]]
    frozen += snapshot([c for c in classes if isinstance_(c, type_)], True)
    for name, cls in zip_(job["test_classes"], classes):
        if not (isinstance_(cls, type_) and issubclass_(cls, base)):
            emit("test", [name, "", "error", f"no unittest.TestCase named {name!r} in the tests"])
            continue
        others = [c for c in type_.__dict__["__mro__"].__get__(cls) if id(c) not in allowed]
        if not all(library_class(c) for c in others):
            emit("tampered", [f"{name} derives from a class the sample made"])
            return
        frozen += snapshot(others, True)
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
    nonce = driver.read_nonce()
    job = driver.read_job()
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
