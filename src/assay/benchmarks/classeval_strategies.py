"""ClassEval's incremental and compositional generation strategies: a class generated method by method.

As FudanSELab/ClassEval's generation/inference_pipeline.py (eaeac44) does it:

- incremental: the methods in order, one request each; a method's prompt is "please complete <method> method
  in the following class <Class>", the imports, the class line with the class description, the constructor,
  the methods generated so far (each as extracted from its reply), then the method's contract (signature and
  docstring). The sample is the class as the last step left it.
- compositional: one request a method, each independent of the others; a method's prompt has the imports,
  the class and constructor, the other methods' signatures with `pass`, then its contract. The sample is the
  constructor (without the description) and every method as extracted from its own reply.

A method is taken from a reply by upstream's rule (`extract_method_code`: its fenced block, the lines from
`def <method>(` while indented deeper, re-indented to 4 spaces, @staticmethod put back where the `def` has no
self or cls, a docstring left open closed), and the class goes through upstream's `add_static_statement` as its
evaluation does. Three departures, each where upstream's rule breaks right code: a line of spaces alone does not end the
method (upstream cuts there: ClassEval_58's reference loses its `return`), a method indented deeper than 4
is brought to 4 (upstream leaves it nested in the method before it), and an odd count of triple-quote lines is closed
only when the method does not compile (upstream also closes a multi-line string's end: ClassEval_83's reference). In
completion style (a base model) the prompt is the code without the instruction and the method is looked for
in prompt + reply, as upstream's decoded outputs hold both. The reference under these strategies is each
method's own `solution_code` as the reply, assembled the same way: what a model that got every method right
would be judged on.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from assay.models.base import Completion, Usage

STEPWISE = ("incremental", "compositional")
STEP_MARK = "\n# ---- classeval step {n}: {method} ----\n"  # between the replies in a sample's raw completion
_REPLY_SPLIT = ("### Response:", "@@ Response:", "[/INST]")
_FENCES = (r"```python(.*?)```", r"\[PYTHON\](.*?)\[/PYTHON\]")


def _lead(line: str) -> int:
    return len(line) - len(line.lstrip())


def extract_method_code(text: str, method: str) -> str:
    """The method `method` taken from a reply, re-indented as a method of the class ("" if there is none): upstream's rule."""
    for mark in _REPLY_SPLIT:
        if mark in text:
            text = text.split(mark)[1]
            break
    for pattern in _FENCES:
        found = re.findall(pattern, text, re.S)
        if found:
            text = found[0]
            break
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if f"def {method}(" in line), None)
    if start is None:
        return ""
    code = ["" if line in ("```", "\r") else line for line in lines[start:]]
    if len(code) > 1 and _lead(code[1]) - _lead(code[0]) > 4:  # a def at column 0 with its body at 8 (a method's solution_code)
        code[0] = "    " + code[0]
    first = _lead(code[0])
    end = next((i + 1 for i, line in enumerate(code[1:]) if line.strip() and _lead(line) <= first), len(code))
    shift = 4 - first
    code = [(" " * shift + line) if shift >= 0 else line[min(-shift, _lead(line)):] for line in code[:end]]
    if "self" not in code[0] and "cls" not in code[0]:
        code.insert(0, "    @staticmethod")
    if sum(1 for line in code if line in ('        """', '    """')) % 2 and not _compiles(code):  # a docstring left open by a cut reply
        code += ['        """', "        pass"]
    return "\n".join(code).rstrip() + "\n"


def _compiles(method: list[str]) -> bool:
    """Whether a method's lines compile as a class body (upstream closes an odd count of triple-quote lines even when one
    ends a multi-line string, which breaks ClassEval_83's reference: here only a method that does not compile is closed)."""
    try:
        compile("class _C:\n" + "\n".join(method) + "\n", "<method>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def add_static_statement(code: str) -> str:
    """Upstream's evaluation pass: @staticmethod lines dropped, then put before each method `def` without self or cls."""
    out: list[str] = []
    for line in code.split("\n"):
        if "@staticmethod" in line:
            continue
        if line.strip().startswith("def ") and "self" not in line and "cls" not in line and _lead(line) == 4:
            out.append("    @staticmethod")
        out.append(line)
    return "\n".join(out)


def method_signature(description: str, method: str) -> str:
    """A method's `def` line from its contract, as upstream cuts it (at the first "):" of the segment with the def)."""
    for segment in description.split("):"):
        if f"def {method}(" in segment:
            return "    " + segment + "):"
    return ""


def constructor_with_description(description: str, constructor: str) -> str:
    """The class line, the class's docstring, then the constructor (upstream's add_desc_to_init)."""
    lines = constructor.split("\n")
    lines[0] += " \n" + description
    return "\n".join(lines)


@dataclass(frozen=True)
class MethodStep:
    """One method to generate: its name and its contract (signature, docstring, examples)."""

    name: str
    description: str


@dataclass(frozen=True)
class ClassPlan:
    """What a class's step prompts are made of (from the task's fields)."""

    strategy: str
    class_name: str
    imports: str
    constructor: str
    class_description: str
    methods: tuple[MethodStep, ...]

    @classmethod
    def of(cls, row: dict[str, Any], strategy: str) -> ClassPlan:
        """The plan of a ClassEval task (its JSON row)."""
        if strategy not in STEPWISE:
            raise ValueError(f"{strategy!r} is not a stepwise ClassEval strategy ({', '.join(STEPWISE)})")
        methods = tuple(MethodStep(str(m["method_name"]), str(m["method_description"])) for m in row["methods_info"])
        return cls(strategy, str(row["class_name"]), "\n".join(str(s) for s in row["import_statement"]), str(row["class_constructor"]),
                   str(row["class_description"]), methods)

    def to_json(self) -> dict[str, Any]:
        """As plain data (a problem's extra)."""
        return {"strategy": self.strategy, "class_name": self.class_name, "imports": self.imports, "constructor": self.constructor,
                "class_description": self.class_description, "methods": [[m.name, m.description] for m in self.methods]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClassPlan:
        """Back from to_json."""
        return cls(data["strategy"], data["class_name"], data["imports"], data["constructor"], data["class_description"],
                   tuple(MethodStep(n, d) for n, d in data["methods"]))


@dataclass
class ClassBuild:
    """One sample of a class being generated method by method: the replies so far and the class they make."""

    plan: ClassPlan
    style: str = "instruct"  # "completion": a base model continues the code, no instruction
    replies: list[str | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.replies = self.replies or [None] * len(self.plan.methods)

    @property
    def independent(self) -> bool:
        """Whether every step can be asked at once (compositional) or each waits for the one before (incremental)."""
        return self.plan.strategy == "compositional"

    def _methods_so_far(self) -> str:
        text = ""
        for step, reply in zip(self.plan.methods, self.replies, strict=True):
            if reply is None:
                break
            text += "\n\n" + self.method_code(step, reply)
        return text

    def code_prompt(self, i: int) -> str:
        """Step i's code: the class-level part, the methods it may see, and method i's contract."""
        p = self.plan
        text = p.imports + "\n" + constructor_with_description(p.class_description, p.constructor)
        if p.strategy == "incremental":
            if any(r is None for r in self.replies[:i]):
                raise ValueError(f"incremental step {i} asked before the steps before it were answered")
            text += self._methods_so_far()
        else:
            text += "".join(method_signature(m.description, m.name) + "\n        pass\n\n" for j, m in enumerate(p.methods) if j != i)
        return text + "\n\n    " + p.methods[i].description

    def prompt(self, i: int) -> str:
        """Step i's prompt: upstream's instruction and the code (the code alone in completion style)."""
        code = self.code_prompt(i)
        if self.style == "completion":
            return code
        return f"please complete {self.plan.methods[i].name} method in the following class {self.plan.class_name}\n\n" + code

    def method_code(self, step: MethodStep, reply: str) -> str:
        """A step's method taken from its reply (in completion style, from the prompt and the reply together)."""
        i = self.plan.methods.index(step)
        text = self.code_prompt(i) + reply if self.style == "completion" else reply
        return extract_method_code(text, step.name)

    def take(self, i: int, reply: str) -> None:
        """Record step i's reply."""
        self.replies[i] = reply

    def program(self) -> str:
        """The class the replies make, as upstream assembles and evaluates it."""
        if any(r is None for r in self.replies):
            raise ValueError("the class is not complete: some methods have no reply")
        p = self.plan
        if p.strategy == "incremental":
            code = p.imports + "\n" + constructor_with_description(p.class_description, p.constructor) + self._methods_so_far()
        else:
            code = p.imports + "\n" + p.constructor + "".join("\n\n" + self.method_code(m, r or "") for m, r in zip(p.methods, self.replies, strict=True))
        return add_static_statement(code)

    def transcript(self) -> str:
        """Every reply, each after a line naming its step (a sample's raw completion)."""
        return "".join(STEP_MARK.format(n=i + 1, method=m.name) + (r or "") for i, (m, r) in enumerate(zip(self.plan.methods, self.replies, strict=True)))

    def steps_json(self) -> list[dict[str, str]]:
        """Each step's method and reply, for the sample's record."""
        return [{"method": m.name, "reply": r or ""} for m, r in zip(self.plan.methods, self.replies, strict=True)]

    async def run(self, ask: Callable[[str], Awaitable[Completion]]) -> Completion:
        """Ask for every method (at once where the strategy allows, else in order); one Completion for the whole class."""
        n = len(self.plan.methods)
        if self.independent:
            got = list(await asyncio.gather(*(ask(self.prompt(i)) for i in range(n))))
            for i, c in enumerate(got):
                self.take(i, c.text)
        else:
            got = []
            for i in range(n):
                c = await ask(self.prompt(i))
                self.take(i, c.text)
                got.append(c)
        usage = sum((c.usage for c in got), Usage())
        reasons = [c.finish_reason for c in got]
        finish = "length" if "length" in reasons else (reasons[-1] if reasons else None)
        return Completion(self.transcript(), finish, usage)


def reference_program(row: dict[str, Any], strategy: str) -> str:
    """The class a model that answered each method with its reference would be judged on under this strategy."""
    build = ClassBuild(ClassPlan.of(row, strategy))
    for i, m in enumerate(row["methods_info"]):
        build.take(i, str(m["solution_code"]))
    return build.program()
