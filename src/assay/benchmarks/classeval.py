"""ClassEval (FudanSELab): 100 Python classes to write from a skeleton, 410 methods, unittest classes per method.

Generation strategies, the paper's three. `classeval` is holistic: the prompt is the class skeleton (imports,
class docstring, constructor, every method's signature and docstring) after "Please complete the class <name>
in the following code."; the reply is the whole class. `classeval-incremental` and `classeval-compositional`
generate the class method by method, one request each (assay.benchmarks.classeval_strategies: the problem's
`extract` names the strategy, its extra["plan"] holds what the step prompts are made of, and generation.Generator
asks the steps); their reference is the class assembled from each method's reference. As upstream's evaluation
does, the task's `import_statement` lines go in front of the sample (the problem's context), and each name in
`test_classes` is run.

Judging: the tests are unittest modules that must run in the sample's process (they construct the sample's
class and call its methods), so they run under the unittest runner (assay.languages.python_unittest): every test
reports on the private channel, the trusted side knows which tests each class has, and a class of tests passes
when all of them reported ok. The verdict's tests are one `class:<TestClass>` detail per test class: the
method-level score (upstream's "fun_success") counts those, the class-level score (upstream's "class_success")
counts verdicts.

Tags: `level:class`; `depends:today` where the tests or the reference read the clock (their expectations follow
the day they run); `requires:<module>` for each import that is not in the standard library; `defect:<what>`
for the known defects (the data README); under the stepwise strategies also `defect:helper-not-asked` where the
reference's class has a method the tests need that is not among the methods asked for (ClassEval_25, 49), and
`defect:dated-constructor` (ClassEval_69: the constructor they are assembled on uses an API PyPDF2 3 removed).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import resolve_data_file, sha256_file
from assay.benchmarks.classeval_strategies import STEPWISE, ClassBuild, ClassPlan, reference_program
from assay.problems import Benchmark, Problem, ProgramTests, Runner

SUBDIR = "classeval"
FILENAME = "ClassEval_data.json"
URL = "https://raw.githubusercontent.com/FudanSELab/ClassEval/eaeac44d0d5dcd8a95feec50726d66fedc73a98f/data/ClassEval_data.json"
SHA256 = "50a1ac0e4d0c238573c10c0ab11feae00b14a80ae9e4c9cc28148707ecf0b6a2"
VERSION = "FudanSELab/ClassEval@eaeac44"  # data/ClassEval_data.json last changed in e22643b (2024-09-02)
STRATEGIES = ("holistic", *STEPWISE)
INSTRUCTION = "Please complete the class {class_name} in the following code."

# Known defects (shared/data/classeval/README.md, and what the references show here).
DEFECTS: dict[str, tuple[str, str]] = {
    "ClassEval_17": ("dated-test", "get_upcoming_events' test compares with datetime.now() against events dated early 2024"),
    "ClassEval_20": ("flaky-clock", "ChatTestMain takes datetime.now() to the second and compares it with the time the class took: "
                     "a second boundary between the two fails it"),
    "ClassEval_36": ("flaky-clock", "as ClassEval_20: a test's datetime.now() to the second against the class's"),
    "ClassEval_35": ("slow-reference", "EightPuzzle.solve's breadth-first search (list pop(0), list membership) takes ~30 s of "
                     "CPU here on test_solve_3, past upstream's own 5 s per test class"),
    "ClassEval_48": ("host-dependent", "a test expects this machine's hostname to be LAPTOP-2CS86KUM"),
    "ClassEval_50": ("root-dependent", "a test expects writing a read-only file to fail, which it does not as root"),
    "ClassEval_58": ("flaky-reference", "the reference places mines with unseeded random.randint and may put two on one cell"),
    "ClassEval_97": ("test-class-name", "test_classes names ' Words2NumbersTestMain' with a leading space (looked up here without it)"),
}
# Known defects of the stepwise strategies only: the fields a class is assembled from, not the class's solution.
STEPWISE_DEFECTS: dict[str, tuple[str, str]] = {
    "ClassEval_69": ("dated-constructor", "class_constructor builds PyPDF2.PdfFileReader, removed in PyPDF2 3.0 (the class's solution "
                     "uses PdfReader): every class assembled on it fails"),
}
_CLOCK = ("datetime.now", "date.today", "time.time(", "time.localtime", "datetime.today", "time.strftime", "utcnow")


class ClassEvalFormatError(ValueError):
    """A ClassEval data file that is not in the upstream schema (one line)."""


def load_classeval(strategy: str = "holistic", data_dir: Path | None = None, cache_dir: Path | None = None,
                   path: Path | None = None) -> Benchmark:
    """Load ClassEval from a local file, the data dir, the cache or FudanSELab's repository (pinned commit)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"ClassEval has no generation strategy {strategy!r} here; choose one of {', '.join(STRATEGIES)}")
    source = Path(path) if path is not None else resolve_data_file(FILENAME, subdir=SUBDIR, url=URL, data_dir=data_dir,
                                                                   cache_dir=cache_dir, expected_sha256=SHA256)
    problems = {p.id: p for p in (_problem(row, strategy) for row in _read_rows(source))}
    name = "classeval" if strategy == "holistic" else f"classeval-{strategy}"
    return Benchmark(name=name, version=VERSION if path is None else "local", content_hash=sha256_file(source),
                     source=str(source), problems=problems)


def _read_rows(source: Path) -> list[dict[str, Any]]:
    try:
        rows = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ClassEvalFormatError(f"{source}: not ClassEval's JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(rows, list):
        raise ClassEvalFormatError(f"{source}: not ClassEval's JSON (a list of tasks)")
    need = {"task_id", "skeleton", "test", "solution_code", "import_statement", "class_name", "test_classes", "methods_info",
            "class_constructor", "class_description"}
    for n, row in enumerate(rows, 1):
        missing = need - set(row) if isinstance(row, dict) else need
        if missing:
            raise ClassEvalFormatError(f"{source}: task {n} is not a ClassEval task (missing {', '.join(sorted(missing))})")
        method_need = {"method_name", "method_description", "test_class", "solution_code"}
        for m in row["methods_info"]:
            if not isinstance(m, dict) or method_need - set(m):
                raise ClassEvalFormatError(f"{source}: task {n} has a method that is not ClassEval's (it needs {', '.join(sorted(method_need))})")
    return rows


def third_party(code: str) -> list[str]:
    """Top-level modules the code imports that are not in the standard library (what an environment must add)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found: dict[str, None] = {}
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        for name in names:
            top = name.split(".")[0]
            if top and top not in sys.stdlib_module_names:
                found.setdefault(top, None)
    return sorted(found)


def unasked_helpers(row: dict[str, Any]) -> list[str]:
    """Methods of the reference's class that are not among the methods asked for (what a stepwise assembly leaves out)."""
    try:
        tree = ast.parse(str(row["solution_code"]))
    except SyntaxError:
        return []
    asked = {str(m["method_name"]) for m in row["methods_info"]} | {"__init__"}
    return sorted({n.name for c in tree.body if isinstance(c, ast.ClassDef) and c.name == row["class_name"]
                   for n in c.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name not in asked})


def _problem(row: dict[str, Any], strategy: str = "holistic") -> Problem:
    task_id = str(row["task_id"])
    imports = "\n".join(str(s) for s in row["import_statement"])
    classes = tuple(str(c).strip() for c in row["test_classes"])
    test, solution = str(row["test"]), str(row["solution_code"])
    tags = ["level:class"]
    if any(mark in test or mark in solution for mark in _CLOCK):
        tags.append("depends:today")
    tags += [f"requires:{m}" for m in third_party(imports + "\n" + solution + "\n" + test)]
    if task_id in DEFECTS:
        tags.append(f"defect:{DEFECTS[task_id][0]}")
    if strategy != "holistic" and task_id in STEPWISE_DEFECTS:
        tags.append(f"defect:{STEPWISE_DEFECTS[task_id][0]}")
    helpers = [] if strategy == "holistic" else unasked_helpers(row)
    if helpers:  # ClassEval_25, 49: no model can pass them as upstream assembles a class from the methods asked for
        tags.append("defect:helper-not-asked")
    methods = [{"method": str(m["method_name"]), "test_class": str(m["test_class"]).strip(), "dependencies": m.get("dependencies", {})}
               for m in row["methods_info"]]
    extra: dict[str, Any] = {"class_name": row["class_name"], "skeleton": row["skeleton"], "methods": methods,
                             "test_classes": list(classes),
                             # the method-level score's classes (scoring.method_flags): one per method, in test_classes order
                             "method_test_classes": [c for c in classes if c in {m["test_class"] for m in methods}]}
    if task_id in DEFECTS:
        extra["defect"] = DEFECTS[task_id][1]
    if strategy != "holistic" and task_id in STEPWISE_DEFECTS:
        extra["defect"] = STEPWISE_DEFECTS[task_id][1]
    if helpers:
        extra["defect"] = (extra.get("defect", "") + "; " if "defect" in extra else "") + \
            f"the reference's {', '.join(helpers)} is not one of the methods asked for, so the class assembled from them lacks it"
    prompt = INSTRUCTION.format(class_name=row["class_name"]) + "\n" + str(row["skeleton"]).rstrip() + "\n"
    reference = solution.rstrip() + "\n"
    if strategy != "holistic":  # the prompt shown is the first step's; the reference is assembled from the methods' own
        plan = ClassPlan.of(row, strategy)
        extra["plan"] = plan.to_json()
        prompt, reference = ClassBuild(plan).prompt(0), reference_program(row, strategy)
    return Problem(
        id=task_id,
        language="python",
        prompt=prompt,
        entry_point=str(row["class_name"]),
        reference=reference,
        tests=ProgramTests(code=test, runner=Runner.UNITTEST, test_classes=classes),
        context=imports + "\n" if imports else "",
        tags=tuple(tags),
        reference_is_program=True,
        prompt_is_instruction=True,
        extract="" if strategy == "holistic" else f"classeval-{strategy}",
        extra=extra,
    )
