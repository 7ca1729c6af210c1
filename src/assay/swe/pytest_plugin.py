"""Assay's pytest plugin for repository tasks: each test phase's outcome, by node id, as a JSON line.

Loaded with `-p assay_swe_plugin` (before conftest files and the project are imported) from a
read-only directory; it opens the file named by $ASSAY_SWE_RESULTS (in the run's scratch directory,
outside the checkout) and removes the variable from the environment, so the project's code, imported
later, is not told where the statuses go. What it cannot stop: code in the same process that looks
for this module's open file (see docs/repo-tasks.md, "What a patch can and cannot do").
"""

from __future__ import annotations

import json
import os
from typing import Any

_PATH = os.environ.pop("ASSAY_SWE_RESULTS", None)
_OUT = open(_PATH, "a", buffering=1) if _PATH else None  # noqa: SIM115 - open for the whole session


def pytest_runtest_logreport(report: Any) -> None:
    if _OUT is None:
        return
    row = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome, "wasxfail": hasattr(report, "wasxfail")}
    _OUT.write(json.dumps(row) + "\n")
