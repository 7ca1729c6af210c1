"""LiveCodeBench: rows in code_generation_lite's exact format (tests/fixtures/livecodebench, made by its make_fixture.py;
1873_A's private tests are the Hub row's own encoded string), the restricted unpickler, the Hub path against a loopback
server, stdin/stdout and LeetCode-call judging on the trusted side with correct, wrong and hostile samples, ERRATA tags,
LiveCodeBench's prompt and extraction, and --since/--until windows recorded in the run."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.benchmarks import load_benchmark
from assay.benchmarks._fetch import ChecksumMismatch, DataUnavailable
from assay.benchmarks.livecodebench import IMPORTS, LiveCodeBenchFormatError, decode_tests, problem_of
from assay.benchmarks.window import WindowError, released_within
from assay.generation import code_of
from assay.judging.stdio import output_mismatch
from assay.prompts import INSTRUCT
from tests.fakes.hub import Hub, serve_hub

FIXTURE = Path(__file__).parent / "fixtures" / "livecodebench"
runner = CliRunner()

RIGHT = {
    "1873_A": "t = int(input())\nfor _ in range(t):\n    s = input().strip()\n"
              "    print('YES' if sum(a != b for a, b in zip(s, 'abc')) in (0, 2) else 'NO')\n",
    "abc999_b": "import sys\ndef main():\n    n, *xs = map(int, sys.stdin.read().split())\n    print(f'{sum(xs) / n:.10f}')\n"
                "    print(min(xs), max(xs))\nif __name__ == '__main__':\n    main()\n",
    # List needs no import: upstream's import_string (the problem's context) brings typing's names.
    "running-sum": "class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        return list(accumulate(nums))\n",
    "has-pair-with-sum": "class Solution:\n    def hasPairWithSum(self, nums: List[int], target: int) -> bool:\n        seen = set()\n"
                         "        for x in nums:\n            if target - x in seen:\n                return True\n            seen.add(x)\n"
                         "        return False\n",
    "abc343_a": "a, b = map(int, input().split())\nprint(9 if a + b != 9 else 0)\n",
    "abc350_a": "s = input()\nn = int(s[3:])\nprint('Yes' if 1 <= n <= 349 and n != 316 else 'No')\n",
    "count-even-numbers": "class Solution:\n    def countEven(self, nums):\n        return sum(1 for x in nums if x % 2 == 0)\n",
}


def _evaluate(tmp_path: Path, bench: str, rows: list[dict[str, Any]], *extra: str, data: Path = FIXTURE) -> tuple[dict[str, Any], dict[str, Any]]:
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["evaluate", bench, "--dataset-file", str(data), "--samples", str(samples), "--run-dir", str(tmp_path / "run"),
            "--json", str(tmp_path / "out.json"), "--k", "1", "--plain", "--no-cache", *extra]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    verdicts = {}
    for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        verdicts[row.get("note") or row["task_id"]] = row
    return json.loads((tmp_path / "out.json").read_text()), verdicts


def test_rows_load_with_their_tests_releases_tags_and_prompts() -> None:
    v1 = load_benchmark("livecodebench/v1", path=FIXTURE)
    v2 = load_benchmark("livecodebench/v2", path=FIXTURE)
    assert len(v1.problems) == 5 and len(v2.problems) == 7 and set(v1.problems) < set(v2.problems)
    assert v1.name == "livecodebench/v1" and v2.version == "release_v2 (local)"
    assert load_benchmark("livecodebench", path=FIXTURE / "test.jsonl").name == "livecodebench"
    short = v1.problems["1873_A"]
    tests = short.tests
    assert tests.rule == "stdio" and [c.suite for c in tests.cases] == ["public"] + ["private"] * 4  # type: ignore[union-attr]
    assert tests.cases[1].args == ("1\nabc\n",) and tests.cases[1].expected == "YES\n"  # type: ignore[union-attr]
    assert short.extra["released"] == "2023-08-21" and "platform:codeforces" in short.tags and short.entry_point == ""
    call = v1.problems["has-pair-with-sum"]
    assert call.tests.rule == "call" and call.entry_point == "hasPairWithSum"  # type: ignore[union-attr]
    assert call.tests.cases[0].args == ([1, 2, 3], 5) and call.tests.cases[0].expected is True  # type: ignore[union-attr]
    assert v1.problems["abc343_a"].tags[-1] == "errata:multiple-answers" and "errata" not in short.extra
    assert short.context == IMPORTS and IMPORTS.startswith("from string import *\n") and IMPORTS.endswith("sys.setrecursionlimit(50000)\n")
    # LiveCodeBench's generic prompt and system message, sent as a chat.
    assert short.prompt.startswith("### Question:\nThere are three cards") and "```python\n# YOUR CODE HERE\n```" in short.prompt
    assert short.prompt.endswith("### Answer: (use the provided format with backticks)\n\n")
    assert "```python\nclass Solution:\n    def hasPairWithSum(self" in call.prompt and "following starter code" in call.prompt
    messages = INSTRUCT.render(short).messages
    assert messages is not None and [m[0] for m in messages] == ["system", "user"] and messages[0][1].startswith("You are an expert Python programmer")
    # The reply's code: its last fenced block, as it is (a __main__ guard and prints kept).
    reply = "Idea:\n```python\nprint(1)\n```\nFinal:\n```python\nimport sys\nif __name__ == '__main__':\n    print(2)\n```\nDone."
    assert code_of(short, reply, "instruct", ()) == (None, "import sys\nif __name__ == '__main__':\n    print(2)", "last-fence:instruct")
    assert code_of(short, "no fences", "instruct", ())[1] == ""


def test_private_tests_decode_and_a_pickle_that_runs_code_is_refused(tmp_path: Path) -> None:
    tests = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    assert decode_tests(base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests), protocol=4))).decode()) == tests
    assert decode_tests(json.dumps(tests)) == tests

    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (__import__("os").system, (f"touch {marker}",))

    with pytest.raises(LiveCodeBenchFormatError, match=r"refused to load posix\.system|refused to load os\.system"):
        decode_tests(base64.b64encode(zlib.compress(pickle.dumps(Evil()))).decode())
    assert not marker.exists()
    with pytest.raises(LiveCodeBenchFormatError, match="unpickle to a list"):
        decode_tests(base64.b64encode(zlib.compress(pickle.dumps([1, 2]))).decode())
    with pytest.raises(LiveCodeBenchFormatError, match="neither JSON nor"):
        decode_tests("not base64 at all!")
    row = json.loads((FIXTURE / "test.jsonl").read_text().splitlines()[0])
    with pytest.raises(LiveCodeBenchFormatError, match="missing metadata"):
        problem_of({k: v for k, v in row.items() if k != "metadata"})


def test_correct_solutions_pass_and_wrong_ones_fail(tmp_path: Path) -> None:
    wrong = {
        "wrong_short": ("1873_A", "t = int(input())\nfor _ in range(t):\n    input()\n    print('YES')\n"),
        "float_repr": ("abc999_b", "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs) / n)\nprint(min(xs), max(xs))\n"),
        "wrong_call": ("running-sum", "class Solution:\n    def runningSum(self, nums):\n        return nums\n"),
        "tuple_ok": ("running-sum", "class Solution:\n    def runningSum(self, nums):\n        return tuple(accumulate(nums))\n"),
        "function_ok": ("count-even-numbers", "def countEven(nums):\n    return len([x for x in nums if x % 2 == 0])\n"),
        # abc343_a accepts any digit but A + B; upstream grades one (ERRATA.md): a right answer that differs fails.
        "other_valid": ("abc343_a", "a, b = map(int, input().split())\nprint((a + b + 1) % 10)\n"),
        "raises": ("abc350_a", "print('Yes')\nraise ValueError('late')\n"),
        "syntax": ("abc350_a", "def f(:\n"),
        "slow": ("abc350_a", "while True:\n    pass\n"),
        "no_method": ("has-pair-with-sum", "class Solution:\n    def other(self):\n        return 1\n"),
    }
    rows = [{"task_id": t, "solution": code, "note": f"right_{t}"} for t, code in RIGHT.items()]
    rows += [{"task_id": t, "solution": code, "note": name} for name, (t, code) in wrong.items()]
    out, verdicts = _evaluate(tmp_path, "livecodebench/v2", rows, "--timeout", "2")
    status = {name: v["status"] for name, v in verdicts.items()}
    assert {n: s for n, s in status.items() if n.startswith("right_")} == {f"right_{t}": "passed" for t in RIGHT}, verdicts
    assert status["tuple_ok"] == "passed" and status["function_ok"] == "passed"
    assert status["wrong_short"] == status["float_repr"] == status["wrong_call"] == status["other_valid"] == "failed"
    assert status["raises"] == "runtime_error" and status["syntax"] == "compile_error" and status["slow"] == "timeout"
    assert status["no_method"] == "runtime_error" and "no attribute 'hasPairWithSum'" in verdicts["no_method"]["result"]
    # print(4 / 3) is not 10 digits: Decimal equality, no tolerance (upstream's rule).
    assert "'1.3333333333333333' != '1.3333333333'" in verdicts["float_repr"]["result"]
    assert out["config"]["benchmark"]["name"] == "livecodebench/v2"


def test_stdout_is_compared_with_livecodebench_rules() -> None:
    assert output_mismatch("YES\nNO", "YES\nNO\n") == ""
    assert output_mismatch("  YES  \r\nNO   \n\n\n", "YES\nNO\n") == ""  # each line and the whole output stripped
    assert output_mismatch("2.5\n1 4\n", "2.5000000000\n1 4\n") == ""  # tokens equal as Decimal numbers
    assert output_mismatch("2.50000000001\n1 4\n", "2.5000000000\n1 4\n") != ""  # no tolerance beyond that
    assert output_mismatch("YES\n\nNO\n", "YES\nNO\n") != ""  # a blank line inside is a line
    assert output_mismatch("YES NO\n", "YES\nNO\n") != "" and output_mismatch("1  4\n", "1 4\n") == ""
    assert output_mismatch("nan\n", "nan\n") == "" and output_mismatch("NaN\n", "nan\n") != ""
    assert output_mismatch("", "") == "" and output_mismatch("\n", "0\n") != ""


HOSTILE = {
    # What the statement's sample shows, printed whatever the input: right on the public test only.
    "prints_public_answer": ("1873_A", "print('YES\\nYES\\nYES\\nNO\\nNO\\nYES')\n"),
    "exits_early": ("1873_A", "import os\nprint('YES', flush=True)\nos._exit(0)\n"),
    "exits_with_status": ("1873_A", "import sys\nsys.stdout.write('YES\\n')\nsys.exit(3)\n"),
    # Looks for the tests on disk: the work dir holds the program and its runner only, no expected output anywhere.
    "reads_tests_from_disk": ("1873_A", "import os\nfound = []\nfor root in ('.', '/tmp', os.path.expanduser('~')):\n"
                                         "    for d, _, fs in os.walk(root):\n        for f in fs:\n"
                                         "            if f.endswith(('.jsonl', '.json', '.out', '.txt')) or 'expected' in f:\n"
                                         "                found.append(os.path.join(d, f))\n"
                                         "print(sorted(os.listdir('.')), found[:5])\n"),
    "extra_lines": ("1873_A", "t = int(input())\nfor _ in range(t):\n    s = input().strip()\n"
                              "    print('YES' if sum(a != b for a, b in zip(s, 'abc')) in (0, 2) else 'NO')\n    print()\n"),
    "both_answers": ("1873_A", "t = int(input())\nfor _ in range(t):\n    input()\n    print('YES NO')\n"),
    "writes_channel": ("running-sum", "import os\nfor fd in (1, 3):\n    try:\n        os.write(fd, b'[\"final\", {}]\\n')\n"
                                      "    except OSError:\n        pass\nclass Solution:\n    def runningSum(self, nums):\n        return nums\n"),
    "always_equal": ("running-sum", "class Eq(list):\n    def __eq__(self, o):\n        return True\n"
                                    "class Solution:\n    def runningSum(self, nums):\n        return Eq()\n"),
    "patched_builtins": ("has-pair-with-sum", "import builtins\nbuiltins.isinstance = lambda *a: True\nbuiltins.list = tuple\n"
                                              "class Solution:\n    def hasPairWithSum(self, nums, target):\n        return 1\n"),
    "trailing_spaces_ok": ("1873_A", "t = int(input())\nfor _ in range(t):\n    s = input().strip()\n"
                                     "    print('YES  ' if sum(a != b for a, b in zip(s, 'abc')) in (0, 2) else '  NO')\nprint('\\n\\n')\n"),
    "exit_zero_after_answer_ok": ("1873_A", RIGHT["1873_A"] + "exit(0)\n"),
}


def test_hostile_samples_do_not_pass(tmp_path: Path) -> None:
    rows = [{"task_id": t, "solution": code, "note": name} for name, (t, code) in HOSTILE.items()]
    _, verdicts = _evaluate(tmp_path, "livecodebench/v1", rows, "--timeout", "5")
    status = {name: verdicts[name]["status"] for name in HOSTILE}
    ok = {"trailing_spaces_ok", "exit_zero_after_answer_ok"}  # LiveCodeBench's own rules: these are right answers
    assert {n: s for n, s in status.items() if n in ok} == dict.fromkeys(ok, "passed"), verdicts
    assert all(s != "passed" for n, s in status.items() if n not in ok), status
    assert status["exits_with_status"] == "failed"  # SystemExit ends the program (upstream): its output so far is judged
    # The disk holds no test: what the sample saw is its own two files.
    assert status["reads_tests_from_disk"] == "failed" and "first: \"['main.py', 'runner.py'] []\"" in verdicts["reads_tests_from_disk"]["result"]


def test_since_until_choose_problems_by_release_date_and_the_run_records_the_window(tmp_path: Path) -> None:
    v2 = load_benchmark("livecodebench/v2", path=FIXTURE)
    cut = released_within(v2, "2024-01-13", "2024-04-20")
    assert sorted(cut.problems) == ["abc343_a", "abc350_a", "has-pair-with-sum"] and cut.window == "2024-01-13..2024-04-20"
    assert sorted(released_within(v2, "2024-05-01", None).problems) == ["count-even-numbers"]
    assert released_within(v2, None, None) is v2
    with pytest.raises(WindowError, match=r"no problem of livecodebench/v2 was released in 2025-01-01\.\. \(its problems span 2023-08-21\.\.2024-05-11\)"):
        released_within(v2, "2025-01-01", None)
    with pytest.raises(WindowError, match="YYYY-MM-DD"):
        released_within(v2, "June 2024", None)
    rows = [{"task_id": t, "solution": code} for t, code in RIGHT.items()]
    out, verdicts = _evaluate(tmp_path, "livecodebench/v2", rows, "--since", "2024-03-01")
    assert set(verdicts) == {"abc343_a", "abc350_a", "count-even-numbers"}
    bench = out["config"]["benchmark"]
    assert bench["window"] == "2024-03-01.." and bench["n_problems"] == 3
    undated = runner.invoke(cli.app, ["evaluate", "humaneval", "--references", "--since", "2024-01-01", "--run-dir", str(tmp_path / "he")])
    assert undated.exit_code == 2 and "no release dates" in undated.output


# ---------------------------------------------------------------- the Hub, on loopback

SHA = "89abcdef0123456789abcdef0123456789abcdef"
REPO = "livecodebench/code_generation_lite"


@pytest.fixture()
def hub() -> Iterator[tuple[list[str], str]]:
    state = Hub(REPO, SHA, {name: (FIXTURE / name).read_bytes() for name in ("test.jsonl", "test2.jsonl")})
    with serve_hub(state) as url:
        yield state.requests, url


def test_the_hub_files_are_fetched_once_at_a_pinned_commit_and_checked(hub: tuple[list[str], str], tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    asked, url = hub
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.delenv("ASSAY_OFFLINE", raising=False)
    monkeypatch.delenv("ASSAY_DATA_DIR", raising=False)
    cache = tmp_path / "cache"
    v1 = load_benchmark("livecodebench/v1", cache_dir=cache)
    assert v1.version == f"release_v1@{SHA[:12]}" and v1.source == f"hf://{REPO}@{SHA}" and len(v1.problems) == 5
    assert asked == [f"/api/datasets/{REPO}/revision/main", f"/datasets/{REPO}/resolve/{SHA}/test.jsonl"]
    assert v1.content_hash == load_benchmark("livecodebench/v1", path=FIXTURE / "test.jsonl").content_hash
    assert len(load_benchmark("livecodebench/v1", cache_dir=cache).problems) == 5 and len(asked) == 2  # pinned: offline
    v2 = load_benchmark("livecodebench/v2", cache_dir=cache)  # only the file it lacks is fetched
    assert len(v2.problems) == 7 and asked[2:] == [f"/datasets/{REPO}/resolve/{SHA}/test2.jsonl"]
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there now
    assert load_benchmark("livecodebench/v2", cache_dir=cache).content_hash == v2.content_hash
    with pytest.raises(DataUnavailable, match="not in the cache and not fetched"):
        load_benchmark("livecodebench/v1", cache_dir=tmp_path / "other")
    monkeypatch.setenv("ASSAY_OFFLINE", "1")
    with pytest.raises(DataUnavailable, match="ASSAY_OFFLINE"):
        load_benchmark("livecodebench/v1", cache_dir=tmp_path / "other")
    (cache / "livecodebench" / SHA / "test.jsonl").write_text("{}\n")
    with pytest.raises(ChecksumMismatch, match="delete"):
        load_benchmark("livecodebench/v1", cache_dir=cache)


def test_run_and_generate_take_a_window_prompt_with_livecodebench_s_chat_and_judge_the_last_fence(tmp_path: Path,
                                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes.model_servers import FakeOpenAIServer

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    v2 = load_benchmark("livecodebench/v2", path=FIXTURE)

    def respond(body: dict[str, Any], i: int = 0) -> str:
        text = body["messages"][-1]["content"]
        pid = next(pid for pid, p in v2.problems.items() if p.prompt == text)
        return f"A first try:\n```python\nprint('nothing')\n```\nThe answer:\n```python\n{RIGHT[pid]}```\nDone."

    with FakeOpenAIServer(responder=respond) as server:
        common = ["--model", "openai/fake-coder", "--base-url", server.url, "--dataset-file", str(FIXTURE), "--plain"]
        ran = runner.invoke(cli.app, ["run", "livecodebench/v2", *common, "--since", "2024-03-01", "--run-dir", str(tmp_path / "run"),
                                      "--json", str(tmp_path / "out.json"), "--k", "1", "--no-cache"])
        assert ran.exit_code == 0, ran.output
        systems = {(r.body or {})["messages"][0]["content"] for r in server.requests}
        gen = runner.invoke(cli.app, ["generate", "livecodebench/v1", *common, "--until", "2023-10-31", "--run-dir", str(tmp_path / "gen")])
        assert gen.exit_code == 0, gen.output
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["config"]["benchmark"]["window"] == "2024-03-01.." and out["status_counts"]["passed"] == 3
    assert systems == {"You are an expert Python programmer. You will be given a question (problem specification) and will generate a correct "
                       "Python program that matches the specification and passes all tests."}
    generated = [json.loads(line)["task_id"] for line in (tmp_path / "gen" / "samples.jsonl").read_text().splitlines()]
    assert sorted(generated) == ["1873_A", "abc999_b"]
    report = runner.invoke(cli.app, ["report", str(tmp_path / "run"), "-f", "md"])
    assert report.exit_code == 0, report.output
    assert "livecodebench/v2 (released 2024-03-01..)" in report.output


def test_references_and_an_unknown_release_are_one_line_errors(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["evaluate", "livecodebench/v1", "--dataset-file", str(FIXTURE), "--references", "--run-dir", str(tmp_path / "r")])
    assert result.exit_code == 2 and "has no reference solutions" in result.output
    from assay.benchmarks.livecodebench import load_livecodebench

    with pytest.raises(ValueError, match="releases v1 to v6"):
        load_livecodebench(release=7, path=FIXTURE)
