"""Google's original MBPP (974) and its sanitized set (427): loading, both prompt styles, the references
through the CLI, and samples that try to pass MBPP's asserts without being right."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.benchmarks import load_benchmark
from assay.benchmarks.mbpp import MbppFormatError, load_mbpp
from assay.generation import code_of

runner = CliRunner()


def _evaluate(tmp_path: Path, data_dir: Path, bench: str, rows: list[dict[str, object]] | None, *extra: str) -> tuple[dict, dict]:  # type: ignore[type-arg]
    args = ["evaluate", bench, "--data-dir", str(data_dir), "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "out.json"),
            "--k", "1", "--plain", "--no-cache", *extra]
    if rows is None:
        args.append("--references")
    else:
        samples = tmp_path / "samples.jsonl"
        samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
        args += ["--samples", str(samples)]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    verdicts = {}
    for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        verdicts[row.get("note") or row["task_id"]] = row
    return json.loads((tmp_path / "out.json").read_text()), verdicts


def test_the_full_and_sanitized_sets_load_with_their_splits_and_entry_points(data_dir: Path) -> None:
    full = load_benchmark("mbpp", data_dir=data_dir)
    assert len(full.problems) == 974 and full.version == "google-research-mbpp"
    assert full.content_hash == "ccf64ceae9c5403bf50a044cb6d505bfd2a2963ee58338ba268fd65beab92a9f"
    sanitized = load_benchmark("mbpp-sanitized", data_dir=data_dir)
    assert len(sanitized.problems) == 427
    assert sanitized.content_hash == "ca95deaa9a01ef0a6f439f88bcf0dd3db3563d22f22aad6cae04ebb9a8d8c8e9"
    assert len(load_benchmark("mbpp-test", data_dir=data_dir).problems) == 500  # 11-510, what papers report
    assert len(load_benchmark("mbpp-sanitized-test", data_dir=data_dir).problems) == 257
    p = full.problems["Mbpp/2"]
    assert p.entry_point == "similar_elements" and "split:prompt" in p.tags and "\r" not in p.reference
    # EvalPlus's prompts, exactly: all 378 MBPP+ problems (its source links left out of the text, as EvalPlus does).
    with gzip.open(data_dir / "evalplus" / "MbppPlus.jsonl.gz", "rt") as f:
        plus = [json.loads(line) for line in f]
    assert len(plus) == 378
    assert all(sanitized.problems[r["task_id"]].prompt == r["prompt"] for r in plus)
    assert all(sanitized.problems[r["task_id"]].entry_point == r["entry_point"] for r in plus)
    # A function named `check` (as the test program's own is): its calls go to the candidate.
    assert full.problems["Mbpp/349"].entry_point == "check"
    assert "candidate('01010101010')" in full.problems["Mbpp/349"].tests.code  # type: ignore[union-attr]
    # test_setup_code builds Node trees at module level (Mbpp/927), before check().
    code = full.problems["Mbpp/927"].tests.code  # type: ignore[union-attr]
    assert code.index("root = Node(1)") < code.index("def check(candidate):")
    challenge = load_benchmark("mbpp-challenge", data_dir=data_dir)
    assert sum(len(q.extra["test_list"]) > 3 for q in challenge.problems.values()) == 11


def test_the_paper_prompt_is_three_shot_and_its_reply_is_the_whole_program(data_dir: Path) -> None:
    bench = load_benchmark("mbpp-paper", data_dir=data_dir)
    p = bench.problems["Mbpp/11"]
    assert p.prompt.startswith("You are an expert Python programmer, and here is your task: Write a function to find the similar")
    assert p.prompt.count("[BEGIN]") == 4 and p.prompt.count("[DONE]") == 3 and p.prompt.endswith("[BEGIN]\n")
    assert "assert remove_Occ(\"hello\",\"l\") == \"heo\"" in p.prompt and p.stops == ("[DONE]",)
    assert bench.problems["Mbpp/2"].prompt.count("[DONE]") == 2  # a shot is not its own example
    completion, solution, _how = code_of(p, "def remove_Occ(s, ch):\n    return s\n[DONE]", "completion", p.stops)
    assert completion is None and solution is not None and solution.startswith("def remove_Occ") and "[DONE]" not in solution


def test_a_malformed_file_and_an_unknown_style_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "mbpp.jsonl"
    bad.write_text('{"task_id": 1, "code": "x = 1"}\n')
    with pytest.raises(MbppFormatError, match="row 1 is not an MBPP row"):
        load_mbpp(path=bad)
    bad.write_text("{not json\n")
    with pytest.raises(MbppFormatError, match="not MBPP's JSON"):
        load_mbpp(path=bad)
    with pytest.raises(ValueError, match="no prompt style"):
        load_mbpp(style="few-shot", path=bad)


@pytest.mark.slow
def test_every_reference_passes_its_own_asserts(tmp_path: Path, data_dir: Path) -> None:
    # 974/974 with the challenge asserts (upstream's own ground truth); 427/427 sanitized, where three
    # references return a re.Match that `assert f(x)` checks for truth (Mbpp/737, 787, 794).
    for bench, n in (("mbpp-challenge", 974), ("mbpp-sanitized", 427)):
        out, _ = _evaluate(tmp_path / bench, data_dir, bench, None)
        counts = {k: v for k, v in out["status_counts"].items() if v}
        assert counts == {"passed": n}, (bench, counts)


RIGHT_349 = "def check(string):\n    return 'Yes' if set(string) <= {'0', '1'} and string else 'No'\n"
RIGHT_737 = "import re\ndef check_str(string):\n    return re.search('^[aeiouAEIOU][A-Za-z0-9_]*', string)\n"
NODE_927 = "class Node:\n    def __init__(self, data):\n        self.data = data\n        self.left = self.right = None\n"


def test_samples_that_try_to_pass_without_being_right_fail(tmp_path: Path, data_dir: Path) -> None:
    rows = {
        "right_349": ("Mbpp/349", RIGHT_349),
        "wrong_349": ("Mbpp/349", "def check(string):\n    return 'Yes'\n"),
        "exit_early": ("Mbpp/349", "import os\nos._exit(0)\n"),
        "exit_in_call": ("Mbpp/349", "import sys\ndef check(string):\n    sys.exit(0)\n"),
        "print_pass": ("Mbpp/349", "print('passed')\ndef check(string):\n    print('OK'); return None\n"),
        "always_equal": ("Mbpp/349", "class Yes(str):\n    def __eq__(self, o): return True\n    __hash__ = str.__hash__\n"
                                     "def check(string):\n    return Yes('No')\n"),
        "patched_assert": ("Mbpp/349", "import builtins\nbuiltins.AssertionError = type('A', (Exception,), {})\n"
                                       "def check(string):\n    return 'No'\n"),
        "shadowed_set": ("Mbpp/2", "def set(x=()):\n    return 1\ndef similar_elements(a, b):\n    return ()\n"),
        "right_set": ("Mbpp/2", "def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b)))\n"),
        # A tree task: the asserts build Node trees from the sample's class in the sandbox, the reference's in the replay.
        "right_tree": ("Mbpp/927", NODE_927 + "def max_height(node):\n    return 0 if node is None else 1 + max(max_height(node.left), max_height(node.right))\n"),
        "wrong_tree": ("Mbpp/927", NODE_927 + "def max_height(node):\n    return 3\n"),
    }
    _, verdicts = _evaluate(tmp_path, data_dir, "mbpp", [{"task_id": t, "solution": code, "note": name} for name, (t, code) in rows.items()])
    status = {name: verdicts[name]["status"] for name in rows}
    assert status == {
        "right_349": "passed", "wrong_349": "failed", "exit_early": status["exit_early"], "exit_in_call": status["exit_in_call"],
        "print_pass": "failed", "always_equal": "failed", "patched_assert": "failed", "shadowed_set": "failed",
        "right_set": "passed", "right_tree": "passed", "wrong_tree": "failed",
    }, status
    assert status["exit_early"] != "passed" and status["exit_in_call"] != "passed"


def test_a_match_object_counts_by_its_truth_only(tmp_path: Path, data_dir: Path) -> None:
    rows = {
        "right_match": ("Mbpp/737", RIGHT_737),
        # Truthy on every input: `assert not check_str("dawood")` must fail it, whatever its __bool__ says later.
        "always_truthy": ("Mbpp/737", "class M:\n    n = 0\n    def __bool__(self):\n        M.n += 1\n        return M.n < 99\n"
                                      "def check_str(string):\n    return M()\n"),
        "used_otherwise": ("Mbpp/737", "import re\ndef check_str(string):\n    return re.compile('x')\n"),
    }
    _, verdicts = _evaluate(tmp_path, data_dir, "mbpp-sanitized", [{"task_id": t, "solution": c, "note": n} for n, (t, c) in rows.items()])
    assert {n: verdicts[n]["status"] for n in rows} == {"right_match": "passed", "always_truthy": "failed", "used_otherwise": "failed"}


def test_assay_benchmarks_lists_every_benchmark_with_its_size_languages_and_licence() -> None:
    from assay.benchmarks import benchmark_names

    result = runner.invoke(cli.app, ["benchmarks"])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines()[1:] if line.strip()}
    assert set(lines) == set(benchmark_names())
    assert lines["mbpp-sanitized"].split(None, 1)[1] == "427 | Python | CC BY 4.0 (Google)"
    assert "| rs |" in lines["multipl-e/mbpp-rs"]
    unknown = [name for name, line in lines.items() if "? | ?" in line]
    assert not unknown, f"add these to assay.benchmarks.ABOUT: {unknown}"
