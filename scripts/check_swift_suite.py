#!/usr/bin/env python3
"""Check the swift-suite benchmark: format, references pass, wrong solutions fail.

For every problem (folder under src/assay/data/swift-suite/) this script

* validates the format: required files, problem.yaml fields and tags, 3-5 tests named
  ``func test_<name>() [async] throws``, the entry point named in signature.swift and reference.swift;
* compiles prelude + context + signature + tests (the prompt's declarations must match what the
  tests call; the program is not run);
* compiles and runs prelude + context + reference + tests + generated main, exactly as Assay builds
  them (assay.languages.swift_units: per-build names, the run's tokens on stdin, the report on fd 3):
  every test must pass, and the reference must be a solution Assay accepts (solution_violations);
* compiles and runs each ``wrong/*.swift`` the same way: ``compile_error_*`` files must fail to
  compile; the others must compile and fail at least one test (a fail report, or a crash / non-zero
  exit status).

Usage: check_swift_suite.py [-j N] [--keep] [--no-signature] [--repeat N] [--flags F] [PROBLEM_ID_OR_GLOB ...]
Exit status 0 only when every check passed.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
from assay.languages.swift_units import read_report, solution_violations, unit_run  # noqa: E402

SUITE = ROOT / "src" / "assay" / "data" / "swift-suite"
PRELUDE = ROOT / "src" / "assay" / "languages" / "swift_prelude.swift"

RUN_TIMEOUT_S = 10
COMPILE_TIMEOUT_S = 300
MIN_PROBLEMS = 32
MIN_COMPILE_ERROR_WRONGS = 4

# A test is a top-level `func test_<name>() throws` or `func test_<name>() async throws`.
TEST_RE = re.compile(r"^func[ \t]+(test_\w+)[ \t]*\([ \t]*\)[ \t]*(async[ \t]+)?throws[ \t]*\{", re.M)
# Anything that looks like a test function, to catch ones the rule above would silently skip.
TEST_LIKE_RE = re.compile(r"^[ \t]*(?:@\w+[ \t]+)*func[ \t]+(test\w*)", re.M)
ID_RE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
IMPORT_RE = re.compile(r"^\s*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", re.M)

# Every one of these feature tags must be used by at least one problem.
REQUIRED_FEATURES = {
    "optionals", "optional-chaining", "protocols-associated-types", "protocol-extensions",
    "generics-where", "enums-associated-values", "exhaustive-switch", "value-vs-reference",
    "closures-capture", "error-handling", "result", "codable", "property-wrappers",
    "access-control", "async-await", "taskgroup", "actors", "semver", "state-machine",
    "dependency-injection", "lru-cache", "process", "filemanager",
}
BENCHMARK_FIELDS = ("name", "version", "language", "description", "licence", "compile_flags")
PROBLEM_FIELDS = ("title", "entry_point", "level", "tags", "imports")


@dataclass
class Job:
    problem: str
    kind: str  # "signature", "reference", or "wrong"
    name: str  # file name of the solution
    solution: Path
    expect: str  # "compile-only", "pass", "compile-error", "fail"


@dataclass
class JobResult:
    job: Job
    ok: bool
    summary: str
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Problem:
    pid: str
    path: Path
    meta: dict = field(default_factory=dict)
    tests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    wrongs: list[Path] = field(default_factory=list)


def load_yaml(path: Path, errors: list[str]) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        errors.append(f"{path.name}: cannot read: {exc}")
        return {}
    if not isinstance(data, dict):
        errors.append(f"{path.name}: not a mapping")
        return {}
    return data


def validate_problem(pdir: Path) -> Problem:
    p = Problem(pdir.name, pdir)
    err = p.errors
    if not ID_RE.match(p.pid):
        err.append(f"id {p.pid!r} is not snake_case")
    for name in ("problem.yaml", "task.md", "signature.swift", "reference.swift", "tests.swift"):
        if not (pdir / name).is_file():
            err.append(f"missing {name}")
    if err:
        return p
    meta = p.meta = load_yaml(pdir / "problem.yaml", err)
    for key in PROBLEM_FIELDS:
        if key not in meta:
            err.append(f"problem.yaml: missing {key}")
    level = meta.get("level")
    if level not in ("function", "class"):
        err.append(f"problem.yaml: level must be function or class, not {level!r}")
    tags = meta.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        err.append("problem.yaml: tags must be a list of strings")
        tags = []
    if not any(t.startswith("feature:") for t in tags):
        err.append("problem.yaml: no feature:<x> tag")
    if f"level:{level}" not in tags:
        err.append(f"problem.yaml: tags lack level:{level}")
    if not any(t.startswith("domain:") for t in tags):
        err.append("problem.yaml: no domain:<x> tag")
    if not isinstance(meta.get("imports", []), list):
        err.append("problem.yaml: imports must be a list")
    if not (pdir / "task.md").read_text(encoding="utf-8").strip():
        err.append("task.md is empty")

    entry = str(meta.get("entry_point", ""))
    entry_re = re.compile(rf"(?<![\w]){re.escape(entry)}(?![\w])") if entry else None
    for name in ("signature.swift", "reference.swift"):
        text = (pdir / name).read_text(encoding="utf-8")
        if entry_re and not entry_re.search(text):
            err.append(f"entry_point {entry!r} not found in {name}")
    signature = (pdir / "signature.swift").read_text(encoding="utf-8")
    if "///" not in signature:
        err.append("signature.swift has no doc comment (///)")

    tests_src = (pdir / "tests.swift").read_text(encoding="utf-8")
    p.tests = [m.group(1) for m in TEST_RE.finditer(tests_src)]
    like = [m.group(1) for m in TEST_LIKE_RE.finditer(tests_src)]
    skipped = [n for n in like if n not in p.tests]
    if skipped:
        err.append(f"tests.swift: functions not matching `func test_<name>() [async] throws {{`: {skipped}")
    if not 3 <= len(p.tests) <= 5:
        err.append(f"tests.swift: {len(p.tests)} tests, need 3-5")
    if len(set(p.tests)) != len(p.tests):
        err.append("tests.swift: duplicate test names")
    if re.search(r"^\s*import\s+XCTest", tests_src, re.M):
        err.append("tests.swift: imports XCTest")

    wdir = pdir / "wrong"
    p.wrongs = sorted(wdir.glob("*.swift")) if wdir.is_dir() else []
    if not p.wrongs:
        err.append("no wrong/*.swift")
    reference_text = (pdir / "reference.swift").read_text(encoding="utf-8")
    for w in p.wrongs:
        if w.read_text(encoding="utf-8").strip() == reference_text.strip():
            err.append(f"wrong/{w.name} is identical to reference.swift")

    # Every module imported by the problem's own files must be declared in problem.yaml.
    declared = set(meta.get("imports") or [])
    sources = [pdir / n for n in ("context.swift", "signature.swift", "reference.swift", "tests.swift")]
    for path in sources + p.wrongs:
        if path.is_file():
            for module in IMPORT_RE.findall(path.read_text(encoding="utf-8")):
                if module not in declared:
                    err.append(f"{path.relative_to(pdir)} imports {module}, not listed in problem.yaml imports")
    return p


def run_program(exe: Path, cwd: Path, stdin: bytes) -> tuple[int | None, str, str, bytes]:
    """Runs a test program with a fresh TMPDIR, its tokens on stdin and fd 3 to a file; rc is None on timeout."""
    run_tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=cwd))
    env = dict(os.environ, TMPDIR=str(run_tmp) + "/")
    channel = cwd / "channel.out"
    argv = ["/bin/sh", "-c", 'exec "$0" 3>"$1"', str(exe), str(channel)]
    try:
        rp = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=RUN_TIMEOUT_S, env=env, input=stdin)
        return rp.returncode, rp.stdout.decode(errors="replace"), rp.stderr.decode(errors="replace"), channel.read_bytes()
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return None, out, "", channel.read_bytes() if channel.exists() else b""
    finally:
        shutil.rmtree(run_tmp, ignore_errors=True)


def run_job(job: Job, pdir: Path, flags: list[str], swiftc: str, keep: bool, repeat: int = 1) -> JobResult:
    start = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix=f"swiftsuite-{job.problem}-"))
    try:
        context = (pdir / "context.swift").read_text(encoding="utf-8") if (pdir / "context.swift").is_file() else ""
        tests_src = (pdir / "tests.swift").read_text(encoding="utf-8")
        solution = job.solution.read_text(encoding="utf-8")
        if job.expect == "pass":
            refused = solution_violations(solution, context)
            if refused:
                return JobResult(job, False, "refused by Assay: " + "; ".join(refused), seconds=time.monotonic() - start)
        # Exactly as Assay builds it (assay.languages.swift_units), in the order of Swift.build_command.
        unit = unit_run(tests_src, solution, context)
        order = ["prelude.swift", "context.swift", "solution.swift", "tests.swift", "main.swift"]
        if job.expect == "compile-only":
            order.remove("main.swift")
        files = []
        for name in order:
            if name in unit.files:
                (tmp / name).write_bytes(unit.files[name])
                files.append(tmp / name)
        exe = tmp / "program"
        cmd = [swiftc, *flags, *(str(f) for f in files), "-o", str(exe)]
        if job.expect == "compile-only":
            # Type-check only: the prompt's declarations must fit the tests.
            cmd = [swiftc, *flags, "-typecheck", *(str(f) for f in files)]
        try:
            cp = subprocess.run(cmd, cwd=tmp, capture_output=True, encoding="utf-8", errors="replace",
                                timeout=COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return JobResult(job, False, "compile timeout", seconds=time.monotonic() - start)
        diag = (cp.stdout + cp.stderr).replace(str(tmp) + "/", "")
        first_error = next((ln for ln in diag.splitlines() if ": error:" in ln), diag.strip()[:200])
        if cp.returncode != 0:
            took = time.monotonic() - start
            if job.expect == "compile-error":
                return JobResult(job, True, f"compile error: {first_error}", seconds=took)
            return JobResult(job, False, f"does not compile: {first_error}", diag, took)
        if job.expect == "compile-error":
            return JobResult(job, False, "compiles, but should not", seconds=time.monotonic() - start)
        if job.expect == "compile-only":
            return JobResult(job, True, "type-checks", seconds=time.monotonic() - start)

        # With --repeat, every run must agree: a reference must pass each time, a wrong solution
        # must fail each time. The first disagreeing run is the one reported.
        runs = max(1, repeat)
        for _ in range(runs):
            fresh = unit_run(tests_src, solution, context)  # fresh tokens for every run (the binary keeps its build's names)
            rc, out, errout, channel = run_program(exe, tmp, fresh.stdin)
            report = read_report(channel, fresh)
            passed = rc == 0 and report.ended and not report.forged and all(ok for _, ok, _ in report.results)
            if not passed if job.expect == "pass" else passed:
                break
        took = time.monotonic() - start
        if runs > 1:
            took /= runs
        names = unit.tests
        reports = {name: ("PASS" if ok else "FAIL", message) for name, ok, message in report.results}
        failed = [n for n in names if reports.get(n, ("", ""))[0] == "FAIL"]
        missing = [n for n in names if n not in reports]
        detail = f"exit={rc}\nstdout:\n{out}\nstderr:\n{errout[-3000:]}\nchannel:\n{channel.decode(errors='replace')}"
        if report.forged:
            return JobResult(job, job.expect != "pass", f"channel: {report.forged}", detail, took)
        if job.expect == "pass":
            if passed:
                return JobResult(job, True, f"{len(names)}/{len(names)} pass", seconds=took)
            why = []
            if rc is None:
                why.append("timeout")
            elif rc != 0:
                why.append(f"exit {rc}")
            why += [f"FAIL {n}: {reports[n][1]}" for n in failed]
            if missing:
                why.append(f"no report for {', '.join(missing)}")
            return JobResult(job, False, "; ".join(why), detail, took)
        # expect == "fail"
        if passed:
            return JobResult(job, False, "passes every test, but should fail", detail, took)
        if failed:
            n = failed[0]
            more = f" (+{len(failed) - 1})" if len(failed) > 1 else ""
            return JobResult(job, True, f"FAIL {n}{more}: {reports[n][1][:90]}", seconds=took)
        if rc is None:
            return JobResult(job, True, "timeout", seconds=took)
        if rc < 0:
            return JobResult(job, True, f"crash (signal {-rc}) in {missing[0] if missing else '?'}", seconds=took)
        return JobResult(job, True, f"exit {rc}, missing {', '.join(missing) or '-'}", seconds=took)
    finally:
        if keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ids", nargs="*", help="problem ids or globs (default: all)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel swiftc/test processes (default 2)")
    ap.add_argument("--swiftc", default=shutil.which("swiftc") or "swiftc")
    ap.add_argument("--keep", action="store_true", help="keep the temporary build directories")
    ap.add_argument("--no-signature", action="store_true", help="skip type-checking signature.swift with the tests")
    ap.add_argument("-v", "--verbose", action="store_true", help="print compiler/program output of failed checks")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run each program N times; all runs must agree (flakiness check; default 1)")
    ap.add_argument("--flags", default=None,
                    help="override benchmark.yaml's compile_flags (e.g. \"-swift-version 6 -wmo -Onone\")")
    args = ap.parse_args()

    started = time.monotonic()
    global_errors: list[str] = []
    bench = load_yaml(SUITE / "benchmark.yaml", global_errors)
    for key in BENCHMARK_FIELDS:
        if key not in bench:
            global_errors.append(f"benchmark.yaml: missing {key}")
    flags = [str(f) for f in bench.get("compile_flags") or []]
    if args.flags is not None:
        flags = args.flags.split()
    if not PRELUDE.is_file():
        global_errors.append(f"missing prelude {PRELUDE}")

    all_dirs = sorted(d for d in SUITE.iterdir() if d.is_dir() and not d.name.startswith((".", "_")))
    problems = [validate_problem(d) for d in all_dirs]
    # Suite-wide rules (always over the whole suite, whatever the filter).
    if len(problems) < MIN_PROBLEMS:
        global_errors.append(f"{len(problems)} problems, need at least {MIN_PROBLEMS}")
    n_ce = sum(1 for p in problems for w in p.wrongs if w.name.startswith("compile_error_"))
    if n_ce < MIN_COMPILE_ERROR_WRONGS:
        global_errors.append(f"{n_ce} compile_error_* wrong solutions, need at least {MIN_COMPILE_ERROR_WRONGS}")
    used = {t.split(":", 1)[1] for p in problems for t in p.meta.get("tags", []) if t.startswith("feature:")}
    missing_features = sorted(REQUIRED_FEATURES - used)
    if missing_features:
        global_errors.append(f"no problem covers feature(s): {', '.join(missing_features)}")

    if args.ids:
        problems = [p for p in problems if any(fnmatch.fnmatchcase(p.pid, pat) for pat in args.ids)]
        if not problems:
            print(f"no problem matches {args.ids}", file=sys.stderr)
            return 2

    jobs: list[Job] = []
    for p in problems:
        if p.errors:
            continue
        if not args.no_signature:
            jobs.append(Job(p.pid, "signature", "signature.swift", p.path / "signature.swift", "compile-only"))
        jobs.append(Job(p.pid, "reference", "reference.swift", p.path / "reference.swift", "pass"))
        for w in p.wrongs:
            expect = "compile-error" if w.name.startswith("compile_error_") else "fail"
            jobs.append(Job(p.pid, "wrong", f"wrong/{w.name}", w, expect))

    by_id = {p.pid: p for p in problems}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_job, j, by_id[j.problem].path, flags, args.swiftc, args.keep, args.repeat)
                   for j in jobs]
        results = []
        for f in futures:
            r = f.result()
            results.append(r)
            mark = "ok " if r.ok else "BAD"
            print(f"  [{mark}] {r.job.problem:<28} {r.job.name:<36} {r.seconds:5.1f}s  {r.summary}", flush=True)
            if not r.ok and args.verbose and r.detail:
                print("        " + r.detail.replace("\n", "\n        "))

    # Summary table.
    per_problem: dict[str, list[JobResult]] = {}
    for r in results:
        per_problem.setdefault(r.job.problem, []).append(r)
    print()
    header = f"{'problem':<28} {'level':<8} {'tests':>5}  {'sig':<4} {'ref':<5} {'wrong (ok/total)':<16} status"
    print(header)
    print("-" * len(header))
    bad = 0
    for p in problems:
        rs = per_problem.get(p.pid, [])
        sig = next((("ok" if r.ok else "BAD") for r in rs if r.job.kind == "signature"), "-")
        ref = next((("pass" if r.ok else "BAD") for r in rs if r.job.kind == "reference"), "-")
        wr = [r for r in rs if r.job.kind == "wrong"]
        ok = not p.errors and all(r.ok for r in rs)
        bad += not ok
        status = "ok" if ok else ("; ".join(p.errors) if p.errors else
                                  "; ".join(f"{r.job.name}: {r.summary}" for r in rs if not r.ok))
        print(f"{p.pid:<28} {p.meta.get('level', '?')!s:<8} {len(p.tests):>5}  {sig:<4} {ref:<5} "
              f"{sum(r.ok for r in wr)}/{len(wr):<14} {status}")
    n_func = sum(1 for p in problems if p.meta.get("level") == "function")
    print("-" * len(header))
    print(f"{len(problems)} problems ({n_func} function-level, {len(problems) - n_func} class-level), "
          f"{sum(len(p.tests) for p in problems)} tests, {len(jobs)} builds, "
          f"{sum(1 for j in jobs if j.expect == 'compile-error')} expected compile errors; "
          f"flags: {' '.join(flags)}; {time.monotonic() - started:.0f}s")
    for e in global_errors:
        print(f"SUITE ERROR: {e}")
    if bad or global_errors:
        print(f"FAILED: {bad} problem(s) with issues, {len(global_errors)} suite error(s)")
        return 1
    print("ALL OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
