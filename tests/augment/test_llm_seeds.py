"""`assay augment --seeds-from-model`: a model (here a real HTTP server on loopback) proposes inputs;
only literal calls are read back, they are labelled like any generated input, and a model that fails
leaves mutation to do the work."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from assay import cli
from assay.augment.llm_seeds import parse_calls
from tests.conftest import shared_data
from tests.fakes.model_servers import FakeOpenAIServer

REPLY = """Here are some inputs:
```python
has_close_elements([1.0, 1.05], 0.1)
has_close_elements([], 0.5)
has_close_elements(numbers, 1.0)
has_close_elements([2.0, 2.0], -1.0)
```
"""


def test_only_literal_calls_of_the_entry_point_are_read() -> None:
    text = REPLY + "\nprint(has_close_elements([3.0], 0.2))\nhas_close_elements(threshold=1, numbers=[])\nf([1.0], 2.0)\n__import__('os')\n"
    assert parse_calls(text, "has_close_elements") == [([1.0, 1.05], 0.1), ([], 0.5), ([2.0, 2.0], -1.0), ([3.0], 0.2)]


def _augment(tmp_path: Path, base_url: str) -> tuple[object, dict, str]:  # type: ignore[type-arg]
    out = tmp_path / "aug"
    result = CliRunner().invoke(cli.app, ["augment", "humaneval", "--out", str(out), "--task-ids", "HumanEval/0", "--per-problem", "30",
                                          "--seeds-from-model", "openai/fake-model", "--base-url", base_url],
                                env={"ASSAY_DATA_DIR": str(shared_data()), "OPENAI_API_KEY": ""})
    assert result.exit_code == 0, result.output
    return result, json.loads((out / "augment.json").read_text()), (out / "problems.jsonl").read_text()


def test_a_models_inputs_are_labelled_by_the_reference_and_kept_when_valid(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=lambda body, i: REPLY) as server:
        result, provenance, problems = _augment(tmp_path, server.url)
        (request,) = [r for r in server.requests if r.path.endswith("/chat/completions")]
    prompt = request.body["messages"][0]["content"]  # type: ignore[index]
    assert "def has_close_elements" in prompt and "has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)" in prompt
    assert provenance["problems"]["HumanEval/0"]["model_proposed"] == 3
    row = json.loads(problems)
    plus = [c["args"] for c in row["cases"] if c["suite"] == "plus"]
    assert [[1.0, 1.05], 0.1] in plus and [[], 0.5] in plus  # labelled like any generated input, and kept
    assert [[2.0, 2.0], -1.0] not in plus  # HumanEval+'s contract: the threshold is positive
    assert provenance["problems"]["HumanEval/0"]["dropped"].get("the reference or its contract rejects it", 0) >= 1
    assert "3 inputs proposed" in result.output  # type: ignore[attr-defined]


def test_a_model_that_fails_leaves_mutation_to_do_the_work(tmp_path: Path) -> None:
    result, provenance, _ = _augment(tmp_path, "http://127.0.0.1:9/v1")  # nothing listens there
    assert "seed requests failed" in result.output  # type: ignore[attr-defined]
    assert provenance["problems"]["HumanEval/0"]["model_proposed"] == 0
    assert provenance["problems"]["HumanEval/0"]["kept"] > 0
