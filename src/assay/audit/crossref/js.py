"""JavaScript: HumanEval-X binds `const camelCase = (...) => {...}`; MultiPL-E declares `function snake_case(...)`.

The forwarded function is HumanEval-X's binding whose name is the entry point's but for case and
underscores (its declaration may bind helpers first: `isPalindrome` before `makePalindrome`), else the
last one its declaration binds. A result HumanEval-X returns as a numeric string (`area.toFixed(2)`)
where MultiPL-E's function returns a number is converted with Number(); nothing else is changed.
"""

from __future__ import annotations

import re
from typing import Any

from assay.problems import CaseTests, Problem


def _same(a: str, b: str) -> bool:
    return a.replace("_", "").lower() == b.replace("_", "").lower()


def adapt(problem: Problem, row: dict[str, Any]) -> str:
    """HumanEval-X's solution, then MultiPL-E's function forwarding to it."""
    solution = str(row["declaration"]) + str(row["canonical_solution"])
    names = re.findall(r"const\s+(\w+)\s*=", solution)
    declared = re.findall(r"const\s+(\w+)\s*=", row["declaration"])
    name = next((n for n in names if _same(n, problem.entry_point)), declared[-1] if declared else problem.entry_point)
    numeric = isinstance(problem.tests, CaseTests) and problem.tests.signature is not None and problem.tests.signature.returns.kind in ("int", "float")
    if name == problem.entry_point and not numeric:
        return solution
    if name == problem.entry_point:  # MultiPL-E's name is HumanEval-X's: HumanEval-X's binding is renamed
        solution = re.sub(rf"\b{name}\b", f"hx_{name}", solution)
        name = f"hx_{name}"
    signature = problem.prompt.rstrip().splitlines()[-1]  # function snake_case(a, b){
    params = re.search(r"\(([^)]*)\)", signature)
    args = params.group(1) if params else "...args"
    back = "  return typeof hxResult === 'string' ? Number(hxResult) : hxResult;\n" if numeric else "  return hxResult;\n"
    return f"{solution}\n{signature}\n  const hxResult = {name}({args});\n{back}}}\n"
