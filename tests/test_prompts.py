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


def test_a_template_file_behaves_by_its_text_not_by_its_name(problem, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Behaviour was keyed on the built-ins' names: a file named default-completion sent the bare prompt,
    # ignoring its own text, and one named default-instruct was dropped for a problem's own instruction.
    import dataclasses

    path = tmp_path / "t.yaml"
    path.write_text("style: completion\nname: default-completion\nuser: \"# Complete this.\\n{{ prompt }}\"\n")
    assert load_template(path).render(problem) == Prompt(text="# Complete this.\n" + problem.prompt)
    path.write_text("style: instruct\nname: default-instruct\nuser: 'Solve: {{ entry_point }}'\n")
    suite_problem = dataclasses.replace(problem, prompt_is_instruction=True)
    assert load_template(path).render(suite_problem) == Prompt(messages=(("user", "Solve: truncate_number"),))
    assert INSTRUCT.render(suite_problem) == Prompt(messages=(("user", problem.prompt),))
    assert COMPLETION.verbatim_prompt and INSTRUCT.own_instruction


def test_runs_stored_before_the_template_flags_resume(tmp_path: Path) -> None:
    import hashlib
    import json

    from assay.execution.sources import ModelSamples
    from assay.models import get_model, parse_model_spec
    from assay.models.base import GenerateConfig
    from assay.store import RunStore

    def old_sha(t):  # type: ignore[no-untyped-def]  # how the hash was made before the flags
        return hashlib.sha256(json.dumps({"style": t.style, "user": t.user, "system": t.system, "name": t.name}, sort_keys=True).encode()).hexdigest()

    assert COMPLETION.earlier_sha256() == old_sha(COMPLETION) != COMPLETION.to_json()["sha256"]
    assert INSTRUCT.earlier_sha256() == old_sha(INSTRUCT)
    path = tmp_path / "t.yaml"
    path.write_text("style: completion\nname: default-completion\nuser: '{{ prompt }}'\n")
    assert load_template(path).earlier_sha256() is None  # it sent the bare prompt before: another behaviour, not a resume
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "HumanEval/0", "completion": "    return 1\\n"}\n')
    bench = load_benchmark("humaneval")
    source = ModelSamples(get_model(parse_model_spec("openai/m"), base_url="http://127.0.0.1:9/v1"), COMPLETION, GenerateConfig())
    store = RunStore(tmp_path / "run")
    store.set_meta("generation_identity", {**source.identity(bench, {}), "template": old_sha(COMPLETION)})
    assert store.claim(source.identity(bench, {}), earlier=source.earlier_identities(bench, {})) is False
    assert store.identity() == source.identity(bench, {})
    store.close()
