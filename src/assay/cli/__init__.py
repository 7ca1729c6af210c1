"""The `assay` command line: parse, call, print.

assay.cli.common holds the Typer `app` and what the commands share; each command module registers its
commands on `app` when it is imported, and `assay --help` lists them in the order they are imported here."""

from __future__ import annotations

from assay.cli.common import _eta, app, main

# isort: off
from assay.cli import evaluate, models, info, report, rigor, swe, swe_setup  # noqa: F401  (evaluate, generate/run, toolchains/canary/benchmarks/version, report/compare/leaderboard, augment..., swe, swe image/prepare)
from assay.cli import env  # noqa: F401  (env build/show: bigcodebench's package environment)
# isort: on

__all__ = ["_eta", "app", "main"]
