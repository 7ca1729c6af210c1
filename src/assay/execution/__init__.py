"""Execution: the pipeline (sample sources -> key each program once -> schedule -> store -> score), the
executor that plans and judges programs, the jobs it hands to a scheduler, and the schedulers.

    sources.py     where samples come from: a samples file (or the references), a model (or a replay)
    pipeline.py    the one run pipeline every command goes through
    executor.py    plans, reference checks, dedup and store writes, on the driver
    labels.py      expected outputs: references run on every input, cached
    jobs.py        a program to judge as a picklable job, and run_job (what any worker does)
    schedulers.py  the Scheduler protocol and the local thread pool
"""

from assay.execution.executor import Executor, JudgeSettings, program_text
from assay.execution.labels import Expected

__all__ = ["Executor", "Expected", "JudgeSettings", "program_text"]
