"""`assay generate` and `assay run` from the command line: samples files, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from tests.fakes.model_servers import FakeAnthropicServer, FakeOpenAIServer, Fault
from tests.test_cli import _one_line_error

runner = CliRunner()
IDS = "HumanEval/0,HumanEval/2"


def _reply(body: dict, i: int) -> str:
    from assay.benchmarks import load_benchmark

    text = json.dumps(body)
    bench = load_benchmark("humaneval")
    problem = next(p for pid, p in bench.problems.items() if pid in IDS.split(",") and f"def {p.entry_point}(" in text)
    body_code = problem.reference if i == 0 else "    return None\n"
    return f"```python\n{problem.prompt}{body_code}```"


def test_generate_with_anthropic_then_evaluate_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-test")
    out = tmp_path / "samples.jsonl"
    with FakeAnthropicServer(responder=lambda body, i: "") as server:
        # The Messages API has no n: each sample is its own request, and the reply depends on which one.
        calls: dict[str, int] = {}

        def respond(body: dict, i: int) -> str:
            key = json.dumps(body["messages"])
            k = calls.get(key, 0)
            calls[key] = k + 1
            return _reply(body, k)

        server.responder = respond
        server.inject(Fault.RATE_LIMIT, retry_after=0.1)
        result = runner.invoke(cli.app, ["generate", "humaneval", "--model", "anthropic/claude-test", "--base-url", server.url, "-n", "2",
                                         "--max-connections", "1", "--task-ids", IDS, "--output", str(out), "--run-dir", str(tmp_path / "run"), "--plain"])
        assert result.exit_code == 0, result.output
        assert "1 retries (rate_limit 1)" in " ".join(result.output.split())
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 and {r["task_id"] for r in rows} == set(IDS.split(","))
    assert all(r["raw_completion"].startswith("```python") and "```" not in r["solution"] for r in rows)
    result = runner.invoke(cli.app, ["evaluate", "humaneval", "--samples", str(out), "--run-dir", str(tmp_path / "eval"), "--k", "1", "--json", str(tmp_path / "s.json"), "--plain"])
    assert result.exit_code == 0, result.output
    scores = json.loads((tmp_path / "s.json").read_text())["scores"]["humaneval"]
    assert scores["pass@1"]["value"] == pytest.approx(0.5)


def test_unknown_backend(tmp_path: Path) -> None:
    msg = _one_line_error(runner.invoke(cli.app, ["run", "humaneval", "--model", "gpt-4o"]))
    assert "BACKEND/MODEL" in msg
    msg = _one_line_error(runner.invoke(cli.app, ["run", "humaneval", "--model", "openia/gpt-4o"]))
    assert "unknown model backend 'openia'" in msg


def test_missing_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    msg = _one_line_error(runner.invoke(cli.app, ["generate", "humaneval", "--model", "openai/gpt-4o-mini"]))
    assert "OPENAI_API_KEY" in msg and "--api-key-env" in msg and "--base-url" in msg


def test_bad_template_and_unknown_task(tmp_path: Path) -> None:
    msg = _one_line_error(runner.invoke(cli.app, ["generate", "humaneval", "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1", "--template", str(tmp_path / "none.yaml")]))
    assert "--template" in msg and "cannot read prompt template" in msg
    msg = _one_line_error(runner.invoke(cli.app, ["generate", "humaneval", "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1", "--prompt-style", "chat"]))
    assert "--prompt-style must be one of completion, instruct, got 'chat'" in msg
    msg = _one_line_error(runner.invoke(cli.app, ["generate", "humaneval", "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1", "--task-ids", "HumanEval/999"]))
    assert "HumanEval/999" in msg


def test_refused_key_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "wrong")
    with FakeOpenAIServer(require_api_key="right") as server:
        result = runner.invoke(cli.app, ["generate", "humaneval", "--model", "openai/m", "--base-url", server.url, "--task-ids", IDS, "--run-dir", str(tmp_path / "r"), "--plain"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    last = result.output.strip().splitlines()[-1]  # after the progress lines
    assert last.startswith("error: openai refused m: HTTP 401: Incorrect API key"), last


def test_unreachable_server_records_generation_errors(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        url = server.url
    # The server is gone: every request fails to connect; the failures are recorded and reported, and
    # as nothing at all was generated, the command says so in one line and exits 1.
    for command in ("generate", "run"):
        result = runner.invoke(cli.app, [command, "humaneval", "--model", "openai/m", "--base-url", url, "--task-ids", IDS, "--max-retries", "0",
                                         "--run-dir", str(tmp_path / command), "--plain"])
        assert result.exit_code == 1, result.output
        text = " ".join(result.output.split())
        assert "2 samples of 2 problems could not be generated" in text and "connection" in text and "run the same command again" in text
        assert "error: nothing was generated: all 2 requests failed" in text


def test_install_hints_keep_their_brackets(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Error text is printed as text: rich would eat `[vllm]` in `pip install 'assay[vllm]'` as markup."""
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is installed here: there is no hint to print")
    result = runner.invoke(cli.app, ["generate", "humaneval", "--model", "vllm/some/model", "--limit", "1", "--output", str(tmp_path / "s.jsonl")])
    assert result.exit_code == 2
    assert "pip install 'assay[vllm]'" in " ".join(result.output.split())


def test_run_limit_on_a_bigger_run_scores_only_those_problems_and_the_prompt_style_names_the_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with FakeOpenAIServer(responder=lambda body, i: _reply(body, 0)) as server:
        base = ["run", "humaneval", "--model", "openai/fake-model", "--base-url", server.url, "--k", "1", "--plain"]
        result = runner.invoke(cli.app, [*base, "--task-ids", IDS, "--json", str(tmp_path / "two.json")])
        assert result.exit_code == 0, result.output
        assert json.loads((tmp_path / "two.json").read_text())["n_problems"] == 2
        result = runner.invoke(cli.app, [*base, "--limit", "1", "--json", str(tmp_path / "one.json")])
        assert result.exit_code == 0, result.output
        one = json.loads((tmp_path / "one.json").read_text())
        assert one["n_problems"] == 1 and one["n_samples"] == 1  # the stored HumanEval/2 is not scored this time
        runs = sorted(p.name for p in (tmp_path / "runs").iterdir())
        assert runs == ["humaneval--openai-fake-model--t0.2-p0.95--default-instruct"], runs
        result = runner.invoke(cli.app, [*base, "--limit", "1", "--prompt-style", "completion"])
        assert result.exit_code == 0, result.output
        assert len(list((tmp_path / "runs").iterdir())) == 2  # a completion prompt is a run of its own


def test_samples_files_of_the_same_name_in_other_folders_get_their_own_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for model, body in (("gpt4", "    return False\n"), ("qwen", "    return True\n")):
        (tmp_path / model).mkdir()
        (tmp_path / model / "samples.jsonl").write_text(json.dumps({"task_id": "HumanEval/0", "completion": body}) + "\n")
        result = runner.invoke(cli.app, ["evaluate", "humaneval", "--samples", f"{model}/samples.jsonl", "--k", "1", "--plain"])
        assert result.exit_code == 0, result.output  # before: the second was refused as "a different run" in runs/humaneval-samples
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["humaneval-gpt4-samples", "humaneval-qwen-samples"]


def test_several_servers_share_the_requests_and_a_dead_one_is_passed_over(tmp_path: Path) -> None:
    ids = ",".join(f"HumanEval/{i}" for i in range(8))

    def answer(body: dict, i: int) -> str:
        from assay.benchmarks import load_benchmark

        text = json.dumps(body)
        problem = next(p for p in load_benchmark("humaneval").problems.values() if f"def {p.entry_point}(" in text)
        return f"```python\n{problem.prompt}{problem.reference}```"

    with FakeOpenAIServer(responder=answer, latency_s=0.05) as one, FakeOpenAIServer(responder=answer, latency_s=0.05) as two:
        result = runner.invoke(cli.app, ["run", "humaneval", "--model", "openai/m", "--base-url", f"{one.url},{two.url}", "-n", "2",
                                         "--task-ids", ids, "--run-dir", str(tmp_path / "both"), "--k", "1", "--plain"])
        assert result.exit_code == 0, result.output
        served = (len(one.requests), len(two.requests))
        assert sum(served) == 8 and min(served) >= 2, served  # both servers worked; one request a problem (n=2 in one)
        assert "verdicts: passed 16" in " ".join(result.output.split()), result.output
    with FakeOpenAIServer(responder=answer) as alive:
        with FakeOpenAIServer() as gone:
            dead = gone.url
        result = runner.invoke(cli.app, ["generate", "humaneval", "--model", "openai/m", "--base-url", f"{dead},{alive.url}", "--task-ids", ids,
                                         "--output", str(tmp_path / "one.jsonl"), "--run-dir", str(tmp_path / "one"), "--plain"])
        assert result.exit_code == 0, result.output
        assert len((tmp_path / "one.jsonl").read_text().splitlines()) == 8 and len(alive.requests) == 8  # every retry went to the live one
