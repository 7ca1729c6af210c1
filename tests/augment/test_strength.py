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


def test_suites_that_share_a_problems_tests_judge_its_mutants_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.execution.pipeline as pipeline

    calls: list[set[str]] = []
    real = pipeline.evaluate

    def counting(bench, samples, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append({s.task_id for s in samples})
        return real(bench, samples, *args, **kwargs)

    monkeypatch.setattr(pipeline, "evaluate", counting)
    same = _suite([([5, 6], 1), ([], 0)])
    other = _suite([([5, 6], 1), ([], 0), ([100, 101], 50)])
    result = measure({"a": {"T/0": same}, "b": {"T/0": same}, "c": {"T/0": other}}, {"T/0": same}, get_sandbox(), max_mutants=8, workers=2)
    assert len(calls) == 2  # "b" has "a"'s tests exactly: nothing judged again
    a, b, c = result.suites
    assert a.per_problem == b.per_problem and a.mutants == 8 and c.killed >= a.killed


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


SWIFT = '''func clamp(_ x: Int, low: Int, high: Int) -> Int {
    // keep "x < low" as it is in comments
    let label = "a < b && c"
    if x < low {
        return low
    } else if (x > high) && true {
        return high
    }
    var y = x * 2
    y = y / 2
    return y
}
'''


def test_source_mutants_change_code_only_by_every_operator() -> None:
    from assay.augment.source_mutants import source_mutants

    mutants = source_mutants(SWIFT)
    assert {m.operator for m in mutants} == {"arithmetic", "comparison", "boolean", "constant", "deleted-statement", "swapped-branch"}
    for m in mutants:  # strings and comments are never changed (a statement holding a string may go whole)
        assert m.program != SWIFT and '// keep "x < low" as it is in comments' in m.program
        assert 'let label = "a < b && c"' in m.program or m.operator == "deleted-statement"
    programs = {m.program for m in mutants}
    assert SWIFT.replace("if x < low {", "if x <= low {") in programs
    assert SWIFT.replace("if x < low {", "if (!(x < low)) {") in programs
    assert SWIFT.replace("(x > high) && true", "(x > high) || true") in programs
    assert SWIFT.replace("y = y / 2\n", "y = y / 3\n") in programs
    assert SWIFT.replace("    y = y / 2\n", "\n") in programs  # a deleted statement
    assert len(programs) == len(mutants)


@pytest.mark.slow
def test_a_hand_written_swift_suite_is_measured_with_mutants_of_its_swift_reference(tmp_path: Path) -> None:
    out = tmp_path / "strength.json"
    result = CliRunner().invoke(cli.app, ["strength", "swift-suite", "--task-ids", "swift-suite/ring_buffer_collection", "--max-mutants", "8", "--json", str(out)])
    assert result.exit_code == 0, result.output
    (suite,) = json.loads(out.read_text())["suites"]
    assert suite["suite"] == "swift-suite" and 1 <= suite["mutants"] <= 8 and suite["killed"] >= 1
    assert "stillborn" in result.output and "n/a (one suite)" in result.output
