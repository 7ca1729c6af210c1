"""Translation lints find the defects the benchmarks' own READMEs name, by id, on the real files, and stay quiet elsewhere.

Real data: ../shared/data (multipl-e/, mxeval/, humaneval-xl/); every test that reads it skips when it is absent.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import pytest

from assay.audit.lints import CHECKS, Finding, LintItem, items_from_benchmark, lint, read_mxeval
from assay.benchmarks import load_benchmark
from assay.benchmarks.multipl_e import languages
from assay.problems import Benchmark
from tests.conftest import shared_data

MXEVAL_HUMANEVAL = "mxeval/HumanEval_swift_v1.1.jsonl"
MXEVAL_MBXP = "mxeval/mbswp_release_v1.jsonl"
HUMANEVAL_XL = "humaneval-xl/swift-English.jsonl"


def _data() -> Path:
    path = shared_data()
    if not all((path / sub).is_dir() for sub in ("multipl-e", "mxeval", "humaneval-xl")):
        pytest.skip(f"needs the shared data directory ({path}) with multipl-e/, mxeval/ and humaneval-xl/, which is absent here")
    return path


@functools.cache
def _python() -> Benchmark:
    return load_benchmark("humaneval")


@functools.cache
def _multipl_e(lang: str, source: str = "humaneval") -> tuple[LintItem, ...]:
    bench = load_benchmark(f"multipl-e/{source}-{lang}", data_dir=_data())
    return tuple(items_from_benchmark(bench, _python() if source == "humaneval" else None))


@functools.cache
def _mxeval(name: str, with_python: bool = False) -> tuple[LintItem, ...]:
    return tuple(read_mxeval(_data() / name, _python() if with_python else None))


_LINTED: dict[int, tuple[tuple[LintItem, ...], list[Finding]]] = {}


def _lint(items: tuple[LintItem, ...]) -> list[Finding]:
    """lint(items), once per cached item tuple (items hold lists, so they are not hashable: keyed by identity)."""
    if id(items) not in _LINTED:
        _LINTED[id(items)] = (items, lint(items))
    return _LINTED[id(items)][1]


def _flagged(items: tuple[LintItem, ...], check: str) -> dict[str, list[Finding]]:
    found: dict[str, list[Finding]] = {}
    for finding in _lint(items):
        if finding.check == check:
            found.setdefault(finding.problem, []).append(finding)
    return found


def test_every_finding_names_a_listed_check_and_is_one_line() -> None:
    items = _multipl_e("swift") + _mxeval(MXEVAL_HUMANEVAL)
    findings = lint(items)
    assert findings
    ids = {item.id for item in items}
    for finding in findings:
        assert finding.check in CHECKS and finding.problem in ids
        assert finding.evidence and finding.fix and "\n" not in finding.evidence + finding.fix


def test_bankers_rounding_finds_rounded_avg() -> None:
    flagged = _flagged(_multipl_e("swift"), "bankers-rounding")
    assert "HumanEval_103_rounded_avg" in flagged
    assert "round(summation / (m - n + 1))" in flagged["HumanEval_103_rounded_avg"][0].evidence
    # The other HumanEval solutions that call round() (71 triangle_area, 77 iscube, 99 closest_integer) are flagged too:
    # a static check cannot tell whether their tests hit a .5 tie.
    assert set(flagged) == {"HumanEval_71_triangle_area", "HumanEval_77_iscube", "HumanEval_99_closest_integer", "HumanEval_103_rounded_avg"}
    assert not _flagged(_multipl_e("py"), "bankers-rounding")  # Python itself rounds the same way


def test_reserved_word_parameter_finds_operator_in_swift() -> None:
    flagged = _flagged(_multipl_e("swift"), "reserved-word-parameter")
    assert list(flagged) == ["HumanEval_160_do_algebra"]
    assert "`operator`" in flagged["HumanEval_160_do_algebra"][0].evidence
    assert "back-quoted" in flagged["HumanEval_160_do_algebra"][0].fix
    assert list(_flagged(_mxeval(MXEVAL_HUMANEVAL), "reserved-word-parameter")) == ["HumanEval_swift/160"]
    # C++, Java and C# rename it `op`; `operator` is no keyword in JS, Go or Rust; C#'s `string str` has no `string` parameter.
    for lang in ("cpp", "java", "cs", "js", "go", "rs"):
        assert not _flagged(_multipl_e(lang), "reserved-word-parameter"), lang
    # Not in the READMEs: MultiPL-E's MBPP replace_blank(str1, char) declares `std::string char` / `String char`, which
    # does not compile in C++, Java, C# or D (Swift, Rust and Go accept `char`).
    for lang in ("cpp", "java", "cs", "d"):
        assert list(_flagged(_multipl_e(lang, "mbpp"), "reserved-word-parameter")) == ["mbpp_230_replace_blank"], lang
    for lang in ("swift", "rs", "go"):
        assert not _flagged(_multipl_e(lang, "mbpp"), "reserved-word-parameter"), lang


def test_variable_length_tuple_finds_tuples_returned_as_arrays() -> None:
    # Without the Python original the rule reads the prompt's doctests: `>>> sum_product([])` shows `(0, 1)`, the signature says `-> [Int]`.
    assert set(_flagged(_mxeval(MXEVAL_HUMANEVAL), "variable-length-tuple")) == {"HumanEval_swift/8", "HumanEval_swift/20"}
    assert set(_flagged(_mxeval(HUMANEVAL_XL), "variable-length-tuple")) == {"swift/1"}  # sumProduct
    # With it, the original's annotation (Tuple[int, int]) or its tuple returns decide.
    with_python = {f"HumanEval_swift/{n}" for n in (8, 20, 107, 112, 136, 155)}
    assert set(_flagged(_mxeval(MXEVAL_HUMANEVAL, True), "variable-length-tuple")) == with_python
    assert set(_flagged(_mxeval(HUMANEVAL_XL, True), "variable-length-tuple")) == {"swift/1", "swift/48", "swift/51", "swift/63"}
    # MultiPL-E keeps tuples as tuples ((Int, Int), [number, number], std::tuple) and Tuple[str, ...] as arrays: no findings.
    for lang in ("swift", "ts", "cpp", "rs", "java"):
        assert not _flagged(_multipl_e(lang), "variable-length-tuple"), lang


def test_variable_length_tuple_flags_a_fixed_translation_of_tuple_ellipsis() -> None:
    python = "from typing import Tuple\ndef bf(a: str, b: str) -> Tuple[str, ...]:\n    return ()\n"
    item = LintItem("bf", "swift", "func bf(a: String, b: String) -> (String, String) {\n", "", python)
    assert [f.check for f in lint([item])] == ["variable-length-tuple"]
    assert not lint([LintItem("bf", "swift", "func bf(a: String, b: String) -> [String] {\n", "", python)])


def test_any_parameter_counts_match_the_readmes() -> None:
    # mxeval/README.md: [AnyHashable] in 49/161 HumanEval and 104/966 MBXP prompts; humaneval-xl/README.md: 22 of 80.
    # The READMEs count prompts whose signature uses AnyHashable anywhere (parameters or result), as this check does
    # without a Python original; [AnyHashable: AnyHashable] dictionaries and bare AnyHashable are among them.
    assert len(_flagged(_mxeval(MXEVAL_HUMANEVAL), "any-parameter")) == 49
    assert len(_flagged(_mxeval(MXEVAL_MBXP), "any-parameter")) == 104
    assert len(_flagged(_mxeval(HUMANEVAL_XL), "any-parameter")) == 22
    flagged = _flagged(_mxeval(MXEVAL_HUMANEVAL), "any-parameter")
    assert "numbers : [AnyHashable]" in flagged["HumanEval_swift/8"][0].evidence
    assert "HumanEval_swift/0" not in flagged  # hasCloseElements(numbers : [Double], ...)
    # With HumanEval as the original, only parameters Python annotates precisely count: many HumanEval prompts are
    # unannotated (`def pluck(arr):`) or bare (`l: list`), so the count drops (49 -> 12, 22 -> 3).
    assert len(_flagged(_mxeval(MXEVAL_HUMANEVAL, True), "any-parameter")) == 12
    assert "HumanEval_swift/3" in _flagged(_mxeval(MXEVAL_HUMANEVAL, True), "any-parameter")  # operations: List[int]
    assert len(_flagged(_mxeval(HUMANEVAL_XL, True), "any-parameter")) == 3


def test_any_parameter_respects_pythons_own_any() -> None:
    # MultiPL-E's filter_integers takes [AnyHashable] because Python says List[Any]: faithful, not flagged.
    assert not _flagged(_multipl_e("swift"), "any-parameter")
    # Go returns tuples as []interface{} (it has no tuple type): the two fixed-tuple results Python types precisely.
    assert set(_flagged(_multipl_e("go"), "any-parameter")) == {"HumanEval_8_sum_product", "HumanEval_20_find_closest_elements"}


def test_none_as_string_finds_longest() -> None:
    flagged = _flagged(_mxeval(MXEVAL_HUMANEVAL), "none-as-string")
    assert '"none"' in flagged["HumanEval_swift/12"][0].evidence
    assert set(flagged) == {f"HumanEval_swift/{n}" for n in (12, 90, 128, 136, 137, 162)}  # every one returns None in Python
    assert set(_flagged(_mxeval(MXEVAL_HUMANEVAL, True), "none-as-string")) == set(flagged)
    assert set(_flagged(_mxeval(HUMANEVAL_XL), "none-as-string")) == {"swift/3", "swift/38", "swift/63", "swift/78"}
    mbxp = _flagged(_mxeval(MXEVAL_MBXP), "none-as-string")
    assert len(mbxp) == 11 and "MBSWP/452" in mbxp  # "return none" (loss_amount)
    # MBPP 537/602 return the *string* 'None'; the converter writes Python strings raw (#"None"#): not flagged.
    assert "MBSWP/537" not in mbxp and "MBSWP/602" not in mbxp
    # MultiPL-E translates None as nil/null/undefined; Bash prints "None" because all its values are text.
    for lang in ("swift", "js", "cpp", "rs", "sh"):
        assert not _flagged(_multipl_e(lang), "none-as-string"), lang


COLLAPSING = ("rs", "swift", "cpp", "java", "ts", "js")  # multipl-e/README.md, upstream issue #142


@pytest.mark.parametrize("lang", COLLAPSING)
def test_collapsed_literals_finds_any_int(lang: str) -> None:
    flagged = _flagged(_multipl_e(lang), "collapsed-literals")
    assert list(flagged) == ["HumanEval_92_any_int"]
    assert "True" in flagged["HumanEval_92_any_int"][0].evidence and "False" in flagged["HumanEval_92_any_int"][0].evidence


def test_collapsed_literals_beyond_the_readme_and_not_where_3_and_3_0_differ() -> None:
    # The same pair collapses in every statically typed port and where all numbers are doubles (R, Perl); Dart has no
    # case harness here, so its test program is read instead (`expect(candidate(3, 4, 7), true)`).
    for lang in ("cs", "go", "d", "scala", "hs", "ml", "r", "pl", "dart"):
        assert list(_flagged(_multipl_e(lang), "collapsed-literals")) == ["HumanEval_92_any_int"], lang
    # Ruby, PHP, Lua, Julia, Elixir, Python, ... tell 3 from 3.0, so both tests can pass.
    for lang in ("rb", "php", "lua", "jl", "elixir", "py", "rkt", "clj", "sh"):
        assert not _flagged(_multipl_e(lang), "collapsed-literals"), lang
    assert list(_flagged(_mxeval(MXEVAL_HUMANEVAL), "collapsed-literals")) == ["HumanEval_swift/92"]


def test_platform_api_finds_md5() -> None:
    flagged = _flagged(_multipl_e("swift"), "platform-api")
    assert list(flagged) == ["HumanEval_162_string_to_md5"]
    assert "md5" in flagged["HumanEval_162_string_to_md5"][0].evidence
    assert list(_flagged(_mxeval(MXEVAL_HUMANEVAL), "platform-api")) == ["HumanEval_swift/162"]
    assert list(_flagged(_mxeval(HUMANEVAL_XL), "platform-api")) == ["swift/78"]
    assert not _flagged(_multipl_e("js"), "platform-api")  # Node has crypto; only Swift on Linux lacks it
    imports = LintItem("x", "swift", "import CryptoKit\nfunc f(s: String) -> String {\n", "")
    assert "CryptoKit" in lint([imports])[0].evidence


def test_python_word_leak_finds_filter_integers_in_every_language() -> None:
    for lang in languages():
        ids = {item.id for item in _multipl_e(lang)}
        flagged = _flagged(_multipl_e(lang), "python-word-leak")
        if lang == "py":
            assert not flagged
        elif "HumanEval_22_filter_integers" in ids:
            assert list(flagged) == ["HumanEval_22_filter_integers"], lang
            assert f"{lang.split('_')[0]}thon" in flagged["HumanEval_22_filter_integers"][0].evidence
        else:  # Rust, D, Haskell and OCaml drop the problem (List[Any] has no translation), so it cannot be found there
            assert lang in ("rs", "d", "hs", "ml"), lang
    # ... but the same pass mangles MBPP's "Write a python function" in Rust: "Write a rsthon function".
    rust_mbpp = _flagged(_multipl_e("rs", "mbpp"), "python-word-leak")
    assert len(rust_mbpp) > 100 and all("rsthon" in f[0].evidence for f in rust_mbpp.values())


def test_python_word_leak_ignores_python_as_example_data() -> None:
    # MBXP replaced "python function" with "Swift function"; what is left is data: textMatchString("python"), ...
    assert not _flagged(_mxeval(MXEVAL_MBXP), "python-word-leak")
    item = LintItem("x", "swift", "/// Write a python function to add.\nfunc add(a: Int) -> Int {\n", "")
    assert lint([item])[0].check == "python-word-leak"


def test_raw_newline_in_string_finds_remove_vowels_in_js_and_haskell() -> None:
    for lang in ("js", "hs"):
        flagged = _flagged(_multipl_e(lang), "raw-newline-in-string")
        assert list(flagged) == ["HumanEval_51_remove_vowels"], lang
        assert '"abcdef' in flagged["HumanEval_51_remove_vowels"][0].evidence
    # Ruby, Perl and Rust accept a raw newline in a string; the TS, Swift and C++ translators escape it.
    for lang in ("rb", "pl", "rs", "ts", "swift", "cpp", "java", "cs", "go", "lua", "scala", "dart"):
        assert not _flagged(_multipl_e(lang), "raw-newline-in-string"), lang


def test_any_int_is_collapsed_in_every_language_the_multipl_e_readme_names() -> None:
    # multipl-e/README.md: HumanEval_92_any_int is unsatisfiable in rs, swift, cpp, java, ts and js
    # (`candidate(3,4,7) == True` and `candidate(3.0,4,7) == False` become the same call).
    for lang in ("rs", "swift", "cpp", "java", "ts", "js"):
        assert "HumanEval_92_any_int" in _flagged(_multipl_e(lang), "collapsed-literals"), lang


def test_raw_newline_lexer_respects_escapes_comments_and_chars() -> None:
    def flagged(language: str, tests: str) -> bool:
        return bool(lint([LintItem("x", language, "", tests)]))

    assert flagged("javascript", 'f("a\nb");')
    assert not flagged("javascript", 'f("a\\nb"); // "open\nf(`multi\nline`); f("\\"", \'x\');')
    assert not flagged("javascript", '/* "open\n */ f("ok");')
    assert not flagged("java", "char c = '\"';\nf(\"a\");\nchar d = '\\'';\n")
    assert not flagged("swift", 'let s = """\nmulti\n"""\nf(#"raw \\ "#)\n')
    assert flagged("swift", 'f(#"a\nb"#)')
    assert not flagged("haskell", "main = do\n  -- \"open\n  print (foldl' f 'a' \"ok\")\n")
    assert not flagged("ruby", 'f("a\nb")') and not flagged("rust", 'f("a\nb")')


def test_clean_problems_are_not_flagged() -> None:
    for lang in ("swift", "js", "cpp", "rs"):
        item = next(i for i in _multipl_e(lang) if i.id == "HumanEval_0_has_close_elements")
        assert lint([item]) == [], lang
    assert not [f for f in lint(_mxeval(MXEVAL_HUMANEVAL)) if f.problem == "HumanEval_swift/0"]
    ruby = next(i for i in _multipl_e("rb") if i.id == "HumanEval_51_remove_vowels")
    assert "\n" in ruby.tests.split('"abcdef')[1].split('"')[0]  # the raw newline is there ...
    assert lint([ruby]) == []  # ... and Ruby accepts it


# Upper bounds on the findings per check on multipl-e/humaneval-swift (159 problems), so a reviewer sees the noise:
# the five known defects, plus the three other round() users.
SWIFT_BOUNDS = {"bankers-rounding": 4, "reserved-word-parameter": 1, "variable-length-tuple": 0, "any-parameter": 0, "none-as-string": 0,
                "collapsed-literals": 1, "platform-api": 1, "python-word-leak": 1, "raw-newline-in-string": 0}


def test_noise_on_multipl_e_swift(capsys: pytest.CaptureFixture[str]) -> None:
    counts = Counter(f.check for f in lint(_multipl_e("swift")))
    with capsys.disabled():
        print("\nfindings per check on multipl-e/humaneval-swift:", {check: counts[check] for check in CHECKS})
    assert set(SWIFT_BOUNDS) == set(CHECKS)
    for check, bound in SWIFT_BOUNDS.items():
        assert counts[check] <= bound, (check, counts[check])
    assert sum(counts.values()) <= 8


def test_items_carry_calls_and_parameter_names() -> None:
    item = next(i for i in _multipl_e("swift") if i.id == "HumanEval_160_do_algebra")
    assert item.param_names == ("operator", "operand") and item.calls and "do_algebra(" in item.calls[0][0]
    assert "def do_algebra(operator, operand)" in item.python_reference
    mx = next(i for i in _mxeval(MXEVAL_HUMANEVAL) if i.id == "HumanEval_swift/0")
    assert mx.param_names == ("numbers", "threshold") and mx.python_reference == ""
    assert mx.calls[0] == ("hasCloseElements(numbers : [1.0, 2.0, 3.9, 4.0, 5.0, 2.2], threshold : 0.3)", True)
    assert next(i for i in _mxeval(HUMANEVAL_XL, True) if i.id == "swift/0").python_reference.startswith("from typing import List")
