"""`assay swe mine` and `assay swe validate`: task instances from a repository's history, checked by running them.

Mining (as the repo-tasks/ instances were built, and SWE-bench's collection does from pull requests):
1. Candidates: non-merge commits (since a date, or named) whose diff touches both test files (a path
   pattern per project) and other files.
2. Split: the diff's test files are the test patch, the rest the gold patch.
3. Run: the test command on the base commit (the parent) with the test patch, and with the test patch
   and the gold patch, `runs` times each, in the same workspace as `assay swe evaluate`.
4. FAIL_TO_PASS: tests that fail (or are missing) in every run before and pass in every run after;
   PASS_TO_PASS: tests that pass in every run of both states. A candidate is dropped, with the reason:
   the patches do not apply, nothing runs after the fix (`unrunnable`), a test whose status differs
   between runs of one state (`flaky`: its F2P or P2P membership cannot be decided), nothing runs before
   the fix (`no-baseline`: the test patch does not build without the fix, so every test would look
   like F2P), or no F2P test (`no-f2p`).

Validating: each instance's gold patch must resolve (RESOLVED_FULL) and its empty patch must not
(every F2P test failing), `runs` times each, with the same statuses every time.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from assay.swe.grading import Resolution, TestStatus
from assay.swe.harness import BWRAP, Environment, Sandbox, evaluate_task
from assay.swe.repos import RepoStore
from assay.swe.runtime import Limits
from assay.swe.tasks import Prediction, Task

OK = (TestStatus.PASSED, TestStatus.XFAIL)


@dataclass(frozen=True)
class Profile:
    """How a project's tests run: which paths are tests, the command, its parser, its environment."""

    language: str
    test_pattern: str
    test_cmd: str
    log_parser: str
    env_vars: tuple[tuple[str, str], ...] = ()
    install: str = ""


_MINITEST_SELF = ("MT_CPU=1 ruby -Ilib:test -e 'Dir.glob(\"test/minitest/test_*.rb\").sort.each { |f| require File.expand_path(f) "
                  "unless f.end_with?(\"test_task.rb\") }' -- -v --seed 42")
# Known projects' test setups (shared/data/repos/README.md says how each was checked).
PROFILES: dict[str, Profile] = {
    "pytest": Profile("python", r"^tests?/", "pytest -rA -p no:cacheprovider tests", "pytest", (("PYTHONPATH", "."),)),
    "pytest-src": Profile("python", r"^tests?/", "pytest -rA -p no:cacheprovider tests", "pytest", (("PYTHONPATH", "src"),)),
    "go": Profile("go", r"_test\.go$", "go test -json -count=1 ./...", "go"),
    "cargo": Profile("rust", r"^tests/", "cargo test --offline --no-fail-fast", "cargo"),
    "swiftpm": Profile("swift", r"^Tests/", "swift test", "swift"),
    "cjson": Profile("c", r"^tests/", "rm -rf build && mkdir build && cd build && cmake .. -DENABLE_CJSON_TEST=On -DENABLE_CJSON_UTILS=On "
                     "&& make -j2 && ctest -V --timeout 60", "ctest-unity"),
    "minitest-self": Profile("ruby", r"^test/", _MINITEST_SELF, "minitest"),
}


@dataclass
class Mined:
    """What mining one repository gave: the instances kept, and each dropped candidate with its reason."""

    kept: list[Task] = field(default_factory=list)
    dropped: dict[str, str] = field(default_factory=dict)  # commit -> why
    candidates: int = 0

    def reasons(self) -> Counter[str]:
        return Counter(why.split(":", 1)[0] for why in self.dropped.values())


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, errors="surrogateescape").stdout


def candidates(repo: Path, pattern: str, since: str | None = None, commits: list[str] | None = None, limit: int | None = None) -> list[str]:
    """Non-merge commits touching both test files (matching `pattern`) and other files, newest first."""
    if commits:
        found = [_git(repo, "rev-parse", c).strip() for c in commits]
    else:
        found = _git(repo, "log", "--no-merges", "--format=%H", *([f"--since={since}"] if since else []), "HEAD").split()
    test = re.compile(pattern)
    out = []
    for commit in found:
        parents = _git(repo, "rev-list", "--parents", "-n", "1", commit).split()[1:]
        if len(parents) != 1:
            continue
        files = [f for f in _git(repo, "diff", "--name-only", parents[0], commit).splitlines() if f]
        if any(test.search(f) for f in files) and any(not test.search(f) for f in files):
            out.append(commit)
        if limit and len(out) >= limit:
            break
    return out


def split(repo: Path, commit: str, pattern: str) -> tuple[str, str, str]:
    """(base commit, test patch, gold patch) of a fix commit."""
    base = _git(repo, "rev-parse", f"{commit}^").strip()
    files = [f for f in _git(repo, "diff", "--name-only", base, commit).splitlines() if f]
    test = re.compile(pattern)
    tests = [f for f in files if test.search(f)]
    rest = [f for f in files if not test.search(f)]
    test_patch = _git(repo, "diff", "--binary", base, commit, "--", *tests)
    patch = _git(repo, "diff", "--binary", base, commit, "--", *rest)
    return base, test_patch, patch


def _statuses(task: Task, patch: str, store: RepoStore, env: Environment, limits: Limits, sandbox: Sandbox) -> dict[str, TestStatus] | None:
    result = evaluate_task(task, Prediction(task.instance_id, "mine", patch), store, env, limits, run_empty=True, sandbox=sandbox)
    if result.infra or (patch.strip() and not result.applied_by):
        return None
    return {k: TestStatus(v) for k, v in result.statuses.items()}


def mine(repo_dir: Path, repo: str, profile: Profile, store: RepoStore, env: Environment, limits: Limits, *, since: str | None = None,
         commits: list[str] | None = None, limit: int | None = None, runs: int = 3,
         progress: Callable[[str, str], None] | None = None, sandbox: Sandbox = BWRAP) -> Mined:
    """Mine and check the fix commits of a repository (see the module docstring)."""
    out = Mined()
    key = repo.replace("/", "__")
    for commit in candidates(repo_dir, profile.test_pattern, since, commits, limit):
        out.candidates += 1
        base, test_patch, patch = split(repo_dir, commit, profile.test_pattern)
        task = Task(instance_id=f"{key}-{commit[:7]}", repo=repo, base_commit=base, test_patch=test_patch, fail_to_pass=(), pass_to_pass=(),
                    patch=patch, language=profile.language, test_cmd=profile.test_cmd, log_parser=profile.log_parser,
                    env_vars=profile.env_vars, install=profile.install, extra={"fix_commit": commit})
        before = [_statuses(task, "", store, env, limits, sandbox) for _ in range(runs)]
        after = [_statuses(task, patch, store, env, limits, sandbox) for _ in range(runs)]
        why = _decide(before, after)
        if isinstance(why, str):
            out.dropped[commit] = why
        else:
            f2p, p2p = why
            kinds = transitions(before, f2p)
            extra = {**task.extra, "transitions": kinds}
            out.kept.append(replace(task, fail_to_pass=tuple(f2p), pass_to_pass=tuple(p2p), extra=extra))
        if progress is not None:
            if isinstance(why, str):
                progress(commit, why)
            else:
                n2p = len(kinds["n2p"])
                progress(commit, f"kept: {len(why[0])} F2P" + (f" ({n2p} with no status before the fix: N2P, their test binary did not "
                                                                 "get to them)" if n2p else "") + f", {len(why[1])} P2P")
    return out


_MSB_STATE = {"PASSED": "PASS", "FAILED": "FAIL", "ERROR": "FAIL", "SKIPPED": "SKIP", "XFAIL": "PASS"}


def transitions(before: list[dict[str, TestStatus] | None], f2p: list[str]) -> dict[str, dict[str, dict[str, str]]]:
    """Each F2P test's transition in Multi-SWE-bench's terms and shape (`{kind: {test: {"test": before, "fix": after}}}`):
    `f2p`, it failed before the fix; `n2p`, it had no status before in any run: new, or its test binary crashed
    or stopped before reaching it (cJSON's misc_tests after a use-after-free, xmlparser's integration tests), so
    a fix that stops the crash is what makes it pass. Both are kept in FAIL_TO_PASS, as Multi-SWE-bench does."""
    runs = [s for s in before if s is not None]
    out: dict[str, dict[str, dict[str, str]]] = {"f2p": {}, "n2p": {}}
    for test in f2p:
        seen = [s[test] for s in runs if test in s]
        if seen:
            out["f2p"][test] = {"test": _MSB_STATE.get(seen[0].value, "FAIL"), "fix": "PASS"}
        else:
            out["n2p"][test] = {"test": "NONE", "fix": "PASS"}
    return out


def _decide(before: list[dict[str, TestStatus] | None], after: list[dict[str, TestStatus] | None]) -> str | tuple[list[str], list[str]]:
    """F2P and P2P from the runs of both states, or why the candidate is dropped."""
    if any(s is None for s in before + after):
        return "unappliable: a patch does not apply, or the repository or environment failed"
    runs_before = [s for s in before if s is not None]
    runs_after = [s for s in after if s is not None]
    if not any(runs_after):
        return "unrunnable: no test reported a status after the fix"
    if not any(runs_before):  # e.g. the test patch uses an API only the fix adds, so nothing builds before it
        return "no-baseline: no test reported a status before the fix, so F2P cannot be told from P2P"
    names = sorted(set().union(*runs_before, *runs_after))
    flaky = [t for t in names if len({s.get(t) for s in runs_before}) > 1 or len({s.get(t) for s in runs_after}) > 1]
    passes_after = {t for t in names if all(s.get(t) in OK for s in runs_after)}
    f2p = sorted(t for t in passes_after - set(flaky) if all(s.get(t) not in OK and s.get(t) is not TestStatus.SKIPPED for s in runs_before))
    p2p = sorted(t for t in passes_after - set(flaky) if all(s.get(t) in OK for s in runs_before))
    if not f2p:
        if any(t in flaky for t in passes_after):
            return f"flaky: {len(flaky)} tests differ between runs of one state ({', '.join(flaky[:3])})"
        return "no-f2p: no test fails before the fix and passes after it"
    return f2p, p2p


@dataclass
class Validation:
    """One instance: valid, or why not."""

    instance_id: str
    valid: bool
    why: str = ""


def validate(task: Task, store: RepoStore, env: Environment, limits: Limits, runs: int = 3, sandbox: Sandbox = BWRAP) -> Validation:
    """Gold resolves and empty does not, `runs` times each, with the same statuses every time."""
    gold = [evaluate_task(task, Prediction(task.instance_id, "gold", task.patch), store, env, limits, sandbox=sandbox) for _ in range(runs)]
    empty = [evaluate_task(task, Prediction(task.instance_id, "empty", ""), store, env, limits, run_empty=True, sandbox=sandbox)
             for _ in range(runs)]
    for r in gold + empty:
        if r.infra:
            return Validation(task.instance_id, False, f"infrastructure: {r.error}")
    if not all(r.resolution == Resolution.FULL.value for r in gold):
        bad = next(r for r in gold if r.resolution != Resolution.FULL.value)
        return Validation(task.instance_id, False, f"gold does not resolve: {bad.resolution} (F2P failing {bad.f2p_failed[:3]}, "
                                                   f"P2P failing {bad.p2p_failed[:3]}){' ' + bad.error if bad.error else ''}")
    if any(r.resolution != Resolution.NO.value or r.f2p_failed != list(task.fail_to_pass) for r in empty):
        return Validation(task.instance_id, False, "empty patch: some FAIL_TO_PASS test already passes at the base commit")
    wanted = set(task.fail_to_pass) | set(task.pass_to_pass)
    for state in (gold, empty):
        seen = [{k: v for k, v in r.statuses.items() if k in wanted} for r in state]
        if any(s != seen[0] for s in seen):
            return Validation(task.instance_id, False, "flaky: a wanted test's status differs between runs")
    return Validation(task.instance_id, True)


def write_tasks(tasks: list[Task], path: Path) -> None:
    """Instances as SWE-bench JSONL (F2P/P2P JSON-encoded strings, as the HF datasets hold them), Assay's keys too."""
    with open(path, "w") as out:
        for t in tasks:
            out.write(json.dumps({"instance_id": t.instance_id, "repo": t.repo, "base_commit": t.base_commit, "patch": t.patch,
                                  "test_patch": t.test_patch, "problem_statement": t.problem_statement,
                                  "FAIL_TO_PASS": json.dumps(list(t.fail_to_pass)), "PASS_TO_PASS": json.dumps(list(t.pass_to_pass)),
                                  "environment_setup_commit": t.base_commit, "version": "0.0", "language": t.language, "test_cmd": t.test_cmd,
                                  "env_vars": dict(t.env_vars), "install": t.install, "log_parser": t.log_parser, **t.extra}) + "\n")
