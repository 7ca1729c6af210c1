"""Language plugins: a name (or MultiPL-E's short name) maps to a lazily imported Language class."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.languages.base import Language

# name -> (module, class); one line per language.
REGISTRY: dict[str, tuple[str, str]] = {
    "swift": ("assay.languages.swift", "Swift"),
    "python": ("assay.languages.python", "Python"),
}


class UnknownLanguage(ValueError):
    """A language Assay has no plugin for."""


def language_names() -> list[str]:
    """Every language with a plugin."""
    return sorted(REGISTRY)


def get_language(name: str) -> "Language":
    """The plugin for a language (canonical name or alias such as 'rs' or 'cs')."""
    canonical = resolve(name)
    module, cls = REGISTRY[canonical]
    return getattr(importlib.import_module(module), cls)()  # type: ignore[no-any-return]


def resolve(name: str) -> str:
    """Canonical language name for a name or alias."""
    if name in REGISTRY:
        return name
    for canonical, (module, cls) in REGISTRY.items():
        if name in getattr(importlib.import_module(module), cls).aliases:
            return canonical
    raise UnknownLanguage(f"no language plugin for {name!r}; known: {', '.join(language_names())}")


def toolchain_binds(names: set[str]) -> list[str]:
    """Directories the sandbox must show for these languages' toolchains (missing ones are skipped later)."""
    from assay.languages.base import ToolchainMissing

    binds: list[str] = []
    for name in sorted(names):
        try:
            binds.extend(get_language(name).toolchain().ro_binds)
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
