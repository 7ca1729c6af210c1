"""humaneval-x/<lang>: HumanEval-X's six languages, each problem run with its own test program (runner
"native" outside Python), the canonical solutions passing, and upstream's harness holes closed: samples
that exit early, print what a pass looks like, skip the tests or redefine what the tests compare with
do not pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.benchmarks import REGISTRY, about, load_benchmark
from assay.benchmarks.humaneval_x import DEFECTS, LANGUAGES, VERSION
from assay.languages import get_language, toolchain_binds
from assay.languages.base import ToolchainMissing
from assay.problems import Benchmark, Problem, ProgramTests, Runner, Status, Verdict
from assay.sandbox import get_sandbox
from tests.conftest import shared_data

LANGS = sorted(LANGUAGES)


@pytest.fixture(scope="module")
def data() -> Path:
    if not (shared_data() / "humaneval-x").is_dir():
        pytest.skip("needs the shared data directory (humaneval-x/)")
    return shared_data()


_BENCHES: dict[str, Benchmark] = {}


def _bench(data: Path, lang: str) -> Benchmark:
    if lang not in _BENCHES:
        _BENCHES[lang] = load_benchmark(f"humaneval-x/{lang}", data_dir=data)
    return _BENCHES[lang]


def _judge(problem: Problem, code: str) -> Verdict:
    plugin = get_language(problem.language)
    try:
        plugin.toolchain()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    sandbox = get_sandbox(ro_binds=toolchain_binds({problem.language}))
    if problem.language == "python":  # check() recorded in the sandbox and replayed on the trusted side: the executor's plan
        from assay.execution.executor import Executor

        bench = Benchmark("one", "", "", "", {problem.id: problem})
        verdict = Executor(sandbox, bench).judge(problem, code)
    else:
        verdict = plugin.judge(sandbox, problem, code)
    if verdict.status is Status.SKIPPED:
        pytest.skip(verdict.message)
    return verdict


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", LANGS)
def test_loads_164_problems_with_version_hash_entry_points_and_defect_tags(data: Path, lang: str) -> None:
    bench = _bench(data, lang)
    assert bench.name == f"humaneval-x/{lang}" and bench.version == VERSION and len(bench.content_hash) == 64
    assert len(bench.problems) == 164
    language = LANGUAGES[lang][0]
    for problem in bench.problems.values():
        assert problem.language == language and problem.entry_point, problem.id
        assert problem.reference and problem.prompt
        assert isinstance(problem.tests, ProgramTests)
        assert problem.tests.runner == (Runner.CHECK if lang == "python" else Runner.NATIVE)
        assert problem.tags == DEFECTS.get(problem.id, ())
    first = next(iter(bench.problems.values()))
    assert first.entry_point in ("has_close_elements", "HasCloseElements", "hasCloseElements")
    if lang == "python":  # the file's own check(...) call is the judge's to make
        assert "\ncheck(has_close_elements)" not in first.tests.code and "def check(" in first.tests.code
    if lang == "rust":
        assert first.prompt.rstrip().endswith("{") and "use regex::Regex;" in first.prompt


def test_registered_and_listed() -> None:
    for lang in LANGS:
        assert f"humaneval-x/{lang}" in REGISTRY
        size, languages, licence = about(f"humaneval-x/{lang}")
        assert size.startswith("164") and languages == lang and "CodeGeeX" in licence


# A few problems per language: strings, lists, floats, a helper in the prompt (38: decode_cyclic), md5 (162).
FEW = ("0", "1", "2", "12", "38", "87", "162")


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", LANGS)
def test_references_pass_their_own_tests(data: Path, lang: str) -> None:
    bench = _bench(data, lang)
    prefix = next(iter(bench.problems)).split("/")[0]
    failed = {}
    for n in FEW:
        problem = bench.problems[f"{prefix}/{n}"]
        if any(t.startswith("needs:js-md5") for t in problem.tags):
            continue  # an npm package Debian does not have (environment gap)
        verdict = _judge(problem, problem.reference_program())
        if not verdict.passed:
            failed[problem.id] = verdict.message + "\n" + verdict.stdout[-800:]
    assert failed == {}


@pytest.mark.shared_data
def test_wrong_canonical_solutions_fail_as_flagged(data: Path) -> None:
    bench = _bench(data, "js")
    for pid in ("JavaScript/112", "JavaScript/155"):
        problem = bench.problems[pid]
        assert "defect:wrong-reference" in problem.tags
        assert _judge(problem, problem.reference_program()).status is Status.FAILED


GO_95_RIGHT = """func CheckDictCase(dict map[interface{}]interface{}) bool {
    upper, lower := len(dict) > 0, len(dict) > 0
    for k := range dict {
        key, ok := k.(string)
        if !ok {
            return false
        }
        upper = upper && key == strings.ToUpper(key)
        lower = lower && key == strings.ToLower(key)
    }
    return upper || lower
}
"""


@pytest.mark.shared_data
def test_go_95_is_the_references_defect_not_the_tests(data: Path) -> None:
    """Go/95's reference stops after the second key, so its verdict follows Go's random map order (flagged);
    a solution that reads every key passes the same tests run after run."""
    problem = _bench(data, "go").problems["Go/95"]
    assert "defect:wrong-reference" in problem.tags
    code = problem.prompt[:problem.prompt.index("func CheckDictCase")] + GO_95_RIGHT
    for _ in range(3):
        verdict = _judge(problem, code)
        assert verdict.passed, (verdict.message, verdict.stdout[-800:])


# ------------------------------------------------------------------ hostile samples, on problem 2 (truncate_number)
# Each would pass upstream's harness (its program is prompt + sample + tests; JavaScript passes on silence).

FORGED = "ASSAY-DONE-" + "0" * 32
HOSTILE: dict[str, dict[str, str]] = {
    "cpp": {
        "exit early": "    exit(0);\n}\n",
        "forged output": f'    printf("{FORGED}\\n"); fflush(stdout); _Exit(0);\n}}\n',
        "exit from a global constructor": "    return 0.5;\n}\nstatic int assay_cheat = (exit(0), 0);\n",
        "macro over the tests' abs": "    return 0.5;\n}\n#define abs(x) 0\n",
        "own assert": "    return 0.5;\n}\n#define assert(x) ((void)0)\n",
        # on flip_case (27), whose tests compare std::string == "literal": a global non-template == beats std's template
        "global operator== for std::string": ('    return "";\n}\nbool operator==(const std::string&, const char*) { return true; }\n'
                                              'bool operator==(const char*, const std::string&) { return true; }\n'),
    },
    "js": {
        "exit early": "  process.exit(0)\n}\n",
        "silence (upstream's pass)": "  return 0.5\n}\nconsole.assert = () => {}\n",
        "forged output": f"  return 0.5\n}}\nconsole.log('{FORGED}'); process.exit(0)\n",
        "patched Math.abs": "  return 0.5\n}\nMath.abs = () => 0\n",
        "patched exit": "  return 0.5\n}\nprocess.exit = () => {}; process.reallyExit = () => {}\n",
        "own test function": "  return 0.5\n}\nconst testTruncateNumber = () => {}\n",
    },
    "java": {
        "exit early": "        System.exit(0); return 0;\n    }\n}\n",
        "exit from a static initialiser": "        return 0.5;\n    }\n    static { System.exit(0); }\n}\n",
        "forged output": f'        System.out.println("{FORGED}"); Runtime.getRuntime().halt(0); return 0;\n    }}\n}}\n',
        "own Math shadowing java.lang's": "        return 0.5;\n    }\n}\nclass Math { static double abs(double x) { return 0; } }\n",
        "own Arrays shadowing java.util's": ("        return 0.5;\n    }\n}\nclass Arrays { static List<Boolean> asList(Object... x) "
                                             "{ return new ArrayList<Boolean>(); } }\n"),
    },
    "go": {
        "exit early": "package main\n\nimport \"os\"\n\nfunc TruncateNumber(number float64) float64 {\n    os.Exit(0)\n    return 0\n}\n",
        "forged output": (f'package main\n\nimport (\n    "fmt"\n    "os"\n)\n\nfunc TruncateNumber(number float64) float64 {{\n'
                          f'    fmt.Println("{FORGED}")\n    os.Exit(0)\n    return 0\n}}\n'),
        "skip every test (-test.run)": ('package main\n\nimport "os"\n\nfunc init() {\n    os.Args = append(os.Args, "-test.run=^$")\n}\n\n'
                                        "func TruncateNumber(number float64) float64 {\n    return 0.5\n}\n"),
        "list instead of run (-test.list)": ('package main\n\nimport "os"\n\nfunc init() {\n    os.Args = append(os.Args, "-test.list=.*")\n}\n\n'
                                             "func TruncateNumber(number float64) float64 {\n    return 0.5\n}\n"),
    },
    "rust": {
        "exit early": "    std::process::exit(0);\n}\n",
        "forged output": f'    println!("{FORGED}"); std::process::exit(0);\n}}\n',
        "own assert macros": "    0.5\n}\nmacro_rules! assert { ($($t:tt)*) => {} }\nmacro_rules! assert_eq { ($($t:tt)*) => {} }\n",
    },
    "python": {
        "exit early": "    import os\n    os._exit(0)\n",
        "always-equal result": "    class E(float):\n        def __eq__(self, o): return True\n        def __lt__(self, o): return True\n    return E(0.5)\n",
        "patched AssertionError": "    return 0.5\nimport builtins\nbuiltins.AssertionError = Exception\n",
    },
}
ON_PROBLEM = {("cpp", "global operator== for std::string"): "27"}


@pytest.mark.shared_data
@pytest.mark.parametrize(("lang", "attack"), [(lang, attack) for lang in LANGS for attack in HOSTILE[lang]])
def test_hostile_samples_do_not_pass(data: Path, lang: str, attack: str) -> None:
    number = ON_PROBLEM.get((lang, attack), "2")
    problem = next(p for p in _bench(data, lang).problems.values() if p.id.endswith(f"/{number}"))
    code = HOSTILE[lang][attack]
    if not code.startswith("package "):
        code = problem.prompt + code
    verdict = _judge(problem, code)
    assert verdict.status is not Status.PASSED, (attack, verdict.message, verdict.stdout[-500:])


@pytest.mark.shared_data
@pytest.mark.parametrize("lang", ["cpp", "go", "java", "js", "rust"])
def test_a_whole_program_with_its_own_main_is_judged_on_the_function(data: Path, lang: str) -> None:
    problem = next(p for p in _bench(data, lang).problems.values() if p.id.endswith("/53"))  # add(x, y)
    programs = {
        "cpp": '#include <cstdio>\nint add(int x, int y) { return x + y; }\nint main() { printf("%d\\n", add(1, 2)); return 0; }\n',
        "go": 'package main\n\nimport "fmt"\n\nfunc Add(x int, y int) int {\n    return x + y\n}\n\nfunc main() {\n    fmt.Println(Add(1, 2))\n}\n',
        "java": ("import java.util.*;\n\nclass Solution {\n    public int add(int x, int y) {\n        return x + y;\n    }\n}\n\n"
                 "public class Main {\n    public static void main(String[] args) {\n        System.out.println(new Solution().add(1, 2));\n    }\n}\n"),
        "js": "const add = (x, y) => {\n  return x + y\n}\nconsole.log(add(1, 2))\n",
        "rust": "fn add(x: i32, y: i32) -> i32 {\n    x + y\n}\n\nfn main() {\n    println!(\"{}\", add(1, 2));\n}\n",
    }
    verdict = _judge(problem, programs[lang])
    assert verdict.passed, (verdict.message, verdict.stdout[-800:])
    wrong = programs[lang].replace("x + y", "x - y")
    assert _judge(problem, wrong).status is Status.FAILED


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("lang", ["js", "python"])
def test_every_reference_passes_but_the_flagged(data: Path, lang: str) -> None:
    bench = _bench(data, lang)
    failed = {pid for pid, p in bench.problems.items() if not _judge(p, p.reference_program()).passed}
    flagged = {pid for pid, p in bench.problems.items() if any(t.startswith(("defect:wrong-reference", "needs:js-md5")) for t in p.tags)}
    assert failed == flagged
