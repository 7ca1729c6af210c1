"""BigCodeBench: loading (styles, versions with upstream's fixes), the package environment, and judging with hostile samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.benchmarks import bigcodebench_env as envs
from assay.benchmarks import load_benchmark
from assay.benchmarks.bigcodebench import BigCodeBenchFormatError, load_bigcodebench, read_rows
from assay.execution import Executor
from assay.problems import Benchmark, ProgramTests, Runner, Status
from assay.provenance import benchmark_info
from assay.sandbox import get_sandbox


@pytest.fixture
def bcb_data(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (data_dir / "bigcodebench" / "hf_data" / "BigCodeBench.jsonl.gz").is_file():
        pytest.skip(f"needs {data_dir / 'bigcodebench'}, which is absent here")
    monkeypatch.delenv(envs.ENV_VAR, raising=False)
    return data_dir


@pytest.fixture
def bench(bcb_data: Path, tmp_path: Path) -> Benchmark:
    return load_bigcodebench(data_dir=bcb_data, cache_dir=tmp_path)  # an empty cache: no environment built


def test_loads_full_set_with_unittest_tests(bench: Benchmark) -> None:
    assert len(bench.problems) == 1140 and bench.name == "bigcodebench"
    assert bench.version.startswith("v0.1.4") and "fix_v023" in bench.version
    p = bench.problems["BigCodeBench/5"]
    assert isinstance(p.tests, ProgramTests) and p.tests.runner is Runner.UNITTEST and p.tests.test_classes == ("TestCases",)
    assert p.tests.cpu_seconds == 240 and p.tests.memory_bytes == 30 * 1024**3
    assert p.reference_program().endswith("\n" + p.reference.lstrip("\n")) and p.prompt.startswith("import random")
    assert bench.environment is not None and bench.environment["name"] == "none"
    assert benchmark_info(bench).environment == bench.environment  # the run record carries it
    assert bench.reference_floor == 0.99


def test_missing_libraries_are_an_environment_gap(bench: Benchmark) -> None:
    p = bench.problems["BigCodeBench/3"]  # numpy
    assert p.tests.env is not None and p.tests.env.missing == ("numpy",)  # type: ignore[union-attr]
    assert "env-gap:numpy" in p.tags and "requires:numpy" in p.tags
    stdlib = [q for q in bench.problems.values() if not q.tests.env.missing]  # type: ignore[union-attr]
    assert len(stdlib) == 300  # 327 by their libs; 27 of those tests import a library themselves


def test_versions_apply_upstreams_fixes(bcb_data: Path, tmp_path: Path) -> None:
    old = load_benchmark("bigcodebench/v0.1.0", data_dir=bcb_data, cache_dir=tmp_path)
    new = load_benchmark("bigcodebench/v0.1.4", data_dir=bcb_data, cache_dir=tmp_path)
    assert old.version.startswith("v0.1.0") and old.name == "bigcodebench/v0.1.0"
    t_old, t_new = (b.problems["BigCodeBench/1006"].tests for b in (old, new))
    assert "sample-1.zip" in t_old.code and "sample-1.zip" not in t_new.code and "test_non_zip_content" in t_new.code  # type: ignore[union-attr]
    assert "from datetime import datetime" in old.problems["BigCodeBench/760"].prompt
    assert "from datetime import datetime" not in new.problems["BigCodeBench/760"].prompt
    assert new.problems["BigCodeBench/37"].prompt.startswith("import pandas as pd\n")
    assert "sample-5.zip" in new.problems["BigCodeBench/1005"].tests.code  # type: ignore[union-attr]
    assert "status_code = 200" in new.problems["BigCodeBench/215"].tests.code  # type: ignore[union-attr]
    changed = [pid for pid in old.problems if old.problems[pid] != new.problems[pid]]
    assert sorted(changed, key=lambda s: int(s.split("/")[1])) == [f"BigCodeBench/{i}" for i in (16, 37, 178, 211, 215, 241, 267, 760, 1005, 1006)]


def test_instruct_style(bcb_data: Path, tmp_path: Path) -> None:
    b = load_benchmark("bigcodebench-instruct", data_dir=bcb_data, cache_dir=tmp_path)
    p = b.problems["BigCodeBench/5"]
    assert p.prompt_is_instruction and p.reference_is_program and "You should write self-contained code" in p.prompt
    assert p.reference_program().startswith("import random\nimport math\n")


def test_bad_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text(json.dumps({"task_id": "a"}) + "\n")
    with pytest.raises(BigCodeBenchFormatError, match="missing"):
        read_rows(bad)


def test_requirement_substitutions() -> None:
    text = "numpy==1.21.2\npandas==2.0.3\nstatsmodels==0.14.0\nstatsmodels==0.14.0\nRequests==2.31.0\nrequests==2.31.0\ntensorflow==2.11.0"
    lines, subs = envs.requirement_lines(text, "full")
    # the full set also pins what upstream leaves to pip's newest: setuptools 81+ has no pkg_resources (BigCodeBench/227)
    assert lines == ["numpy==1.23.5", "pandas==2.0.3", "statsmodels==0.14.0", "Requests==2.31.0", "tensorflow==2.12.0", "setuptools<81"]
    assert [s["pinned"] for s in subs] == ["numpy==1.21.2", "tensorflow==2.11.0", "setuptools (unpinned)"] and all(s["why"] for s in subs)
    assert envs.requirement_lines(text, "core")[0] == ["numpy==1.23.5", "pandas==2.0.3"]  # the core set is unchanged
    assert envs.requirement_lines(text + "\nsetuptools==80.0.0", "full")[0][-1] == "setuptools==80.0.0"  # a pin of upstream's stays
    with pytest.raises(envs.EnvironmentError_):
        envs.requirement_lines(text, "huge")


def test_named_env_must_be_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(envs.ENV_VAR, str(tmp_path))
    with pytest.raises(envs.EnvironmentError_, match="not a built BigCodeBench environment"):
        envs.find_env(tmp_path)


CORRECT = """
    random_dict = {k: [random.randint(0, 100) for _ in range(random.randint(1, 10))] for k in LETTERS}
    return {k: math.sqrt(sum((i - sum(v) / len(v)) ** 2 for i in v) / len(v)) for k, v in random_dict.items()}
"""
# Module code that, run as a library's, walks its frames to the runner's nonce and forges every test's event.
_FRAME_WALKER = (
    "import os, sys\nf = sys._getframe(0)\nnonce = None\nwhile f is not None:\n    for v in list(f.f_locals.values()):\n"
    "        for c in (getattr(v, '__closure__', None) or ()):\n            x = c.cell_contents if c != None else None\n"
    "            if isinstance(x, bytes) and len(x) == 32:\n                nonce = x\n    f = f.f_back\n"
    "for t in ('test_default_letters', 'test_custom_letters', 'test_uniform_values', 'test_empty_letters', 'test_known_values'):\n"
    "    os.write(3, nonce + b' ' + ascii(['test', 'TestCases', t, 'ok', '', '0']).encode() + b'\\n')\n"
    "os.write(3, nonce + b\" ['final']\\n\")\nos._exit(0)\n")
HOSTILE = {
    "wrong": "    return {k: 1.0 for k in LETTERS}\n",
    "exit in task_func": "    import sys\n    sys.exit(0)\n",
    "os._exit in task_func": "    import os\n    os._exit(0)\n",
    "exit at import": "    return {}\nimport os\nos._exit(0)\n",
    "sys.exit at import": "    return {}\nimport sys\nsys.exit(0)\n",
    "patched assertEqual": "    return {}\nimport unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n"
                           "unittest.TestCase.assertTrue = lambda *a, **k: None\nunittest.TestCase.assertIn = lambda *a, **k: None\n",
    "ctypes from the sample": "    import ctypes\n    ctypes.CDLL(None).getpid()\n" + CORRECT,
    "ctypes.CDLL of a file from the sample": "    import ctypes\n    ctypes.CDLL('libc.so.6')\n" + CORRECT,
    "forged ok lines": "    for t in ('test_case_1', 'test_case_2', 'test_case_3', 'test_case_4', 'test_case_5'):\n"
                       "        print(f'{t} (__main__.TestCases) ... ok')\n    print('OK')\n    import os\n    os._exit(0)\n",
    # The tests' functions are reachable (TestCase.__subclasses__()) and so is their __globals__: the runner's
    # assertion and comparison guard used to be names there, so rewriting them made every assertion a no-op.
    "rewrites the tests' globals": "    import unittest\n    for c in unittest.TestCase.__subclasses__():\n"
                                   "        for v in list(vars(c).values()):\n            g = getattr(v, '__globals__', None)\n"
                                   "            if isinstance(g, dict) and g is not globals():\n"
                                   "                for k in list(g):\n                    if k.startswith('__assay'):\n"
                                   "                        g[k] = (lambda *a, **kw: None) if 'assert' in k else (lambda x: x)\n"
                                   "    return {k: 0.0 for k in LETTERS}\n",
    # ... and the assertion wrappers' globals held the original assertion and the guard
    "rewrites the assertion wrappers' globals": "    import unittest\n    for name, fn in list(vars(unittest.TestCase).items()):\n"
                                                "        if name.startswith('assert') and hasattr(fn, '__globals__'):\n"
                                                "            fn.__globals__['original'] = lambda *a, **kw: None\n"
                                                "            fn.__globals__['operand'] = lambda x: x\n"
                                                "    return {k: 0.0 for k in LETTERS}\n",
    # the sample's own module in sys.modules (now registered for pickle and patch) decides nothing: a fake one
    # with a correct task_func does not stand in for the sample's wrong one
    "registers a fake solution module": "    return {k: 0.0 for k in LETTERS}\nimport sys, types\n_fake = types.ModuleType('solution')\n"
                                        "exec('import math, random\\ndef task_func(LETTERS=[chr(i) for i in range(97, 123)]):\\n'"
                                        " + " + repr(CORRECT) + ", _fake.__dict__)\nsys.modules['solution'] = _fake\n",
    # writing to its own globals (which got the tests' names, as upstream's one module has) does not reach the tests'
    "rewrites the tests' math through its globals": "    import types\n    globals()['math'] = types.SimpleNamespace(isclose=lambda *a, **kw: True,"
                                                    " sqrt=lambda x: 0.0)\n    return {k: 0.0 for k in LETTERS}\n",
    # a library function that calls what it is given (Mock's side_effect) hands sys._getframe's frame to the sample;
    # its f_back chain leads to the runner's locals and the nonce, which forges every event
    "a frame through a library callback": "    import os, sys\n    from unittest.mock import Mock\n    f = Mock(side_effect=sys._getframe)(0)\n"
                                          "    nonce = None\n    while f is not None:\n        for v in list(f.f_locals.values()):\n"
                                          "            for c in (getattr(v, '__closure__', None) or ()):\n"
                                          "                x = c.cell_contents if c != None else None\n"
                                          "                if isinstance(x, bytes) and len(x) == 32:\n                    nonce = x\n"
                                          "        f = f.f_back\n    for t in ('test_default_letters', 'test_custom_letters', 'test_uniform_values',"
                                          " 'test_empty_letters', 'test_known_values'):\n"
                                          "        os.write(3, nonce + b' ' + ascii(['test', 'TestCases', t, 'ok', '', '0']).encode() + b'\\n')\n"
                                          "    os.write(3, nonce + b\" ['final']\\n\")\n    os._exit(0)\n",
    "a traceback's frame through pkgutil": "    import pkgutil, os\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n"
                                           "        os.assay_tb = e.__traceback__\n    pkgutil.resolve_name('os:assay_tb.tb_frame')\n" + CORRECT,
    # what library code may now ask for by name (pandas' gc.get_referents, matplotlib's sys._current_frames,
    # threadpoolctl's /proc/self/maps) the sample may not, itself or through a library that calls what it is given
    "referents through a library callback": "    import gc\n    from unittest.mock import Mock\n    Mock(side_effect=gc.get_referents)(globals())\n" + CORRECT,
    "all threads' frames through a library callback": "    import sys\n    from unittest.mock import Mock\n    Mock(side_effect=sys._current_frames)()\n" + CORRECT,
    "/proc/self/maps through pathlib": "    import pathlib\n    pathlib.Path('/proc/self/maps').read_bytes()\n" + CORRECT,
    # code compiled under a library dir's name that is not Python source (allowed now: jinja2 compiles branca's .js
    # templates so) is not library code: its class's __eq__ is still the sample's, refused by the guard
    "a class compiled under a library template's name": "    import os\n    src = ('class Any:\\n    __hash__ = object.__hash__\\n'\n"
        "           + ''.join(f'    def __{op}__(self, other): return True\\n' for op in ('eq', 'ge', 'le', 'gt', 'lt'))\n"
        "           + '    def __float__(self): return 0.0\\n')\n    ns = {}\n"
        "    exec(compile(src, os.path.join(os.path.dirname(os.__file__), 'template.js'), 'exec'), ns)\n"
        "    return {k: ns['Any']() for k in LETTERS}\n",
    # code compiled under the import system's name (`<frozen importlib._bootstrap>`) passed for the import itself: it
    # could compile more code under a library file's name, whose frames then walk to the nonce and forge every event
    "code named as the import system's": "    import os\n    stage2 = " + repr(_FRAME_WALKER) + "\n"
        "    exec(compile(\"exec(compile(stage2, os.__file__, 'exec'), {})\", '<frozen importlib._bootstrap>', 'exec'),"
        " {'stage2': stage2, 'os': os})\n",
    # a .pyc the sample wrote outside the library dirs, with a library file's name in its code (marshal keeps whatever
    # name it holds, and importlib fixes no name for a sourceless one): its frames passed for that library's
    "a .pyc under a library's name": "    import importlib.util, marshal, os, sys, tempfile\n    stage2 = " + repr(_FRAME_WALKER) + "\n"
        "    fake = 'A' * len(os.__file__)\n"
        "    data = marshal.dumps(compile(stage2, fake, 'exec')).replace(fake.encode(), os.__file__.encode())\n"
        "    d = tempfile.mkdtemp()\n    with open(os.path.join(d, 'assay_forged.pyc'), 'wb') as f:\n"
        "        f.write(importlib.util.MAGIC_NUMBER + bytes(12) + data)\n    sys.path.insert(0, d)\n    import assay_forged\n",
    # the signal guard's real signal() and its caller check were names in its globals, reachable the same way
    # past the task cap of a run with a package environment (256): the forks fail, the sleepers die with the run
    "a fork bomb past the task cap": "    import os, time\n    for _ in range(400):\n        try:\n            if os.fork() == 0:\n"
                                     "                time.sleep(600)\n        except OSError:\n            break\n"
                                     "    return {k: 1.0 for k in LETTERS}\n",
    "rewrites the signal guard's globals": "    import signal\n    signal.signal.__globals__['library_dirs'] = ('',)\n"
                                           "    signal.signal(signal.SIGUSR1, lambda *a: None)\n" + CORRECT,
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["correct", *HOSTILE])
def test_hostile_samples_do_not_pass(bench: Benchmark, kind: str) -> None:
    problem = bench.problems["BigCodeBench/5"]  # math and random only
    ex = Executor(get_sandbox(), bench)
    body = CORRECT if kind == "correct" else HOSTILE[kind]
    verdict = ex.judge(problem, problem.prompt + body)
    if kind == "correct":
        assert verdict.status is Status.PASSED, verdict.message
    else:
        assert verdict.status is not Status.PASSED, (kind, verdict.message)


@pytest.mark.slow
def test_sample_module_is_importable_by_name(bench: Benchmark) -> None:
    """Standard-library tasks whose references need the sample's module in sys.modules, as upstream's harness has
    it: multiprocessing pickles the sample's functions by module and name (205, 363), and patch(__name__ + ...)
    targets it by name (779)."""
    ex = Executor(get_sandbox(), bench)
    for pid in ("BigCodeBench/205", "BigCodeBench/363", "BigCodeBench/779"):
        problem = bench.problems[pid]
        assert not problem.tests.env.missing  # type: ignore[union-attr]
        verdict = ex.judge(problem, problem.reference_program())
        assert verdict.status is Status.PASSED, (pid, verdict.message)


def test_environment_gap_is_skipped_not_failed(bench: Benchmark) -> None:
    problem = bench.problems["BigCodeBench/3"]
    verdict = Executor(get_sandbox(), bench).judge(problem, problem.reference_program())
    assert verdict.status is Status.SKIPPED and "environment gap" in verdict.message and "numpy" in verdict.message


@pytest.mark.slow
def test_references_in_the_full_environment(bcb_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the full environment built (`assay env build bigcodebench`; skipped where it is not), references that
    failed on Assay's rules pass: seaborn/matplotlib (pyparsing's import asks traceback for frames, 9), sklearn
    (pybind11 adds a name to builtins, 29), matplotlib.pyplot (sys._current_frames, 31), sklearn's KMeans
    (threadpoolctl reads /proc/self/maps and loads the BLAS libraries through ctypes, 92), folium (jinja2 compiles
    branca's .js templates, 185), pandas (gc.get_referents, 234; a warning's __warningregistry__ in unittest.case, 352), pyfakefs (its TestCaseMixin in the tests' MRO and
    its fake open in builtins, 719), flask (werkzeug compiles an ast: the compile event names no file, 80)."""
    found = envs.find_env(Path.home() / ".cache" / "assay")
    needed = {"seaborn", "sklearn", "folium", "pyfakefs", "flask"}
    if found is None or not needed <= found.modules():
        pytest.skip("needs the full BigCodeBench environment (`assay env build bigcodebench`, ~3 GB from PyPI)")
    from assay.cli.common import _sandbox_for

    monkeypatch.setenv(envs.ENV_VAR, str(found.path))
    bench = load_bigcodebench(data_dir=bcb_data)
    ex = Executor(_sandbox_for(bench, allow_weak=False), bench)
    for pid in ("BigCodeBench/9", "BigCodeBench/29", "BigCodeBench/31", "BigCodeBench/92", "BigCodeBench/185", "BigCodeBench/234",
                "BigCodeBench/352", "BigCodeBench/719", "BigCodeBench/80"):
        problem = bench.problems[pid]
        assert not problem.tests.env.missing, pid  # type: ignore[union-attr]
        verdict = ex.judge(problem, problem.reference_program())
        assert verdict.status is Status.PASSED, (pid, verdict.message)


@pytest.mark.slow
def test_reference_in_a_built_environment(bcb_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a built environment (the core one at least) pandas tasks' references pass, and a test that patches
    builtins.open itself (BigCodeBench/12) is not taken for the sample's tampering."""
    from assay.benchmarks.bigcodebench import requirements_file
    from assay.cli.common import _sandbox_for

    found = envs.find_env(Path.home() / ".cache" / "assay")  # a user's own build, else the core one built here (~2 min, from PyPI)
    if found is None or "pandas" not in found.modules():
        try:
            found = envs.build_env(requirements_file(bcb_data), "core")
        except envs.EnvironmentError_ as exc:
            pytest.skip(f"cannot build the core BigCodeBench environment here: {exc}")
    monkeypatch.setenv(envs.ENV_VAR, str(found.path))
    bench = load_bigcodebench(data_dir=bcb_data)
    assert bench.environment is not None and bench.environment["installed"]["pandas"] == "2.0.3"
    ex = Executor(_sandbox_for(bench, allow_weak=False), bench)
    # 612: the tests patch(__name__ + ".choice"), the sample's module by name; 632, 647: the references use json
    # and datetime that only their tests import (upstream runs both as one module)
    for pid in ("BigCodeBench/12", "BigCodeBench/55", "BigCodeBench/60", "BigCodeBench/612", "BigCodeBench/632", "BigCodeBench/647"):
        problem = bench.problems[pid]
        assert not problem.tests.env.missing  # type: ignore[union-attr]
        verdict = ex.judge(problem, problem.reference_program())
        assert verdict.status is Status.PASSED, (pid, verdict.message)


# The audit hook's rules for making functions and naming code, tried directly (a fresh interpreter: a hook cannot be
# removed). `lib/` stands for a pinned library: gen.py execs generated source as <string> code that copies functions
# with types.FunctionType (tensorflow's load_op_library and ops.to_raw_op do this as tensorflow is imported), and
# copy.py is such a copier the sample can call at run time (to_raw_op, networkx's copyfunc: it reads f.__code__ itself).
_LIB_GEN = '''
import copylib
SOURCE = "def op(x):\\n    return x + 1\\nraw_op = copylib.copyfn(op)\\n"
ns = {"copylib": copylib}
exec(SOURCE, ns)
'''
_LIB_COPY = '''
import types
def copyfn(f):
    return types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
def run(source, ns):
    exec(source, ns)
'''
_PROBE = '''
import os, sys, types
sys.path.insert(0, LIB)
sys.path.insert(0, SRC)
from assay.languages import python_driver as driver
sys.addaudithook(driver.make_audit_hook((os.path.dirname(os.__file__), LIB), driver_files=(os.path.abspath(driver.__file__),)))
import gen, copylib
from unittest.mock import Mock

def own(): return 1

def attempt(name, fn):
    try:
        fn()
        print(name, "allowed")
    except RuntimeError as exc:
        print(name, "refused" if "blocked by the Assay sandbox" in str(exc) else exc)

attempt("the library's own <string> code at import", lambda: gen.ns["raw_op"](1) == 2 or 1 / 0)
attempt("the library copies a <string> function at run time", lambda: copylib.copyfn(gen.ns["op"])(1) == 2 or 1 / 0)
attempt("the sample's FunctionType", lambda: types.FunctionType(compile("1", "<sample>", "eval"), {}))
attempt("the sample's exec of <string> code making a function",
        lambda: exec("import types\\ntypes.FunctionType(compile('1', '<string>', 'eval'), {})", {}))
attempt("FunctionType through a library callback", lambda: Mock(side_effect=types.FunctionType)(compile("1", "<string>", "eval"), {}))
attempt("a library copy of library code", lambda: copylib.copyfn(os.path.join))
attempt("a library copy of the driver's code", lambda: copylib.copyfn(driver.describe))
attempt("a library copy of the import system's code", lambda: copylib.copyfn(sys.modules["importlib._bootstrap"]._find_and_load))
attempt("a library copy of the sample's function that asks for frames",
        lambda: copylib.copyfn(eval(compile("lambda: __import__('sys')._getframe(0)", "<string>", "eval")))())
attempt("the sample's code through a library's exec, making a function of library code",
        lambda: copylib.run("import os, copylib\\ncopylib.copyfn(os.path.join)", {}))
attempt("code named as the import system's", lambda: compile("import ctypes", "<frozen importlib._bootstrap>", "exec"))

def forged_pyc(name, source, filename):
    import importlib, importlib.util, marshal, tempfile
    fake = "A" * len(filename)
    data = marshal.dumps(compile(source, fake, "exec")).replace(fake.encode(), filename.encode())
    d = tempfile.mkdtemp()
    with open(os.path.join(d, name + ".pyc"), "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + bytes(12) + data)
    sys.path.insert(0, d)
    return importlib.import_module(name)

attempt("a .pyc the sample wrote, under a library's name", lambda: forged_pyc("forged1", "x = 1", os.__file__))
attempt("a .pyc the sample wrote, under the import system's name", lambda: forged_pyc("forged2", "x = 1", "<frozen importlib._bootstrap>"))
attempt("a .pyc the sample wrote, under its own name", lambda: forged_pyc("mine", "x = 1", "/tmp/mine.py").x == 1 or 1 / 0)
attempt("a library module imported after them", lambda: __import__("json.tool"))
attempt("code renamed as the import system's through a library callback",
        lambda: Mock(side_effect=compile("1", "<string>", "eval").replace)(co_filename="<frozen importlib._bootstrap>"))
'''


def test_function_making_rules(tmp_path: Path) -> None:
    """Library code may make a function, at run time too, of code no rule trusts (<string> code it exec'd, a temporary
    file's: tensorflow's op wrappers and autograph's functions, BigCodeBench/417-419) when its own code names
    FunctionType. The sample's own FunctionType stays refused, as does a library callback's (Mock), and no library may
    copy trusted code (a library's, the driver's, the import system's) into a function; nor may code be named as the
    import system's (its frames were trusted as the import itself: a sample's ctypes, its compile under library names),
    nor a .pyc the sample wrote outside the library dirs bring code under a trusted name (its own names are fine)."""
    import subprocess
    import sys

    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "gen.py").write_text(_LIB_GEN)
    (lib / "copylib.py").write_text(_LIB_COPY)
    src = Path(__file__).resolve().parents[1] / "src"
    probe = f"LIB = {str(lib)!r}\nSRC = {str(src)!r}\n" + _PROBE
    done = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=60)
    seen = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert done.returncode == 0 and len(seen) == 16, done.stdout + done.stderr
    allowed = {"the library's own <string> code at import", "the library copies a <string> function at run time",
               "a .pyc the sample wrote, under its own name", "a library module imported after them"}
    for name, answer in seen.items():
        assert answer == ("allowed" if name in allowed else "refused"), (name, answer, done.stderr)


def _full_env_bench(bcb_data: Path, monkeypatch: pytest.MonkeyPatch, needed: set[str]) -> tuple[Benchmark, Executor]:
    found = envs.find_env(Path.home() / ".cache" / "assay")
    if found is None or not needed <= found.modules():
        pytest.skip("needs the full BigCodeBench environment (`assay env build bigcodebench`, ~3 GB from PyPI)")
    from assay.cli.common import _sandbox_for

    monkeypatch.setenv(envs.ENV_VAR, str(found.path))
    bench = load_bigcodebench(data_dir=bcb_data)
    return bench, Executor(_sandbox_for(bench, allow_weak=False), bench)


@pytest.mark.slow
def test_tensorflow_reference_in_the_full_environment(bcb_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tensorflow's import execs the op wrappers load_op_library generates (<string> code copying functions with
    FunctionType through ops.to_raw_op), and keras' fit converts its train function with autograph (a function made
    of code loaded from a temporary file): both are library code making functions of code no rule trusts (418)."""
    bench, ex = _full_env_bench(bcb_data, monkeypatch, {"tensorflow", "keras"})
    problem = bench.problems["BigCodeBench/418"]
    verdict = ex.judge(problem, problem.reference_program())
    assert verdict.status is Status.PASSED, verdict.message


@pytest.mark.slow
def test_pinned_setuptools_in_the_full_environment(bcb_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The full environment pins setuptools below 81 (upstream leaves it unpinned), which still has the pkg_resources
    BigCodeBench/227's task imports (an environment built before the pin lacks it: skipped)."""
    bench, ex = _full_env_bench(bcb_data, monkeypatch, {"pkg_resources", "librosa"})
    assert any(s["installed"] == "setuptools<81" for s in bench.environment["substitutions"])  # type: ignore[index]
    problem = bench.problems["BigCodeBench/227"]
    assert not problem.tests.env.missing  # type: ignore[union-attr]
    verdict = ex.judge(problem, problem.reference_program())
    assert verdict.status is Status.PASSED, verdict.message


TF_HOSTILE = {
    # tensorflow's own copier (ops.to_raw_op names FunctionType) of trusted code: the signal guard (compiled as the
    # runner's own file, whose frames may look up their callers) and a library function, each with the sample's globals
    # and closure. (The runner's assertion wrappers, compiled as "<assay guard>" with all they use baked in as
    # constants, and the tests' "<test>" code are not trusted code: a copy of them is no more than the sample's own.)
    "the runner's signal guard copied through tensorflow": "    import signal\n    from tensorflow.python.framework import ops\n"
                                                           "    ops.to_raw_op(signal.signal)\n" + CORRECT,
    "library code copied through tensorflow": "    import os\n    from tensorflow.python.framework import ops\n"
                                              "    ops.to_raw_op(os.path.join)\n" + CORRECT,
    # the sample's own function converted by autograph (its source put in linecache; making the function is allowed, as
    # its code is the sample's) stays the sample's code: it gets no frame, directly or through autograph's converted_call
    "a frame through an autograph-converted function": "    import linecache\n    import tensorflow as tf\n"
        "    src = 'import sys\\ndef peek():\\n    return sys._getframe(1)\\n'\n"
        "    linecache.cache['peek.py'] = (len(src), None, src.splitlines(True), 'peek.py')\n    ns = {}\n"
        "    exec(compile(src, 'peek.py', 'exec'), ns)\n    tf.autograph.to_graph(ns['peek'])()\n" + CORRECT,
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(TF_HOSTILE))
def test_tensorflow_hostile_samples_do_not_pass(bcb_data: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    bench, ex = _full_env_bench(bcb_data, monkeypatch, {"tensorflow"})
    problem = bench.problems["BigCodeBench/5"]
    verdict = ex.judge(problem, "import tensorflow\n" + problem.prompt + TF_HOSTILE[kind])
    assert verdict.status is not Status.PASSED, (kind, verdict.message)
    assert "blocked by the Assay sandbox" in verdict.message, (kind, verdict.message)
