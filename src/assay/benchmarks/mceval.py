"""McEval (MCEVAL/McEval): generation tasks in 40 languages, about 50 a language (2,007 in all).

Each task is a prose instruction (what a chat model is asked), a code prompt (imports, signature, doc
comment), a canonical solution that continues the prompt, and the language's own test code, which
upstream appends to the extracted code ("\\n\\n" + test) and runs. Here the sample is a whole program
(the reply's code, as upstream's extractors take it), the reference is prompt + canonical solution, and
the tests run after it in the sandbox (runner "mceval": assay.languages.mceval_shapes), where a pass
needs exit status 0 and Assay's completion marker, printed only after the tests' own code finished.

Languages with an Assay plugin run through it; the others are rows of mceval_shapes.TABLE. HTML, JSON and
Markdown (graded upstream against reference files that are not in the data), AWK (no tests) and the
languages without a toolchain in Debian 12 load, and every verdict says why they are skipped.
Upstream's harness passes a Common Lisp (and a Shell) program that times out; here a timeout is a timeout.

Known defects are tags (see DEFECTS): `defect:wrong-reference` (the canonical solution fails its own
tests), `defect:broken-test` (the test code is wrong or does not build); every task has `level:<easy|middle|hard>`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from assay.benchmarks._fetch import resolve_data_file, sha256_file
from assay.problems import Benchmark, Problem, ProgramTests, Runner

SUBDIR = "mceval"
COMMIT = "09dec129dd5756447227239b3e5b47e543c2e0fd"
URL = f"https://raw.githubusercontent.com/MCEVAL/McEval/{COMMIT}/data/{{file}}"
VERSION = f"MCEVAL/McEval@{COMMIT[:7]}"
# McEval's name -> (Assay's benchmark suffix, language, the file's sha256 from shared/data/mceval/README.md).
LANGUAGES: dict[str, tuple[str, str, str]] = {
    "AWK": ("awk", "awk", "8a867f9cfc4ebf87ee4916c4afe52006dc990c4a0423365b71741701389d1a7f"),
    "C#": ("csharp", "csharp", "4a22df1e90e7c9909a47ba4070c3c32d520cac8d66de3d739fee64e8714752cf"),
    "C": ("c", "c", "1155876f8a3e2b8392ace6825a6917f7277bc46a78068b5dc25c08ab53182239"),
    "CPP": ("cpp", "cpp", "e303524cf0f73b1d6875a91166f7c9c98417188674c40bd5af7976ff5c24c811"),
    "CoffeeScript": ("coffeescript", "coffeescript", "c1ebe2eed4c046a86946fea33a95bffd22e105fbbdd6ec43ef42d86fd7760d1a"),
    "Common Lisp": ("common-lisp", "common-lisp", "637df800c9641148cfff61e80b694fefa74feb5c03b6688f3fefff49134e0755"),
    "Dart": ("dart", "dart", "d474500657797c41f6c49aa08d525efaa42738f9ef8e416be2cb6982cdb92878"),
    "Elixir": ("elixir", "elixir", "e4b42977a87bda62bca197cb0c58472e59eca393c3dc154af09f42c2a452e78a"),
    "Emacs Lisp": ("emacs-lisp", "emacs-lisp", "b5070be8a3919e4496725aed9f674bb7ac61a1c2e356a588448b599d155bc460"),
    "Erlang": ("erlang", "erlang", "dd652de6960ac9ba8f3cbda21c9fb2bee5332a6f61dca13f870c9697ea49f2ed"),
    "F#": ("fsharp", "fsharp", "cf2bf9480b6268d3afabb3f0068fb74a9050374749b1e98b62bf756004a887a5"),
    "Fortran": ("fortran", "fortran", "c5e8068df9b24f410e95bb218ce2969407e0fa39148e8948c10ae5e5cb73a4c1"),
    "Go": ("go", "go", "c25d91c8e4ca59fe0e82828845b32a6130bba8e801f43b5562b0e2d65ecb6131"),
    "Groovy": ("groovy", "groovy", "ee285374fcea58225d8a3ef91c9286235eef89f31427dc46fb27d5d8a41412e9"),
    "HTML": ("html", "html", "d54f926de728e2e8ef1bb44b2f5105be96bf8695ec28da53df20112125baf73d"),
    "Haskell": ("haskell", "haskell", "0c37c729d8a13973f341927ce6f8f642bc88c566726c386ba7c11c3bec1a3f1f"),
    "JSON": ("json", "json", "e2f3799ea1238c9be7a4fc3d0bf2e1f90ac6dccfb3654681af8f8835e7b467b7"),
    "Java": ("java", "java", "89578a76b083167ed28ae8c5c860ac24b7ce370ddade2142d9aa2e30fa64fed7"),
    "JavaScript": ("javascript", "javascript", "fcdf0c4cd1dbc7b4e0ec05190203cfa320ecd3db47bce3c12ec1a8f40038496b"),
    "Julia": ("julia", "julia", "376898f539c2bc0f45f707beeba4f5abb52243af38f925afd3b6438fe3c907ab"),
    "Kotlin": ("kotlin", "kotlin", "8f861dc4787fa40b5c94f0a215cf2ffe4b28872746b1c3d06040468be2d01a72"),
    "Lua": ("lua", "lua", "9c55dfc73ab513079fa7583597c01b2150a34459e87a5fab7ab6162ae7a9dab8"),
    "Markdown": ("markdown", "markdown", "75b8c9d6dd1eb8dd5472e1e2007eaf7e4e55e8a67cd40bec13538b040167f1d8"),
    "PHP": ("php", "php", "4005826f546cdfa2d72a6159fb8beb75758e90ad708fc0b74fbbd1ddf429484c"),
    "Pascal": ("pascal", "pascal", "719b11399b7c8f638a8891e8551c145b7f5267af7a91e6fb2a112b27d604ef6d"),
    "Perl": ("perl", "perl", "2c1b4f8b920c092d8c6e0b3ea5672e2ab3130184af923857cffbf1e985f84411"),
    "PowerShell": ("powershell", "powershell", "718cac2a29d09d8f607fbbe8e7f6af4297f070a1a155bf3466c14d5bc4864d07"),
    "Python": ("python", "python", "6e84bef2dd4e55033691da7ed3b506cec75d7efa1d9fff48d629704e36e56eda"),
    "R": ("r", "r", "e8b9f62f57af4c8401e36f18c160fe781b61718ff747191e36c16a96bbdaaaf3"),
    "Racket": ("racket", "racket", "618b4eb57d71f648b9b69bfd8b0f7e31675dbd97de06c5ed29d353c076817a23"),
    "Ruby": ("ruby", "ruby", "73e4ed32b3e88dce3e69111c5a8ac700a3ceffca8b39b8684dc954ef00bc4e44"),
    "Rust": ("rust", "rust", "721cd2eefbe52fac7c86026f8e48576be3828a11d6128330e97fbb332c9c7f38"),
    "Scala": ("scala", "scala", "ffdcd21386a168fe678747b93e536bf245eee330056724c5e4d06a73fb4eec6a"),
    "Scheme": ("scheme", "racket", "c26065468246c6584716c07aba251b6be0b03b8b22acb6f302232b65ad7bc4f7"),  # upstream runs it with racket
    "Shell": ("shell", "bash", "dc19a9f8f38a237824895e81b2469042752ae74b8b87f528105b8bbd99c3b976"),
    "Swift": ("swift", "swift", "76a4bd09b1beca873f6f2dc0462be7dd6af3a3e4f2da66fc29ee5e726301aea0"),
    "Tcl": ("tcl", "tcl", "a95cdd0e196c87d0e1ce00cea0a7466c05e664b0e040339cafe006a4065e3370"),
    "TypeScript": ("typescript", "typescript", "8b4ae969d8ec72929fe44c0ddbd5b431feff5947d58a38fbbb5ac5db061451b7"),
    "VimScript": ("vimscript", "vimscript", "a3139feb68414a0a05de76092f42afe23fb0173646dbe51aa03fb705d7fe4a3c"),
    "Visual Basic": ("visual-basic", "visual-basic", "ca092c086ac0e8ed94ab532d448f85798beccaf14f948f1986825497178d37d4"),
}
BY_SUFFIX = {suffix: name for name, (suffix, _, _) in LANGUAGES.items()}
# Per task id: its known defects, measured by `assay evaluate mceval/<lang> --references` (docs/verdicts.md).
DEFECTS: dict[str, tuple[str, ...]] = {
    "Common Lisp/14": ("needs:upstream-file",),  # reads ../data/Common Lisp/file.txt, upstream scaffolding not in the data
    # Their tests compare tuples with `==` (C# 7.3), which Mono's mcs lacks; Debian 12 has no .NET SDK (environment gap).
    **{f"C#/{n}": ("needs:csharp-7.3",) for n in (31, 32, 49, 50)},
    # Groovy 3 syntax (do-while, Java lambdas), or `list.size` as a property, which Debian 12's Groovy 2.4.21 reads
    # as each element's size (environment gap).
    **{f"Groovy/{n}": ("needs:groovy-3",) for n in (14, 15, 22, 31, 32, 43, 49)},
    "Scala/5": ("needs:scala-2.13",),  # ListBuffer.addAll, Set.addOne: Scala 2.13; Debian 12 has 2.11.12 (environment gap)
}


def benchmark_names() -> list[str]:
    """mceval/awk, mceval/c, mceval/cpp, ..., one a language."""
    return [f"mceval/{suffix}" for suffix, _, _ in LANGUAGES.values()]


def load_mceval(lang: str, data_dir: Path | None = None, cache_dir: Path | None = None, path: Path | None = None) -> Benchmark:
    """One language of McEval's generation tasks from a local file, the data dir, the cache or McEval's repository at COMMIT."""
    if lang not in BY_SUFFIX:
        raise ValueError(f"McEval has no language {lang!r}; choose one of {', '.join(sorted(BY_SUFFIX))}")
    name = BY_SUFFIX[lang]
    _, language, sha256 = LANGUAGES[name]
    filename = f"{name}.jsonl"
    if path is not None:
        source = Path(path)
    else:
        source = resolve_data_file(filename, subdir=f"{SUBDIR}/data", url=URL.format(file=quote(filename)), data_dir=data_dir,
                                   cache_dir=cache_dir, expected_sha256=sha256)
    problems: dict[str, Problem] = {}
    for row in _rows(source):
        problem = _problem(row, language)
        problems[problem.id] = problem
    return Benchmark(name=f"mceval/{lang}", version=VERSION if path is None else "local", content_hash=sha256_file(source),
                     source=str(source), problems=problems)


def _rows(source: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    for n, row in enumerate(rows, 1):
        missing = {"task_id", "prompt", "instruction"} - set(row)
        if missing:
            raise ValueError(f"{source}: row {n} is not a McEval row (missing {', '.join(sorted(missing))})")
    return rows


def _problem(row: dict[str, Any], language: str) -> Problem:
    task_id = str(row["task_id"])
    code_prompt = str(row["prompt"])
    reference = str(row.get("canonical_solution") or "")
    keep = ("signature", "docstring", "module", "level")
    extra: dict[str, Any] = {k: row[k] for k in keep if row.get(k) is not None}
    extra["code_prompt"] = code_prompt
    tags = (f"level:{row['level']}",) if row.get("level") else ()
    return Problem(
        id=task_id,
        language=language,
        prompt=str(row["instruction"]),
        prompt_is_instruction=True,
        entry_point=str(row.get("entry_point") or ""),
        # The canonical solution continues the code prompt; together they are the program a reply would be.
        # (a newline between them where the prompt lacks one: Python's solutions start a line of their own).
        reference=code_prompt + ("" if code_prompt.endswith("\n") else "\n") + reference if reference else "",
        reference_is_program=True,
        tests=ProgramTests(code=str(row.get("test") or ""), runner=Runner.MCEVAL),
        tags=tags + DEFECTS.get(task_id, ()),
        extra=extra,
    )
