"""Augmenting a hand-written suite in its own language (swift-suite, a directory benchmark): more unit
tests, labelled by the suite's own reference in that language.

Such a suite has no Python original and no cases: its tests are unit tests (`func test_x() throws`
with the prelude's expectations). A function-level problem whose entry point's signature is in the
typed value model (Int, Double, String, Bool, arrays, dictionaries, optionals and tuples of them) is
augmented as a Python benchmark is:

1. Seeds: the entry point's calls in tests.swift whose arguments are literals (a `let` bound once to
   a literal counts as one), read by a small Swift literal reader (`assay.augment.swift_reading`, with the signature reader).
2. Type-aware mutation from the seeds by the signature's types (`assay.augment.mutate`).
3. Labelling by differential testing: the reference (with the problem's context) runs in the sandbox
   on every input under a case harness that writes each result through an encoder generated for the
   declared result type, or the error thrown as `String(reflecting:)` (a throwing entry point's
   errors are part of what it does, so they are labelled too, not dropped). Each input runs in a
   child process of its own, and the program runs eight times (each run with its own hash seed, so
   an answer that hangs on the order of a Dictionary shows). An input is dropped, and counted, where
   the reference traps, hits its time limit, or does not answer the same in every run.
4. The kept inputs become unit tests appended to the problem's own tests.swift, each an
   `expectEqual` (`expectApproxEqual` for a Double, `expectThrows(..., matching:)` for an error), so
   they are judged exactly as the hand-written ones are: the prelude's names randomised per build and
   each passing test reporting its token (assay.languages.swift_units).

Problems that cannot be augmented this way (class-level, generic, async, or with a type outside the
model) are copied unchanged and reported with the reason. The output is a directory benchmark in the
same format (docs/benchmark-format.md), with `augment.json` for its provenance.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.augment.generate import GENERATOR_VERSION, Budget, CannotAugment
from assay.augment.swift_reading import SwiftFunction, seeds_of, swift_function
from assay.problems import Benchmark, Problem
from assay.sandbox.base import Sandbox
from assay.values import FLOAT

UNITS_FORMAT = "assay-augmented-units"
PROVENANCE = "augment.json"
CHUNK = 100  # inputs labelled in one build of the reference
TEST_PREFIX = "test_assay_augmented_"

# ---------------------------------------------------------------- labelling by the reference, in Swift

# Each case runs in a child forked from the harness, under its own CPU and wall limits, so a trap
# (a failed precondition, an out-of-range index) or a loop costs that input only, not a rebuild.
# The reference is trusted code: these records are read by `label_inputs` alone, never by a judge.
_RUNNER = r"""
func assayDescribe<T>(_ v: T) -> String { assayString(String(reflecting: v)) }
func assayRaised(_ i: Int, _ e: Error) { assayWrite(String(i) + " e " + assayString(String(reflecting: e))) }
func assayRun(_ i: Int, _ body: () -> Void) {
    let pid = fork()
    if pid == 0 {
        var cpu = rlimit(rlim_cur: __CPU__, rlim_max: __CPU__ + 1)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
        alarm(__WALL__)
        body()
        _exit(0)
    }
    if pid < 0 { assayWrite(String(i) + " x fork"); return }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    if status != 0 { assayWrite(String(i) + " x " + String(status & 0x7f) + " " + String((status >> 8) & 0xff)) }
}
"""
RUNS = 8  # runs of each labelling program: an input is kept only if all of them answer the same
CASE_CPU = 1  # CPU seconds of the reference on one input (a slower input makes slow tests; dropped)
CASE_WALL = 5


def labelling_main(fn: SwiftFunction, calls: Sequence[str]) -> str:
    """main.swift of a labelling run: each call, in a child of its own, writes its result through the
    result type's encoder, or its error; the parent writes how a child that did neither ended."""
    from assay.languages.swift_cases import HELPERS, IMPORTS, Encoders

    encoders = Encoders()
    top = "assayDescribe" if fn.opaque else encoders.of(fn.returns)
    body = "do {{ assayCase({i}, {top}({call})) }} catch {{ assayRaised({i}, error) }}" if fn.throws else "assayCase({i}, {top}({call}))"
    lines = [f"    assayRun({i}) {{ " + body.format(i=i, top=top, call=call) + " }" for i, call in enumerate(calls)]
    groups = [lines[k : k + 50] for k in range(0, len(lines), 50)]
    functions = "\n".join(f"func assayCases{g}() {{\n" + "\n".join(group) + "\n}" for g, group in enumerate(groups))
    run = "\n".join(f"assayCases{g}()" for g in range(len(groups)))
    runner = _RUNNER.replace("__CPU__", str(CASE_CPU)).replace("__WALL__", str(CASE_WALL))
    return IMPORTS + HELPERS + runner + "\n".join(encoders.defs) + "\n" + functions + "\n" + run + f"\nassayFinish({len(calls)})\n"


@dataclass(frozen=True)
class Label:
    """The reference's outcome on one input: ("v", value), ("e", the error's description), or why it has none."""

    kind: str  # "v", "e", or a reason the input is dropped: "trap", "timeout", "build", "unplain", "not labelled"
    value: Any = None


_LINE = re.compile(r"(\d+) ([vex]) (.*)")
_TIMEOUT_SIGNALS = (9, 14, 24)  # SIGKILL (the CPU hard limit), SIGALRM, SIGXCPU


def label_inputs(sandbox: Sandbox, problem: Problem, fn: SwiftFunction, inputs: Sequence[tuple[Any, ...]]) -> list[Label]:
    """Run the reference on every input in the sandbox, CHUNK inputs a build, each input in its own child."""
    from assay.languages import get_language
    from assay.languages.base import build_failure

    language = get_language(problem.language)
    toolchain = language.toolchain()
    language.prepare(toolchain)
    labels: list[Label] = [Label("not labelled")] * len(inputs)
    calls = [fn.call(a) for a in inputs]
    for start in range(0, len(inputs), CHUNK):
        end = min(start + CHUNK, len(inputs))
        budget = float(CASE_WALL * (end - start) + 10)
        limits = type(language.limits)(**{**asdict(language.limits), "run_cpu": budget, "run_wall": budget})
        files = {"prelude.swift": b"", "solution.swift": problem.reference.encode(), "tests.swift": b"",
                 "main.swift": labelling_main(fn, calls[start:end]).encode()}
        if problem.context.strip():
            files["context.swift"] = problem.context.encode()
        result = _run_repeatedly(language, sandbox, problem, files, limits, toolchain)
        if result.error:
            raise RuntimeError(f"sandbox: {result.error}")
        if build_failure(result, limits) is not None:
            labels[start:end] = [Label("build")] * (end - start)
            continue
        seen: dict[int, list[Label]] = {}
        for line in result.channel.decode("utf-8", "surrogateescape").split("\n"):
            match = _LINE.fullmatch(line)
            if match is None or not 0 <= int(match.group(1)) < end - start:
                continue
            i, kind, payload = start + int(match.group(1)), match.group(2), match.group(3)
            if kind == "x":
                signal = payload.split()[0]
                seen.setdefault(i, []).append(Label("timeout" if signal.isdigit() and int(signal) in _TIMEOUT_SIGNALS else "trap"))
            else:
                seen.setdefault(i, []).append(_label(language, fn, kind, payload))
        for i, outcomes in seen.items():
            failed = next((o for o in outcomes if o.kind not in ("v", "e")), None)
            if failed is not None:
                labels[i] = failed
            elif len(outcomes) < RUNS:
                labels[i] = Label("not labelled")
            elif any(o != outcomes[0] for o in outcomes):
                labels[i] = Label("again")
            else:
                labels[i] = outcomes[0]
    return labels


def _run_repeatedly(language: Any, sandbox: Sandbox, problem: Problem, files: dict[str, bytes], limits: Any, toolchain: Any) -> Any:
    """Build once, run the labelling program RUNS times: each run is a new process, with Swift's hash seed
    (and so the order of a Dictionary or Set) its own, so an answer that depends on it shows."""
    import dataclasses

    from assay.languages.base import _path_for, phase_argv
    from assay.sandbox.base import SandboxLimits

    phases = language.phases(toolchain, limits, problem)
    loop = " ".join(["./main &&"] * (RUNS - 1) + ["./main"])
    phases[-1] = dataclasses.replace(phases[-1], argv=phase_argv(loop, toolchain.env), cpu_seconds=limits.run_cpu * RUNS,
                                     wall_seconds=limits.run_wall * RUNS)
    env = {"PATH": _path_for(toolchain), "HOME": "/tmp", **toolchain.env}
    box = SandboxLimits(cpu_seconds=max(limits.build_cpu, limits.run_cpu * RUNS), wall_seconds=limits.build_wall + limits.run_wall * RUNS,
                        memory_bytes=max(limits.memory_bytes, limits.run_memory_bytes or 0), processes=limits.processes,
                        disk_bytes=limits.disk_bytes, output_bytes=limits.output_bytes, channel_bytes=64 * 1024**2)
    return sandbox.run_phases(phases, files, box, env=env)


def _label(language: Any, fn: SwiftFunction, kind: str, payload: str) -> Label:
    from assay.values import WireError

    if kind == "e":
        try:
            return Label("e", str(json.loads(payload)))
        except (ValueError, TypeError):
            return Label("unplain")
    try:
        return Label("v", language.decode_result(payload, fn.returns))
    except WireError:
        return Label("unplain")


# ---------------------------------------------------------------- the generated tests


def test_text(fn: SwiftFunction, cases: Sequence[tuple[tuple[Any, ...], Label]], first: int = 0) -> str:
    """The unit tests for labelled inputs, one function each, numbered from `first`."""
    from assay.languages.swift_cases import render, swift_string

    out = []
    for n, (args, label) in enumerate(cases, first):
        call = fn.call(args)
        if label.kind == "e":
            check = f"try expectThrows({call}, matching: {{ Swift.String(reflecting: $0) == {swift_string(label.value)} }})"
        elif fn.returns.kind == "float" or (fn.returns.kind == "optional" and fn.returns.args[0].kind == "float" and label.value is not None):
            value = float(label.value)
            check = f"try expectApproxEqual({call}{'!' if fn.returns.kind == 'optional' else ''}, {render(value, FLOAT)}, tolerance: {max(1e-9, abs(value) * 1e-9)!r})"
        elif fn.opaque:  # the reference's value, written back as the expression its description is
            check = f"try expectEqual({call}, {_expression(str(label.value))})"
        else:
            check = f"try expectEqual({call}, {render(label.value, fn.returns)})"
        out.append(f"func {TEST_PREFIX}{n}() throws {{\n    {check}\n}}\n")
    return "\n".join(out)


def _expression(description: str) -> str:
    """`String(reflecting:)` of an enum case or a struct (`FoundationEssentials.ComparisonResult.orderedSame`,
    `AssayProgram.Point(x: 1, y: 2)`, `Optional(...)`) as the Swift expression that makes it: module names
    dropped. Whether it builds and equals the reference's value is checked by judging the reference."""
    text = re.sub(r"(?<![\w.\"])(?:AssayProgram|FoundationEssentials|Foundation|Swift)\.", "", description)
    while text.startswith("Optional(") and text.endswith(")"):
        text = text[len("Optional(") : -1]
    return text


# ---------------------------------------------------------------- one problem, one suite


@dataclass
class UnitAugmented:
    """One problem of a hand-written suite: the tests added to it, or why it was not augmented."""

    problem_id: str
    folder: str
    tests: str = ""  # the generated unit tests (appended to tests.swift)
    seeds: int = 0
    generated: int = 0
    kept: int = 0
    raising: int = 0  # of the kept, inputs on which the reference throws (their tests expect that error)
    dropped: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    skipped: str = ""  # why it was not augmented ("" when it was)


_WHY = {"trap": "the reference traps", "timeout": "the reference hits its time limit", "build": "the labelling program does not build",
        "unplain": "the reference's output does not decode", "not labelled": "not labelled (the labelling run ended early)",
        "again": f"the reference does not answer the same in {RUNS} runs"}


def augment_unit_problem(problem: Problem, sandbox: Sandbox, budget: Budget, deadline: float | None = None) -> UnitAugmented:
    """Seeds, mutation and labelling for one function-level problem of a hand-written suite."""
    from assay.augment.mutate import Mutator, canonical
    from assay.problems import test_program

    started = time.monotonic()
    folder = problem.id.split("/", 1)[-1]
    result = UnitAugmented(problem.id, folder)
    try:
        fn = swift_function(str(problem.extra.get("signature", "")), problem.entry_point)
        seeds = seeds_of(test_program(problem).code, fn)
        if not seeds:
            raise CannotAugment(f"no call of {fn.name} in tests.swift has only literal arguments")
    except CannotAugment as exc:
        result.skipped = str(exc)
        return result
    result.seeds = len(seeds)
    rng = random.Random(f"{budget.seed}:{problem.id}")
    seen = {canonical(s) for s in seeds}
    kept: list[tuple[tuple[Any, ...], Label]] = []
    dropped: Counter[str] = Counter()
    for round_ in range(4):
        need = budget.per_problem - len(kept)
        if need <= 0 or (deadline is not None and time.monotonic() >= deadline):
            break
        mutator = Mutator(fn.types, seeds + [a for a, _ in kept], rng)
        new = [a for a in mutator.generate(need if round_ == 0 else 2 * need) if canonical(a) not in seen]
        new = [a for a in new if _renders(fn, a)]
        if not new:
            break
        seen.update(canonical(a) for a in new)
        new.sort(key=lambda a: (len(canonical(a)), canonical(a)))
        result.generated += len(new)
        for args, label in zip(new, label_inputs(sandbox, problem, fn, new), strict=True):
            if label.kind not in ("v", "e"):
                dropped[_WHY.get(label.kind, label.kind)] += 1
            elif len(kept) < budget.per_problem:
                kept.append((args, label))
            else:
                dropped["more than asked for"] += 1
    tests, why = _verified(problem, sandbox, fn, kept, dropped)
    if why:
        result.skipped, tests = f"{why}; none added", ""
    result.kept = len(kept)
    result.raising = sum(1 for _, label in kept if label.kind == "e")
    result.dropped = dict(dropped)
    result.tests = tests
    result.seconds = time.monotonic() - started
    return result


def _verified(problem: Problem, sandbox: Sandbox, fn: SwiftFunction, kept: list[tuple[tuple[Any, ...], Label]],
              dropped: Counter[str]) -> tuple[str, str]:
    """The generated tests, judged with the reference as the sample: it must pass them all. A generated
    test it fails on this third run (an answer that hangs on hash order, say) is dropped as
    non-deterministic and the rest judged again; a build failure, or a failed test of the problem's
    own, rejects them all. Returns (tests, "") or ("", why)."""
    from assay.languages import get_language
    from assay.problems import Status

    language = get_language(problem.language)
    for _ in range(3):
        tests = test_text(fn, kept)
        if not tests:
            return "", ""
        verdict = language.judge(sandbox, with_tests(problem, tests), problem.reference)
        if verdict.status is Status.PASSED:
            return tests, ""
        failed = {d.name for d in verdict.tests if d.status is not Status.PASSED}
        generated = {int(name[len(TEST_PREFIX) :]) for name in failed if name.startswith(TEST_PREFIX)}
        if verdict.status is not Status.FAILED or not generated or failed - {f"{TEST_PREFIX}{n}" for n in generated}:
            break
        dropped[_WHY["again"]] += len(generated)
        kept[:] = [case for n, case in enumerate(kept) if n not in generated]
    return "", f"the reference does not pass the generated tests ({verdict.message[:200]})"


def with_tests(problem: Problem, tests: str) -> Problem:
    """The problem with generated unit tests after its own."""
    import dataclasses

    from assay.problems import ProgramTests, test_program

    own = test_program(problem)
    return dataclasses.replace(problem, tests=ProgramTests(code=own.code.rstrip("\n") + "\n\n" + tests, runner=own.runner))


def _renders(fn: SwiftFunction, args: tuple[Any, ...]) -> bool:
    from assay.languages.base import Unrepresentable

    try:
        fn.call(args)
    except Unrepresentable:
        return False
    return True


def augment_units(benchmark: Benchmark, sandbox: Sandbox, budget: Budget, workers: int = 1,
                  progress: Callable[[UnitAugmented], None] | None = None) -> list[UnitAugmented]:
    """Augment every problem of a hand-written suite that can be (the others come back with the reason)."""
    from concurrent.futures import ThreadPoolExecutor

    deadline = time.monotonic() + budget.seconds if budget.seconds is not None else None

    def one(problem: Problem) -> UnitAugmented:
        done = augment_unit_problem(problem, sandbox, budget, deadline)
        if progress is not None:
            progress(done)
        return done

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, benchmark.problems.values()))


def write_units_suite(source: Path, out: Path, benchmark: Benchmark, results: Sequence[UnitAugmented], budget: Budget, seconds: float) -> Path:
    """The augmented suite: the source directory copied to `out`, generated tests appended to each
    augmented problem's tests.swift, the version marked, and augment.json."""
    from assay import __version__
    from assay.benchmarks.directory import suite_languages

    if out.resolve() == source.resolve() or source.resolve() in out.resolve().parents:
        raise ValueError(f"{out}: the output must be outside the suite itself")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        try:
            earlier = json.loads((out / PROVENANCE).read_text()).get("format")
        except (OSError, ValueError, AttributeError):
            earlier = None
        if earlier != UNITS_FORMAT:  # only an earlier augmented suite is replaced: never a directory of something else
            raise ValueError(f"{out}: exists and is not an augmented suite; give a new or empty directory")
        shutil.rmtree(out)
    shutil.copytree(source, out, ignore=shutil.ignore_patterns(".*", "__pycache__"))
    ext = suite_languages()[next(iter(benchmark.problems.values())).language]
    for r in results:
        if r.tests:
            tests = out / r.folder / f"tests{ext}"
            header = (f"\n// ---- Added by `assay augment` ({GENERATOR_VERSION}): {r.kept} inputs mutated from this file's literal calls, "
                      f"labelled by reference{ext}.\n\n")
            tests.write_text(tests.read_text().rstrip("\n") + "\n" + header + r.tests)
    meta = out / "benchmark.yaml"
    text = meta.read_text()
    version_line = re.search(r"^version:.*$", text, re.M)
    marked = f'version: "{benchmark.version}+augmented"'
    meta.write_text(text.replace(version_line.group(), marked) if version_line else text.rstrip("\n") + f"\n{marked}\n")
    provenance = {
        "format": UNITS_FORMAT, "format_version": 1, "name": benchmark.name,
        "source": {"benchmark": benchmark.name, "version": benchmark.version, "content_hash": benchmark.content_hash, "path": str(source)},
        "generator": {"version": GENERATOR_VERSION, "assay": __version__, **asdict(budget)},
        "seconds": round(seconds, 1),
        "totals": {"problems": len(results), "augmented": sum(1 for r in results if r.tests), "seeds": sum(r.seeds for r in results),
                   "generated": sum(r.generated for r in results), "kept": sum(r.kept for r in results)},
        "problems": {r.problem_id: ({"skipped": r.skipped} if r.skipped else
                                    {"seeds": r.seeds, "generated": r.generated, "kept": r.kept, "expect_error": r.raising,
                                     "dropped": r.dropped, "seconds": round(r.seconds, 2)}) for r in results},
    }
    (out / PROVENANCE).write_text(json.dumps(provenance, indent=2) + "\n")
    return out
