"""HumanEval+ and MBPP+ in every MultiPL-E language: `humaneval-plus/<lang>`, `mbpp-plus/<lang>`.

A problem is MultiPL-E's, in that language: its prompt, its entry point, its types. Its cases are
EvalPlus's base and plus inputs, read at the Python original's parameter types and rendered as
calls in the language by its plugin; expected outputs are the Python reference's (EvalPlus's
canonical solution, run once in the sandbox and cached), compared under EvalPlus's rules. An input
the language cannot represent (an int beyond its integer type, a list of mixed types, None where
the type is not optional, a whole-number float where the type admits ints too in a language with
one number type: JavaScript's filter_integers cannot tell 3.0 from 3) is left out for that language
and counted in `CaseTests.left_out`, never dropped silently. MultiPL-E's own tests stay with the problem for the canary.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import struct
from pathlib import Path
from typing import Any

from assay import values
from assay.benchmarks._fetch import DataUnavailable
from assay.benchmarks.evalplus import load_humaneval_plus, load_mbpp_plus
from assay.benchmarks.multipl_e import languages, load_multipl_e
from assay.languages import UnknownLanguage, get_language
from assay.languages.base import Language, Unrepresentable
from assay.problems import Benchmark, Case, CaseTests, Problem, test_program

SOURCES = {"humaneval-plus": "humaneval", "mbpp-plus": "mbpp"}


def benchmark_names() -> list[str]:
    """humaneval-plus/swift, mbpp-plus/rs, ...: every MultiPL-E language with a plugin."""
    from assay.languages import REGISTRY

    return [f"{plus}/{short}" for plus in SOURCES for short, lang in languages().items() if lang in REGISTRY and short != "py"]


def python_id(source: str, multipl_e_id: str) -> str:
    """MultiPL-E's problem name -> EvalPlus's task id: HumanEval_12_longest -> HumanEval/12, mbpp_3_x -> Mbpp/3.
    Another benchmark's id (HumanEval-XL's swift/0, which renumbers) is its own: it names no EvalPlus task."""
    parts = multipl_e_id.split("_")
    if len(parts) < 2 or not parts[1].isdigit():
        return multipl_e_id
    return f"HumanEval/{parts[1]}" if source == "humaneval" else f"Mbpp/{parts[1]}"


def load_plus_language(plus: str, lang: str, *, data_dir: Path | None = None, cache_dir: Path | None = None, path: Path | None = None) -> Benchmark:
    """`plus` is humaneval-plus or mbpp-plus, `lang` a MultiPL-E short name (swift, cpp, rs, ...)."""
    source = SOURCES[plus]
    name = f"{plus}/{lang}"
    try:
        language = get_language(languages().get(lang, lang))
    except UnknownLanguage as exc:
        raise DataUnavailable(f"{name}: {exc}") from None
    if not language.has_case_harness:
        raise DataUnavailable(f"{name}: the {language.display} plugin has no case harness yet")
    evalplus = (load_humaneval_plus if source == "humaneval" else load_mbpp_plus)(path=path, data_dir=data_dir, cache_dir=cache_dir)
    multipl = load_multipl_e(source, lang, data_dir=data_dir, cache_dir=cache_dir)
    problems: dict[str, Problem] = {}
    for pid, problem in multipl.problems.items():
        reference = evalplus.problems.get(python_id(source, pid))
        if reference is None or not isinstance(problem.tests, CaseTests) or problem.tests.signature is None:
            continue  # no EvalPlus inputs, or MultiPL-E's own tests could not be read as cases
        problems[pid] = plus_problem(language, problem, reference)
    digest = hashlib.sha256(f"{evalplus.content_hash} {multipl.content_hash}".encode()).hexdigest()
    return Benchmark(name=name, version=f"{evalplus.version}+{multipl.version}", content_hash=digest,
                     source=f"{evalplus.source} + {multipl.source}", problems=problems)


def _float32_floats(value: Any) -> Any:
    """Python floats rounded to float32 (ints and everything else unchanged)."""
    if isinstance(value, float):
        return struct.unpack("f", struct.pack("f", value))[0] if abs(value) < 3.4e38 else value
    if isinstance(value, list):
        return [_float32_floats(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_float32_floats(v) for v in value)
    if isinstance(value, dict):
        return {k: _float32_floats(v) for k, v in value.items()}
    return value


def _has_float(t: values.Type) -> bool:
    return t.kind == "float" or any(_has_float(a) for a in t.args)


def _numbers_at(value: Any, t: values.Type, which: str) -> bool:
    """Whether a value has, at a float position of type t, an int ("int"), a whole-number float ("whole"),
    or an int that float32 cannot hold exactly ("beyond float32"; EvalPlus's floats are already labelled
    at float32)."""
    k = t.kind
    if k == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if which == "int":
            return isinstance(value, int)
        if which == "whole":
            return isinstance(value, float) and value.is_integer()
        return isinstance(value, int) and (abs(value) >= 2**127 or _float32_floats(float(value)) != value)
    if k == "optional":
        return value is not None and _numbers_at(value, t.args[0], which)
    if k in ("list", "vtuple", "set") and isinstance(value, (list, tuple, set, frozenset)):
        return any(_numbers_at(v, t.args[0], which) for v in value)
    if k == "tuple" and isinstance(value, (list, tuple)):
        return any(_numbers_at(v, a, which) for v, a in zip(value, t.args, strict=False))
    if k == "dict" and isinstance(value, dict):
        return any(_numbers_at(a, t.args[0], which) or _numbers_at(b, t.args[1], which) for a, b in value.items())
    return False


def int_twins(tests: CaseTests) -> dict[int, tuple[Any, ...]]:
    """The cases that put a whole-number float at a float parameter, in a problem whose inputs put ints
    there too, each with those floats made ints: the function sees 1.0 for both, so where the Python
    reference answers them differently (double_the_difference's str(x)) no function can match both. The
    executor labels the twins and leaves out each case whose twin's answer differs (the int is what
    MultiPL-E's own tests mean at a float parameter)."""
    if tests.signature is None:
        return {}
    types = tests.signature.param_types
    floats = [i for i, t in enumerate(types) if _has_float(t)]
    mixed = [i for i in floats if any(len(c.args) > i and _numbers_at(c.args[i], types[i], "int") for c in tests.cases)]
    twins: dict[int, tuple[Any, ...]] = {}
    for n, case in enumerate(tests.cases):
        if len(case.args) == len(types) and any(_numbers_at(case.args[i], types[i], "whole") for i in mixed):
            twins[n] = tuple(_as_ints(a, t) if i in mixed else a for i, (a, t) in enumerate(zip(case.args, types, strict=True)))
    return twins


def _as_ints(value: Any, t: values.Type) -> Any:
    """A value with its whole-number floats at float positions made ints."""
    k = t.kind
    if k == "float":
        return int(value) if isinstance(value, float) and value.is_integer() else value
    if k == "optional":
        return None if value is None else _as_ints(value, t.args[0])
    if k in ("list", "vtuple") and isinstance(value, (list, tuple)):
        return type(value)(_as_ints(v, t.args[0]) for v in value)
    if k == "set" and isinstance(value, (set, frozenset)):
        return type(value)(_as_ints(v, t.args[0]) for v in value)
    if k == "tuple" and isinstance(value, (list, tuple)) and len(value) == len(t.args):
        return type(value)(_as_ints(v, a) for v, a in zip(value, t.args, strict=True))
    if k == "dict" and isinstance(value, dict):
        return {_as_ints(a, t.args[0]): _as_ints(b, t.args[1]) for a, b in value.items()}
    return value


def _whole_float_at_any(value: Any, t: values.Type) -> bool:
    """Whether a float with an integral value sits where the type admits an int as well (Any, a union with
    int), so that a language with one number type cannot tell it from that int."""
    k = t.kind
    if k in ("any", "union"):
        return _has_whole_float(value)
    if k == "optional":
        return value is not None and _whole_float_at_any(value, t.args[0])
    if k in ("list", "vtuple", "set") and isinstance(value, (list, tuple, set, frozenset)):
        return any(_whole_float_at_any(v, t.args[0]) for v in value)
    if k == "tuple" and isinstance(value, (list, tuple)):
        return any(_whole_float_at_any(v, a) for v, a in zip(value, t.args, strict=False))
    if k == "dict" and isinstance(value, dict):
        return any(_whole_float_at_any(a, t.args[0]) or _whole_float_at_any(b, t.args[1]) for a, b in value.items())
    return False


def _has_whole_float(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_has_whole_float(v) for v in value)
    if isinstance(value, dict):
        return any(_has_whole_float(a) or _has_whole_float(b) for a, b in value.items())
    return False


def plus_problem(language: Language, problem: Problem, reference: Problem) -> Problem:
    """MultiPL-E's problem with EvalPlus's inputs as its cases, labelled by EvalPlus's Python reference."""
    tests, ref_tests = problem.tests, reference.tests
    assert isinstance(tests, CaseTests) and isinstance(ref_tests, CaseTests) and tests.signature is not None
    signature = tests.signature
    cases: list[Case] = []
    left_out: collections.Counter[str] = collections.Counter()
    floats = [i for i, t in enumerate(signature.param_types) if _has_float(t)]
    for case in ref_tests.cases:
        if len(case.args) != len(signature.params):
            left_out[f"{len(case.args)} arguments for {len(signature.params)} parameters"] += 1
            continue
        try:
            args = tuple(values.coerce(a, t) for a, t in zip(case.args, signature.param_types, strict=True))
        except values.UnsupportedType:
            left_out["an argument does not fit its declared type"] += 1
            continue
        if language.float32 and any(i < len(case.args) and _numbers_at(case.args[i], signature.param_types[i], "beyond float32") for i in floats):
            left_out["a number float32 cannot hold exactly (labelled on the exact value, the function sees another)"] += 1
            continue
        if language.whole_floats_are_ints and any(_whole_float_at_any(a, t) for a, t in zip(args, signature.param_types, strict=True)):
            left_out["a whole-number float where the type admits ints too (the language has one number type)"] += 1
            continue
        try:
            call = language.render_call(signature, args)
        except Unrepresentable as exc:
            left_out[str(exc).split(":")[0] or "not representable"] += 1
            continue
        except ValueError:  # an int too long even to print in a message
            left_out["int beyond the language's integer type"] += 1
            continue
        # Labelled on EvalPlus's own input (as MultiPL-E's tests read `candidate(2, 3, 1)` at float
        # parameters: the Python value's answer), with floats as the function sees them where it takes float32.
        labelled = tuple(_float32_floats(a) for a in case.args) if language.float32 else case.args
        cases.append(Case(labelled, case.suite, call=call))
    return dataclasses.replace(
        problem,
        tests=CaseTests(
            cases=tuple(cases), atol=ref_tests.atol, oracle=ref_tests.oracle, signature=signature, rule="evalplus",
            reference=(reference.prompt + reference.reference, reference.entry_point),
            program=test_program(problem), left_out=tuple(sorted(left_out.items())),
        ),
        tags=(*problem.tags, f"python:{reference.id}"),
    )
