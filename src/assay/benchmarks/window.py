"""Release-date windows (`--since/--until`): score a model only on problems released after its training cutoff.

A benchmark whose problems carry `extra["released"]` (an ISO date: LiveCodeBench's contest dates) can be cut to
the problems released in [since, until], both days included (LiveCodeBench's compute_scores `--start_date` and
`--end_date`, which compare dates at midnight). The cut benchmark keeps its name, version and content hash, and
says its window in `Benchmark.window` ("2024-01-01..", "..2024-06-30", "2024-01-01..2024-06-30"): the run record
keeps it (benchmark.window) and reports show it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from assay.problems import Benchmark


class WindowError(ValueError):
    """A window that cannot be applied (one line: why, and what to do)."""


def parse_day(text: str, option: str) -> dt.date:
    """A YYYY-MM-DD day, or WindowError naming the option."""
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise WindowError(f"{option} {text}: give a day as YYYY-MM-DD, e.g. 2024-06-01") from None


def released_within(bench: Benchmark, since: str | None, until: str | None) -> Benchmark:
    """The benchmark cut to the problems released from `since` to `until` (days, inclusive); as it is without either."""
    if since is None and until is None:
        return bench
    start = parse_day(since, "--since") if since is not None else None
    end = parse_day(until, "--until") if until is not None else None
    if start is not None and end is not None and start > end:
        raise WindowError(f"--since {start} is after --until {end}: nothing can be in that window")
    days = {pid: p.extra.get("released") for pid, p in bench.problems.items()}
    if not any(days.values()):
        raise WindowError(f"{bench.name}'s problems have no release dates: --since/--until apply to dated benchmarks (livecodebench)")
    keep = {pid: p for pid, p in bench.problems.items()
            if (day := days[pid]) and (start is None or dt.date.fromisoformat(str(day)[:10]) >= start)
            and (end is None or dt.date.fromisoformat(str(day)[:10]) <= end)}
    window = f"{start or ''}..{end or ''}"
    if not keep:
        dated = sorted(str(d)[:10] for d in days.values() if d)
        raise WindowError(f"no problem of {bench.name} was released in {window} (its problems span {dated[0]}..{dated[-1]})")
    return dataclasses.replace(bench, problems=keep, window=window)
