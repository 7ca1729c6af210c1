"""`assay swe agent`: a small tool-using agent that writes a repository patch, over Assay's model backends.

The loop, in the shape of mini-swe-agent's: a system prompt and the task's issue text; each model reply
gives one bash command in a ```bash block; the command runs in the task's checkout, in the same
bubblewrap workspace the tests run in (no network; only the checkout writable), each command in a
fresh shell (what persists is the files); its exit status and output (cut to a limit) are the next
message. The reply `submit` ends the run. Limits: steps, dollars (from the shipped price table, when
the model is in it) and wall-clock seconds, each recorded; upstream agents default to 250 steps and
$3. The trajectory (every message, command, output and the usage) is saved per task and run; the
patch is the checkout's final `git diff` against the base commit.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.models.base import GenerateConfig, ModelAPI, ModelError, Prompt, Usage
from assay.swe.containers import ContainerFailed
from assay.swe.harness import BWRAP, Environment, Sandbox, lay_overlay, test_env
from assay.swe.repos import RepoStore
from assay.swe.runtime import Limits
from assay.swe.tasks import Task

SYSTEM = """You are a software engineer. A repository is checked out at /testbed, the current directory.
Fix the issue below by editing the repository's source files. Do not edit or add tests.

Each reply: a short thought, then exactly one bash command in a ```bash code block. It runs in a fresh
shell in /testbed (no network; nothing can be installed); you get its exit status and output. Edit files
with shell tools (sed, cat with a here-document, python3 -c, git apply). When the fix is complete, reply
with a ```bash block holding only the word submit."""

USER = """<issue>
{issue}
</issue>

The repository is {repo}; its tests run with: {test_cmd}
Start by looking at the code."""

FORMAT_ERROR = "Your reply must hold exactly one ```bash code block with one command (or `submit`). Try again."
_BLOCK = re.compile(r"```(?:bash|sh|shell)?[ \t]*\n(.*?)```", re.S)


@dataclass(frozen=True)
class AgentLimits:
    steps: int = 50
    dollars: float = 3.0
    wall_seconds: float = 1800.0
    command_seconds: float = 120.0
    output_chars: int = 8000
    max_tokens: int = 2048
    temperature: float = 0.0


@dataclass
class Step:
    reply: str
    command: str | None
    output: str = ""
    exit_code: int | None = None
    seconds: float = 0.0


@dataclass
class Trajectory:
    instance_id: str
    model: str
    run: int
    limits: dict[str, Any]
    steps: list[Step] = field(default_factory=list)
    exit_reason: str = ""  # submitted, step_limit, cost_limit, wall_limit, model_error
    patch: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    dollars: float | None = None
    seconds: float = 0.0
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def command_of(reply: str) -> str | None:
    """The one bash command of a reply (its last code block), or None when it has none."""
    blocks = _BLOCK.findall(reply)
    if not blocks:
        return None
    return str(blocks[-1]).strip()


async def _ask(model: ModelAPI, messages: list[tuple[str, str]], config: GenerateConfig, attempts: int = 5) -> tuple[str, Usage]:
    for attempt in range(attempts):
        try:
            response = await model.generate(Prompt(messages=tuple(messages)), 1, config)
            return (response.completions[0].text if response.completions else ""), response.usage
        except ModelError as exc:
            if not exc.retryable or attempt == attempts - 1:
                raise
            await asyncio.sleep(min(exc.retry_after if exc.retry_after is not None else 2.0**attempt, 30.0))
    raise AssertionError("not reached")


def _diff(checkout: Path, base: str) -> str:
    subprocess.run(["git", "add", "-A"], cwd=checkout, check=True, capture_output=True)
    return subprocess.run(["git", "diff", "--cached", base], cwd=checkout, check=True, capture_output=True, text=True,
                          errors="surrogateescape").stdout


async def solve(task: Task, model: ModelAPI, store: RepoStore, env: Environment, limits: AgentLimits, run: int = 0,
                price: Any = None, sandbox: Sandbox = BWRAP) -> Trajectory:
    """One run of the agent on one task; `price(usage) -> dollars | None` for the cost limit; each command runs
    in `sandbox` (bubblewrap, or a container of a fixed image: the checkout is mounted, so the work persists)."""
    started = time.monotonic()
    trajectory = Trajectory(task.instance_id, f"{model.name}/{model.model}", run, asdict(limits))
    config = GenerateConfig(n=1, temperature=limits.temperature, top_p=1.0, max_tokens=limits.max_tokens, greedy=limits.temperature == 0)
    messages: list[tuple[str, str]] = [("system", SYSTEM), ("user", USER.format(issue=task.problem_statement.strip() or "(no text)",
                                                                                  repo=task.repo, test_cmd=task.test_cmd or "(not given)"))]
    usage = Usage()
    with tempfile.TemporaryDirectory(prefix=f"assay-agent-{task.repo_key}-") as tmp:
        checkout = store.checkout(task.repo_key, task.repo, task.base_commit, Path(tmp) / "testbed")
        lay_overlay(env, checkout)
        scratch = Path(tmp) / "scratch"
        scratch.mkdir()
        runtime = sandbox.runtime(task, env.ro_paths)
        variables = {k: v for k, v in test_env(task, env).items() if not k.startswith(("ASSAY_", "PYTEST_ADDOPTS"))}
        while True:
            if len(trajectory.steps) >= limits.steps:
                trajectory.exit_reason = "step_limit"
                break
            if time.monotonic() - started > limits.wall_seconds:
                trajectory.exit_reason = "wall_limit"
                break
            dollars = price(usage) if price is not None else None
            if dollars is not None and dollars >= limits.dollars:
                trajectory.exit_reason = "cost_limit"
                break
            try:
                reply, used = await _ask(model, messages, config)
            except ModelError as exc:
                trajectory.exit_reason, trajectory.error = "model_error", f"{exc.kind}: {exc}"[:500]
                break
            usage = usage + used
            command = command_of(reply)
            step = Step(reply, command)
            trajectory.steps.append(step)
            messages.append(("assistant", reply))
            if command is None:
                messages.append(("user", FORMAT_ERROR))
                continue
            if command == "submit":
                trajectory.exit_reason = "submitted"
                break
            try:
                ran = runtime.run(checkout, scratch, command, variables, Limits(wall_seconds=limits.command_seconds,
                                                                                 cpu_seconds=int(limits.command_seconds)))
            except ContainerFailed as exc:  # the harness's side: the run ends, the patch so far is kept
                trajectory.exit_reason, trajectory.error = "sandbox_error", str(exc)[:500]
                break
            step.exit_code, step.seconds = ran.exit_code, round(ran.wall_seconds, 2)
            text = ran.output if len(ran.output) <= limits.output_chars else ran.output[: limits.output_chars // 2] + \
                f"\n[... {len(ran.output) - limits.output_chars} characters cut ...]\n" + ran.output[-limits.output_chars // 2 :]
            step.output = text
            status = "timed out" if ran.timed_out else f"exit status {ran.exit_code}"
            messages.append(("user", f"{status}\n{text}" if text else status))
        trajectory.patch = _diff(checkout, task.base_commit)
    trajectory.usage = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    trajectory.dollars = price(usage) if price is not None else None
    trajectory.seconds = round(time.monotonic() - started, 2)
    return trajectory


def save(trajectory: Trajectory, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{trajectory.instance_id}-run{trajectory.run + 1}.json"
    path.write_text(json.dumps(trajectory.to_json(), indent=1) + "\n")
    return path
