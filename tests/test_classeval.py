"""ClassEval: loading the 100 classes, the references through the CLI (class- and method-level scores), and
samples that try to pass unittest classes run in their own process without being right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.benchmarks import load_benchmark
from assay.benchmarks.classeval import ClassEvalFormatError, load_classeval
from assay.execution import Executor
from assay.languages.python_unittest import unittest_methods
from assay.problems import Benchmark, Problem, ProgramTests, Runner, Status
from assay.sandbox import get_sandbox

runner = CliRunner()
CLASSEVAL_SHA256 = "50a1ac0e4d0c238573c10c0ab11feae00b14a80ae9e4c9cc28148707ecf0b6a2"


@pytest.fixture
def classeval_dir(data_dir: Path) -> Path:
    if not (data_dir / "classeval" / "ClassEval_data.json").is_file():
        pytest.skip(f"needs {data_dir / 'classeval'}, which is absent here")
    return data_dir


# ------------------------------------------------------------------ a small class of our own (no data needed)

REFERENCE = """
class Counter:
    def __init__(self):
        self.n = 0

    def add(self, k):
        self.n += k
        return self.n

    def items(self):
        return [self.n, "x"]
"""

TESTS = """
import unittest


class CounterTestAdd(unittest.TestCase):
    def test_add_1(self):
        self.assertEqual(Counter().add(2), 2)

    def test_add_2(self):
        c = Counter()
        c.add(1)
        self.assertEqual(c.add(2), 3)


class CounterTestItems(unittest.TestCase):
    def test_items(self):
        c = Counter()
        c.add(4)
        self.assertTrue(c.items() == [4, "x"])
        self.assertIn("x", c.items())
"""

WRONG = """
class Counter:
    def __init__(self):
        self.n = 0

    def add(self, k):
        return -1

    def items(self):
        return []
"""


@pytest.fixture(scope="module")
def judge():  # type: ignore[no-untyped-def]
    problem = Problem(id="T/0", language="python", prompt="", entry_point="Counter", reference=REFERENCE,
                      tests=ProgramTests(code=TESTS, runner=Runner.UNITTEST, test_classes=("CounterTestAdd", "CounterTestItems")),
                      reference_is_program=True)
    bench = Benchmark(name="t", version="1", content_hash="x", source="test", problems={problem.id: problem})
    ex = Executor(get_sandbox(), bench)
    return lambda code: ex.judge(problem, code)


def test_the_test_classes_are_found_as_unittest_finds_them() -> None:
    code = "import unittest\nclass A(unittest.TestCase):\n    def test_b(self): pass\n    def test_a(self): pass\n    def helper(self): pass\n" \
           "class B(A):\n    def test_c(self): pass\n"
    assert unittest_methods(code) == {"A": ["test_a", "test_b"], "B": ["test_a", "test_b", "test_c"]}


def test_a_right_class_passes_and_each_test_class_is_a_detail(judge) -> None:  # type: ignore[no-untyped-def]
    verdict = judge(REFERENCE)
    assert verdict.status is Status.PASSED, verdict.message
    assert [(t.name, t.status, t.message) for t in verdict.tests] == [
        ("class:CounterTestAdd", Status.PASSED, "2/2 tests passed"), ("class:CounterTestItems", Status.PASSED, "1/1 tests passed")]
    half = judge(REFERENCE.replace('return [self.n, "x"]', "return []"))
    assert half.status is Status.FAILED
    assert [t.status for t in half.tests] == [Status.PASSED, Status.FAILED]
    assert judge(REFERENCE.replace("self.n += k", "self.n += k\n        raise ValueError('no')")).status is Status.RUNTIME_ERROR
    assert judge("class Counter(:\n").status is Status.COMPILE_ERROR
    assert judge(REFERENCE.replace("return self.n", "while True: pass")).status is Status.TIMEOUT


HOSTILE = {
    "os._exit(0) at import": "import os\nos._exit(0)\n",
    "sys.exit(0) at import": "import sys\nsys.exit(0)\n",
    "os._exit(0) in a test": WRONG.replace("return -1", "import os; os._exit(0)"),
    "raises SkipTest": WRONG.replace("return -1", "import unittest; raise unittest.SkipTest('later')"),
    "patches assertEqual at import": "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n"
                                     "unittest.TestCase.assertTrue = lambda *a, **k: None\nunittest.TestCase.assertIn = lambda *a, **k: None\n" + WRONG,
    "patches assertEqual in a test": WRONG.replace("return -1", "import unittest; unittest.TestCase.assertEqual = lambda *a, **k: None; return -1"),
    "patches TestResult": "import unittest\nunittest.TestResult.wasSuccessful = lambda self: True\n"
                          "unittest.TestResult.addFailure = lambda *a: None\nunittest.TestResult.addError = lambda *a: None\n" + WRONG,
    "patches the tests' classes": WRONG.replace("return -1", "import unittest\n        for c in unittest.TestCase.__subclasses__():\n"
                                                "            for n in list(vars(c)):\n                if n.startswith('test'):\n"
                                                "                    setattr(c, n, lambda self: None)\n        return -1"),
    "replaces sys.modules['unittest']": "import sys, types\nfake = types.ModuleType('unittest')\n"
                                        "class TestCase:\n    def __init__(self, *a): pass\n    def __getattr__(self, n): return lambda *a, **k: None\n"
                                        "fake.TestCase = TestCase\nsys.modules['unittest'] = fake\n" + WRONG,
    "patches assertEqual and puts it back from __del__": WRONG.replace(
        "    def add(self, k):\n        return -1",
        "    def __del__(self):\n        import unittest\n        unittest.TestCase.assertEqual = Counter.saved\n"
        "        unittest.TestCase.assertTrue = Counter.saved_true\n        unittest.TestCase.assertIn = Counter.saved_in\n"
        "    def add(self, k):\n        import unittest\n        Counter.saved = unittest.TestCase.assertEqual\n"
        "        Counter.saved_true = unittest.TestCase.assertTrue\n        Counter.saved_in = unittest.TestCase.assertIn\n"
        "        unittest.TestCase.assertEqual = unittest.TestCase.assertTrue = unittest.TestCase.assertIn = lambda *a, **k: None\n"
        "        return -1"),
    "prints a forged report": "import os, sys\nprint('Ran 3 tests\\n\\nOK')\nsys.stdout.flush()\n"
                              "os.write(3, b\"0123456789abcdef0123456789abcdef ['test', 'CounterTestAdd', 'test_add_1', 'ok', '']\\n\")\n"
                              "os.write(3, b\"0123456789abcdef0123456789abcdef ['final']\\n\")\n" + WRONG,
    "__eq__ always True": "class Any:\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n"
                          "    def __contains__(self, x): return True\n"
                          + WRONG.replace("return -1", "return Any()").replace("return []", "return Any()"),
    "an int whose __eq__ is max": "class Sly(int):\n    __eq__ = max\n    __ne__ = min\n"
                                  + WRONG.replace("return -1", "return Sly(-1)"),
    "a list subclass that equals anything": "class L(list):\n    __eq__ = lambda s, o: True\n    __contains__ = lambda s, o: True\n"
                                            + WRONG.replace("return []", "return L()").replace("return -1", "return [L()]"),
    "a pipe of its own on fd 3, then forged events with the nonce it read": (
        "import os, threading\nr, w = os.pipe()\nsaved = os.dup(3)\nos.dup2(w, 3)\n"
        "def steal():\n    data = os.read(r, 65536)\n    nonce = data.split(b' ', 1)[0]\n    os.dup2(saved, 3)\n"
        "    for c, m in (('CounterTestAdd', 'test_add_1'), ('CounterTestAdd', 'test_add_2'), ('CounterTestItems', 'test_items')):\n"
        "        os.write(3, nonce + b' ' + ascii(['test', c, m, 'ok', '', '0']).encode() + b'\\n')\n"
        "    os.write(3, nonce + b\" ['final']\\n\")\n    os._exit(0)\n"
        "threading.Thread(target=steal, daemon=True).start()\n" + WRONG),
    "builtins patched for assertEqual's ==": "import builtins\nbuiltins.AssertionError = type('A', (Exception,), {})\n" + WRONG,
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_samples_do_not_pass(judge, name: str) -> None:  # type: ignore[no-untyped-def]
    verdict = judge(HOSTILE[name])
    assert verdict.status is not Status.PASSED, f"{name}: {verdict.message}"


# Probes: each is right only where the runner's defence held (it returns the right values when its attempt
# to switch the audit hook off was refused), so `passed` means the defence held.
PROBE = """
def _attempt():
{attempt}

def _held():
    try:
        _attempt()
    except RuntimeError as exc:
        return "blocked by the Assay sandbox" in str(exc)
    return False


class Counter:
    def __init__(self):
        self.n = 0

    def add(self, k):
        self.n += k
        return self.n if _held() else -1

    def items(self):
        return [self.n, "x"]
"""
PROBES = {
    "rebinding builtins.getattr and isinstance": "    import builtins, sys\n    g, i = builtins.getattr, builtins.isinstance\n"
                                                 "    builtins.getattr = lambda *a, **k: True\n    builtins.isinstance = lambda *a: False\n"
                                                 "    try:\n        sys._getframe(0)\n    finally:\n        builtins.getattr, builtins.isinstance = g, i",
    "code compiled under os.__file__": "    import os\n    exec(compile('import sys; sys._getframe(0)', os.__file__, 'exec'))",
    "logging.currentframe": "    import logging\n    if logging.currentframe() is None:\n        raise RuntimeError('blocked by the Assay sandbox: no frame')\n"
                            "    import importlib; importlib.reload(logging); logging.currentframe()",
    "a Python signal handler": "    import signal\n    signal.signal(signal.SIGALRM, lambda signum, frame: None)",
    "importing _signal afresh": "    import sys\n    sys.modules.pop('_signal', None)\n    import _signal",
    "the driver module's globals": "    import sys\n    d = sys.modules['driver']\n    d._BLOCKED_EVENTS = frozenset(); d._FRAME_GADGETS = ()\n"
                                   "    d._LIBRARY_DIRS = ('',)\n    sys._getframe(0)",
    "rewriting a function's code": "    import unittest\n    unittest.TestCase.assertEqual.__code__ = (lambda self, a, b, msg=None: None).__code__",
    "gc and frames": "    import gc\n    gc.get_objects()",
    "reading the channel through /proc/self/fd/3": "    open('/proc/self/fd/3', 'rb')",
    "reading the channel through a symlink to it": "    import os\n    if not os.path.lexists('ch'):\n        os.symlink('/proc/self/fd/3', 'ch')\n"
                                                    "    os.open('ch', os.O_RDONLY)",
}


@pytest.mark.parametrize("name", list(PROBES))
def test_attempts_to_switch_the_audit_hook_off_are_refused(judge, name: str) -> None:  # type: ignore[no-untyped-def]
    verdict = judge(PROBE.format(attempt=PROBES[name]))
    assert verdict.status is Status.PASSED, f"{name}: the defence did not hold ({verdict.message})"


def test_a_sample_using_logging_and_numpy_still_passes(judge) -> None:  # type: ignore[no-untyped-def]
    code = REFERENCE.replace("return self.n\n", "import logging; logging.warning('added %s', k)\n        return self.n\n", 1)
    assert judge(code).status is Status.PASSED
    code = "import numpy as np\n" + REFERENCE.replace("return self.n\n", "return int(np.int64(self.n))\n", 1)
    assert judge(code).status is Status.PASSED


# ------------------------------------------------------------------ the real data


def test_the_benchmark_loads_with_its_version_hash_and_tags(classeval_dir: Path) -> None:
    bench = load_benchmark("classeval", data_dir=classeval_dir)
    assert len(bench.problems) == 100 and bench.content_hash == CLASSEVAL_SHA256 and bench.version.startswith("FudanSELab/ClassEval@")
    assert sum(len(p.tests.test_classes) for p in bench.problems.values()) >= 410  # type: ignore[union-attr]
    p = bench.problems["ClassEval_0"]
    assert p.prompt.startswith("Please complete the class AccessGatewayFilter in the following code.\nimport logging")
    assert p.prompt_is_instruction and p.reference_is_program and p.context == "import logging\nimport datetime\n"
    assert "depends:today" in p.tags and "level:class" in p.tags
    assert "requires:pandas" in bench.problems["ClassEval_13"].tags or any("requires:pandas" in q.tags for q in bench.problems.values())
    assert " Words2NumbersTestMain" not in bench.problems["ClassEval_97"].tests.test_classes  # type: ignore[union-attr]
    assert "defect:test-class-name" in bench.problems["ClassEval_97"].tags
    with pytest.raises(ValueError, match="strategy"):
        load_classeval(strategy="one-shot", data_dir=classeval_dir)


def test_a_file_not_in_the_schema_is_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps([{"task_id": "ClassEval_0"}]))
    with pytest.raises(ClassEvalFormatError, match="missing"):
        load_classeval(path=bad)


@pytest.mark.slow
@pytest.mark.shared_data
def test_references_through_the_cli_with_method_level_scores(classeval_dir: Path, tmp_path: Path) -> None:
    ids = "ClassEval_0,ClassEval_1,ClassEval_20,ClassEval_45"  # not ClassEval_58: flaky (its reference check and its run may differ)
    args = ["evaluate", "classeval", "--references", "--data-dir", str(classeval_dir), "--run-dir", str(tmp_path / "run"),
            "--json", str(tmp_path / "out.json"), "--k", "1", "--plain", "--no-cache", "--task-ids", ids]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    out = json.loads((tmp_path / "out.json").read_text())
    assert CLASSEVAL_SHA256 in json.dumps(out["config"])  # the dataset's hash is in the run record
    bench = load_benchmark("classeval", data_dir=classeval_dir)
    assert out["scores"]["classeval"]["pass@1"]["value"] == 1.0 and not out["defective_problems"]
    methods = out["scores"]["classeval (methods)"]["pass@1"]
    # Each method's test class is a method-level problem (a class's ...Test / ...TestMain classes are not).
    scored = [i for i in ids.split(",") if i not in out["defective_problems"]]
    assert methods["n_problems"] == sum(len(bench.problems[i].extra["method_test_classes"]) for i in scored) and methods["value"] == 1.0
    assert sum(len(p.extra["method_test_classes"]) for p in bench.problems.values()) == 410  # of 502 test classes
    assert "AreaCalculatorTestCalculateMain" not in bench.problems["ClassEval_1"].extra["method_test_classes"]
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    first = next(r for r in rows if r["task_id"] == "ClassEval_0")
    assert first["passed"] and first["tests"][0]["name"] == "class:AccessGatewayFilterTestFilter"


@pytest.mark.slow
@pytest.mark.shared_data
def test_chat_replies_are_extracted_and_scored_per_class_and_per_method(classeval_dir: Path, tmp_path: Path) -> None:
    bench = load_benchmark("classeval", data_dir=classeval_dir)
    right = "Here is the class:\n```python\n" + bench.problems["ClassEval_1"].reference + "```\n"
    rows = [{"task_id": "ClassEval_1", "completion": right},
            {"task_id": "ClassEval_2", "completion": "```python\nclass ArgumentParser:\n    pass\n```\n"}]
    samples = tmp_path / "replies.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["evaluate", "classeval", "--samples", str(samples), "--extract", "instruct", "--data-dir", str(classeval_dir),
            "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "out.json"), "--k", "1", "--plain", "--no-cache"]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    scores = json.loads((tmp_path / "out.json").read_text())["scores"]
    assert scores["classeval"]["pass@1"]["value"] == 0.5
    # ClassEval_1's 5 method classes pass; ClassEval_2's 4 fail (its class has none of the methods).
    assert scores["classeval (methods)"]["pass@1"]["n_problems"] == 9 and abs(scores["classeval (methods)"]["pass@1"]["value"] - 5 / 9) < 1e-9
