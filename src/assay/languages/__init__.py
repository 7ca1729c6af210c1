"""Language plugins: a name (or MultiPL-E's short name) maps to a lazily imported Language class."""

from __future__ import annotations

import contextlib
import functools
import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.languages.base import Language

# name -> (module, class); one line per language.
REGISTRY: dict[str, tuple[str, str]] = {
    "swift": ("assay.languages.swift", "Swift"),
    "python": ("assay.languages.python", "Python"),
    "cpp": ("assay.languages.cpp", "Cpp"),
    "d": ("assay.languages.d", "D"),
    "rust": ("assay.languages.rust", "Rust"),
    "go": ("assay.languages.go", "Go"),
    "java": ("assay.languages.java", "Java"),
    "scala": ("assay.languages.scala", "Scala"),
    "csharp": ("assay.languages.csharp", "CSharp"),
    "javascript": ("assay.languages.javascript", "JavaScript"),
    "typescript": ("assay.languages.typescript", "TypeScript"),
    "php": ("assay.languages.php", "Php"),
    "ruby": ("assay.languages.ruby", "Ruby"),
    "lua": ("assay.languages.lua", "Lua"),
    "perl": ("assay.languages.perl", "Perl"),
    "r": ("assay.languages.r", "R"),
    "racket": ("assay.languages.racket", "Racket"),
    "bash": ("assay.languages.bash", "Bash"),
    "elixir": ("assay.languages.elixir", "Elixir"),
    "clojure": ("assay.languages.clojure", "Clojure"),
    "haskell": ("assay.languages.haskell", "Haskell"),
    "ocaml": ("assay.languages.ocaml", "OCaml"),
}


# Languages only McEval's own test programs use, each a row of assay.languages.mceval_shapes (no plugin of
# their own): get_language finds them by name; they are not listed among the plugins.
MCEVAL_TABLE = ("awk", "c", "coffeescript", "common-lisp", "dart", "emacs-lisp", "erlang", "fortran", "fsharp", "groovy", "html",
                "json", "julia", "kotlin", "markdown", "pascal", "powershell", "tcl", "vimscript", "visual-basic")


class UnknownLanguage(ValueError):
    """A language Assay has no plugin for."""


def language_names() -> list[str]:
    """Every language with a plugin."""
    return sorted(REGISTRY)


def get_language(name: str) -> Language:
    """The plugin for a language (canonical name or alias such as 'rs' or 'cs')."""
    if name in MCEVAL_TABLE:  # a row of McEval's table, not a plugin
        from assay.languages.mceval_shapes import table_language

        return table_language(name)
    canonical = resolve(name)
    module, cls = REGISTRY[canonical]
    try:
        plugin = importlib.import_module(module)
    except ModuleNotFoundError:
        raise UnknownLanguage(f"the {canonical} plugin ({module}) is not available") from None
    return getattr(plugin, cls)()  # type: ignore[no-any-return]


@functools.cache
def plugins() -> dict[str, Language]:
    """Every plugin, imported (0.4 s): what a language is (names, fences, stops, MultiPL-E's name) lives in its module."""
    found: dict[str, Language] = {}
    for name in REGISTRY:
        with contextlib.suppress(UnknownLanguage):
            found[name] = get_language(name)
    return found


@functools.cache
def _aliases() -> dict[str, str]:
    return {alias.lower(): name for name, plugin in plugins().items() for alias in plugin.names()}


def resolve(name: str) -> str:
    """Canonical language name for a name or alias ("rs", "c#", MultiPL-E's "ml")."""
    if name in REGISTRY:
        return name
    canonical = _aliases().get(name.lower())
    if canonical is not None:
        return canonical
    raise UnknownLanguage(f"no language plugin for {name!r}; known: {', '.join(language_names())}")


def by_fence(tag: str) -> str | None:
    """The language a markdown fence's info string names (```golang: go), None when no plugin's."""
    low = tag.strip().lower()
    return next((name for name, plugin in plugins().items() if low in plugin.fences()), None)


def toolchain_binds(names: set[str]) -> list[str]:
    """Directories the sandbox must show for these languages' toolchains (missing ones are skipped later)."""
    from assay.languages.base import ToolchainMissing

    binds: list[str] = []
    for name in sorted(names):
        try:
            binds.extend(get_language(name).toolchain().ro_binds)
            if name in ("go", "rust"):  # HumanEval-X's testify seed and crates (assay.languages.native_tests)
                from assay.languages.native_tests import support_binds

                binds.extend(support_binds(get_language(name)))
        except (UnknownLanguage, ToolchainMissing):
            continue
    return sorted(set(binds))


def toolchain_version(name: str) -> str:
    """The recorded version of a language's toolchain, or why it cannot run."""
    from assay.languages.base import ToolchainMissing

    try:
        return get_language(name).toolchain().version
    except UnknownLanguage:
        return "no plugin"
    except ToolchainMissing:
        return "missing"


def toolchains_record(languages: set[str]) -> dict[str, str]:
    """What a run records about the toolchains its verdicts came from (rule 2)."""
    from assay.languages import python as py

    record = {"python": py.python_version(), "driver": py.driver_digest()}
    for name in sorted(languages - {"python"}):
        record[name] = toolchain_version(name)
    return record
