"""Prompt templates: the defaults, files, recording, and the chat template of local models."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.models.base import Prompt
from assay.models.local import chat_text, has_chat_template
from assay.prompts import COMPLETION, INSTRUCT, TemplateError, load_template


@pytest.fixture(scope="module")
def problem():  # type: ignore[no-untyped-def]
    return load_benchmark("humaneval").problems["HumanEval/2"]


def test_completion_prompt_is_the_benchmark_prompt(problem) -> None:  # type: ignore[no-untyped-def]
    assert COMPLETION.render(problem) == Prompt(text=problem.prompt)


def test_instruct_prompt_asks_for_a_fenced_script(problem) -> None:  # type: ignore[no-untyped-def]
    prompt = INSTRUCT.render(problem)
    assert prompt.is_chat and len(prompt.messages) == 1
    role, content = prompt.messages[0]
    assert role == "user" and "self-contained Python script" in content and problem.prompt.strip() in content


def test_template_file_yaml_and_text(problem, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    yaml_file = tmp_path / "t.yaml"
    yaml_file.write_text('name: terse\nsystem: "You write {{ language_name }}."\nuser: "Implement {{ entry_point }}:\\n{{ prompt }}"\n')
    template = load_template(yaml_file)
    prompt = template.render(problem)
    assert prompt.messages[0] == ("system", "You write Python.")
    assert prompt.messages[1][1].startswith("Implement truncate_number:")
    record = template.to_json()
    assert record["name"] == "terse" and len(record["sha256"]) == 64
    text_file = tmp_path / "t.j2"
    text_file.write_text("Complete {{ task_id }}")
    assert load_template(text_file).render(problem).messages == (("user", "Complete HumanEval/2"),)
    assert load_template(text_file, "completion").render(problem) == Prompt(text="Complete HumanEval/2")


@pytest.mark.parametrize(
    ("content", "message"),
    [("user: '{{ nope }}'\n", "undefined"), ("system: hi\n", "needs at least a 'user' key"), ("user: x\ncolour: red\n", "unknown keys colour"), ("user: [\n", "not valid YAML")],
)
def test_bad_template_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(content)
    with pytest.raises(TemplateError, match=message):
        load_template(path)
    with pytest.raises(TemplateError, match="cannot read"):
        load_template(tmp_path / "missing.yaml")


class _Tokenizer:
    """The two attributes Assay reads from a Hugging Face tokenizer (transformers itself is an optional extra)."""

    def __init__(self, template: str | None) -> None:
        self.chat_template = template

    def apply_chat_template(self, messages, tokenize: bool, add_generation_prompt: bool) -> str:  # type: ignore[no-untyped-def]
        assert not tokenize and add_generation_prompt
        return "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages) + "<|assistant|>"


def test_local_models_use_their_own_chat_template() -> None:
    chat = Prompt(messages=(("user", "write f"),))
    assert chat_text(_Tokenizer("{{ whatever }}"), chat) == "<|user|>write f<|end|><|assistant|>"
    assert has_chat_template(_Tokenizer("x")) and not has_chat_template(_Tokenizer(None))
    assert chat_text(_Tokenizer(None), chat) == "write f\n"  # a base model: plain text
    assert chat_text(_Tokenizer("x"), Prompt(text="def f():\n")) == "def f():\n"
