"""Run directories as typed records for reports: benchmark, model, settings, and per-problem pass flags.

A run is read through `assay.store.RunStore` and scored the way `assay.scoring.score_run` scores it:
skipped samples (no toolchain here) are left out of the scores, a sandbox error counts as a failure,
and HumanEval+/MBPP+ runs give two suites, the benchmark's own score (base and plus tests) and the
base tests alone.

Suite keys name what a score is over: `humaneval`, `multipl-e/humaneval-swift`, ...; a benchmark whose
problems carry EvalPlus "plus" tests gives `<name>` (base + plus tests, EvalPlus's headline number) and
`<name>:base` (the base tests alone). ClassEval's runs add `<name> (methods)`, the method-level score (upstream's
fun_success), whose keys are `<task>::<test class>`.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from assay.metrics import PassAtK, score_pass_at_k
from assay.problems import Benchmark, Status, judged_as
from assay.scoring import inferred_flags, method_flags, suite_flags
from assay.store import RunStore, RunStoreError

RUN_DB = "run.sqlite"
METHODS = " (methods)"  # classeval's method-level suite, `<name> (methods)`: its keys are `<task>::<test class>`, not problems
# Samples-file names that say nothing about the model: the folder they sit in names it instead.
GENERIC_STEMS = frozenset({"samples", "completions", "solutions", "answers", "generations", "results", "outputs", "output"})


class ReportError(ValueError):
    """Input a report cannot be built from; the message is one line that says what to do."""


@dataclass(frozen=True)
class BenchmarkInfo:
    """Which benchmark a run scored, as recorded in the run."""

    name: str
    version: str
    content_hash: str
    n_problems: int | None = None
    window: str = ""  # the release-date window (--since/--until) the run's problems were chosen by


@dataclass(frozen=True)
class SampleResult:
    """One judged sample: its problem, index, verdict status and the problem's language."""

    task_id: str
    index: int
    status: str
    language: str


@dataclass
class Run:
    """One run directory, ready for tables: who, on what, how, and every judged sample."""

    run_dir: Path
    label: str  # the name tables show (unique among the runs of one report)
    model: str  # the model as the run recorded it: backend's model name, or the samples file's label
    kind: Literal["model", "samples"]  # `assay run` (a model generated) or `assay evaluate` (a samples file)
    benchmark: BenchmarkInfo
    config: dict[str, Any]
    samples: list[SampleResult]
    suites: dict[str, dict[str, list[bool]]]  # suite key -> task_id -> pass flags of its scored samples
    n_unjudged: int = 0  # samples without a verdict (an unfinished run)
    notes: list[str] = field(default_factory=list)
    n_covered: int = 0  # problems the run has samples of (defective ones included); 0: not known
    # Filled from a models metadata file (assay.report.models_meta.apply_models_meta).
    display_name: str = ""
    size_b: float | None = None
    family: str | None = None
    _scores: dict[tuple[str, int, float], PassAtK] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.display_name = self.display_name or self.label

    @property
    def partial(self) -> bool:
        """Whether the run covers only some of its benchmark's problems (a partial samples file, --limit)."""
        return bool(self.benchmark.n_problems and self.n_covered and self.n_covered < self.benchmark.n_problems)

    @property
    def headline_suite(self) -> str:
        """The suite that is the benchmark's own score (base + plus tests where there are plus tests)."""
        return self.benchmark.name if self.benchmark.name in self.suites else next(iter(self.suites))

    @property
    def problem_ids(self) -> list[str]:
        """Problems with at least one scored sample, in natural order."""
        return natural_sorted({t for key, flags in self.suites.items() if not key.endswith(METHODS) for t in flags})

    @property
    def assay_version(self) -> str | None:
        """The Assay version that produced the run."""
        return (self.config.get("assay") or {}).get("version")

    @property
    def git_commit(self) -> str | None:
        """The git commit of the Assay that produced the run, when it ran from a checkout."""
        return (self.config.get("assay") or {}).get("git_commit")

    def samples_per_problem(self, suite: str | None = None) -> tuple[int, int]:
        """Fewest and most scored samples of a problem."""
        flags = self.suites.get(suite or self.headline_suite, {})
        sizes = [len(v) for v in flags.values()] or [0]
        return min(sizes), max(sizes)

    def score(self, suite: str, k: int, confidence: float = 0.95) -> PassAtK:
        """pass@k on one suite with its bootstrap interval over problems (cached)."""
        key = (suite, k, confidence)
        if key not in self._scores:
            if suite not in self.suites:
                raise ReportError(f"{self.run_dir}: no suite {suite!r} in this run (it has {', '.join(self.suites)})")
            self._scores[key] = score_pass_at_k(self.suites[suite], [k], confidence=confidence)[k]
        return self._scores[key]

    def status_counts(self) -> Counter[str]:
        """How many samples got each status."""
        return Counter(s.status for s in self.samples)

    def settings(self) -> dict[str, Any]:
        """The settings that shape scores, flattened (`sampling.temperature`, `settings.timeout`, `sandbox`, ...)."""
        out: dict[str, Any] = {}
        for section in ("sampling", "settings"):
            for key, value in (self.config.get(section) or {}).items():
                if section == "sampling" and key in ("n", "seed"):
                    continue  # n shows as samples per problem; a seed does not change what is measured
                out[f"{section}.{key}"] = value
        template = self.config.get("prompt_template")
        if isinstance(template, dict):
            out["prompt_template"] = template.get("sha256") or template.get("name")
        sandbox = self.config.get("sandbox")
        if isinstance(sandbox, dict):
            out["sandbox"] = sandbox.get("name")
        return out

    def settings_summary(self) -> str:
        """Settings in a few words for a table cell."""
        s = self.settings()
        parts = []
        if self.kind == "samples":
            parts.append("samples file")
        elif s.get("sampling.greedy") or s.get("sampling.temperature") == 0:
            parts.append("greedy")
        elif "sampling.temperature" in s:
            parts.append(f"T={_num(s['sampling.temperature'])} top-p={_num(s.get('sampling.top_p'))}")
        timeout = s.get("settings.timeout")
        parts.append(f"timeout {_num(timeout)} s" if timeout is not None else "timeout auto")
        if s.get("sandbox"):
            parts.append(str(s["sandbox"]))
        return ", ".join(parts)


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that puts HumanEval/2 before HumanEval/10."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part)


def natural_sorted(items: Iterable[str]) -> list[str]:
    """Strings in natural order."""
    return sorted(items, key=natural_key)


def samples_label(path: Path) -> str:
    """A model label from a samples file path: its stem, or its folder's name when the stem is generic."""
    stem = path.name.split(".")[0]
    if path.parent.name == "references":  # `assay evaluate --references` writes cache/references/<bench>-<hash>.jsonl
        return "reference solutions"
    if stem.lower() in GENERIC_STEMS and path.parent.name:
        return path.parent.name
    return stem


def model_name(config: Mapping[str, Any], run_dir: Path) -> tuple[str, Literal["model", "samples"]]:
    """The model a run scored: the backend's model name (`assay run`) or the samples file's label (`assay evaluate`)."""
    model = config.get("model")
    if isinstance(model, dict) and model.get("model"):
        name = str(model["model"])
        return (samples_label(Path(name)) if model.get("backend") == "replay" else name), "model"
    samples = config.get("samples")
    if isinstance(samples, dict) and samples.get("path"):
        return samples_label(Path(str(samples["path"]))), "samples"
    return run_dir.name, "samples"


_BENCHMARKS: dict[tuple[str, str, str], Benchmark | None] = {}


def local_benchmark(info: BenchmarkInfo, source: str | None) -> Benchmark | None:
    """The run's benchmark, loaded from the local file the run recorded, if it is there and unchanged; never downloads."""
    if not source or not Path(source).is_file():
        return None
    key = (info.name, source, info.content_hash)
    if key not in _BENCHMARKS:
        from assay.benchmarks import load_benchmark

        try:
            bench: Benchmark | None = load_benchmark(info.name, path=Path(source))
        except Exception:  # any failure means: infer from the run instead
            bench = None
        _BENCHMARKS[key] = bench if bench is not None and bench.content_hash == info.content_hash else None
    return _BENCHMARKS[key]


def _fallback_language(config: Mapping[str, Any]) -> str:
    # The toolchain record names python (always, it judges) plus the benchmark's other languages.
    others = [k for k in (config.get("toolchain") or {}) if k not in ("python", "driver")]
    return others[0] if len(others) == 1 else ("python" if not others else "unknown")


def load_run(
    run_dir: Path | str,
    *,
    label: str | None = None,
    benchmark: Benchmark | None = None,
    allow_unfinished: bool = False,
) -> Run:
    """Read a run directory; ReportError (one line) if it is not a run, is empty, or is unfinished (unless allowed)."""
    run_dir = Path(run_dir)
    from assay.report.swe import is_swe_run, load_swe_run

    if not (run_dir / RUN_DB).is_file() and is_swe_run(run_dir):
        return load_swe_run(run_dir, label, allow_unfinished)
    if not (run_dir / RUN_DB).is_file():
        raise ReportError(f"{run_dir} is not a run directory (no {RUN_DB}); give directories made by `assay evaluate` or `assay run`")
    try:
        store = RunStore(run_dir)
    except sqlite3.Error as exc:
        raise ReportError(f"{run_dir}/{RUN_DB} cannot be read ({exc}); is it a run database?") from None
    except RunStoreError as exc:  # another schema version's
        raise ReportError(str(exc)) from None
    try:
        config = store.meta("config")
        if not isinstance(config, dict) or not isinstance(config.get("benchmark"), dict):
            raise ReportError(f"{run_dir} has no run configuration: the run never started; run it again")
        results = list(store.results())
        defects = store.meta("defects") or {}
        generation_done = store.meta("generation") is not None
        failed_generations = sum(1 for _t, _i, ok, _e, _r in store.generation_records() if not ok)
    except sqlite3.Error as exc:
        raise ReportError(f"{run_dir}/{RUN_DB} cannot be read ({exc}); is it a run database?") from None
    finally:
        store.close()
    b = config["benchmark"]
    info = BenchmarkInfo(str(b.get("name")), str(b.get("version")), str(b.get("content_hash")), b.get("n_problems"), str(b.get("window") or ""))
    model, kind = model_name(config, run_dir)
    if not results:
        raise ReportError(f"{run_dir} has no samples (benchmark {info.name}, model {model}): nothing to report; run or resume it first")
    notes: list[str] = []
    n_unjudged = sum(1 for _s, v in results if v is None)
    unfinished = []
    if n_unjudged:
        unfinished.append(f"{n_unjudged} of {len(results)} samples have no verdict")
    if kind == "model" and not generation_done:
        unfinished.append("generation did not finish")
    if unfinished:
        what = "; ".join(unfinished)
        if not allow_unfinished:
            raise ReportError(f"{run_dir} is unfinished ({what}); resume it with the same command, or pass --allow-unfinished")
        notes.append(f"unfinished run: {what}; scores cover what was judged")
    if failed_generations:
        notes.append(f"{failed_generations} samples could not be generated; their problems have fewer samples")

    bench = benchmark if benchmark is not None and benchmark.name == info.name else None
    if bench is not None and bench.content_hash != info.content_hash:
        notes.append(f"the benchmark given ({bench.version}) differs from the run's ({info.version}); languages and suites inferred from the run")
        bench = None
    if bench is None:
        bench = local_benchmark(info, b.get("source"))
    split = any(t.name in ("suite:base", "suite:plus") for _s, v in results if v is not None for t in v.tests)
    fallback = _fallback_language(config)
    samples: list[SampleResult] = []
    suites: dict[str, dict[str, list[bool]]] = {}
    sandbox_errors = 0
    for sample, verdict in results:
        if verdict is None:
            continue
        task_id, idx = sample.task_id, sample.index
        problem = bench.problems.get(task_id) if bench is not None else None
        language = problem.language if problem is not None else fallback
        samples.append(SampleResult(task_id, idx, verdict.status.value, language))
        sandbox_errors += verdict.status is Status.SANDBOX_ERROR
        if verdict.status is Status.SKIPPED or task_id in defects:
            continue  # no toolchain here, or a defective problem: not scored (as in score_run)
        flags = suite_flags(bench, task_id, verdict) if problem is not None and bench is not None else inferred_flags(verdict, info.name, split)
        for suite_label, ok in flags.items():
            key = f"{info.name}:base" if suite_label == "base" else (info.name if suite_label in ("plus", info.name) else f"{info.name}:{suite_label}")
            suites.setdefault(key, {}).setdefault(task_id, []).append(ok)
        if problem is not None and bench is not None:  # classeval: the method-level score, each method's test class a problem
            for method_key, ok in method_flags(bench, task_id, verdict).items():
                suites.setdefault(f"{info.name}{METHODS}", {}).setdefault(method_key, []).append(ok)
    if bench is None:
        notes.append(f"{info.name} {info.version} was not found as the run recorded it: languages and suites were inferred from the verdicts")
    if sandbox_errors:
        notes.append(f"{sandbox_errors} samples got a sandbox error (the harness could not judge them); they count as failures")
    skipped = sum(1 for s in samples if s.status == Status.SKIPPED.value)
    if skipped:
        notes.append(f"{skipped} samples were skipped (toolchain missing) and are not scored")
    if bench is not None:
        judged = {pid for pid in {s.task_id for s in samples} if pid in bench.problems and judged_as(bench.problems[pid])[0] == "program-judged"}
        if judged:
            notes.append(f"{len(judged)} problems are program-judged (their tests ran in the sample's process, not as cases): "
                         + ", ".join(sorted(judged)[:5]) + (" ..." if len(judged) > 5 else ""))
        tagged = Counter(t for pid in {s.task_id for s in samples} if pid in bench.problems for t in bench.problems[pid].tags if t.startswith("defect:"))
        if tagged:
            notes.append("problems with a known benchmark defect (scored as they are): " + ", ".join(f"{t} {n}" for t, n in sorted(tagged.items())))
    if defects:
        notes.append(f"{len(defects)} defective problems (their reference fails its own tests) are scored apart: "
                     + ", ".join(sorted(defects)[:5]) + (" ..." if len(defects) > 5 else ""))
    if not suites:
        raise ReportError(f"{run_dir} has no scored samples (all {len(samples)} were skipped); install the toolchain and rerun")
    n_covered = len({t for key, flags in suites.items() if not key.endswith(METHODS) for t in flags}) + len(defects)
    if info.n_problems and n_covered < info.n_problems:
        notes.append(f"covers {n_covered} of the {info.n_problems} problems of {info.name}")
    return Run(run_dir, label or model, model, kind, info, config, samples, suites, n_unjudged, notes, n_covered=n_covered)


def find_run_dirs(root: Path | str) -> list[Path]:
    """Every run directory (one holding run.sqlite) at or below root, in natural order; ReportError if there is none."""
    root = Path(root)
    from assay.report.swe import RUN_JSON, is_swe_run

    found = [p.parent for p in root.rglob(RUN_DB)] if root.is_dir() else []
    found += [p.parent for p in root.rglob(RUN_JSON) if is_swe_run(p.parent)] if root.is_dir() else []
    if not found:
        raise ReportError(f"no run directories under {root}; run `assay evaluate` or `assay run` first, or give their directories")
    return [Path(p) for p in natural_sorted(str(p) for p in found)]


def load_runs(
    run_dirs: Sequence[Path | str],
    *,
    labels: Mapping[str, str] | None = None,
    allow_unfinished: bool = False,
) -> list[Run]:
    """Read several run directories; labels (run dir -> label) override model names; duplicates get the run dir's name."""
    if not run_dirs:
        raise ReportError("no run directories given; pass one or more directories made by `assay evaluate` or `assay run`")
    labels = {str(Path(k)): v for k, v in (labels or {}).items()}
    seen: set[Path] = set()
    runs = []
    for d in run_dirs:
        path = Path(d)
        if path.resolve() in seen:
            continue  # the same run twice (a shell glob and an explicit name) would count twice
        seen.add(path.resolve())
        runs.append(load_run(path, label=labels.get(str(path)), allow_unfinished=allow_unfinished))
    disambiguate(runs)
    return runs


def disambiguate(runs: Sequence[Run]) -> None:
    """Give runs of one benchmark that share a display name distinct names (the run directory's name is added)."""
    by_bench: dict[str, Counter[str]] = {}
    for run in runs:
        by_bench.setdefault(run.benchmark.name, Counter())[run.display_name] += 1
    for run in runs:
        if by_bench[run.benchmark.name][run.display_name] > 1:
            note = f"{run.display_name} has several {run.benchmark.name} runs; shown as {run.display_name} [{run.run_dir.name}]"
            if note not in run.notes:
                run.notes.append(note)
            run.display_name = f"{run.display_name} [{run.run_dir.name}]"


def suites_of(runs: Sequence[Run]) -> list[str]:
    """Every suite key the runs have, benchmarks in first-seen order, each headline before its base suite."""
    out: list[str] = []
    for run in runs:
        for key in sorted(run.suites, key=lambda s: (s.endswith(":base"), s)):
            if key not in out:
                out.append(key)
    return out


def runs_for_suite(runs: Sequence[Run], suite: str) -> list[Run]:
    """The runs that have a suite; ReportError naming the known suites when none has it."""
    chosen = [r for r in runs if suite in r.suites]
    if not chosen:
        raise ReportError(f"no run has the suite {suite!r}; the runs have: {', '.join(suites_of(runs)) or 'none'}")
    return chosen


def settings_differences(runs: Sequence[Run]) -> dict[str, dict[str, Any]]:
    """Settings whose recorded values differ between runs: key -> {display name: value} (unknown values left out)."""
    keys = sorted({k for r in runs for k in r.settings()})
    out: dict[str, dict[str, Any]] = {}
    for key in keys:
        values = {r.display_name: r.settings()[key] for r in runs if key in r.settings()}
        if len({repr(v) for v in values.values()}) > 1:
            out[key] = values
    return out


def comparability_notes(runs: Sequence[Run], suite: str) -> list[str]:
    """Visible notes for runs put in one table: benchmark versions, problem sets and settings that differ."""
    notes: list[str] = []
    versions = {(r.benchmark.version, r.benchmark.content_hash) for r in runs}
    if len(versions) > 1:
        listed = "; ".join(
            f"{v} ({h[:12]}): {', '.join(r.display_name for r in runs if (r.benchmark.version, r.benchmark.content_hash) == (v, h))}"
            for v, h in sorted(versions)
        )
        notes.append(f"runs used different versions of {suite.split(':')[0]}, so their scores are not strictly comparable: {listed}")
    problem_sets = {frozenset(r.suites[suite]) for r in runs}
    if len(problem_sets) > 1:
        common = frozenset.intersection(*problem_sets)
        sizes = ", ".join(f"{r.display_name} {len(r.suites[suite])}" for r in runs)
        notes.append(f"runs cover different problems ({sizes}; {len(common)} shared): each score is over its own problems")
    for key, values in settings_differences(runs).items():
        shown = ", ".join(f"{name}: {_num(v)}" for name, v in values.items())
        notes.append(f"setting {key} differs between runs ({shown})")
    n_per = {r.display_name: r.samples_per_problem(suite) for r in runs}
    if len({v for v in n_per.values()}) > 1:
        shown = ", ".join(f"{name}: {lo}" + (f"-{hi}" if hi != lo else "") for name, (lo, hi) in n_per.items())
        notes.append(f"samples per problem differ ({shown}): pass@k is unbiased for each, but intervals differ in width")
    return notes
