"""The benchmark registry: a name maps to a lazily imported loader."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.problems import Benchmark


class UnknownBenchmark(ValueError):
    """A benchmark name that is not registered."""


# name -> (module, function, keyword arguments)
REGISTRY: dict[str, tuple[str, str, dict[str, Any]]] = {
    "humaneval": ("assay.benchmarks.humaneval", "load_humaneval", {}),
    "humaneval-plus": ("assay.benchmarks.evalplus", "load_humaneval_plus", {}),
    "humaneval-plus-mini": ("assay.benchmarks.evalplus", "load_humaneval_plus", {"variant": "Mini"}),
    "humaneval-plus-noextreme": ("assay.benchmarks.evalplus", "load_humaneval_plus", {"variant": "NoExtreme"}),
    "cruxeval-i": ("assay.benchmarks.cruxeval", "load_cruxeval", {"mode": "input"}),
    "cruxeval-o": ("assay.benchmarks.cruxeval", "load_cruxeval", {"mode": "output"}),
    "cruxeval-i-cot": ("assay.benchmarks.cruxeval", "load_cruxeval", {"mode": "input", "style": "cot"}),
    "cruxeval-o-cot": ("assay.benchmarks.cruxeval", "load_cruxeval", {"mode": "output", "style": "cot"}),
    "mbpp-plus": ("assay.benchmarks.evalplus", "load_mbpp_plus", {}),
    "mbpp-plus-noextreme": ("assay.benchmarks.evalplus", "load_mbpp_plus", {"variant": "NoExtreme"}),
    "mbpp": ("assay.benchmarks.mbpp", "load_mbpp", {}),
    "mbpp-test": ("assay.benchmarks.mbpp", "load_mbpp", {"split": "test"}),
    "mbpp-challenge": ("assay.benchmarks.mbpp", "load_mbpp", {"challenge": True}),
    "mbpp-paper": ("assay.benchmarks.mbpp", "load_mbpp", {"style": "paper"}),
    "mbpp-sanitized": ("assay.benchmarks.mbpp", "load_mbpp", {"sanitized": True}),
    "mbpp-sanitized-test": ("assay.benchmarks.mbpp", "load_mbpp", {"sanitized": True, "split": "test"}),
    "mbpp-sanitized-paper": ("assay.benchmarks.mbpp", "load_mbpp", {"sanitized": True, "style": "paper"}),
    "swift-suite": ("assay.benchmarks.directory", "load_directory", {"shipped_name": "swift-suite"}),
    "mbxp/swift": ("assay.benchmarks.mxeval", "load_mxeval", {"dataset": "mbxp"}),
    "multi-humaneval/swift": ("assay.benchmarks.mxeval", "load_mxeval", {"dataset": "multi-humaneval"}),
    "humaneval-xl/swift": ("assay.benchmarks.mxeval", "load_mxeval", {"dataset": "humaneval-xl"}),
    "classeval": ("assay.benchmarks.classeval", "load_classeval", {}),
    "classeval-incremental": ("assay.benchmarks.classeval", "load_classeval", {"strategy": "incremental"}),
    "classeval-compositional": ("assay.benchmarks.classeval", "load_classeval", {"strategy": "compositional"}),
    # BigCodeBench: plain names load v0.1.4 (v0.1.0 + upstream's fix scripts), /v0.1.0 the data as stored
    "bigcodebench": ("assay.benchmarks.bigcodebench", "load_bigcodebench", {}),
    "bigcodebench-instruct": ("assay.benchmarks.bigcodebench", "load_bigcodebench", {"style": "instruct"}),
    **{f"bigcodebench{s}/{v}": ("assay.benchmarks.bigcodebench", "load_bigcodebench", {"style": s[1:] or "complete", "version": v})
       for s in ("", "-instruct") for v in ("v0.1.0", "v0.1.4")},
    # BigCodeBench-Hard: 148 task ids from the Hub (bigcode/bigcodebench-hard), or --dataset-file
    **{f"bigcodebench{s}-hard{v}": ("assay.benchmarks.bigcodebench", "load_bigcodebench_hard",
                                    {"style": s[1:] or "complete", **({"version": v[1:]} if v else {})})
       for s in ("", "-instruct") for v in ("", "/v0.1.0", "/v0.1.4")},
}
# MultiPL-E: multipl-e/humaneval-swift, multipl-e/mbpp-rs, ... (one line per language would be 48 lines).
for _source in ("humaneval", "mbpp"):
    for _lang in ("clj", "cpp", "cs", "d", "dart", "elixir", "go", "hs", "java", "jl", "js", "lua", "ml", "php", "pl", "py",
                  "r", "rb", "rkt", "rs", "scala", "sh", "swift", "ts"):
        REGISTRY[f"multipl-e/{_source}-{_lang}"] = ("assay.benchmarks.multipl_e", "load_multipl_e", {"source": _source, "lang": _lang})
# HumanEval+ and MBPP+ in every MultiPL-E language that runs here: humaneval-plus/swift, mbpp-plus/rs, ...
for _plus in ("humaneval-plus", "mbpp-plus"):
    for _lang in ("clj", "cpp", "cs", "d", "elixir", "go", "hs", "java", "js", "lua", "ml", "php", "pl", "r", "rb", "rkt", "rs",
                  "scala", "sh", "swift", "ts"):
        REGISTRY[f"{_plus}/{_lang}"] = ("assay.benchmarks.plus_languages", "load_plus_language", {"plus": _plus, "lang": _lang})
# HumanEval-X: humaneval-x/cpp, go, java, js, python, rust, each run with its own test program.
for _lang in ("cpp", "go", "java", "js", "python", "rust"):
    REGISTRY[f"humaneval-x/{_lang}"] = ("assay.benchmarks.humaneval_x", "load_humaneval_x", {"lang": _lang})
# Aider's polyglot benchmark (Exercism exercises, edited by the model): polyglot/cpp, go, java, javascript, python, rust.
for _lang in ("cpp", "go", "java", "javascript", "python", "rust"):
    REGISTRY[f"polyglot/{_lang}"] = ("assay.benchmarks.polyglot", "load_polyglot", {"lang": _lang})
# LiveCodeBench: `livecodebench` is the latest release (v6); livecodebench/v1 .. v6 are upstream's cumulative release_v1 .. v6.
REGISTRY["livecodebench"] = ("assay.benchmarks.livecodebench", "load_livecodebench", {"latest": True})
for _release in range(1, 7):
    REGISTRY[f"livecodebench/v{_release}"] = ("assay.benchmarks.livecodebench", "load_livecodebench", {"release": _release})
# McEval: mceval/swift, mceval/cpp, mceval/common-lisp, ... (40 languages, each run with its own test code).
for _lang in ("awk", "c", "coffeescript", "common-lisp", "cpp", "csharp", "dart", "elixir", "emacs-lisp", "erlang", "fortran", "fsharp",
              "go", "groovy", "haskell", "html", "java", "javascript", "json", "julia", "kotlin", "lua", "markdown", "pascal", "perl",
              "php", "powershell", "python", "r", "racket", "ruby", "rust", "scala", "scheme", "shell", "swift", "tcl", "typescript",
              "vimscript", "visual-basic"):
    REGISTRY[f"mceval/{_lang}"] = ("assay.benchmarks.mceval", "load_mceval", {"lang": _lang})


# What `assay benchmarks` shows without loading anything: a name, or the family before its "/", maps to
# (problems, languages, licence of the data). Sizes are the data's as Assay loads it.
ABOUT: dict[str, tuple[str, str, str]] = {
    "humaneval": ("164", "Python", "MIT (OpenAI)"),
    "humaneval-plus": ("164", "Python", "Apache-2.0 (EvalPlus)"),
    "humaneval-plus-mini": ("164", "Python", "Apache-2.0 (EvalPlus)"),
    "humaneval-plus-noextreme": ("164", "Python", "Apache-2.0 (EvalPlus)"),
    "mbpp-plus": ("378", "Python", "Apache-2.0 (EvalPlus)"),
    "mbpp-plus-noextreme": ("378", "Python", "Apache-2.0 (EvalPlus)"),
    "mbpp": ("974", "Python", "CC BY 4.0 (Google)"),
    "mbpp-test": ("500", "Python", "CC BY 4.0 (Google)"),
    "mbpp-challenge": ("974", "Python", "CC BY 4.0 (Google)"),
    "mbpp-paper": ("974", "Python", "CC BY 4.0 (Google)"),
    "mbpp-sanitized": ("427", "Python", "CC BY 4.0 (Google)"),
    "mbpp-sanitized-test": ("257", "Python", "CC BY 4.0 (Google)"),
    "mbpp-sanitized-paper": ("427", "Python", "CC BY 4.0 (Google)"),
    "swift-suite": ("36", "Swift", "Assay's own"),
    "mbxp/swift": ("966", "Swift", "CC BY 4.0 (amazon-science/mxeval)"),
    "multi-humaneval/swift": ("161", "Swift", "MIT (amazon-science/mxeval)"),
    "humaneval-xl/swift": ("80", "Swift", "MIT (FloatAI/humaneval-xl)"),
    "humaneval-x/": ("164 a language", "the one named", "Apache-2.0 (THUDM/CodeGeeX)"),
    "polyglot/": ("225 in all: cpp 26, go 39, java 47, javascript 49, python 34, rust 30", "the one named",
                  "MIT (Exercism), via Aider-AI/polyglot-benchmark"),
    "cruxeval-i": ("800", "Python", "MIT (facebookresearch/cruxeval)"),
    "cruxeval-o": ("800", "Python", "MIT (facebookresearch/cruxeval)"),
    "cruxeval-i-cot": ("800", "Python", "MIT (facebookresearch/cruxeval)"),
    "cruxeval-o-cot": ("800", "Python", "MIT (facebookresearch/cruxeval)"),
    "classeval": ("100 classes, 410 methods", "Python", "CC BY-NC 4.0 (FudanSELab/ClassEval)"),
    "classeval-incremental": ("100 classes, 410 methods, one request a method", "Python", "CC BY-NC 4.0 (FudanSELab/ClassEval)"),
    "classeval-compositional": ("100 classes, 410 methods, one request a method", "Python", "CC BY-NC 4.0 (FudanSELab/ClassEval)"),
    "bigcodebench": ("1140 (full)", "Python", "Apache-2.0 (bigcode-project/bigcodebench)"),
    "bigcodebench-instruct": ("1140 (full)", "Python", "Apache-2.0 (bigcode-project/bigcodebench)"),
    "bigcodebench-hard": ("148 (ids from the Hub or --dataset-file)", "Python", "Apache-2.0 (bigcode-project/bigcodebench)"),
    "bigcodebench-instruct-hard": ("148 (ids from the Hub or --dataset-file)", "Python", "Apache-2.0 (bigcode-project/bigcodebench)"),
    "multipl-e": ("~161 (HumanEval) / ~397 (MBPP) a language", "the one named", "BSD-3-Clause with a machine-learning clause"),
    "humaneval-plus/": ("up to 164 a language", "the one named", "Apache-2.0 (EvalPlus) + MultiPL-E's prompts"),
    "mbpp-plus/": ("up to 378 a language", "the one named", "Apache-2.0 (EvalPlus) + MultiPL-E's prompts"),
}


_LCB_LICENCE = "LiveCodeBench (code MIT; the Hub card's data terms apply)"
ABOUT["livecodebench"] = ("1055 (release v6)", "Python", _LCB_LICENCE)
ABOUT.update({f"livecodebench/v{r}": (str(n), "Python", _LCB_LICENCE) for r, n in ((1, 400), (2, 511), (3, 612), (4, 713), (5, 880), (6, 1055))})
ABOUT["mceval/"] = ("2,007 in all, about 50 a language", "one of 40, as named", "CC BY-SA 4.0 (MCEVAL/McEval data; code MIT)")


def about(name: str) -> tuple[str, str, str]:
    """(problems, languages, licence) of a registered benchmark, as far as Assay records it."""
    family, _, rest = name.partition("/")
    for key in (name, family + "/", family):
        if key in ABOUT:
            size, languages, licence = ABOUT[key]
            return size, rest.rsplit("-", 1)[-1] if languages == "the one named" else languages, licence
    return ("?", "?", "?")


def benchmark_names() -> list[str]:
    """All registered benchmark names."""
    return sorted(REGISTRY)


def load_benchmark(name: str, *, data_dir: Path | None = None, cache_dir: Path | None = None, path: Path | None = None) -> Benchmark:
    """Load a benchmark by its registered name."""
    if name not in REGISTRY and Path(name).is_dir():  # a directory: made by `assay augment`, or of hand-written problems
        from assay.augment.suite import is_augmented, load_augmented

        if is_augmented(Path(name)):
            return load_augmented(Path(name), data_dir=data_dir, cache_dir=cache_dir)
        from assay.benchmarks.directory import load_directory

        return load_directory(Path(name))
    try:
        module, func, kwargs = REGISTRY[name]
    except KeyError:
        raise UnknownBenchmark(
            f"unknown benchmark {name!r}; known: {', '.join(n for n in benchmark_names() if '/' not in n)}, "
            "multipl-e/<humaneval|mbpp>-<lang>, humaneval-plus/<lang>, mbpp-plus/<lang>, or a benchmark directory"
        ) from None
    loader: Callable[..., Benchmark] = getattr(importlib.import_module(module), func)
    options: dict[str, Any] = dict(kwargs)
    if path is not None:
        options["path"] = path
    if name != "humaneval":
        options.update(data_dir=data_dir, cache_dir=cache_dir)
    return loader(**options)
