"""Applying a patch as SWE-bench's harness does, and keeping the grading out of a model patch's reach.

The fallback chain (SWE-bench harness/run_evaluation.py): `git apply --verbose`, then `git apply
--verbose --3way`, then `git apply --verbose --reject`, then `patch --batch --forward --fuzz=5 -p1`;
the step that worked is recorded. After the model patch and before the test patch, the files the
grading depends on are put back as they are at the base commit: every file the test patch touches,
and pytest's configuration and plugins (conftest.py anywhere, pytest.ini, tox.ini), so a patch
cannot edit the tests back or hook the test runner through them. A patch whose source changes reach
into the test runner itself (pytest's internals or hooks, its report objects, Assay's plugin: TAMPERING)
is refused before it is applied: RESOLVED_NO. That is a check of the text, not a wall: the project's
code runs in the test process (docs/repo-tasks.md says what that leaves open).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

STEPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("git apply", ("git", "apply", "--verbose")),
    ("git apply --3way", ("git", "apply", "--verbose", "--3way")),
    ("git apply --reject", ("git", "apply", "--verbose", "--reject")),
    ("patch --fuzz=5", ("patch", "--batch", "--forward", "--fuzz=5", "-p1", "-i")),
)
GRADING_FILES = re.compile(r"(^|/)(conftest\.py|pytest\.ini|tox\.ini)$")
# Added lines of a model patch that reach into the test runner or the statuses Assay reads: pytest's
# internals and hooks, its report objects, Assay's plugin and results file.
TAMPERING = re.compile(r"\b_pytest\b|\bpytest_(runtest|collection|sessionfinish|configure|report)\w*|\bTestReport\b|assay_swe|ASSAY_SWE")


@dataclass(frozen=True)
class Applied:
    """How a patch went in: the step that worked ("" if none did), and the tail of the log."""

    step: str
    log: str

    @property
    def ok(self) -> bool:
        return bool(self.step)


def files_of(patch: str) -> list[str]:
    """The paths a unified diff touches (both sides of a rename)."""
    found: list[str] = []
    for match in re.finditer(r"^diff --git a/(\S+) b/(\S+)$", patch, re.M):
        for path in match.groups():
            if path not in found:
                found.append(path)
    if not found:
        for match in re.finditer(r"^(?:---|\+\+\+) (?:[ab]/)?(\S+)", patch, re.M):
            if match.group(1) != "/dev/null" and match.group(1) not in found:
                found.append(match.group(1))
    return found


def tampering(patch: str, test_patch: str) -> list[str]:
    """Lines a model patch adds outside the test patch's files that reach into the test runner (TAMPERING)."""
    protected = set(files_of(test_patch))
    found, current = [], ""
    for line in patch.splitlines():
        if line.startswith("+++ "):
            current = line[4:].removeprefix("b/")
        elif line.startswith("+") and not line.startswith("+++") and current not in protected and TAMPERING.search(line):
            found.append(f"{current}: {line[1:].strip()[:120]}")
    return found


def apply(checkout: Path, patch: str) -> Applied:
    """Apply the patch with the fallback chain; each failed step is undone before the next."""
    if not patch.strip():
        return Applied("", "empty patch")
    text = patch if patch.endswith("\n") else patch + "\n"
    logs = []
    for name, argv in STEPS:
        patch_file = checkout.parent / f".assay-{checkout.name}.patch"
        patch_file.write_text(text)
        command = [*argv, str(patch_file)]
        done = subprocess.run(command, cwd=checkout, capture_output=True, text=True, timeout=120)
        patch_file.unlink()
        logs.append(f"$ {name}: exit {done.returncode}\n{(done.stdout + done.stderr)[-1500:]}")
        if done.returncode == 0:
            return Applied(name, "\n".join(logs)[-4000:])
        reset(checkout)
    return Applied("", "\n".join(logs)[-4000:])


def reset(checkout: Path) -> None:
    """Back to the checked-out commit: tracked files restored, untracked ones removed."""
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=checkout, check=True, capture_output=True)
    subprocess.run(["git", "clean", "-q", "-fdx"], cwd=checkout, check=True, capture_output=True)


def changed_files(checkout: Path) -> list[str]:
    """Files that differ from the checked-out commit (modified, added, deleted), relative paths."""
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "-z"], cwd=checkout, capture_output=True, check=True).stdout
    paths = []
    for entry in out.decode("utf-8", "surrogateescape").split("\0"):
        if len(entry) > 3:
            paths.append(entry[3:])
    return paths


def restore_grading_files(checkout: Path, base_commit: str, test_patch: str) -> list[str]:
    """Put back, as at the base commit, every file the grading depends on that the model patch changed:
    the test patch's files, conftest.py, pytest.ini and tox.ini. Returns the files put back."""
    protected = set(files_of(test_patch))
    restored = []
    for path in changed_files(checkout):
        if path in protected or GRADING_FILES.search(path):
            tracked = subprocess.run(["git", "cat-file", "-e", f"{base_commit}:{path}"], cwd=checkout, capture_output=True).returncode == 0
            if tracked:
                subprocess.run(["git", "checkout", "-q", base_commit, "--", path], cwd=checkout, check=True, capture_output=True)
            else:
                (checkout / path).unlink(missing_ok=True)
            restored.append(path)
    return restored
