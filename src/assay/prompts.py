"""Completion-style and instruction-style prompts; templates are recorded with the run and can come from a file."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import jinja2
import yaml

from assay.models.base import Prompt
from assay.problems import Problem

STYLES = ("completion", "instruct")


def language_name(language: str) -> str:
    """How a prompt names the language ("C++"): its plugin's display name, else the name as given."""
    from assay.languages import UnknownLanguage, get_language

    try:
        return get_language(language).display
    except UnknownLanguage:
        return language


# EvalPlus's instruction for chat models (evalplus/provider/utility.py), in every language.
DEFAULT_INSTRUCT_USER = (
    "Please provide a self-contained {{ language_name }} script that solves the following problem "
    "in a markdown code block:\n```{{ language }}\n{{ prompt | trim }}\n```\n"
)


class TemplateError(ValueError):
    """A prompt template file that cannot be used (one-line message)."""


@dataclass(frozen=True)
class PromptTemplate:
    """How a problem becomes a prompt. `user` and `system` are jinja2 templates over the problem's fields.

    Two flags give the built-in templates their behaviour (a template file sets neither):
    `verbatim_prompt`: in completion style, the problem's prompt is sent exactly as it is, not rendered
    (a prompt's own `{{` stays); `own_instruction`: in instruct style, a problem that carries its own
    instruction (hand-written suites) is sent as it is, without the template's wrapper."""

    style: str = "instruct"
    user: str = DEFAULT_INSTRUCT_USER
    system: str | None = None
    name: str = "default-instruct"
    verbatim_prompt: bool = False
    own_instruction: bool = False

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise TemplateError(f"a prompt template's style (--prompt-style, or `style:` in a --template file) must be one of "
                                f"{', '.join(STYLES)}, got {self.style!r}")

    def render(self, problem: Problem) -> Prompt:
        """The prompt for one problem."""
        if self.style == "completion":
            return Prompt(text=problem.prompt if self.verbatim_prompt else _render(self.user, problem))
        messages: list[tuple[str, str]] = []
        if self.own_instruction and problem.prompt_is_instruction:  # hand-written suites, LiveCodeBench: their own instruction
            return Prompt(messages=((("system", problem.system),) if problem.system else ()) + (("user", problem.prompt),))
        if self.system:
            messages.append(("system", _render(self.system, problem)))
        messages.append(("user", _render(self.user, problem)))
        return Prompt(messages=tuple(messages))

    def to_json(self) -> dict[str, Any]:
        """The template as recorded with a run, with its hash (of every field, the flags included)."""
        data = asdict(self)
        data["sha256"] = hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()
        return data

    def earlier_sha256(self) -> str | None:
        """The hash runs stored before the flags existed gave this template, where it behaved the same then:
        the flags were the built-ins' names (`default-completion` sent the prompt verbatim, `default-instruct`
        alone deferred to a problem's own instruction). None where no earlier Assay had this behaviour."""
        was = {"verbatim_prompt": self.name == "default-completion", "own_instruction": self.name == "default-instruct"}
        if self.verbatim_prompt != was["verbatim_prompt"] or (self.style == "instruct" and self.own_instruction != was["own_instruction"]):
            return None
        fields = {k: v for k, v in asdict(self).items() if k not in was}
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


COMPLETION = PromptTemplate(style="completion", user="{{ prompt }}", name="default-completion", verbatim_prompt=True)
INSTRUCT = PromptTemplate(own_instruction=True)


def _render(template: str, problem: Problem) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)
    try:
        return env.from_string(template).render(
            prompt=problem.prompt,
            context=problem.context,
            entry_point=problem.entry_point,
            task_id=problem.id,
            language=problem.language,
            language_name=language_name(problem.language),
            tags=list(problem.tags),
        )
    except jinja2.TemplateError as exc:
        raise TemplateError(f"prompt template: {exc}") from None


def default_template(style: str) -> PromptTemplate:
    """The built-in template of a style."""
    if style == "completion":
        return COMPLETION
    if style == "instruct":
        return INSTRUCT
    raise TemplateError(f"--prompt-style must be one of {', '.join(STYLES)}, got {style!r}")


def load_template(path: Path, style: str | None = None) -> PromptTemplate:
    """A template file: YAML/JSON with style, user, system (and name), or any other file as the user message."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise TemplateError(f"--template {path}: cannot read prompt template ({exc.strerror})") from None
    if path.suffix in (".yaml", ".yml", ".json"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise TemplateError(f"{path}: not valid YAML/JSON ({str(exc).splitlines()[0]})") from None
        if not isinstance(data, dict) or "user" not in data:
            raise TemplateError(f"{path}: a template file needs at least a 'user' key (and optionally style, system, name)")
        unknown = set(data) - {"style", "user", "system", "name"}
        if unknown:
            raise TemplateError(f"{path}: unknown keys {', '.join(sorted(unknown))}; allowed: style, user, system, name")
        template = PromptTemplate(
            style=style or data.get("style", "instruct"), user=str(data["user"]), system=data.get("system"), name=data.get("name", path.name)
        )
    else:
        template = PromptTemplate(style=style or "instruct", user=text, name=path.name)
    # Fail now, not halfway through a run, if the template names a field that does not exist.
    probe = Problem(id="probe/0", language="python", prompt="def f():\n", entry_point="f", reference="", tests=None)  # type: ignore[arg-type]
    template.render(probe)
    return template
