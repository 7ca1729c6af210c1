"""Mutants of a Python reference solution, by Assay's own operators, for measuring test strength.

Each mutant changes one place in the entry point's body (and the helpers the reference defines after
the prompt), never the prompt's own code:
- arithmetic: `+` <-> `-`, `*` <-> `//`, `/` -> `*`, `%` -> `//`, `**` -> `*`, augmented assignments alike;
- comparison: `<` <-> `<=`, `>` <-> `>=`, `==` <-> `!=`, `in` <-> `not in`, `is` <-> `is not`;
- boolean: `and` <-> `or`, `not x` -> `x`, `True` <-> `False`;
- constant off by one: an int literal n -> n + 1 and n - 1;
- deleted statement: a statement -> `pass` (not a lone return: the function must still parse and return);
- swapped branch: an `if`'s condition negated (its two branches swapped).
"""

from __future__ import annotations

import ast
import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass

_ARITH: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult, ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}
_COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    """One mutant: which operator, where (line in the program), and the whole mutated program."""

    operator: str
    line: int
    program: str


def _sites(tree: ast.Module, first_line: int) -> Iterator[tuple[str, ast.AST, int]]:
    """(operator, node, variant) for every mutable place on or after first_line (1-based)."""
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if line < first_line:
            continue
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _ARITH:
            yield "arithmetic", node, 0
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _COMPARE:
                    yield "comparison", node, i
        elif (isinstance(node, ast.BoolOp) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))
              or (isinstance(node, ast.Constant) and isinstance(node.value, bool))):
            yield "boolean", node, 0
        elif isinstance(node, ast.Constant) and isinstance(node.value, int):
            yield "constant", node, 1
            yield "constant", node, -1
        elif isinstance(node, ast.If):
            yield "swapped-branch", node, 0
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass)):
            yield "deleted-statement", node, 0


def _apply(tree: ast.Module, target: ast.AST, operator: str, variant: int) -> ast.Module | None:
    """A copy of the tree with the change made at `target` (None where it would not be a program)."""
    index = {id(n): i for i, n in enumerate(ast.walk(tree))}[id(target)]
    mutated = copy.deepcopy(tree)
    node = list(ast.walk(mutated))[index]
    if operator == "arithmetic":
        assert isinstance(node, (ast.BinOp, ast.AugAssign))
        node.op = _ARITH[type(node.op)]()
    elif operator == "comparison":
        assert isinstance(node, ast.Compare)
        node.ops[variant] = _COMPARE[type(node.ops[variant])]()
    elif operator == "boolean":
        if isinstance(node, ast.BoolOp):
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif isinstance(node, ast.UnaryOp):
            return _replace(mutated, node, node.operand)
        else:
            assert isinstance(node, ast.Constant)
            node.value = not node.value
    elif operator == "constant":
        assert isinstance(node, ast.Constant) and isinstance(node.value, int)
        node.value = node.value + variant
    elif operator == "swapped-branch":
        assert isinstance(node, ast.If)
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif operator == "deleted-statement":
        return _replace(mutated, node, ast.Pass())
    return mutated


def _replace(tree: ast.Module, old: ast.AST, new: ast.AST) -> ast.Module | None:
    """The tree with `old` (an expression or a statement) replaced by `new`, in its parent."""
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return tree
            if isinstance(value, list) and any(v is old for v in value):
                if isinstance(new, ast.Pass) and len(value) == 1 and isinstance(old, ast.Return):
                    return None  # a lone return becomes a function that returns None: a mutant too trivial to count
                setattr(parent, name, [new if v is old else v for v in value])
                return tree
    return None


def python_mutants(prompt: str, body: str, limit: int | None = None, seed: int = 0) -> list[Mutant]:
    """Mutants of the reference prompt + body, changing the body only; at most `limit` (a fixed random
    choice by `seed`, the same each time). Mutants that do not compile, or print as the original, are left out."""
    program = prompt + body
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return []
    first_line = prompt.count("\n") + 1  # the body's first line
    original = ast.unparse(tree)
    seen = {original}
    mutants: list[Mutant] = []
    for operator, node, variant in list(_sites(tree, first_line)):
        mutated = _apply(tree, node, operator, variant)
        if mutated is None:
            continue
        try:
            text = ast.unparse(ast.fix_missing_locations(mutated))
            compile(text, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError):
            continue
        if text in seen:
            continue
        seen.add(text)
        mutants.append(Mutant(operator, getattr(node, "lineno", 0), text + "\n"))
    if limit is not None and len(mutants) > limit:
        mutants = sorted(random.Random(seed).sample(mutants, limit), key=lambda m: (m.line, m.operator))
    return mutants
