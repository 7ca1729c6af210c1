"""Aider's polyglot benchmark: loading the exercises, parsing edit formats, the references of one exercise per
language in the real sandbox, hostile samples (early exit, forged output, edits of the tests) in each language,
and aider's two tries against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from assay import cli
from assay.benchmarks import REGISTRY, about, load_benchmark
from assay.benchmarks.polyglot import (
    ADDENDUM,
    LANGUAGES,
    load_polyglot,
    render_files,
    spec_of,
    with_edit_format,
)
from assay.judging.polyglot import MalformedEdit, capped, expected_tests, feedback, parse_edit
from assay.languages import get_language, toolchain_binds
from assay.problems import Benchmark, Problem, Status, Verdict
from assay.sandbox import get_sandbox
from tests.fakes.model_servers import FakeOpenAIServer

runner = CliRunner()
COUNTS = {"cpp": 26, "go": 39, "java": 47, "javascript": 49, "python": 34, "rust": 30}
# One small exercise a language: its reference and the hostile samples run on it.
EXERCISE = {"cpp": "all-your-base", "go": "bowling", "java": "bowling", "javascript": "affine-cipher", "python": "affine-cipher", "rust": "bowling"}


@pytest.fixture(scope="module")
def polyglot_dir() -> Path:
    from tests.conftest import shared_data

    data = shared_data()
    if not (data / "polyglot" / "python" / "exercises" / "practice").is_dir():
        pytest.skip(f"needs {data / 'polyglot'}, which is absent here")
    return data


@pytest.fixture(scope="module")
def benches(polyglot_dir: Path) -> dict[str, Benchmark]:
    return {lang: load_polyglot(lang, data_dir=polyglot_dir) for lang in LANGUAGES}


@pytest.fixture(scope="module")
def sandbox():  # type: ignore[no-untyped-def]
    return get_sandbox(ro_binds=toolchain_binds(set(EXERCISE)))


def judge(problem: Problem, reply: str, sandbox) -> Verdict:  # type: ignore[no-untyped-def]
    return get_language(problem.language).judge(sandbox, problem, reply)


# ------------------------------------------------------------------ edit formats (no data needed)

STUBS = {"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    unimplemented!()\n}\n", "Cargo.toml": "[package]\nname = \"x\"\n"}
KNOWN = {*STUBS, "tests/x.rs", ".gitignore"}


def test_whole_format_writes_the_named_solution_files_and_drops_every_other_path() -> None:
    reply = ("Here is the code.\n\nsrc/lib.rs\n```rust\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n```\n\n"
             "tests/x.rs\n```rust\n#[test]\nfn t() {}\n```\n")
    edit = parse_edit(reply, STUBS, KNOWN)
    assert edit.files == {"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"}
    assert edit.ignored == ["tests/x.rs"] and edit.format == "whole"


def test_whole_format_by_file_name_alone_and_an_unnamed_block_of_a_single_file() -> None:
    assert parse_edit("**lib.rs**\n```\nfn a() {}\n```\n", STUBS, KNOWN).files == {"src/lib.rs": "fn a() {}\n"}
    one = {"two_fer.py": "def two_fer(name):\n    pass\n"}
    assert parse_edit("```python\ndef two_fer(name='you'):\n    return name\n```", one, set(one)).files["two_fer.py"].startswith("def two_fer(name='you')")


def test_whole_format_round_trips_files_that_hold_fences_themselves() -> None:
    files = {"README.md": "text\n```python\nx = 1\n```\nmore\n", "a.py": "x = 1\n"}
    assert parse_edit(render_files(files, "python"), files, set(files)).files == files


def test_diff_format_applies_search_replace_blocks_in_order() -> None:
    reply = ("src/lib.rs\n```rust\n<<<<<<< SEARCH\n    unimplemented!()\n=======\n    a + b\n>>>>>>> REPLACE\n```\n\n"
             "src/lib.rs\n```rust\n<<<<<<< SEARCH\n    a + b\n=======\n    b + a\n>>>>>>> REPLACE\n```\n")
    edit = parse_diff_files(reply)
    assert edit == {"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    b + a\n}\n"}


def parse_diff_files(reply: str) -> dict[str, str]:
    edit = parse_edit(reply, STUBS, KNOWN)
    assert edit.format == "diff"
    return edit.files


def test_diff_format_whose_search_text_is_not_in_the_file_is_a_malformed_edit() -> None:
    reply = "src/lib.rs\n```rust\n<<<<<<< SEARCH\n    todo!()\n=======\n    a + b\n>>>>>>> REPLACE\n```\n"
    with pytest.raises(MalformedEdit, match=r"SEARCH text .* is not in the file"):
        parse_edit(reply, STUBS, KNOWN)


@pytest.mark.parametrize("reply", ["I cannot do that.", "src/lib.rs\n```rust\nfn a() {}\n", "tests/x.rs\n```rust\n#[test]\nfn t() {}\n```\n",
                                   "tests/x.rs\n```\n<<<<<<< SEARCH\n=======\n#[test]\nfn t() {}\n>>>>>>> REPLACE\n```\n"])
def test_replies_that_edit_no_solution_file_are_malformed(reply: str) -> None:
    with pytest.raises(MalformedEdit):
        parse_edit(reply, STUBS, KNOWN)


def test_the_test_output_sent_back_is_capped_and_ends_with_aiders_words() -> None:
    text = feedback(Verdict(Status.FAILED, "failed", stdout="\n".join(f"line {i}" for i in range(500))), "lib.rs Cargo.toml")
    assert "line 450" in text and "line 449\n" not in text
    assert text.rstrip().endswith("Fix the code in lib.rs Cargo.toml to resolve the errors.")
    assert len(capped("x" * 100_000)) == 8000


def test_expected_tests_come_from_the_pristine_test_files() -> None:
    cpp = '#if defined(EXERCISM_RUN_ALL_TESTS)\nTEST_CASE("a b") {}\n#endif\n#if defined(EXERCISM_INCLUDE_BENCHMARK)\nTEST_CASE("benchmark") {}\n#endif\n'
    assert expected_tests("cpp", {"x_test.cpp": cpp}, ["x_test.cpp"]) == ["a b"]
    rust = "#[test]\n#[ignore]\nfn one() {}\n#[test]\nfn two() {}\n"
    assert expected_tests("rust", {"tests/x.rs": rust}, ["tests/x.rs"]) == ["one", "two"]
    java = "@Disabled(\"Remove to run test\")\n@Test\npublic void testA() {}\n@Test\nvoid testB() {}\n"
    assert expected_tests("java", {"T.java": java}, ["T.java"]) == ["testA", "testB"]


# ------------------------------------------------------------------ the data


def test_registry_and_about_name_every_language() -> None:
    for lang in LANGUAGES:
        assert REGISTRY[f"polyglot/{lang}"] == ("assay.benchmarks.polyglot", "load_polyglot", {"lang": lang})
    size, languages, licence = about("polyglot/rust")
    assert "225" in size and languages == "rust" and licence == "MIT (Exercism), via Aider-AI/polyglot-benchmark"


def test_loads_all_225_exercises_with_version_and_hash(benches: dict[str, Benchmark], polyglot_dir: Path) -> None:
    assert {lang: len(b.problems) for lang, b in benches.items()} == COUNTS
    sums = hashlib.sha256((polyglot_dir / "polyglot" / "SHA256SUMS").read_bytes()).hexdigest()
    for b in benches.values():
        assert b.version == "Aider-AI/polyglot-benchmark@7e0611e" and b.content_hash == sums


def test_prompt_is_aiders_instructions_addendum_and_stubs(benches: dict[str, Benchmark], polyglot_dir: Path) -> None:
    problem = benches["cpp"].problems["all-your-base"]
    docs = polyglot_dir / "polyglot/cpp/exercises/practice/all-your-base/.docs"
    instructions = (docs / "introduction.md").read_text() + (docs / "instructions.md").read_text()
    assert problem.prompt.startswith(instructions + ADDENDUM.format(file_list="all_your_base.cpp all_your_base.h"))
    assert "all_your_base.h\n```cpp\n" in problem.prompt and problem.prompt_is_instruction and problem.extract == "edit"
    spec = spec_of(problem)
    assert spec["test"] == ["all_your_base_test.cpp"] and "test/tests-main.cpp" in spec["files"]
    assert not any(p.startswith(".meta/") for p in spec["files"])  # the example solution never reaches the sandbox
    assert "edit-format:whole" in problem.tags
    diff = with_edit_format(benches["cpp"], "diff").problems["all-your-base"]
    assert "<<<<<<< SEARCH" in diff.system and "edit-format:diff" in diff.tags and "edit-format:whole" not in diff.tags


def test_needs_tags_and_a_local_checkout_loads_as_local(benches: dict[str, Benchmark], polyglot_dir: Path) -> None:
    assert "needs:go-1.21" in benches["go"].problems["dnd-character"].tags
    assert "needs:crate-rand" in benches["rust"].problems["simple-cipher"].tags
    checkout = load_benchmark("polyglot/python", path=polyglot_dir / "polyglot" / "python")
    assert len(checkout.problems) == 34
    with pytest.raises(Exception, match="no python/exercises/practice"):
        load_polyglot("python", path=polyglot_dir)


def test_an_absent_data_dir_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["evaluate", "polyglot/go", "--references", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2 and "pass --data-dir" in " ".join(result.output.split())


# ------------------------------------------------------------------ references and hostile samples, in each language


@pytest.mark.parametrize("lang", sorted(EXERCISE))
def test_reference_passes_and_the_stub_does_not(lang: str, benches: dict[str, Benchmark], sandbox) -> None:  # type: ignore[no-untyped-def]
    problem = benches[lang].problems[EXERCISE[lang]]
    verdict = judge(problem, problem.reference, sandbox)
    assert verdict.status is Status.PASSED, (verdict.message, verdict.stdout)
    assert len(verdict.tests) >= len(expected_tests(lang, spec_of(problem)["files"], spec_of(problem)["test"])) > 0
    stubs = {s: spec_of(problem)["files"][s] for s in spec_of(problem)["solution"]}
    assert judge(problem, render_files(stubs, lang), sandbox).status is not Status.PASSED


def _reference_files(problem: Problem) -> dict[str, str]:
    spec = spec_of(problem)
    return parse_edit(problem.reference, {s: spec["files"][s] for s in spec["solution"]}, set(spec["files"])).files


def _hostile(lang: str, problem: Problem, kind: str) -> str:
    """A reply built on the reference that exits 0 before the tests finish, or prints their passing output first."""
    files = _reference_files(problem)
    names = expected_tests(lang, spec_of(problem)["files"], spec_of(problem)["test"])
    if lang == "python":
        forged = "print('" + "\\n".join(f"{n} PASSED" for n in names) + "\\n==== 16 passed in 0.01s ====')\n" if kind == "forge" else ""
        files["affine_cipher.py"] += f"\nimport os\n{forged}os._exit(0)\n"
    elif lang == "go":
        lines = "".join(f"=== RUN   {n}\\n--- PASS: {n} (0.00s)\\n" for n in names) + "PASS\\nok  \\tbowling\\t0.001s\\n"
        say = f'assay_os.Stdout.WriteString("{lines}")\n' if kind == "forge" else ""
        files["bowling.go"] = files["bowling.go"].replace("package bowling\n", f'package bowling\n\nimport assay_os "os"\n\nfunc init() {{\n{say}assay_os.Exit(0)\n}}\n', 1)
    elif lang == "rust":
        lines = "".join(f"test {n} ... ok\\n" for n in names) + f"\\ntest result: ok. {len(names)} passed; 0 failed; 0 ignored\\n"
        say = f'{{ use std::io::Write; let _ = std::io::stdout().write_all(b"{lines}"); }}' if kind == "forge" else ""
        files["src/lib.rs"] = files["src/lib.rs"].replace("pub fn new() -> Self {", f"pub fn new() -> Self {{\n{say}\nstd::process::exit(0);", 1)
    elif lang == "java":
        xml = f"<testsuite tests=\\\"{len(names)}\\\">" + "".join(f"<testcase name=\\\"{n}()\\\"/>" for n in names) + "</testsuite>"
        say = f'System.out.println("{xml}"); System.out.println("[  {len(names)} tests successful ]");' if kind == "forge" else ""
        files["src/main/java/BowlingGame.java"] = files["src/main/java/BowlingGame.java"].replace("class BowlingGame {", f"class BowlingGame {{\nstatic {{ {say} System.exit(0); }}\n", 1)
    elif lang == "javascript":
        nonce = "ASSAY-DONE-" + "0" * 32  # the runner's record format, with a guessed nonce
        records = "".join(f"{nonce} pass {quote(n)} {quote(n)}\n" for n in names) + f"{nonce} end {len(names)}\n"
        shown = "".join(f"  ✓ {n}\n" for n in names) + f"Tests:       {len(names)} passed, {len(names)} total\n"
        say = f"console.log({json.dumps(shown)}); (await import('node:fs')).writeSync(3, {json.dumps(records)});" if kind == "forge" else ""
        files["affine-cipher.js"] += f"\n{say}\nprocess.exit(0);\n"
    elif lang == "cpp":
        xml = "<testsuites><testsuite>" + "".join(f"<testcase name=\\\"{n}\\\"/>" for n in names) + "</testsuite></testsuites>"
        say = f'std::puts("{xml}"); std::puts("All tests passed");' if kind == "forge" else ""
        files["all_your_base.cpp"] = ("#include <cstdio>\n#include <cstdlib>\nstatic int assay_early = [] { " + say + " std::exit(0); return 0; }();\n"
                                      + files["all_your_base.cpp"])
    return render_files(files, lang)


def _test_edit(lang: str, problem: Problem) -> str:
    """A wrong solution (the stubs), with the tests rewritten to pass and extra files that would reach the test runner."""
    spec = spec_of(problem)
    files = {s: spec["files"][s] for s in spec["solution"]}
    trivial = {"python": "def test_x():\n    pass\n", "go": "package bowling\n\nimport \"testing\"\n\nfunc TestRoll(t *testing.T) {}\nfunc TestScore(t *testing.T) {}\n",
               "rust": "#[test]\nfn t() {}\n", "java": "public class BowlingGameTest {}\n", "cpp": "int x;\n", "javascript": "test('x', () => {});\n"}[lang]
    for test in spec["test"]:
        files[test] = trivial
    extra = {"python": "conftest.py", "go": "zz_test.go", "rust": "build.rs", "java": "src/test/java/Extra.java", "cpp": "test/tests-main.cpp",
             "javascript": ".assay/jest_runner.mjs"}[lang]
    files[extra] = trivial
    if lang == "rust":  # a manifest whose [[test]] runs the sample's own file without libtest
        files["Cargo.toml"] = spec["files"]["Cargo.toml"] + '\n[[test]]\nname = "bowling"\npath = "src/lib.rs"\nharness = false\n'
    return render_files(files, lang)


@pytest.mark.slow
@pytest.mark.parametrize("lang", sorted(EXERCISE))
def test_hostile_samples_do_not_pass(lang: str, benches: dict[str, Benchmark], sandbox) -> None:  # type: ignore[no-untyped-def]
    problem = benches[lang].problems[EXERCISE[lang]]
    for kind in ("exit", "forge"):
        verdict = judge(problem, _hostile(lang, problem, kind), sandbox)
        assert verdict.status is not Status.PASSED, (kind, verdict.message)
    verdict = judge(problem, _test_edit(lang, problem), sandbox)
    assert verdict.status is not Status.PASSED, ("test edit", verdict.message)
    malformed = judge(problem, "Sorry, I can't help with that.", sandbox)
    assert malformed.status is Status.FAILED and malformed.message.startswith("malformed edit:")


# Hostile JavaScript samples against the runner itself (tests/test_polyglot.py's generic ones exit early and print records):
# each is a wrong solution (the stub's functions, or a wrong answer) that attacks what decides the verdict.
_JS_WRONG = "export const encode = () => 'x';\nexport const decode = () => 'x';\n"
_JS_ATTACKS = {
    "exit in a test": "export const encode = () => { process.exit(0); };\nexport const decode = encode;\n",
    "replace expect and test": _JS_WRONG + """
const fake = () => new Proxy({}, { get: () => () => {} });
for (const name of ['expect', 'test', 'it', 'describe']) {
  try { globalThis[name] = fake; } catch {}
  try { Object.defineProperty(globalThis, name, { value: fake }); } catch {}
}
Object.prototype.toBe = () => {};
Object.prototype.toEqual = () => {};
""",
    "patch the runner's intrinsics": _JS_WRONG + """
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const write = fs.writeSync;
fs.writeSync = (fd, text, ...rest) => write(fd, fd === 3 ? String(text).replaceAll(' fail ', ' pass ') : text, ...rest);
syncBuiltinESMExports();
Object.defineProperty(Error, Symbol.hasInstance, { value: () => true });
const then = Promise.prototype.then;
Promise.prototype.then = function (ok) { return then.call(this, ok, ok); };
Array.prototype.push = function () { return this.length; };
process.reallyExit = () => {};
process.exit = () => {};
""",
}
# Forged records with the nonce read out of the process: through the inspector (a debugger session on the runner's
# closures), or a heap snapshot. Each works against the bare runner; node's permission model and the runner refuse both.
_JS_FORGE = """
const spec = fs.readFileSync('affine-cipher.spec.js', 'utf8').replace(/\\bxtest\\(/g, 'test(');
const titles = [...spec.matchAll(/\\btest\\(\\s*'([^']*)'/g)].map((m) => encodeURIComponent(m[1]));
fs.writeSync(3, titles.map((t) => `${nonce} pass ${t} ${t}\\n`).join('') + `${nonce} end ${titles.length}\\n`);
process.exit(0);
"""
_JS_ATTACKS["read the nonce with the inspector"] = _JS_WRONG + """
import inspector from 'node:inspector';
import fs from 'node:fs';
const session = new inspector.Session();
session.connect();
const post = (method, params) => { let out; session.post(method, params, (err, res) => { out = res; }); return out; };
const fn = post('Runtime.evaluate', { expression: 'globalThis.test' }).result.objectId;
const scopes = post('Runtime.getProperties', { objectId: fn, ownProperties: true }).internalProperties.find((p) => p.name === '[[Scopes]]');
let nonce = '';
for (const scope of post('Runtime.getProperties', { objectId: scopes.value.objectId, ownProperties: true }).result) {
  if (!scope.value || !scope.value.objectId) continue;
  for (const v of post('Runtime.getProperties', { objectId: scope.value.objectId, ownProperties: true }).result) if (v.name === 'NONCE') nonce = v.value.value;
}
""" + _JS_FORGE
_JS_ATTACKS["read the nonce from a heap snapshot"] = _JS_WRONG + """
import { createRequire } from 'node:module';
import fs from 'node:fs';
const snapshot = createRequire(import.meta.url)('v8').writeHeapSnapshot('/tmp/heap.heapsnapshot');
const nonce = fs.readFileSync(snapshot, 'utf8').match(/ASSAY-DONE-[0-9a-f]{32}/)[0];
""" + _JS_FORGE


def test_javascript_runner_hostile_samples(benches: dict[str, Benchmark], sandbox) -> None:  # type: ignore[no-untyped-def]
    problem = benches["javascript"].problems["affine-cipher"]
    for kind, code in _JS_ATTACKS.items():
        verdict = judge(problem, render_files({"affine-cipher.js": code}, "javascript"), sandbox)
        assert verdict.status is not Status.PASSED, (kind, verdict.message, verdict.stdout)
    # the same patches on an async exercise, whose tests wait on promises (`.resolves`, `.rejects`)
    promises = benches["javascript"].problems["promises"]
    wrong = "".join(f"export const {f} = () => Promise.resolve(1);\n" for f in ("promisify", "all", "allSettled", "race", "any"))
    patched = wrong + _JS_ATTACKS["patch the runner's intrinsics"].removeprefix(_JS_WRONG)
    verdict = judge(promises, render_files({"promises.js": patched}, "javascript"), sandbox)
    assert verdict.status is Status.FAILED and "tests failed" in verdict.message, (verdict.message, verdict.stdout)


def test_javascript_titles_and_upstreams_xtest(benches: dict[str, Benchmark]) -> None:
    from assay.judging.polyglot import js_tests

    spec = "describe('a', () => {\n  test('one', () => {});\n  xtest(\"it\\'s two\", () => {});\n  xit('three', () => {});\n  test.skip(`four`, () => {});\n});\n"
    assert js_tests(spec) == (["one", "it's two"], ["three", "four"])
    problem = benches["javascript"].problems["grep"]  # 23 of its 25 tests are xit: upstream's sed leaves them skipped
    assert len(expected_tests("javascript", spec_of(problem)["files"], spec_of(problem)["test"])) == 2


def test_references_through_the_cli(polyglot_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["evaluate", "polyglot/python", "--references", "--data-dir", str(polyglot_dir), "--task-ids",
                                     "affine-cipher,two-bucket", "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "s.json"), "--plain"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "s.json").read_text())["config"]["benchmark"]["version"] == "Aider-AI/polyglot-benchmark@7e0611e"
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert sorted(r["task_id"] for r in rows) == ["affine-cipher", "two-bucket"] and all(r["status"] == "passed" for r in rows)


# ------------------------------------------------------------------ aider's two tries, against a model server on loopback


TRY_IDS = ["affine-cipher", "two-bucket", "wordy"]


def _answers(bench: Benchmark, seen: list[list[dict[str, str]]]):  # type: ignore[no-untyped-def]
    """The fake model of the try tests: wordy never right (a malformed diff, then a wrong file), two-bucket right at
    once (a diff), affine-cipher wrong first (the stub) and right on its second try."""

    def answer(body: dict, i: int) -> str:  # type: ignore[type-arg]
        messages = body["messages"]
        seen.append(messages)
        problem = next(bench.problems[t] for t in TRY_IDS if bench.problems[t].prompt == messages[1]["content"])
        reference = _reference_files(problem)
        (name, right), = reference.items()
        if problem.id == "wordy":
            return ("wordy.py\n```python\n<<<<<<< SEARCH\nno such line\n=======\nx\n>>>>>>> REPLACE\n```\n" if len(messages) == 2
                    else f"{name}\n```python\ndef answer(question):\n    return 0\n```\n")
        if problem.id == "two-bucket":
            stub = spec_of(problem)["files"][name]
            return f"{name}\n```python\n<<<<<<< SEARCH\n{stub}=======\n{right}>>>>>>> REPLACE\n```\n"
        return f"{name}\n```python\n{spec_of(problem)['files'][name]}```\n" if len(messages) == 2 else f"{name}\n```python\n{right}```\n"

    return answer


def _tries_args(polyglot_dir: Path, url: str, run_dir: Path, out: Path) -> list[str]:
    return ["run", "polyglot/python", "--model", "openai/fake-model", "--base-url", url, "--data-dir", str(polyglot_dir), "--task-ids",
            ",".join(TRY_IDS), "--tries", "2", "--edit-format", "diff", "--run-dir", str(run_dir), "--json", str(out), "--workers", "2"]


def test_two_tries_first_wrong_then_right_through_assay_run(polyglot_dir: Path, tmp_path: Path, benches: dict[str, Benchmark]) -> None:
    seen: list[list[dict[str, str]]] = []
    with FakeOpenAIServer(responder=_answers(benches["python"], seen)) as server:
        result = runner.invoke(cli.app, _tries_args(polyglot_dir, server.url, tmp_path / "run", tmp_path / "tries.json"))
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "tries.json").read_text())
    assert data["pass_rate_1"] == pytest.approx(100 / 3, abs=0.01) and data["pass_rate_2"] == pytest.approx(200 / 3, abs=0.01)
    assert data["malformed_edits_pct"] == pytest.approx(100 / 5, abs=0.01)  # 1 of the 5 replies
    assert data["edit_format"] == "diff" and data["version"] == "Aider-AI/polyglot-benchmark@7e0611e"
    rows = {r["task_id"]: r for r in map(json.loads, (tmp_path / "run" / "tries.jsonl").read_text().splitlines())}
    assert rows["affine-cipher"]["tests_outcomes"] == [False, True] and rows["two-bucket"]["tests_outcomes"] == [True]
    assert rows["wordy"]["tests_outcomes"] == [False, False] and rows["wordy"]["malformed"] == [True, False]
    second = next(m for m in seen if len(m) == 4 and "affine" in m[1]["content"][:400].lower())
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"] and "<<<<<<< SEARCH" in second[0]["content"]
    assert second[3]["content"].rstrip().endswith("Fix the code in affine_cipher.py to resolve the errors.")
    assert "AssertionError" in second[3]["content"] and "failed" in second[3]["content"]  # pytest's output went back
    assert "pass_rate_2 66.7%" in " ".join(result.output.split())


@pytest.mark.slow
def test_tries_resume_from_the_run_store_after_a_kill(polyglot_dir: Path, tmp_path: Path, benches: dict[str, Benchmark]) -> None:
    """SIGKILL when the first second try is asked for; the same command again asks only for the tries not stored, and
    scores as an uninterrupted run (the other test's numbers)."""
    import os
    import signal
    import subprocess
    import sys

    bench = benches["python"]
    first: list[list[dict[str, str]]] = []
    proc: list[subprocess.Popen[bytes]] = []
    answer = _answers(bench, first)

    def kill_at_second_try(body: dict, i: int) -> str:  # type: ignore[type-arg]
        if len(body["messages"]) > 2:
            os.kill(proc[0].pid, signal.SIGKILL)
        return answer(body, i)

    run_dir = tmp_path / "run"
    with FakeOpenAIServer(responder=kill_at_second_try) as server:
        proc.append(subprocess.Popen([sys.executable, "-m", "assay.cli", *_tries_args(polyglot_dir, server.url, run_dir, tmp_path / "a.json")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        assert proc[0].wait(timeout=300) == -signal.SIGKILL
    import sqlite3

    with sqlite3.connect(run_dir / "run.sqlite") as db:
        stored = {(t, i) for t, i in db.execute("SELECT task_id, idx FROM generations WHERE ok=1")}
    assert stored and all(i == 0 for _, i in stored)  # killed after first tries were stored, before any second one was judged
    again: list[list[dict[str, str]]] = []
    with FakeOpenAIServer(responder=_answers(bench, again)) as server:
        result = runner.invoke(cli.app, _tries_args(polyglot_dir, server.url, run_dir, tmp_path / "tries.json"))
    assert result.exit_code == 0, result.output
    asked = [(next(t for t in TRY_IDS if bench.problems[t].prompt == m[1]["content"]), len(m) // 2 - 1) for m in again]
    assert not set(asked) & stored and len(asked) == 5 - len(stored)  # 5 tries in all: none stored is asked again
    data = json.loads((tmp_path / "tries.json").read_text())
    assert data["pass_rate_1"] == pytest.approx(100 / 3, abs=0.01) and data["pass_rate_2"] == pytest.approx(200 / 3, abs=0.01)
    assert data["malformed_edits_pct"] == pytest.approx(100 / 5, abs=0.01)
    rows = {r["task_id"]: r for r in map(json.loads, (run_dir / "tries.jsonl").read_text().splitlines())}
    assert len(rows) == 3 and rows["affine-cipher"]["tests_outcomes"] == [False, True] and rows["wordy"]["malformed"] == [True, False]
    second = next(m for m in again if len(m) == 4 and m[1]["content"] == bench.problems["affine-cipher"].prompt)
    assert "AssertionError" in second[3]["content"]  # the replayed first try's test output went back, as it would have


def test_tries_are_for_polyglot_only(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["run", "humaneval", "--model", "openai/x", "--base-url", "http://127.0.0.1:9/v1", "--tries", "2"])
    assert result.exit_code == 2 and "for the polyglot benchmarks" in result.output


# ------------------------------------------------------------------ every reference (slow; Go and Java sampled: every other exercise)

KNOWN_FAILING = {"go": {"dnd-character", "counter"}, "java": {"hangman", "rest-api", "mazy-mice"},
                 "rust": {"gigasecond", "grep", "simple-cipher", "robot-name", "alphametics", "decimal", "pig-latin", "poker"}}


@pytest.mark.slow
@pytest.mark.parametrize("lang", sorted(EXERCISE))
def test_every_reference_passes_but_the_known_gaps(lang: str, benches: dict[str, Benchmark], sandbox) -> None:  # type: ignore[no-untyped-def]
    from concurrent.futures import ThreadPoolExecutor

    problems = sorted(benches[lang].problems.values(), key=lambda p: p.id)
    if lang in ("go", "java"):
        problems = [p for i, p in enumerate(problems) if i % 2 == 0 or p.id in KNOWN_FAILING[lang]]
    with ThreadPoolExecutor(2) as pool:
        verdicts = dict(zip((p.id for p in problems), pool.map(lambda p: judge(p, p.reference, sandbox), problems), strict=True))
    failing = {pid for pid, v in verdicts.items() if v.status is not Status.PASSED}
    assert failing == KNOWN_FAILING.get(lang, set()), {pid: verdicts[pid].message for pid in failing}
    for pid in failing:
        assert any(t.startswith(("needs:", "defect:")) for t in benches[lang].problems[pid].tags), pid
