"""Loading run directories for reports: real runs, published verdicts, and every kind of bad run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.problems import Status, Verdict
from assay.report.runs import (
    ReportError,
    comparability_notes,
    find_run_dirs,
    load_run,
    load_runs,
    natural_sorted,
    samples_label,
    settings_differences,
    suites_of,
)
from assay.store import RunStore
from tests.conftest import shared_data
from tests.report import config, fasteval_run, plus_verdict, write_run

FASTEVAL = shared_data() / "samples" / "fasteval"
needs_fasteval = pytest.mark.skipif(not FASTEVAL.is_dir(), reason=f"needs the shared data directory ({FASTEVAL}), absent here")


def test_a_directory_without_a_run_database_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="is not a run directory"):
        load_run(tmp_path)
    assert not (tmp_path / "run.sqlite").exists()  # looking did not create one


def test_a_run_that_never_started_or_is_empty_is_refused(tmp_path: Path) -> None:
    RunStore(tmp_path / "blank").close()
    with pytest.raises(ReportError, match="no run configuration"):
        load_run(tmp_path / "blank")
    write_run(tmp_path / "empty", {})
    with pytest.raises(ReportError, match=r"has no samples \(benchmark toy, model toy\)") as exc:
        load_run(tmp_path / "empty")
    assert "\n" not in str(exc.value)


def test_an_unfinished_run_is_refused_unless_allowed(tmp_path: Path) -> None:
    write_run(tmp_path / "r", {"a": [True, False]}, unjudged=3)
    with pytest.raises(ReportError, match=r"unfinished \(3 of 5 samples have no verdict\).*pass --allow-unfinished"):
        load_run(tmp_path / "r")
    run = load_run(tmp_path / "r", allow_unfinished=True)
    assert run.n_unjudged == 3 and run.suites == {"toy": {"a": [True, False]}}
    assert any(n.startswith("unfinished run") for n in run.notes)


def test_a_model_run_whose_generation_stopped_is_unfinished(tmp_path: Path) -> None:
    write_run(tmp_path / "r", {"a": [True]}, config(model="gpt-4o-mini"), generation_done=False)
    with pytest.raises(ReportError, match="generation did not finish"):
        load_run(tmp_path / "r")


def test_model_and_samples_runs_are_named_by_what_they_recorded(tmp_path: Path) -> None:
    run = load_run(write_run(tmp_path / "m", {"a": [True]}, config(model="Qwen/Qwen2.5-Coder-7B-Instruct", temperature=0.8)))
    assert (run.model, run.label, run.kind) == ("Qwen/Qwen2.5-Coder-7B-Instruct", "Qwen/Qwen2.5-Coder-7B-Instruct", "model")
    assert run.settings()["sampling.temperature"] == 0.8 and "sampling.n" not in run.settings()
    assert run.settings_summary() == "T=0.8 top-p=0.95, timeout auto, bubblewrap"
    labelled = load_run(tmp_path / "m", label="qwen-7b")
    assert (labelled.label, labelled.display_name, labelled.model) == ("qwen-7b", "qwen-7b", "Qwen/Qwen2.5-Coder-7B-Instruct")
    assert samples_label(Path("data/fasteval/gpt-4-0613/samples.jsonl")) == "gpt-4-0613"
    assert samples_label(Path("out/starcoder2-15b.jsonl.gz")) == "starcoder2-15b"
    assert samples_label(Path("/cache/references/humaneval-abc.jsonl")) == "reference solutions"


def test_skipped_samples_are_kept_but_not_scored_and_sandbox_errors_are_noted(tmp_path: Path) -> None:
    cfg = config("multipl-e/humaneval-swift", toolchain={"python": "3.11", "driver": "x", "swift": "6.3.1"})
    run = load_run(write_run(tmp_path / "r", {"a": [True, "compile_error"], "b": ["skipped"], "c": ["sandbox_error"]}, cfg))
    assert run.suites == {"multipl-e/humaneval-swift": {"a": [True, False], "c": [False]}}
    assert {s.language for s in run.samples} == {"swift"}  # from the toolchain record: the benchmark is not on this machine
    assert run.status_counts() == {"passed": 1, "compile_error": 1, "skipped": 1, "sandbox_error": 1}
    assert any("1 samples got a sandbox error" in n for n in run.notes)
    assert any("skipped" in n for n in run.notes) and any("inferred" in n for n in run.notes)


def test_a_run_of_only_skipped_samples_has_nothing_to_score(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no scored samples"):
        load_run(write_run(tmp_path / "r", {"a": ["skipped"]}))


def test_base_and_plus_suites_are_inferred_from_the_verdicts(tmp_path: Path) -> None:
    outcomes = {"t/0": [plus_verdict(True, True), plus_verdict(True, False)], "t/1": [plus_verdict(False, False), Verdict(Status.COMPILE_ERROR)]}
    run = load_run(write_run(tmp_path / "r", outcomes, config("humaneval-plus", n_problems=4)))
    assert run.suites == {"humaneval-plus": {"t/0": [True, False], "t/1": [False, False]}, "humaneval-plus:base": {"t/0": [True, True], "t/1": [False, False]}}
    assert run.headline_suite == "humaneval-plus"
    assert suites_of([run]) == ["humaneval-plus", "humaneval-plus:base"]
    assert run.score("humaneval-plus:base", 1).value == pytest.approx(0.5)
    assert any("covers 2 of the 4 problems" in n for n in run.notes)
    with pytest.raises(ReportError, match="no suite 'mbpp'"):
        run.score("mbpp", 1)


@needs_fasteval
def test_published_fasteval_verdicts_give_the_published_scores(tmp_path: Path) -> None:
    run = load_run(fasteval_run(shared_data(), "gpt-4-0613", tmp_path / "gpt4"))
    assert run.label == "gpt-4-0613" and run.samples_per_problem() == (3, 3)
    assert run.score("humaneval-plus:base", 1).value == pytest.approx(0.8598, abs=5e-5)  # FastEval's published numbers
    assert run.score("humaneval-plus", 1).value == pytest.approx(0.8008, abs=5e-5)
    assert len(run.problem_ids) == 164 and run.problem_ids[:3] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]


@pytest.mark.slow
def test_the_benchmark_file_the_run_names_decides_languages_and_suites(tmp_path: Path) -> None:
    source = shared_data() / "evalplus" / "HumanEvalPlus.jsonl.gz"
    if not source.is_file():
        pytest.skip(f"needs {source}, absent here")
    from assay.benchmarks import load_benchmark

    bench = load_benchmark("humaneval-plus", path=source)
    cfg = config("humaneval-plus", version=bench.version, content_hash=bench.content_hash, n_problems=164, source=str(source))
    outcomes = {"HumanEval/0": [plus_verdict(True, False), Verdict(Status.TIMEOUT)], "HumanEval/1": [plus_verdict(True, True)]}
    run = load_run(write_run(tmp_path / "r", outcomes, cfg))
    assert not any("inferred" in n for n in run.notes)  # the real benchmark was used
    assert run.suites == {"humaneval-plus": {"HumanEval/0": [False, False], "HumanEval/1": [True]},
                          "humaneval-plus:base": {"HumanEval/0": [True, False], "HumanEval/1": [True]}}
    changed = config("humaneval-plus", content_hash="0" * 64, source=str(source))
    assert any("inferred" in n for n in load_run(write_run(tmp_path / "old", outcomes, changed)).notes)


def test_the_same_directory_twice_counts_once_and_same_model_runs_are_told_apart(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", {"p": [True]}, config(model="m"))
    b = write_run(tmp_path / "b", {"p": [False]}, config(model="m"))
    runs = load_runs([a, a, b])
    assert [r.display_name for r in runs] == ["m [a]", "m [b]"]
    with pytest.raises(ReportError, match="no run directories"):
        load_runs([])


def test_comparability_notes_name_versions_problem_sets_settings_and_sample_counts(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", {"p1": [True], "p2": [False]}, config(model="m1", temperature=0.2))
    b = write_run(tmp_path / "b", {"p1": [True, True]}, config(model="m2", temperature=0.8, content_hash="x" * 64, version="2"))
    runs = load_runs([a, b])
    assert settings_differences(runs) == {"sampling.temperature": {"m1": 0.2, "m2": 0.8}}
    notes = comparability_notes(runs, "toy")
    assert any(n.startswith("runs used different versions of toy") for n in notes)
    assert any(n.startswith("runs cover different problems (m1 2, m2 1; 1 shared)") for n in notes)
    assert any(n.startswith("setting sampling.temperature differs") for n in notes)
    assert any(n.startswith("samples per problem differ") for n in notes)
    assert comparability_notes(load_runs([a]), "toy") == []


def test_run_directories_are_found_below_a_root(tmp_path: Path) -> None:
    for name in ("runs/b10", "runs/b2", "runs/nested/x"):
        write_run(tmp_path / name, {"p": [True]})
    (tmp_path / "runs" / "not-a-run").mkdir()
    assert [p.relative_to(tmp_path).as_posix() for p in find_run_dirs(tmp_path / "runs")] == ["runs/b2", "runs/b10", "runs/nested/x"]
    with pytest.raises(ReportError, match="no run directories under"):
        find_run_dirs(tmp_path / "runs" / "not-a-run")


def test_natural_order_of_task_ids() -> None:
    assert natural_sorted(["HumanEval/10", "HumanEval/2", "Mbpp/1"]) == ["HumanEval/2", "HumanEval/10", "Mbpp/1"]


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, object]]:
    """Two models' real samples on 21 HumanEval problems, judged in the real sandbox (about 10 s on 2 cores)."""
    if not FASTEVAL.is_dir():
        pytest.skip(f"needs the shared data directory ({FASTEVAL}), absent here")
    from assay.benchmarks import load_benchmark
    from assay.execution.pipeline import evaluate
    from assay.samples import read_samples
    from assay.sandbox import SandboxUnavailable, get_sandbox

    try:
        sandbox = get_sandbox()
    except SandboxUnavailable as exc:
        pytest.skip(str(exc))
    root = tmp_path_factory.mktemp("evaluated")
    bench = load_benchmark("humaneval")
    wanted = {f"HumanEval/{i}" for i in range(0, 164, 8)}
    out = {}
    for model in ("gpt-4-0613", "meta-llama--Llama-2-70b-chat-hf"):
        rows = [json.loads(line) for line in (FASTEVAL / model / "samples.jsonl").read_text().splitlines()]
        samples = root / model / "samples.jsonl"
        samples.parent.mkdir()
        samples.write_text("".join(json.dumps({k: r[k] for k in ("task_id", "sample_index", "completion")}) + "\n" for r in rows if r["task_id"] in wanted))
        cache = tmp_path_factory.getbasetemp() / "assay-cache"
        evaluation = evaluate(bench, read_samples(samples), samples, root / f"run-{model}", sandbox, [1, 2], cache_dir=cache)
        out[model] = (root / f"run-{model}", evaluation)
    return out


@pytest.mark.slow
def test_a_real_evaluated_run_loads_with_the_scores_evaluate_printed(evaluated: dict[str, tuple[Path, object]]) -> None:
    for model, (run_dir, evaluation) in evaluated.items():
        run = load_run(run_dir)
        assert (run.label, run.kind, run.benchmark.name) == (model, "samples", "humaneval")
        for k in (1, 2):
            assert run.score("humaneval", k) == evaluation.scores["humaneval"][k]  # type: ignore[attr-defined]
        counts = evaluation.counts  # type: ignore[attr-defined]
        assert run.status_counts() == {s: n for s, n in counts.items() if n}
        assert {s.language for s in run.samples} == {"python"}
        assert run.assay_version and any("covers 21 of the 164" in n for n in run.notes)
        assert not any("inferred" in n for n in run.notes)  # humaneval ships with Assay: the real benchmark was used
    from assay.report import compare_run_dirs

    (gpt4, _), (llama, _) = evaluated.values()
    comparison, _ = compare_run_dirs(gpt4, llama)
    assert comparison.paired.difference > 0 and comparison.paired.n_problems == 21
    assert len(comparison.mcnemar.only_a) > len(comparison.mcnemar.only_b)
