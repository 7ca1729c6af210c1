"""ClassEval's incremental and compositional strategies: upstream's method extraction and prompts, a class built
step by step from a real model server on loopback (each method its own request) and judged per class and per
method, the method-level suite in reports, and the references assembled from each method's own solution."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.benchmarks import load_benchmark
from assay.benchmarks.classeval import load_classeval
from assay.benchmarks.classeval_strategies import ClassBuild, ClassPlan, add_static_statement, extract_method_code, reference_program

runner = CliRunner()


@pytest.fixture
def classeval_dir(data_dir: Path) -> Path:
    if not (data_dir / "classeval" / "ClassEval_data.json").is_file():
        pytest.skip(f"needs {data_dir / 'classeval'}, which is absent here")
    return data_dir


# ------------------------------------------------------------------ upstream's extraction rule


def test_a_method_is_taken_from_a_fenced_reply_and_indented_as_a_method() -> None:
    reply = "Sure.\n```python\ndef add(self, k):\n    self.n += k\n    return self.n\n\ndef other(self):\n    pass\n```\nDone."
    assert extract_method_code(reply, "add") == "    def add(self, k):\n        self.n += k\n        return self.n\n"
    # a method's own solution_code: the def at column 0, its body at 8
    assert extract_method_code("def add(self, k):\n        return k", "add") == "    def add(self, k):\n        return k\n"
    # a whole class in the reply: only the method asked for
    whole = "class C:\n    def a(self):\n        return 1\n\n    def add(self, k):\n        return k\n\n    def b(self):\n        return 2\n"
    assert extract_method_code(whole, "add") == "    def add(self, k):\n        return k\n"
    # deeper than a method (upstream would leave it nested in the method before it): brought to 4 spaces
    assert extract_method_code("        def add(self, k):\n            return k\n", "add") == "    def add(self, k):\n        return k\n"


def test_extraction_edge_cases_follow_upstream() -> None:
    assert extract_method_code("no code here", "add") == ""
    assert extract_method_code("def adder(self):\n    pass", "add") == ""  # `def add(` only
    assert extract_method_code("### Response:\ndef add(self, k): return k", "add") == "    def add(self, k): return k\n"  # one line
    static = extract_method_code("@staticmethod\ndef double(x):\n    return 2 * x", "double")
    assert static == "    @staticmethod\n    def double(x):\n        return 2 * x\n"
    cut = extract_method_code('def add(self, k):\n    """\n    Add k.', "add")  # a reply cut inside its docstring
    assert cut.endswith('        """\n        pass\n') and ast.parse("class C:\n" + cut)
    # where upstream's rule breaks right code (the departures): a line of spaces inside the body (ClassEval_58), a
    # multi-line string whose closing quotes stand alone on a line (ClassEval_83)
    spaced = extract_method_code("def f(self):\n        x = 1\n    \n        return x", "f")
    assert spaced == "    def f(self):\n        x = 1\n    \n        return x\n"
    sql = 'def q(self):\n        s = """\n        SELECT 1\n        """\n        return s'
    assert extract_method_code(sql, "q") == "    " + sql + "\n"
    # evaluation's pass: @staticmethod dropped, then put before a method def without self or cls
    assert add_static_statement("class C:\n    @staticmethod\n    def f(x):\n        pass\n    def g(self):\n        pass") == \
        "class C:\n    @staticmethod\n    def f(x):\n        pass\n    def g(self):\n        pass"


# ------------------------------------------------------------------ a small dataset in upstream's schema

ADD = 'def add(self, k):\n        """\n        Add k and return the total.\n        :param k: int\n        :return: int\n        """'
ITEMS = 'def items(self):\n        """\n        The total and "x".\n        :return: list\n        """'
DOUBLE = 'def double(x):\n        """\n        Twice x.\n        """'
SOLUTIONS = {"add": "def add(self, k):\n        self.n += k\n        return self.n", "items": 'def items(self):\n        return [self.n, "x"]',
             "double": "@staticmethod\ndef double(x):\n    return 2 * x"}
TESTS = """
import unittest


class {C}TestAdd(unittest.TestCase):
    def test_add(self):
        c = {C}()
        c.add(1)
        self.assertEqual(c.add(2), 3)


class {C}TestItems(unittest.TestCase):
    def test_items(self):
        c = {C}()
        c.n = 4
        self.assertEqual(c.items(), [4, "x"])


class {C}TestDouble(unittest.TestCase):
    def test_double(self):
        self.assertEqual({C}.double(3), 6)


class {C}TestMain(unittest.TestCase):
    def test_main(self):
        c = {C}()
        c.add({C}.double(2))
        self.assertEqual(c.items(), [4, "x"])
"""


def _task(n: int, name: str) -> dict[str, Any]:
    ctor = f"class {name}: \n    def __init__(self):\n        self.n = 0\n\n"
    desc = '    """\n    A counter.\n    """\n'
    methods = [("add", ADD), ("items", ITEMS), ("double", DOUBLE)]
    skeleton = f"class {name}:\n{desc}\n    def __init__(self):\n        self.n = 0\n\n" + "".join(f"    {d}\n\n" for _m, d in methods)
    solution = f"class {name}:\n    def __init__(self):\n        self.n = 0\n\n" + "".join(
        "    " + "\n    ".join(SOLUTIONS[m].split("\n")) + "\n\n" for m, _d in methods)
    return {"task_id": f"T_{n}", "skeleton": skeleton, "test": TESTS.replace("{C}", name), "solution_code": solution, "import_statement": [],
            "class_description": desc, "class_name": name, "class_constructor": ctor, "fields": ["self.n"],
            "test_classes": [f"{name}TestAdd", f"{name}TestItems", f"{name}TestDouble", f"{name}TestMain"],
            "methods_info": [{"method_name": m, "method_description": d, "test_class": f"{name}Test{m.title()}", "test_code": "",
                              "solution_code": SOLUTIONS[m], "dependencies": {}} for m, d in methods]}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "tiny_classeval.json"
    path.write_text(json.dumps([_task(0, "Counter"), _task(1, "Tally")]))
    return path


def test_step_prompts_are_upstream_s(dataset: Path) -> None:
    row = json.loads(dataset.read_text())[0]
    inc = ClassBuild(ClassPlan.of(row, "incremental"))
    first = inc.prompt(0)
    assert first.startswith("please complete add method in the following class Counter\n\n\nclass Counter:  \n    \"\"\"\n    A counter.")
    assert first.endswith("\n\n    " + ADD) and "def items" not in first
    with pytest.raises(ValueError, match="before"):
        inc.prompt(1)  # incremental: step 2 waits for step 1's reply
    inc.take(0, "```python\ndef add(self, k):\n    return 99\n```")
    second = inc.prompt(1)
    assert "    def add(self, k):\n        return 99\n" in second and second.endswith(ITEMS)  # the method generated so far
    comp = ClassBuild(ClassPlan.of(row, "compositional"))
    assert "    def add(self, k):\n        pass\n\n    def double(x):\n        pass\n" in comp.prompt(1) and comp.prompt(1).endswith(ITEMS)
    assert "self.n +=" not in comp.prompt(1)  # no method bodies: only signatures
    base = ClassBuild(ClassPlan.of(row, "compositional"), style="completion")
    assert base.prompt(0).startswith("\nclass Counter:") and "please complete" not in base.prompt(0)
    # completion style: the method is found in prompt + reply (the reply continues after the docstring)
    base.take(0, "\n        self.n += k\n        return self.n\n\n    def items(self):\n        return []\n")
    assert base.method_code(base.plan.methods[0], base.replies[0] or "") == \
        "    " + ADD + "\n        self.n += k\n        return self.n\n"


def test_the_strategies_load_with_their_own_names_and_assembled_references(dataset: Path) -> None:
    for strategy in ("incremental", "compositional"):
        bench = load_classeval(strategy=strategy, path=dataset)
        p = bench.problems["T_0"]
        assert bench.name == f"classeval-{strategy}" and p.extract == f"classeval-{strategy}"
        assert p.prompt.startswith("please complete add method in the following class Counter")
        ns: dict[str, Any] = {}
        exec(compile(p.reference, "ref", "exec"), ns)
        c = ns["Counter"]()
        c.add(ns["Counter"].double(2))
        assert c.items() == [4, "x"]
    assert load_classeval(path=dataset).problems["T_0"].extract == ""  # holistic: one reply, Assay's extraction
    with pytest.raises(ValueError, match="strategy"):
        load_classeval(strategy="stepwise", path=dataset)


# ------------------------------------------------------------------ a real model server on loopback

STEP = re.compile(r"please complete (\w+) method in the following class (\w+)")


def _responder(wrong: set[tuple[str, str]]):  # type: ignore[no-untyped-def]
    def respond(body: dict[str, Any], i: int = 0) -> str:
        method, cls = STEP.search(body["messages"][-1]["content"]).groups()  # type: ignore[union-attr]
        code = SOLUTIONS[method]
        if (cls, method) in wrong:
            code = 'def items(self):\n        return ["x", self.n]'
        return f"Here is `{method}`:\n```python\n{code}\n```\nIt works."
    return respond


@pytest.mark.parametrize("strategy", ["incremental", "compositional"])
def test_run_builds_each_class_method_by_method_and_judges_it_per_class_and_per_method(strategy: str, dataset: Path, tmp_path: Path,
                                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes.model_servers import FakeOpenAIServer

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    name = f"classeval-{strategy}"
    with FakeOpenAIServer(responder=_responder({("Tally", "items")})) as server:
        args = ["run", name, "--model", "openai/fake-coder", "--base-url", server.url, "--dataset-file", str(dataset), "--plain",
                "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "out.json"), "--k", "1", "--no-cache", "--max-connections", "2"]
        result = runner.invoke(cli.app, args)
        assert result.exit_code == 0, result.output
        prompts = [(r.body or {})["messages"][-1]["content"] for r in server.requests]
        again = runner.invoke(cli.app, args)  # resumed: every sample is there, nothing is asked again
        assert again.exit_code == 0, again.output
        assert len(server.requests) == 6
    assert len(prompts) == 6  # one request a method, 3 methods a class
    counter = [p for p in prompts if "class Counter" in p]
    steps = [STEP.search(p).group(1) for p in counter]  # type: ignore[union-attr]
    if strategy == "incremental":
        assert steps == ["add", "items", "double"]  # in order, each after the one before it
        items = counter[1]
        assert "    def add(self, k):\n        self.n += k\n        return self.n\n" in items  # the method generated before
        assert "def double" not in items.split("def items")[0]
    else:
        assert sorted(steps) == ["add", "double", "items"]
        items = next(p for p in counter if p.startswith("please complete items"))
        assert "    def add(self, k):\n        pass\n" in items and "return self.n" not in items
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["scores"][name]["pass@1"]["value"] == 0.5  # Tally's items is wrong: its class fails
    methods = out["scores"][f"{name} (methods)"]["pass@1"]
    assert methods["n_problems"] == 6 and abs(methods["value"] - 5 / 6) < 1e-9  # its add and double still pass
    rows = {json.loads(line)["task_id"]: json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()}
    tally = rows["T_1"]
    assert tally["extraction"] == name and [s["method"] for s in tally["classeval_steps"]] == ["add", "items", "double"]
    assert 'return ["x", self.n]' in tally["solution"] and "# ---- classeval step 2: items ----" in tally["raw_completion"]
    assert [(t["name"], t["status"]) for t in tally["tests"]] == [("class:TallyTestAdd", "passed"), ("class:TallyTestItems", "failed"),
                                                                 ("class:TallyTestDouble", "passed"), ("class:TallyTestMain", "failed")]
    assert rows["T_0"]["passed"] and "@staticmethod\n    def double(x):" in rows["T_0"]["solution"]
    report = runner.invoke(cli.app, ["report", str(tmp_path / "run"), "-f", "md"])
    assert report.exit_code == 0, report.output
    assert f"{name} (methods)" in report.output and "83.3" in report.output and "50.0" in report.output
    from assay.report.runs import load_run

    run = load_run(tmp_path / "run")  # the method-level suite's keys are test classes, not problems
    assert run.problem_ids == ["T_0", "T_1"] and run.n_covered == 2 and not run.partial
    assert sorted(run.suites[f"{name} (methods)"]) == sorted(f"T_{i}::{c}Test{m}" for i, c in enumerate(("Counter", "Tally"))
                                                             for m in ("Add", "Items", "Double"))
    html = runner.invoke(cli.app, ["report", str(tmp_path / "run"), "-o", str(tmp_path / "report.html")])
    assert html.exit_code == 0, html.output
    assert f"{name} (methods)" in (tmp_path / "report.html").read_text()


def test_a_step_the_server_refuses_fails_the_sample_and_a_rerun_asks_for_the_whole_class(dataset: Path, tmp_path: Path,
                                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes.model_servers import FakeOpenAIServer, Fault

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with FakeOpenAIServer(responder=_responder(set())) as server:
        server.inject(Fault.SERVER_ERROR, times=1, when=lambda body: "complete items method in the following class Tally" in json.dumps(body))
        args = ["run", "classeval-incremental", "--model", "openai/fake-coder", "--base-url", server.url, "--dataset-file", str(dataset),
                "--plain", "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "out.json"), "--k", "1", "--no-cache",
                "--max-retries", "0", "--max-connections", "1"]
        first = runner.invoke(cli.app, args)
        assert "could not be generated" in first.output
        asked = len(server.requests)
        second = runner.invoke(cli.app, args)
        assert second.exit_code == 0, second.output
        tally = [(r.body or {})["messages"][-1]["content"] for r in server.requests[asked:]]
    assert asked == 3 + 2  # Counter's 3 steps; Tally's add, then items refused (no retries): double never asked
    assert len(tally) == 3 and all("class Tally" in p for p in tally)  # the whole of Tally again, from its first method
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["scores"]["classeval-incremental"]["pass@1"]["value"] == 1.0


# ------------------------------------------------------------------ the real data


def test_every_reference_assembles_into_a_class_under_both_strategies(classeval_dir: Path) -> None:
    rows = json.loads((classeval_dir / "classeval" / "ClassEval_data.json").read_text())
    for strategy in ("incremental", "compositional"):
        for row in rows:
            code = reference_program(row, strategy)
            tree = ast.parse(code)
            cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
            defined = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
            assert {m["method_name"] for m in row["methods_info"]} <= defined, (strategy, row["task_id"])
        # each method as assembled is the class solution's own (docstrings aside), but where the data differ
        assert _methods_unlike_the_solution(rows, strategy) == [("ClassEval_25", ["set_cookies"]), ("ClassEval_33", ["__init__"]),
                                                                ("ClassEval_49", ["matches_requirements"]), ("ClassEval_69", ["__init__"])]
    bench = load_benchmark("classeval-compositional", data_dir=classeval_dir)
    assert {pid for pid, p in bench.problems.items() if {"defect:helper-not-asked", "defect:dated-constructor"} & set(p.tags)} == \
        {"ClassEval_25", "ClassEval_49", "ClassEval_69"}
    assert not any("defect:helper-not-asked" in p.tags for p in load_benchmark("classeval", data_dir=classeval_dir).problems.values())
    p = bench.problems["ClassEval_0"]
    assert "    def is_start_with(self, request_uri):\n        pass\n" in p.prompt and p.prompt.endswith('True\n\n        """')
    assert "depends:today" in p.tags and "method_test_classes" in p.extra


def _methods_unlike_the_solution(rows: list[dict[str, Any]], strategy: str) -> list[tuple[str, list[str]]]:
    def methods(code: str, name: str) -> dict[str, str]:
        cls = next(n for n in ast.parse(code).body if isinstance(n, ast.ClassDef) and n.name == name)
        out = {}
        for fn in cls.body:
            if isinstance(fn, ast.FunctionDef):
                if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant):
                    fn.body = fn.body[1:] or [ast.Pass()]
                out[fn.name] = ast.dump(fn)
        return out

    unlike = []
    for row in rows:
        a, b = methods(reference_program(row, strategy), row["class_name"]), methods(row["solution_code"], row["class_name"])
        if differ := sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)):
            unlike.append((row["task_id"], differ))
    return unlike


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("strategy", ["incremental", "compositional"])
def test_references_pass_under_the_stepwise_strategies(strategy: str, classeval_dir: Path, tmp_path: Path) -> None:
    ids = "ClassEval_0,ClassEval_1,ClassEval_5,ClassEval_45,ClassEval_83"  # 83: a multi-line string upstream's extraction breaks
    args = ["evaluate", f"classeval-{strategy}", "--references", "--data-dir", str(classeval_dir), "--run-dir", str(tmp_path / "run"),
            "--json", str(tmp_path / "out.json"), "--k", "1", "--plain", "--no-cache", "--task-ids", ids]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["scores"][f"classeval-{strategy}"]["pass@1"]["value"] == 1.0 and not out["defective_problems"]
    assert out["scores"][f"classeval-{strategy} (methods)"]["pass@1"]["value"] == 1.0
