"""Test strength: mutants of the reference by each operator, judged against suites side by side; a
suite with more (and better) inputs kills more, and a mutant no suite kills is counted as possibly
equivalent."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.augment.mutants import python_mutants
from assay.augment.strength import measure
from assay.problems import Case, CaseTests, Problem
from assay.sandbox import get_sandbox
from tests.conftest import shared_data

PROMPT = 'def f(xs: list, k: int) -> int:\n    """Sum of the items above k, plus one when there are any."""\n'
BODY = ("    total = 0\n    for x in xs:\n        if x > k and not x == 100:\n            total += x\n"
        "    if total:\n        return total + 1\n    return 0\n")


def test_every_operator_makes_mutants_of_the_body_only() -> None:
    mutants = python_mutants(PROMPT, BODY)
    assert {m.operator for m in mutants} == {"arithmetic", "comparison", "boolean", "constant", "deleted-statement", "swapped-branch"}
    original = ast.unparse(ast.parse(PROMPT + BODY))
    for m in mutants:
        tree = ast.parse(m.program)  # compiles
        assert ast.unparse(tree) != original
        func = tree.body[0]
        assert isinstance(func, ast.FunctionDef) and ast.get_docstring(func) == "Sum of the items above k, plus one when there are any."
        assert m.line >= 3  # the prompt's lines are never mutated
    assert len({m.program for m in mutants}) == len(mutants)
    assert "total - x" in " ".join(m.program for m in mutants) or "total -= x" in " ".join(m.program for m in mutants)
    # A limit is a fixed choice: the same each time, another with another seed.
    assert python_mutants(PROMPT, BODY, limit=5) == python_mutants(PROMPT, BODY, limit=5)
    assert python_mutants(PROMPT, BODY, limit=5, seed=1) != python_mutants(PROMPT, BODY, limit=5)
    # A lone return is not deleted (the function would return None: too trivial a mutant).
    assert all(m.program.count("return") >= 1 for m in python_mutants("def g() -> int:\n", "    return 1\n"))


def _suite(inputs: list[tuple[object, ...]]) -> Problem:
    return Problem(id="T/0", language="python", prompt=PROMPT, entry_point="f", reference=BODY,
                   tests=CaseTests(cases=tuple(Case(a) for a in inputs)))


def test_a_suite_with_more_inputs_kills_more_mutants_and_survivors_of_all_are_counted() -> None:
    weak = _suite([([5, 6], 1)])
    strong = _suite([([5, 6], 1), ([], 0), ([1, 2, 3], 2), ([100, 101], 50), ([3, 3], 3), ([-4, 8], -5), ([2], 7)])
    result = measure({"weak": {"T/0": weak}, "strong": {"T/0": strong}}, {"T/0": strong}, get_sandbox(), max_mutants=None, workers=2)
    by_name = {s.suite: s for s in result.suites}
    n = len(python_mutants(PROMPT, BODY))
    assert by_name["weak"].mutants == by_name["strong"].mutants == n == result.mutants["T/0"]
    assert by_name["strong"].killed > by_name["weak"].killed > 0
    survivors = {name: set(s.per_problem["T/0"][2]) for name, s in by_name.items()}
    assert survivors["strong"] <= survivors["weak"]  # every mutant the strong suite lets pass, the weak one does too
    assert result.equivalent.get("T/0", set()) == survivors["strong"] & survivors["weak"]
    assert by_name["strong"].score(result.equivalent) >= by_name["strong"].score()
    data = result.to_json()
    assert data["suites"][1]["killed"] == by_name["strong"].killed


def test_strength_from_the_command_line_humaneval_against_humaneval_plus(tmp_path: Path) -> None:
    out = tmp_path / "strength.json"
    result = CliRunner().invoke(cli.app, ["strength", "humaneval", "humaneval-plus", "--task-ids", "HumanEval/0,HumanEval/2,HumanEval/13",
                                          "--max-mutants", "8", "--json", str(out)], env={"ASSAY_DATA_DIR": str(shared_data())})
    if "no local file" in result.output:
        pytest.skip(result.output)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    base, plus = data["suites"]
    assert (base["suite"], plus["suite"]) == ("humaneval", "humaneval-plus")
    assert base["mutants"] == plus["mutants"] > 0
    assert plus["killed"] >= base["killed"]
    assert "mutation score" in result.output
