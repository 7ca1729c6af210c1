"""`assay swe agent`, driven end to end by a scripted model on a loopback OpenAI-compatible server: its
commands run in the sandboxed checkout of a real repository (sqlparse, from its bundle), the final diff
is its patch, and that patch resolves the task; limits end a run that never submits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.swe.agent import command_of
from assay.swe.patches import files_of
from assay.swe.tasks import load_tasks
from tests.fakes.model_servers import FakeOpenAIServer
from tests.swe.test_swe import PYTHON, _data

TASK = "andialbrecht__sqlparse-e92a032"


def test_the_command_is_the_replys_last_bash_block() -> None:
    assert command_of("look\n```bash\nls -la\n```\n") == "ls -la"
    assert command_of("```sh\nfirst\n```\nthen\n```bash\nsecond\n```") == "second"
    assert command_of("no block at all") is None
    assert command_of("```bash\nsubmit\n```") == "submit"


def _turn(body: dict) -> int:  # type: ignore[type-arg]
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


@pytest.mark.shared_data
@pytest.mark.parametrize("runtime", ["bwrap", "podman"])
def test_a_scripted_model_fixes_a_real_task_through_the_agent(tmp_path: Path, runtime: str) -> None:
    if runtime == "podman":
        from tests.swe.test_containers import _podman

        _podman()  # skips (or, in CI, fails) without podman and its image
    data = _data()
    task = next(t for t in load_tasks([data / "repo-tasks"]) if t.instance_id == TASK)
    seen: list[str] = []

    def respond(body: dict, i: int) -> str:  # type: ignore[type-arg]
        seen.append(body["messages"][-1]["content"])
        script = [
            "Where is the splitter?\n```bash\ngrep -n 'IF' sqlparse/engine/statement_splitter.py | head -3\n```",
            # The workspace has no network: not even the model server on the host's loopback.
            f"```bash\npython3 -c \"import socket; socket.create_connection(('127.0.0.1', {server.port}), timeout=2)\"\n```",
            f"The fix:\n```bash\ngit apply <<'PATCH'\n{task.patch}PATCH\n```",
            "I think it is done.",  # no command: a format error, and a step
            "```bash\nsubmit\n```",
        ]
        return script[min(_turn(body), len(script) - 1)]

    with FakeOpenAIServer(responder=respond) as server:
        common = ["--repos", str(data / "repos"), "--python", str(PYTHON), "--cache-dir", str(tmp_path / "cache")]
        result = CliRunner().invoke(cli.app, ["swe", "agent", "--tasks", str(data / "repo-tasks" / f"{TASK}.json"), "--model", "openai/m",
                                              "--base-url", server.url, "--out", str(tmp_path / "agent"), "--runtime", runtime, *common],
                                     env={"OPENAI_API_KEY": "k"})
    assert result.exit_code == 0, result.output
    trajectory = json.loads((tmp_path / "agent" / "trajectories" / f"{TASK}-run1.json").read_text())
    assert trajectory["exit_reason"] == "submitted" and len(trajectory["steps"]) == 5
    assert trajectory["steps"][0]["exit_code"] == 0 and "IF" in trajectory["steps"][0]["output"]
    assert trajectory["steps"][1]["exit_code"] != 0  # no connection out of the workspace
    assert any("must hold exactly one" in text for text in seen)  # the format error was told to the model
    assert trajectory["limits"]["steps"] == 50 and "the issue" not in trajectory["patch"]
    (prediction,) = [json.loads(line) for line in (tmp_path / "agent" / "predictions-run1.jsonl").read_text().splitlines()]
    assert prediction["instance_id"] == TASK and set(files_of(prediction["model_patch"])) == set(files_of(task.patch))
    graded = CliRunner().invoke(cli.app, ["swe", "evaluate", "--tasks", str(data / "repo-tasks" / f"{TASK}.json"), "--predictions",
                                          str(tmp_path / "agent" / "predictions-run1.jsonl"), "--out", str(tmp_path / "eval"), *common])
    assert json.loads((tmp_path / "eval" / "summary.json").read_text())["overall"]["resolved"] == 1, graded.output


@pytest.mark.shared_data
def test_a_model_that_never_submits_stops_at_the_step_limit(tmp_path: Path) -> None:
    data = _data()
    with FakeOpenAIServer(responder=lambda body, i: "```bash\necho still working\n```") as server:
        result = CliRunner().invoke(cli.app, ["swe", "agent", "--tasks", str(data / "repo-tasks" / f"{TASK}.json"), "--model", "openai/m",
                                              "--base-url", server.url, "--out", str(tmp_path / "agent"), "--max-steps", "3", "--runs", "2",
                                              "--repos", str(data / "repos"), "--python", str(PYTHON), "--cache-dir", str(tmp_path / "cache")],
                                    env={"OPENAI_API_KEY": "k"})
    assert result.exit_code == 0, result.output
    for run in (1, 2):
        trajectory = json.loads((tmp_path / "agent" / "trajectories" / f"{TASK}-run{run}.json").read_text())
        assert trajectory["exit_reason"] == "step_limit" and len(trajectory["steps"]) == 3 and trajectory["patch"] == ""
    assert (tmp_path / "agent" / "predictions-run2.jsonl").exists()
