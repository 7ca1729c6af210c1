"""The run store: one SQLite database per run directory, so a killed run resumes where it stopped."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from assay.problems import Status, TestDetail, Verdict
from assay.provenance import SCHEMA_VERSION, SchemaMismatch, check_schema
from assay.samples import Sample

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS samples (
    task_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    program_hash TEXT NOT NULL,
    completion TEXT,
    solution TEXT,
    extra TEXT NOT NULL,
    PRIMARY KEY (task_id, idx)
);
CREATE INDEX IF NOT EXISTS samples_by_program ON samples(program_hash);
CREATE TABLE IF NOT EXISTS verdicts (
    program_hash TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    verdict TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS generations (
    task_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    error TEXT,
    record TEXT NOT NULL,
    PRIMARY KEY (task_id, idx)
);
CREATE TABLE IF NOT EXISTS references_checked (
    problem_key TEXT PRIMARY KEY,
    verdict TEXT NOT NULL
);
"""


class RunStoreError(ValueError):
    """The run directory belongs to a different run, or to another schema version of Assay's."""


def verdict_to_json(verdict: Verdict) -> str:
    """Serialise a verdict for storage."""
    return json.dumps(asdict(verdict), separators=(",", ":"))


def verdict_from_json(text: str) -> Verdict:
    """Rebuild a stored verdict."""
    data = json.loads(text)
    tests = [TestDetail(name=t["name"], status=Status(t["status"]), message=t["message"], duration_s=t["duration_s"]) for t in data.pop("tests")]
    return Verdict(status=Status(data.pop("status")), tests=tests, **data)


class VerdictCache:
    """Verdicts by program hash in a SQLite file; shared by all threads of one process.

    Writes are group-committed: a verdict is pending (and read back from memory) until a writer thread
    commits what arrived, at most GROUP_S after the first of them or as soon as GROUP_ROWS are waiting,
    in one transaction. One transaction per verdict capped the driver at ~1,000 verdicts a second
    (benchmarks/README.md); a SIGKILL now loses at most GROUP_S of verdicts, which the resumed run judges
    again. close() commits what is pending."""

    GROUP_S = 0.05
    GROUP_ROWS = 500

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[str, str]] = {}  # program hash -> (status, verdict JSON), not yet committed
        self._wake = threading.Condition(self._lock)
        self._writer: threading.Thread | None = None
        self._closed = False
        # isolation_level=None: we open and commit the transactions ourselves.
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:  # a new database (or one from before the version was written: the same tables)
            self._db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)", (json.dumps(SCHEMA_VERSION),))
        else:
            try:
                check_schema(json.loads(row[0]), str(path))
            except SchemaMismatch as exc:
                self._db.close()
                raise RunStoreError(str(exc)) from None

    def get(self, program_hash: str) -> Verdict | None:
        """The stored verdict for a program, if any."""
        with self._lock:
            pending = self._pending.get(program_hash)
            row = (pending[1],) if pending else self._db.execute("SELECT verdict FROM verdicts WHERE program_hash=?", (program_hash,)).fetchone()
        return verdict_from_json(row[0]) if row else None

    def status(self, program_hash: str) -> Status | None:
        """The status of a program's stored verdict, if it has one (a lookup, without decoding the verdict)."""
        with self._lock:
            pending = self._pending.get(program_hash)
            row = (pending[0],) if pending else self._db.execute("SELECT status FROM verdicts WHERE program_hash=?", (program_hash,)).fetchone()
        return Status(row[0]) if row else None

    def put(self, program_hash: str, verdict: Verdict) -> None:
        """Store a verdict: committed with the others that arrive within GROUP_S."""
        record = (verdict.status.value, verdict_to_json(verdict))
        with self._lock:
            if self._closed:
                raise RunStoreError(f"{self.path}: the store is closed")
            first = not self._pending
            self._pending[program_hash] = record
            if len(self._pending) >= self.GROUP_ROWS:
                self._commit_locked()
            elif self._writer is None:
                self._writer = threading.Thread(target=self._write_behind, name="assay-store-writer", daemon=True)
                self._writer.start()
            elif first:
                self._wake.notify()

    def flush(self) -> None:
        """Commit the pending verdicts now."""
        with self._lock:
            self._commit_locked()

    def _commit_locked(self) -> None:
        if not self._pending:
            return
        rows = [(h, status, text) for h, (status, text) in self._pending.items()]
        self._db.execute("BEGIN")
        self._db.executemany("INSERT OR REPLACE INTO verdicts(program_hash, status, verdict) VALUES (?,?,?)", rows)
        self._db.execute("COMMIT")
        self._pending.clear()

    def _write_behind(self) -> None:
        with self._lock:
            while not self._closed:
                if not self._pending:
                    self._wake.wait()
                    continue
                deadline = time.monotonic() + self.GROUP_S  # what else arrives by then goes in the same transaction
                while self._pending and not self._closed and (left := deadline - time.monotonic()) > 0:
                    self._wake.wait(left)
                self._commit_locked()

    def close(self) -> None:
        """Commit what is pending, stop the writer, and close the database."""
        with self._lock:
            if self._closed:
                return
            self._commit_locked()
            self._closed = True
            self._wake.notify_all()
        if self._writer is not None and self._writer is not threading.current_thread():
            self._writer.join()
        with self._lock:
            self._db.close()


class RunStore(VerdictCache):
    """A run directory's database: its configuration, its samples and their verdicts."""

    def __init__(self, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        super().__init__(run_dir / "run.sqlite")
        self.run_dir = run_dir
        # Verdict rows past this one were written since the store was opened (INSERT OR REPLACE gives a new rowid).
        self._opened_at = int(self._db.execute("SELECT coalesce(max(rowid), 0) FROM verdicts").fetchone()[0])

    def judged(self, program_hash: str) -> tuple[Status, bool] | None:
        """A program's verdict status and whether it was written since this store was opened (in this run),
        or None: one indexed lookup, so a run of millions of programs keeps no set of them in memory."""
        with self._lock:
            pending = self._pending.get(program_hash)
            if pending is not None:
                return Status(pending[0]), True
            row = self._db.execute("SELECT status, rowid FROM verdicts WHERE program_hash=?", (program_hash,)).fetchone()
        return (Status(row[0]), int(row[1]) > self._opened_at) if row else None

    def meta(self, key: str) -> Any:
        """A stored configuration value (JSON), or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_meta(self, key: str, value: Any) -> None:
        """Store a configuration value."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (key, json.dumps(value)))

    def identity(self) -> dict[str, Any] | None:
        """The identity this directory is bound to (None before the first claim). Stores written before
        there was one pipeline kept a model run's under `generation_identity`; it is read as the same."""
        found: dict[str, Any] | None = self.meta("identity")
        return found if found is not None else self.meta("generation_identity")

    def claim(self, identity: dict[str, Any], earlier: list[dict[str, Any]] | None = None) -> bool:
        """Bind this directory to one run identity; False if it already was (a resume). `earlier`: what
        older Assays recorded for the same run; such a directory resumes, and is bound to the identity."""
        existing = self.identity()
        if existing is None or (existing != identity and existing in (earlier or [])):
            self.set_meta("identity", identity)
            return existing is None
        if existing != identity:
            diff = sorted(k for k in set(existing) | set(identity) if existing.get(k) != identity.get(k))
            raise RunStoreError(
                f"{self.run_dir} holds a different run (differs in: {', '.join(diff)}); "
                "use another --run-dir or delete that directory"
            )
        return False

    def add_samples(self, samples: list[Sample], first_seq: int = 0) -> None:
        """Record samples, keyed by their program_hash, in the order given (from position first_seq on: a
        stream stored batch by batch); ones already there are kept."""
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR IGNORE INTO samples(task_id, idx, seq, program_hash, completion, solution, extra) VALUES (?,?,?,?,?,?,?)",
                [(s.task_id, s.index, seq, s.program_hash or "", s.completion, s.solution, json.dumps(s.extra)) for seq, s in enumerate(samples, first_seq)],
            )
            self._db.execute("COMMIT")

    def add_generation(self, task_id: str, idx: int, record: dict[str, Any], sample: Sample | None, seq: int = 0, error: str | None = None) -> None:
        """Record one generation attempt: its record and the sample it made (at position seq), or its failure, atomically."""
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT OR REPLACE INTO generations(task_id, idx, ok, error, record) VALUES (?,?,?,?,?)",
                (task_id, idx, int(sample is not None), error, json.dumps(record)),
            )
            if sample is not None:
                self._db.execute(
                    "INSERT OR REPLACE INTO samples(task_id, idx, seq, program_hash, completion, solution, extra) VALUES (?,?,?,?,?,?,?)",
                    (task_id, idx, seq, sample.program_hash or "", sample.completion, sample.solution, json.dumps(sample.extra)),
                )
            self._db.execute("COMMIT")

    def generated(self) -> dict[str, set[int]]:
        """Sample indexes per task that were generated successfully."""
        out: dict[str, set[int]] = {}
        with self._lock:
            for task_id, idx in self._db.execute("SELECT task_id, idx FROM generations WHERE ok=1"):
                out.setdefault(task_id, set()).add(idx)
        return out

    def generation_records(self) -> list[tuple[str, int, bool, str | None, dict[str, Any]]]:
        """Every generation attempt's outcome: task_id, index, ok, error, record."""
        with self._lock:
            rows = self._db.execute("SELECT task_id, idx, ok, error, record FROM generations ORDER BY task_id, idx").fetchall()
        return [(t, i, bool(ok), e, json.loads(r)) for t, i, ok, e, r in rows]

    def samples(self) -> list[Sample]:
        """Every sample, with the program hash it is keyed by ("" before a judge keyed it), in seq order."""
        with self._lock:
            rows = self._db.execute("SELECT task_id, idx, program_hash, completion, solution, extra FROM samples ORDER BY seq").fetchall()
        return [Sample(t, i, c, s, 0, json.loads(e), program_hash=h or None) for t, i, h, c, s, e in rows]

    def rekey(self, context: str, key: Callable[[Sample], str | None]) -> int:
        """Key the stored samples for the judge that `context` names (a digest of what decides verdicts):
        samples stored without a judge (`assay generate`) or under another one (an upgraded toolchain)
        get key(sample) as their program hash. Nothing is hashed when the context is the stored one.
        Returns how many samples changed key."""
        if self.meta("judge_context") == context:
            return 0
        updates = []
        for sample in self.samples():
            new = key(sample)
            if new is not None and new != sample.program_hash:
                updates.append((new, sample.task_id, sample.index))
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("UPDATE samples SET program_hash=? WHERE task_id=? AND idx=?", updates)
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('judge_context', ?)", (json.dumps(context),))
            self._db.execute("COMMIT")
        return len(updates)

    def results(self) -> Iterator[tuple[Sample, Verdict | None]]:
        """Every sample with its verdict (None if not judged yet), in samples-file order."""
        with self._lock:
            self._commit_locked()
            cursor = self._db.execute(
                "SELECT s.task_id, s.idx, s.program_hash, s.completion, s.solution, s.extra, v.verdict FROM samples s "
                "LEFT JOIN verdicts v ON v.program_hash = s.program_hash ORDER BY s.seq"
            )
        while True:  # in chunks, so a run of millions of samples is never all in memory at once
            with self._lock:
                rows = cursor.fetchmany(2000)
            if not rows:
                return
            for task_id, idx, h, completion, solution, extra, verdict in rows:
                sample = Sample(task_id, idx, completion, solution, 0, json.loads(extra), program_hash=h or None)
                yield sample, verdict_from_json(verdict) if verdict else None

    def reference_verdict(self, key: str) -> Verdict | None:
        """The stored outcome of checking a problem's reference solution."""
        with self._lock:
            row = self._db.execute("SELECT verdict FROM references_checked WHERE problem_key=?", (key,)).fetchone()
        return verdict_from_json(row[0]) if row else None

    def put_reference_verdict(self, key: str, verdict: Verdict) -> None:
        """Store the outcome of checking a reference solution."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO references_checked(problem_key, verdict) VALUES (?,?)", (key, verdict_to_json(verdict))
            )
