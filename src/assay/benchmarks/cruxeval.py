"""CRUXEval (facebookresearch/cruxeval): 800 short Python functions `f`, each with one input and its output.

Two tasks on the same rows, a different shape from code generation: the model writes a prediction, not a program.
- `cruxeval-i` (CRUXEval-I): given f and its output, complete `assert f(??) == <output>` with an input; the
  prediction is the call `f(<input>)`.
- `cruxeval-o` (CRUXEval-O): given f and its input, complete `assert f(<input>) == ??`; the prediction is
  the output, a value that does not call f.

Prompts are CRUXEval's own (`prompts.py` at the commit below): the direct two-shot prompts, which end with
`[ANSWER]` and stop at `[/ANSWER]` (`cruxeval-i`, `cruxeval-o`), or the chain-of-thought ones
(`cruxeval-i-cot`, `cruxeval-o-cot`). The prediction is taken from the reply as upstream's
`postprocess_generation` takes it (assay.judging.cruxeval.prediction_of). Each problem's tests are CRUXEval's
check `assert <output> == <prediction>`, judged without running the assert: the sandbox computes the
prediction's value (input mode: the benchmark's own f on the predicted arguments), the trusted side compares it
with the output (assay.judging.cruxeval). The reference is the row itself: `f(<input>)`, or `<output>`.
Upstream's generations files (`{"sample_<i>": [prediction, ...]}`) become samples with `samples_of_generations`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import resolve_data_file, sha256_file
from assay.judging.cruxeval import END_ANSWER, check_program
from assay.problems import Benchmark, Problem, ProgramTests, Runner

SUBDIR = "cruxeval"
FILENAME = "cruxeval.jsonl"
COMMIT = "190faf16d175b5847b0af05d937872b1fb395942"  # data/cruxeval.jsonl unchanged since the initial commit
URL = f"https://raw.githubusercontent.com/facebookresearch/cruxeval/{COMMIT}/data/{FILENAME}"
SHA256 = "8368b81047dc5014e4caf5a2f97604eff7644e0ecd7415e3ceeb184bbc2e0c96"
VERSION = f"facebookresearch-cruxeval@{COMMIT[:7]}"
MODES = {"input": Runner.PREDICT_INPUT, "output": Runner.PREDICT_OUTPUT}
STYLES = ("direct", "cot")
STOPS = (END_ANSWER,)
ID_PREFIX = "CRUXEval/"

# CRUXEval's prompts.py (MIT, Meta): make_direct_input_prompt, make_cot_input_prompt, make_direct_output_prompt,
# make_cot_output_prompt, with {code} and {input} / {output} to fill.
_DIRECT_INPUT = """You will be given a function f and an output in the form f(??) == output. Find any input such that executing f on the input leads to the given output. There may be multiple answers, but you should only output one. In [ANSWER] and [/ANSWER] tags, complete the assertion with one such input that will produce the output when executing the function.

[PYTHON]
def f(my_list):
    count = 0
    for i in my_list:
        if len(i) % 2 == 0:
            count += 1
    return count
assert f(??) == 3
[/PYTHON]
[ANSWER]
assert f(["mq", "px", "zy"]) == 3
[/ANSWER]

[PYTHON]
def f(s1, s2):
    return s1 + s2
assert f(??) == "banana"
[/PYTHON]
[ANSWER]
assert f("ba", "nana") == "banana"
[/ANSWER]

[PYTHON]
{code}
assert f(??) == {output}
[/PYTHON]
[ANSWER]
"""

_COT_INPUT = """You will be given a function f and an output in the form f(??) == output. Your task is to find any input such that executing f on the input leads to the given output. There may be multiple answers, but only output one. First, think step by step. You MUST surround the answer with [ANSWER] and [/ANSWER] tags. Express your answer as a passing assertion containing the input and the given output.

[PYTHON]
def f(x):
    return x + 1
assert f(??) == 17
[/PYTHON]
[THOUGHT]
To find an input such that executing f on the input leads to the given output, we can work backwards from the given assertion. We know that f(??) == 17.\x20

Since the function f(x) returns x + 1, for f(??) to be equal to 17, the value of ?? should be 16.\x20
[/THOUGHT]
[ANSWER]
assert f(16) == 17
[/ANSWER]

[PYTHON]
{code}
assert f(??) == {output}
[/PYTHON]
[THOUGHT]
"""

_DIRECT_OUTPUT = """You are given a Python function and an assertion containing an input to the function. Complete the assertion with a literal (no unsimplified expressions, no function calls) containing the output when executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT output any extra information. Provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.

[PYTHON]
def f(n):
    return n
assert f(17) == ??
[/PYTHON]
[ANSWER]
assert f(17) == 17
[/ANSWER]

[PYTHON]
def f(s):
    return s + "a"
assert f("x9j") == ??
[/PYTHON]
[ANSWER]
assert f("x9j") == "x9ja"
[/ANSWER]

[PYTHON]
{code}
assert f({input}) == ??
[/PYTHON]
[ANSWER]
"""

_COT_OUTPUT = """You are given a Python function and an assertion containing an input to the function. Complete the assertion with a literal (no unsimplified expressions, no function calls) containing the output when executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT output any extra information. Execute the program step by step before arriving at an answer, and provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.

[PYTHON]
def f(s):
    s = s + s
    return "b" + s + "a"
assert f("hi") == ??
[/PYTHON]
[THOUGHT]
Let's execute the code step by step:

1. The function f is defined, which takes a single argument s.
2. The function is called with the argument "hi", so within the function, s is initially "hi".
3. Inside the function, s is concatenated with itself, so s becomes "hihi".
4. The function then returns a new string that starts with "b", followed by the value of s (which is now "hihi"), and ends with "a".
5. The return value of the function is therefore "bhihia".
[/THOUGHT]
[ANSWER]
assert f("hi") == "bhihia"
[/ANSWER]

[PYTHON]
{code}
assert f({input}) == ??
[/PYTHON]
[THOUGHT]
"""

PROMPTS = {("input", "direct"): _DIRECT_INPUT, ("input", "cot"): _COT_INPUT, ("output", "direct"): _DIRECT_OUTPUT, ("output", "cot"): _COT_OUTPUT}


class CruxevalFormatError(ValueError):
    """A CRUXEval data file that is not in upstream's schema (one line)."""


def prompt_for(row: dict[str, Any], mode: str, style: str) -> str:
    """CRUXEval's own prompt for a row (`code`, `input`, `output` as in the data)."""
    return PROMPTS[(mode, style)].replace("{code}", row["code"]).replace("{input}", row["input"]).replace("{output}", row["output"])


def load_cruxeval(
    mode: str = "input",
    style: str = "direct",
    data_dir: Path | None = None,
    cache_dir: Path | None = None,
    path: Path | None = None,
) -> Benchmark:
    """Load CRUXEval-I or -O from a local file, the data dir, the cache or upstream's pinned commit."""
    if mode not in MODES:
        raise ValueError(f"CRUXEval has no mode {mode!r}; choose one of {', '.join(MODES)}")
    if style not in STYLES:
        raise ValueError(f"CRUXEval has no prompt style {style!r}; choose one of {', '.join(STYLES)}")
    source = Path(path) if path is not None else resolve_data_file(
        FILENAME, subdir=SUBDIR, url=URL, data_dir=data_dir, cache_dir=cache_dir, expected_sha256=SHA256)
    problems = {p.id: p for p in (_problem(row, mode, style) for row in _read_rows(source))}
    name = f"cruxeval-{mode[0]}" + ("-cot" if style == "cot" else "")
    return Benchmark(name=name, version=VERSION if path is None else "local", content_hash=sha256_file(source), source=str(source),
                     problems=problems)


def _read_rows(source: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CruxevalFormatError(f"{source}:{number}: not JSON Lines ({exc.msg})") from None
        missing = {"id", "code", "input", "output"} - set(row) if isinstance(row, dict) else {"an object"}
        if missing:
            raise CruxevalFormatError(f"{source}:{number}: not a CRUXEval row (missing {', '.join(sorted(missing))})")
        rows.append({k: str(row[k]) for k in ("id", "code", "input", "output")})
    return rows


def task_id(upstream_id: str) -> str:
    """Assay's id of an upstream row id: `sample_12` -> `CRUXEval/12`."""
    return ID_PREFIX + upstream_id.removeprefix("sample_")


def _problem(row: dict[str, Any], mode: str, style: str) -> Problem:
    reference = f"f({row['input']})" if mode == "input" else row["output"]
    return Problem(
        id=task_id(row["id"]),
        language="python",
        prompt=prompt_for(row, mode, style),
        entry_point="f",
        reference=reference,
        tests=ProgramTests(code=check_program(row["code"], row["output"]), runner=MODES[mode]),
        tags=(f"mode:{mode}", f"style:{style}"),
        stops=STOPS,
        reference_is_program=True,  # the reference is a whole prediction, as a sample's is
        prompt_is_instruction=True,  # upstream sends the same prompt to chat models as the user message
        extra={"upstream_id": row["id"], "code": row["code"], "input": row["input"], "output": row["output"]},
    )


def samples_of_generations(generations: dict[str, list[str]]) -> Iterator[dict[str, Any]]:
    """Upstream's generations file (`{"sample_<i>": [prediction, ...]}`, already postprocessed) as samples rows:
    `solution` is the prediction as it is, so it is judged exactly as upstream's evaluate_generations.py judges it."""
    for upstream_id, predictions in generations.items():
        for index, prediction in enumerate(predictions):
            yield {"task_id": task_id(upstream_id), "sample_index": index, "solution": prediction}
