"""CRUXEval-I and -O: loading, CRUXEval's prompts and answer extraction, the references through the CLI, and
predictions that try to pass without being right (the value is the sandbox's, the comparison the trusted side's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.benchmarks import load_benchmark
from assay.benchmarks.cruxeval import CruxevalFormatError, load_cruxeval, samples_of_generations
from assay.execution import Executor
from assay.generation import code_of
from assay.judging.cruxeval import check_program, prediction_of, split_check
from assay.problems import ProgramTests, Runner, Status
from assay.sandbox import get_sandbox
from tests.conftest import shared_data
from tests.fakes.model_servers import FakeOpenAIServer

runner = CliRunner()

# Small rows in upstream's schema, so the judge is tested without the data directory.
ROWS = [
    {"code": "def f(text):\n    return text.upper()", "input": "'abc'", "output": "'ABC'", "id": "sample_0"},
    {"code": "def f(x):\n    return x", "input": "5", "output": "5", "id": "sample_1"},
    {"code": "def f(xs):\n    return sorted(xs)", "input": "[3, 1, 2]", "output": "[1, 2, 3]", "id": "sample_2"},
    {"code": "def f(n):\n    return n / 2", "input": "4", "output": "2.0", "id": "sample_3"},
    # As sample_344 does: an input that is a function, which f calls.
    {"code": "def f(xs, g):\n    g(xs)\n    return xs", "input": "[1, 2], (lambda x: x.reverse())", "output": "[2, 1]", "id": "sample_4"},
]


@pytest.fixture
def crux_dir() -> Path:
    path = shared_data()
    if not (path / "cruxeval" / "cruxeval.jsonl").is_file():
        pytest.skip(f"needs the shared data directory's cruxeval/ ({path}), which is absent here")
    return path


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("crux") / "cruxeval.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


@pytest.fixture(scope="module")
def judges(small: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """judge(mode, row, prediction) -> the verdict's status, through the executor as a run judges."""
    sandbox = get_sandbox()
    executors = {mode: Executor(sandbox, load_cruxeval(mode=mode, path=small), cache_dir=tmp_path_factory.mktemp("cache")) for mode in ("input", "output")}

    def judge(mode: str, row: int, prediction: str) -> Status:
        ex = executors[mode]
        return ex.judge(ex.benchmark.problems[f"CRUXEval/{row}"], prediction).status

    return judge


def test_both_tasks_load_with_upstreams_prompts_and_the_rows_as_references(crux_dir: Path) -> None:
    bench_i = load_benchmark("cruxeval-i", data_dir=crux_dir)
    bench_o = load_benchmark("cruxeval-o", data_dir=crux_dir)
    assert len(bench_i.problems) == len(bench_o.problems) == 800
    assert bench_i.content_hash == "8368b81047dc5014e4caf5a2f97604eff7644e0ecd7415e3ceeb184bbc2e0c96"
    assert bench_i.version == "facebookresearch-cruxeval@190faf1"
    p = bench_i.problems["CRUXEval/0"]
    assert p.reference == "f([1, 1, 3, 1, 3, 1])" and p.stops == ("[/ANSWER]",) and p.extra["upstream_id"] == "sample_0"
    assert p.prompt.endswith("assert f(??) == [(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]\n[/PYTHON]\n[ANSWER]\n")
    assert p.prompt.startswith("You will be given a function f and an output in the form f(??) == output.")
    o = bench_o.problems["CRUXEval/1"]
    assert o.reference == "{1: None, 2: None}" and o.prompt.endswith("assert f((1, ), (1, ), (1, 2)) == ??\n[/PYTHON]\n[ANSWER]\n")
    cot = load_benchmark("cruxeval-o-cot", data_dir=crux_dir).problems["CRUXEval/1"]
    assert cot.prompt.endswith("== ??\n[/PYTHON]\n[THOUGHT]\n") and "Let's execute the code step by step" in cot.prompt
    assert load_benchmark("cruxeval-i-cot", data_dir=crux_dir).problems["CRUXEval/0"].prompt.endswith("[/PYTHON]\n[THOUGHT]\n")
    # The tests are CRUXEval's check, read back exactly (800 of 800).
    rows = [json.loads(line) for line in (crux_dir / "cruxeval" / "cruxeval.jsonl").read_text().splitlines()]
    for row in rows:
        tests = bench_o.problems[f"CRUXEval/{row['id'].removeprefix('sample_')}"].tests
        assert isinstance(tests, ProgramTests) and tests.runner == Runner.PREDICT_OUTPUT
        assert split_check(tests.code) == (row["code"] + "\n", row["output"])


def test_answers_are_taken_from_replies_as_upstream_takes_them() -> None:
    assert prediction_of("assert f([1, 2]) == 3\n", Runner.PREDICT_INPUT) == "f([1, 2])"
    assert prediction_of("assert f('a', 'b') == 'ab'\n[/ANSWER]\n\n[PYTHON]\nmore", Runner.PREDICT_INPUT) == "f('a', 'b')"
    cot = "[THOUGHT]\nf(x) returns x + 1, so ?? is 16.\n[/THOUGHT]\n[ANSWER]\nassert f(16) == 17\n[/ANSWER]"
    assert prediction_of(cot, Runner.PREDICT_INPUT) == "f(16)"
    assert prediction_of("assert f(17) == 17\n", Runner.PREDICT_OUTPUT) == "17"
    assert prediction_of("Step 1 ...\n[ANSWER]\nassert f(\"hi\") == \"bhihia\"\n[/ANSWER]", Runner.PREDICT_OUTPUT) == '"bhihia"'
    # Upstream's generations are already extracted: taking them again leaves them as they are.
    assert prediction_of("f([1, 1, 1, 1, 3, 3])", Runner.PREDICT_INPUT) == "f([1, 1, 1, 1, 3, 3])"
    assert prediction_of("[(3, 1), (2, 3)]", Runner.PREDICT_OUTPUT) == "[(3, 1), (2, 3)]"
    assert check_program("def f(x):\n    return x", "5") == "def f(x):\n    return x\nassert 5 == ??\n"


def test_a_reply_becomes_the_prediction_both_for_runs_and_for_samples_files(small: Path) -> None:
    problem = load_cruxeval(mode="input", path=small).problems["CRUXEval/0"]
    completion, solution, how = code_of(problem, "assert f('abc') == 'ABC'\n", "completion", problem.stops)
    assert completion is None and solution == "f('abc')" and how == "cruxeval-answer"
    rows = list(samples_of_generations({"sample_0": ["f('abc')", "f('x')"]}))
    assert rows[1] == {"task_id": "CRUXEval/0", "sample_index": 1, "solution": "f('x')"}


def test_a_malformed_file_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "cruxeval.jsonl"
    bad.write_text('{"id": "sample_0", "code": "def f(): pass"}\n')
    with pytest.raises(CruxevalFormatError, match="missing input, output"):
        load_cruxeval(path=bad)
    with pytest.raises(ValueError, match="no mode"):
        load_cruxeval(mode="both", path=bad)


def test_right_predictions_pass_in_both_modes(judges) -> None:  # type: ignore[no-untyped-def]
    assert judges("input", 0, "f('abc')") is Status.PASSED
    assert judges("input", 0, "f(text='abc')") is Status.PASSED
    assert judges("input", 0, "f(*['aBc'])") is Status.PASSED  # any input that gives the output
    assert judges("input", 4, "f([1, 2], lambda x: x.reverse())") is Status.PASSED  # an input may be a function
    assert judges("output", 0, "'ABC'") is Status.PASSED
    assert judges("output", 0, "'AB' + 'C'") is Status.PASSED  # upstream evaluates the expression too
    assert judges("output", 3, "2") is Status.PASSED  # upstream's `assert 2.0 == 2`
    assert judges("input", 0, "f('abd')") is Status.FAILED
    assert judges("output", 2, "(1, 2, 3)") is Status.FAILED  # exact types: a tuple is no list
    assert judges("output", 0, "'ABC") is Status.COMPILE_ERROR


def test_predictions_that_break_cruxevals_rules_fail(judges) -> None:  # type: ignore[no-untyped-def]
    assert judges("input", 0, "'ABC'") is Status.FAILED  # input mode must call f
    assert judges("input", 0, "f('abc') or 'ABC'") is Status.FAILED  # ... and be that call
    assert judges("input", 0, "(lambda f: f('x'))(lambda s: 'ABC')") is Status.FAILED
    assert judges("output", 0, "f('abc')") is Status.FAILED  # output mode must not call f
    assert judges("output", 0, "(lambda: f('abc'))()") is Status.FAILED
    # Reaching f some other way: it is not defined in output mode at all.
    assert judges("output", 0, "globals()['f']('abc')") is Status.RUNTIME_ERROR


def test_predictions_that_try_to_pass_without_being_right_fail(judges) -> None:  # type: ignore[no-untyped-def]
    always_equal = "type('E', (), {'__eq__': lambda s, o: True, '__hash__': lambda s: 0})()"
    assert judges("input", 1, f"f({always_equal})") is Status.FAILED  # f returns it: not plain data
    assert judges("output", 1, always_equal) is Status.FAILED
    assert judges("output", 1, "type('I', (int,), {'__eq__': lambda s, o: True})(4)") is Status.FAILED
    # Exit early, print a forged result, or both.
    for bad in ("__import__('os')._exit(0)", "print('passed') or __import__('sys').exit(0)",
                "__import__('os').kill(__import__('os').getpid(), 9)"):
        assert judges("output", 0, bad) is not Status.PASSED
        assert judges("input", 0, f"f({bad})") is not Status.PASSED
    # Patch the builtins or f while the arguments are evaluated: f runs as a fresh copy with builtins taken before.
    assert judges("input", 2, "f(__import__('builtins').__dict__.__setitem__('sorted', lambda x: [1, 2, 3]) or [9])") is Status.FAILED
    assert judges("input", 2, "f((globals().__setitem__('sorted', lambda x: [1, 2, 3]), [9])[1])") is Status.FAILED
    assert judges("input", 2, "f((globals().__setitem__('f', lambda *a: [1, 2, 3]), [9])[1])") is Status.FAILED
    assert judges("input", 2, "f((__builtins__.__setitem__('sorted', lambda x: [1, 2, 3]), [9])[1])") is Status.FAILED
    # Loop forever, or grow without end.
    assert judges("input", 0, "f(next(x for x in iter(int, 1) if x))") is Status.TIMEOUT
    assert judges("output", 0, "next(x for x in iter(int, 1) if x)") is Status.TIMEOUT
    assert judges("output", 0, "'A' * 10**12") is not Status.PASSED


def _evaluate(tmp_path: Path, bench: str, args: list[str], data: list[str]) -> tuple[dict, dict]:  # type: ignore[type-arg]
    result = runner.invoke(cli.app, ["evaluate", bench, *data, "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "out.json"),
                                     "--k", "1", "--plain", "--no-cache", *args])
    assert result.exit_code == 0, result.output
    verdicts = {}
    for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        verdicts[(row["task_id"], row["sample_index"])] = row
    return json.loads((tmp_path / "out.json").read_text()), verdicts


def test_samples_files_score_through_the_cli_with_pass_at_k(tmp_path: Path, small: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    rows = [{"task_id": "CRUXEval/0", "completion": "assert f('abc') == 'ABC'\n"},  # a raw reply: extracted
            {"task_id": "CRUXEval/0", "solution": "f('x')"},
            {"task_id": "CRUXEval/1", "solution": "f(5)"}]
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    scores, verdicts = _evaluate(tmp_path, "cruxeval-i", ["--samples", str(samples)], ["--dataset-file", str(small)])
    assert [verdicts[("CRUXEval/0", i)]["status"] for i in (0, 1)] == ["passed", "failed"]
    assert verdicts[("CRUXEval/1", 0)]["status"] == "passed"
    assert scores["scores"]["cruxeval-i"]["pass@1"]["value"] == 0.75  # (1/2 + 1) / 2


@pytest.mark.slow
def test_every_reference_passes_in_both_modes(tmp_path: Path, crux_dir: Path) -> None:
    for bench in ("cruxeval-i", "cruxeval-o"):
        _, verdicts = _evaluate(tmp_path / bench, bench, ["--references"], ["--data-dir", str(crux_dir)])
        assert len(verdicts) == 800 and all(v["status"] == "passed" for v in verdicts.values())


def test_assay_run_asks_with_cruxevals_prompt_and_judges_the_answer(tmp_path: Path, small: Path) -> None:
    def respond(body: dict, i: int) -> str:  # type: ignore[type-arg]
        text = body["messages"][-1]["content"]
        assert text.endswith("[/PYTHON]\n[THOUGHT]\n")  # CRUXEval's CoT prompt, as it is
        right = "assert f('abc') == 'ABC'" if "'abc'" in text else "assert f(5) == 5"
        return f"Let's execute the code step by step.\n[/THOUGHT]\n[ANSWER]\n{right if i == 0 else 'assert f(1) == 0'}\n[/ANSWER]"

    with FakeOpenAIServer(responder=respond) as server:
        out = tmp_path / "scores.json"
        proc = subprocess.run(
            [sys.executable, "-m", "assay.cli", "run", "cruxeval-o-cot", "--dataset-file", str(small), "--model", "openai/fake",
             "--base-url", server.url, "-n", "2", "--temperature", "0.2", "--task-ids", "CRUXEval/0,CRUXEval/1",
             "--run-dir", str(tmp_path / "run"), "--json", str(out), "--k", "1", "--workers", "1", "--plain", "--no-cache"],
            capture_output=True, text=True, timeout=300, env={k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")})
    assert proc.returncode == 0, proc.stderr
    assert "0.5000" in proc.stdout + proc.stderr  # one of two right on each task

