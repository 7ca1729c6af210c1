"""Swift on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

import pytest

from assay.benchmarks import load_benchmark
from assay.problems import Status
from assay.sandbox import get_sandbox
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec, benchmark

SPEC = LanguageSpec(
    language="swift",
    bench="multipl-e/humaneval-swift",
    correct={
        "HumanEval_0_has_close_elements": (
            "    for i in 0..<numbers.count {\n        for j in 0..<numbers.count where i != j {\n"
            "            if abs(numbers[i] - numbers[j]) < threshold { return true }\n        }\n    }\n    return false\n"
        ),
        "HumanEval_13_greatest_common_divisor": "    var (a, b) = (a, b)\n    while b != 0 { (a, b) = (b, a % b) }\n    return a\n",
        "HumanEval_23_strlen": "    return string.count\n",
        "HumanEval_30_get_positive": "    return l.filter { $0 > 0 }\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "    return string.count + 1\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    return l.filter { $0 >= 0 }\n", Status.FAILED),
        ("HumanEval_23_strlen", "    return string.length\n", Status.COMPILE_ERROR),  # no such member
        ("HumanEval_13_greatest_common_divisor", "    let x: Int? = nil\n    return x! + a\n", Status.RUNTIME_ERROR),  # nil unwrap traps
        ("HumanEval_30_get_positive", "    return [l[l.count]]\n", Status.RUNTIME_ERROR),  # index out of range
        ("HumanEval_23_strlen", "    while true {}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    print("tests passed")\n    exit(0)\n', Status.FAILED),  # early exit with status 0
    ],
    # Its function is spliced in; its demo call is dropped.
    chat_reply='import Foundation\n\n/// Length\nfunc strlen(string: String) -> Int {\n    return string.count\n}\n\nprint(strlen(string: "abc"))\n',
    # Glibc's fopen (the tests import Glibc): String.write needs Foundation, whose import a splice would drop.
    hostile_write=lambda target: f'    if let f = fopen("{target}", "w") {{ fputs("x", f); fclose(f) }}\n    return string.count\n',
    floods=('    while true { print(String(repeating: "x", count: 1000)) }\n',),
)


@pytest.mark.slow
def test_the_recorded_module_cache_is_used_and_a_module_it_lacks_is_still_built(language) -> None:  # type: ignore[no-untyped-def]
    toolchain = language.toolchain()
    recorded = Path(toolchain.env["ASSAY_SWIFT_MODULES"])
    pcms = sorted(p.name.split("-")[0] for p in recorded.rglob("*.pcm"))
    assert {"SwiftShims", "SwiftGlibc", "_FoundationCShims"} <= set(pcms), pcms
    assert str(recorded.parent) in toolchain.ro_binds
    # A cache that lacks Glibc's and Foundation's modules: the sandbox's copy is writable, so they are built.
    partial = Path(tempfile.mkdtemp(prefix="assay-swift-partial-", dir="/var/tmp")) / "module-cache"
    try:
        shutil.copytree(recorded, partial)
        for pcm in partial.rglob("*.pcm"):
            if pcm.name.startswith(("SwiftGlibc", "_Foundation")):
                pcm.unlink()
        for path in [partial.parent, *partial.parent.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        custom = dataclasses.replace(
            toolchain, env={**toolchain.env, "ASSAY_SWIFT_MODULES": str(partial)}, ro_binds=(*toolchain.ro_binds, str(partial.parent))
        )
        box = get_sandbox(ro_binds=custom.ro_binds)
        problem = load_benchmark("swift-suite").problems["swift-suite/semver_compare"]  # imports Foundation
        code = problem.reference_program()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(type(language), "toolchain", classmethod(lambda cls: custom))
            verdict = language.judge(box, problem, code, language.limits)
        close = getattr(box, "close", None)
        if close:
            close()
        assert verdict.status is Status.PASSED, verdict
        assert any(p.name.startswith("SwiftGlibc") for p in recorded.rglob("*.pcm"))  # the recorded cache is untouched
    finally:
        shutil.rmtree(partial.parent, ignore_errors=True)


def test_the_module_cache_can_be_turned_off(language, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from assay.languages.swift import module_cache

    monkeypatch.setenv("ASSAY_SWIFT_MODULE_CACHE", "off")
    assert module_cache(language.toolchain()) is None
