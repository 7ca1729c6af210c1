"""mceval/<lang>: McEval's generation tasks in 40 languages, each sample run with the task's own test code
after it (runner "mceval"), a pass needing exit status 0 and Assay's completion marker printed after the
tests' own code finished; languages that cannot run here are skipped with the reason; the canonical
solutions pass; hostile samples (exit early, print what a pass looks like, wrong) do not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.benchmarks import REGISTRY, about, load_benchmark
from assay.benchmarks.mceval import DEFECTS, LANGUAGES, VERSION
from assay.languages import get_language, toolchain_binds
from assay.languages.base import PhaseLimits
from assay.problems import Benchmark, Problem, ProgramTests, Runner, Status, Verdict
from assay.sandbox import get_sandbox
from tests.conftest import shared_data

SUFFIXES = sorted(suffix for suffix, _, _ in LANGUAGES.values())
SKIPPED = {"awk", "html", "json", "markdown", "kotlin", "dart", "julia", "powershell", "fsharp", "visual-basic"}
RUNNABLE = [s for s in SUFFIXES if s not in SKIPPED]
# The languages whose full reference sweep was measured (README); the others' rows are not yet checked.
SWEPT = ["bash", "c", "coffeescript", "common-lisp", "cpp", "csharp", "elixir", "emacs-lisp", "go", "groovy", "java", "javascript", "lua",
         "pascal", "perl", "php", "python", "r", "racket", "ruby", "rust", "scheme", "shell", "swift", "tcl", "typescript", "vimscript"]
FAKE_MARKER = "ASSAY-DONE-" + "0" * 32


@pytest.fixture(scope="module")
def data() -> Path:
    if not (shared_data() / "mceval" / "data").is_dir():
        pytest.skip("needs the shared data directory (mceval/data/)")
    return shared_data()


_BENCHES: dict[str, Benchmark] = {}


def _bench(data: Path, lang: str) -> Benchmark:
    if lang not in _BENCHES:
        _BENCHES[lang] = load_benchmark(f"mceval/{lang}", data_dir=data)
    return _BENCHES[lang]


def _judge(problem: Problem, code: str, limits: PhaseLimits | None = None) -> Verdict:
    plugin = get_language(problem.language)
    sandbox = get_sandbox(ro_binds=toolchain_binds({problem.language}))
    verdict = plugin.judge(sandbox, problem, code, limits)
    if verdict.status is Status.SKIPPED:
        pytest.skip(verdict.message)
    return verdict


def test_registered_and_listed() -> None:
    assert len(SUFFIXES) == 40
    for suffix in SUFFIXES:
        assert f"mceval/{suffix}" in REGISTRY
        assert about(f"mceval/{suffix}")[2].startswith("CC BY-SA 4.0")
    for name in ("mceval/swift", "mceval/cpp", "mceval/common-lisp", "mceval/visual-basic", "mceval/scheme", "mceval/shell"):
        assert name in REGISTRY


@pytest.mark.shared_data
def test_loads_all_40_languages_2007_tasks_with_version_hash_and_runner(data: Path) -> None:
    total = 0
    for suffix in SUFFIXES:
        bench = _bench(data, suffix)
        assert bench.name == f"mceval/{suffix}" and bench.version == VERSION and len(bench.content_hash) == 64
        total += len(bench.problems)
        for problem in bench.problems.values():
            assert isinstance(problem.tests, ProgramTests) and problem.tests.runner == Runner.MCEVAL
            assert problem.prompt_is_instruction and problem.reference_is_program
            assert any(t.startswith("level:") for t in problem.tags)
            assert set(DEFECTS.get(problem.id, ())) <= set(problem.tags)
            if suffix not in ("awk", "html", "json", "markdown"):
                assert problem.tests.code and problem.reference.startswith(problem.extra["code_prompt"]), problem.id
    assert total == 2007
    assert _bench(data, "scheme").problems["Scheme/1"].language == "racket"  # upstream runs Scheme with racket
    assert _bench(data, "shell").problems["Shell/1"].language == "bash"
    assert _bench(data, "erlang").problems["Erlang/1"].extra["module"] == "has_close_elements"


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", sorted(SKIPPED))
def test_languages_that_cannot_run_here_are_skipped_with_the_reason(data: Path, lang: str) -> None:
    problem = next(iter(_bench(data, lang).problems.values()))
    plugin = get_language(problem.language)
    verdict = plugin.judge(get_sandbox(), problem, problem.reference_program() or "x")
    assert verdict.status is Status.SKIPPED
    assert any(word in verdict.message for word in ("Debian 12", "no test")), verdict.message


def test_a_wrong_file_gives_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "Swift.jsonl"
    bad.write_text('{"task_id": "Swift/1"}\n')
    with pytest.raises(ValueError, match="not a McEval row"):
        load_benchmark("mceval/swift", path=bad)
    with pytest.raises(ValueError, match="no language"):
        from assay.benchmarks.mceval import load_mceval

        load_mceval("cobol")


# ------------------------------------------------------------------ hostile samples
# Per language: a task, the (old, new) edit that makes its reference wrong, a line that exits 0 before the
# tests run, and a line that prints what a pass looks like and exits 0; each is added to the reference program.

HOSTILE: dict[str, tuple[str, tuple[str, str], str, str]] = {
    "python": ("Python/1", ("return True", "return False"), "import os\nos._exit(0)",
               f'print("{FAKE_MARKER}")\nprint("All test cases passed!")\nimport sys\nsys.exit(0)'),
    "swift": ("Swift/1", ("return true", "return false"), "exit(0)", f'print("{FAKE_MARKER}")\nprint("All tests passed")\nexit(0)'),
    "cpp": ("CPP/1", ("Hello, MMCODEEVAL", "Hello"), "static int assay_early = (std::exit(0), 0);",
            f'static int assay_fake = (std::puts("{FAKE_MARKER}"), std::puts("passed"), std::exit(0), 0);'),
    "javascript": ("JavaScript/1", ("Hello, MMCODEEVAL", "Hello"), "process.exit(0);",
                   f'console.log("{FAKE_MARKER}"); console.log("All tests passed"); process.exit(0);'),
    "go": ("Go/1", ("math.Sqrt(", "2*math.Sqrt("), 'import "os"\nfunc init() { os.Exit(0) }',
           f'import "os"\nimport "fmt"\nfunc init() {{ fmt.Println("{FAKE_MARKER}"); fmt.Println("PASS"); os.Exit(0) }}'),
    "rust": ("Rust/1", ("return true;", "return false;"), "fn assay_unused() {}\nconst _: () = ();",
             f'#[used]\nstatic ASSAY_FAKE: &str = "{FAKE_MARKER}";'),
    "common-lisp": ("Common Lisp/1", ("(return-from has-close-elements t)", "(return-from has-close-elements nil)"),
                    "(sb-ext:exit :code 0)", f'(format t "{FAKE_MARKER}~%All tests passed~%")\n(sb-ext:exit :code 0)'),
    "typescript": ("TypeScript/1", ("Hello, MMCODEEVAL", "Hello"), "process.exit(0);",
                   f'console.log("{FAKE_MARKER}"); console.log("All tests passed!"); process.exit(0);'),
}


def _task(data: Path, lang: str) -> Problem:
    return _bench(data, lang).problems[HOSTILE[lang][0]]


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", sorted(HOSTILE))
def test_the_reference_passes_and_a_wrong_sample_fails(data: Path, lang: str) -> None:
    problem = _task(data, lang)
    assert _judge(problem, problem.reference_program()).status is Status.PASSED
    old, new = HOSTILE[lang][1]
    assert old in problem.reference, problem.id
    wrong = _judge(problem, problem.reference_program().replace(old, new))
    assert wrong.status in (Status.FAILED, Status.RUNTIME_ERROR), wrong.message


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", sorted(lang for lang, row in HOSTILE.items() if row[2] and lang != "rust"))
def test_a_sample_that_exits_0_before_the_tests_does_not_pass(data: Path, lang: str) -> None:
    problem = _task(data, lang)
    verdict = _judge(problem, problem.reference_program() + "\n" + HOSTILE[lang][2] + "\n")
    assert verdict.status is not Status.PASSED, verdict.message


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", sorted(lang for lang, row in HOSTILE.items() if row[3] and lang != "rust"))
def test_a_sample_that_prints_a_marker_and_passed_does_not_pass(data: Path, lang: str) -> None:
    problem = _task(data, lang)
    verdict = _judge(problem, problem.reference_program() + "\n" + HOSTILE[lang][3] + "\n")
    assert verdict.status is not Status.PASSED, verdict.message


# Script languages (the plugin ones and McEval's table rows): a top-level exit 0 after the reference runs before
# the tests; so does printing what a pass looks like and then exiting 0.
EARLY_EXIT: dict[str, tuple[str, str]] = {
    "ruby": ("Ruby/1", "exit 0"), "php": ("PHP/1", "exit(0);"), "lua": ("Lua/1", "os.exit(0)"), "perl": ("Perl/1", "exit 0;"),
    "tcl": ("Tcl/1", "exit 0"), "shell": ("Shell/1", "exit 0"), "r": ("R/1", "quit(status = 0)"), "racket": ("Racket/1", "(exit 0)"),
    "coffeescript": ("CoffeeScript/1", "process.exit 0"), "emacs-lisp": ("Emacs Lisp/1", "(kill-emacs 0)"),
    "elixir": ("Elixir/1", "System.halt(0)"), "groovy": ("Groovy/1", "System.exit(0)"), "vimscript": ("VimScript/1", "qall!"),
}
PRINT_THEN = {"ruby": 'puts "{m}"; puts "All tests passed"', "php": 'echo "{m}\\nAll tests passed\\n";', "lua": 'print("{m}"); print("passed")',
              "perl": 'print "{m}\\npassed\\n";', "tcl": 'puts "{m}"; puts "passed"', "shell": 'echo "{m}"; echo passed',
              "r": 'cat("{m}\\npassed\\n")', "racket": '(displayln "{m}") (displayln "passed")',
              "coffeescript": 'console.log "{m}"; console.log "passed"', "emacs-lisp": '(princ "{m}\\npassed\\n")',
              "elixir": 'IO.puts("{m}"); IO.puts("passed")', "groovy": 'println "{m}"; println "passed"',
              "vimscript": "enew! | call setline(1, ['{m}', 'passed']) | %print"}


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", sorted(EARLY_EXIT))
def test_script_languages_an_early_exit_or_a_printed_pass_does_not_pass(data: Path, lang: str) -> None:
    task, exit_line = EARLY_EXIT[lang]
    problem = _bench(data, lang).problems[task]
    assert _judge(problem, problem.reference_program()).status is Status.PASSED
    for tail in (exit_line, PRINT_THEN[lang].format(m=FAKE_MARKER) + "\n" + exit_line):
        verdict = _judge(problem, problem.reference_program() + "\n" + tail + "\n")
        assert verdict.status is not Status.PASSED, (tail, verdict.message)


# Compiled languages (and Erlang's module): the task's function exits 0 when the tests first call it, or prints what a
# pass looks like and then exits 0; the (old, new) edit that makes the reference wrong; and the two (old, new) edits.
IN_FUNCTION: dict[str, tuple[str, tuple[str, str], tuple[str, str], tuple[str, str]]] = {
    "c": ("C/1", ("return \"Hello, MMCODEEVAL", "return \"Hello"),
          ("char *hello_mmcodeeval()\n{", "#include <stdlib.h>\nchar *hello_mmcodeeval()\n{ exit(0);"),
          ("char *hello_mmcodeeval()\n{", '#include <stdio.h>\n#include <stdlib.h>\nchar *hello_mmcodeeval()\n{ puts("{m}"); puts("passed"); exit(0);')),
    "csharp": ("C#/5", ("if (sum == i)", "if (sum != i)"), ("List<int> narcissisticNumbers = new List<int>();", "Environment.Exit(0); List<int> "
               "narcissisticNumbers = new List<int>();"), ("List<int> narcissisticNumbers = new List<int>();", 'List<int> narcissisticNumbers = '
               'new List<int>(); Console.WriteLine("{m}"); Console.WriteLine("passed"); Environment.Exit(0);')),
    "haskell": ("Haskell/1", ("abs (x - y) < threshold", "abs (x - y) > threshold"),
                ("hasCloseElements numbers threshold =", "hasCloseElements numbers threshold = unsafePerformIO exitSuccess `seq`"),
                ("hasCloseElements numbers threshold =", 'hasCloseElements numbers threshold = unsafePerformIO (putStrLn "{m}" >> '
                 'putStrLn "(Pass)" >> exitSuccess) `seq`')),
    "erlang": ("Erlang/1", ("Distance < Threshold -> true;", "Distance < Threshold -> false;"),
               ("has_close_elements(Numbers, Threshold) ->", "has_close_elements(Numbers, Threshold) -> erlang:halt(0),"),
               ("has_close_elements(Numbers, Threshold) ->", 'has_close_elements(Numbers, Threshold) -> io:format("{m}~nok~n"), erlang:halt(0),')),
    "fortran": ("Fortran/1", ("has_close_elements = .true.", "has_close_elements = .false."),
                ("has_close_elements = .false.\n", "has_close_elements = .false.\n    call exit(0)\n"),
                ("has_close_elements = .false.\n", "has_close_elements = .false.\n    print '(A)', '{m}'\n    print '(A)', 'passed'\n    call exit(0)\n")),
    "java": ("Java/1", ("sum += balance;", "sum += 2 * balance;"), ("double sum = 0.0;", "double sum = 0.0; System.exit(0);"),
             ("double sum = 0.0;", 'double sum = 0.0; System.out.println("{m}"); System.out.println("All tests passed"); System.exit(0);')),
    "scala": ("Scala/1", ("if (distance < threshold) {", "if (distance > threshold) {"),
              ("if idx != idx2\n    } {", "if idx != idx2\n    } { sys.exit(0)"),
              ("if idx != idx2\n    } {", 'if idx != idx2\n    } { println("{m}"); println("All tests passed"); sys.exit(0)')),
    "pascal": ("Pascal/1", ("hello_mmcodeeval := 'Hello, MMCODEEVAL: ", "hello_mmcodeeval := 'Hello: "), ("// Solution", "Halt(0);"),
               ("// Solution", "WriteLn('{m}'); WriteLn('passed'); Halt(0);")),
}


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", sorted(IN_FUNCTION))
def test_compiled_languages_a_wrong_sample_or_one_whose_function_exits_0_does_not_pass(data: Path, lang: str) -> None:
    task, wrong, early, fake = IN_FUNCTION[lang]
    problem = _bench(data, lang).problems[task]
    reference = problem.reference_program()
    if lang == "haskell":  # unsafePerformIO and exitSuccess need their imports
        reference = reference.replace("import Data.List", "import Data.List\nimport System.Exit\nimport System.IO.Unsafe")
    assert _judge(problem, reference).status is Status.PASSED
    for old, new in (wrong, early, (fake[0], fake[1].replace("{m}", FAKE_MARKER))):
        assert reference.count(old) >= 1, (problem.id, old)
        verdict = _judge(problem, reference.replace(old, new))
        assert verdict.status not in (Status.PASSED, Status.COMPILE_ERROR), (new, verdict.message)  # it builds, and fails


@pytest.mark.shared_data
def test_rust_a_sample_whose_function_exits_0_or_prints_the_marker_does_not_pass(data: Path) -> None:
    problem = _task(data, "rust")
    head = "fn has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool{"
    assert head in problem.reference
    for body in ("std::process::exit(0);", f'println!("{FAKE_MARKER}"); println!("test result: ok. 1 passed"); std::process::exit(0);'):
        verdict = _judge(problem, problem.reference_program().replace(head, head + body))
        assert verdict.status is not Status.PASSED, verdict.message


@pytest.mark.shared_data
def test_javascript_a_sample_that_silences_console_assert_does_not_pass(data: Path) -> None:
    problem = _task(data, "javascript")
    wrong = problem.reference_program().replace("Hello, MMCODEEVAL", "Hello")
    for patch in ("console.assert = () => {};", "var console = { assert() {}, log() {} };"):
        verdict = _judge(problem, wrong + "\n" + patch + "\n")
        assert verdict.status is not Status.PASSED, (patch, verdict.message)


@pytest.mark.shared_data
def test_common_lisp_a_sample_that_times_out_does_not_pass(data: Path) -> None:
    """Upstream's harness passes a Common Lisp program that times out; here it is a timeout."""
    problem = _task(data, "common-lisp")
    verdict = _judge(problem, problem.reference_program() + "\n(loop)\n", PhaseLimits(run_cpu=2.0, run_wall=6.0))
    assert verdict.status is Status.TIMEOUT, verdict.message


@pytest.mark.shared_data
def test_python_unittest_tests_must_pass_and_run(data: Path) -> None:
    """Python/35's tests are unittest.main(), which exits: here it returns, and a failed test fails the run."""
    problem = _bench(data, "python").problems["Python/35"]
    assert _judge(problem, problem.reference_program()).status is Status.PASSED
    wrong = problem.reference_program() + "\ndef count_apples_reachable(*args):\n    return -1\n"
    assert _judge(problem, wrong).status is not Status.PASSED


# ------------------------------------------------------------------ the canonical solutions

# CI sweeps the first SWEEP tasks of each runnable language (the whole sweep's time: docs/verdicts.md);
# ASSAY_MCEVAL_FULL=1 sweeps them all.
SWEEP = 8


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("lang", [s for s in SWEPT if s in RUNNABLE])
def test_canonical_solutions_pass_but_known_defects(data: Path, lang: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    bench = _bench(data, lang)
    problems = list(bench.problems.values())
    if not os.environ.get("ASSAY_MCEVAL_FULL"):
        problems = problems[:SWEEP]
    first = problems[0]
    plugin = get_language(first.language)
    sandbox = get_sandbox(ro_binds=toolchain_binds({first.language}))
    probe = plugin.judge(sandbox, first, first.reference_program())
    if probe.status is Status.SKIPPED:
        pytest.skip(probe.message)
    with ThreadPoolExecutor(2) as pool:
        verdicts = dict(zip([p.id for p in problems[1:]], pool.map(lambda p: plugin.judge(sandbox, p, p.reference_program()), problems[1:]),
                            strict=True))
    verdicts[first.id] = probe
    wrong = {pid: v.message for pid, v in verdicts.items() if (v.status is Status.PASSED) == any(
        t.startswith(("defect:", "needs:")) for t in bench.problems[pid].tags)}
    assert not wrong, wrong
