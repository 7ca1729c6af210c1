"""The run store: one SQLite database per run directory, so a killed run resumes where it stopped."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from assay.problems import Status, TestDetail, Verdict
from assay.provenance import SCHEMA_VERSION, SchemaMismatch, check_schema

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
    """Verdicts by program hash in a SQLite file; shared by all threads of one process."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        # isolation_level=None: we commit each write ourselves, so SIGKILL loses at most one verdict.
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
            row = self._db.execute("SELECT verdict FROM verdicts WHERE program_hash=?", (program_hash,)).fetchone()
        return verdict_from_json(row[0]) if row else None

    def put(self, program_hash: str, verdict: Verdict) -> None:
        """Store a verdict durably (one transaction per verdict)."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts(program_hash, status, verdict) VALUES (?,?,?)",
                (program_hash, verdict.status.value, verdict_to_json(verdict)),
            )

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


class RunStore(VerdictCache):
    """A run directory's database: its configuration, its samples and their verdicts."""

    def __init__(self, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        super().__init__(run_dir / "run.sqlite")
        self.run_dir = run_dir

    def meta(self, key: str) -> Any:
        """A stored configuration value (JSON), or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_meta(self, key: str, value: Any) -> None:
        """Store a configuration value."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (key, json.dumps(value)))

    def claim(self, identity: dict[str, Any], key: str = "identity") -> bool:
        """Bind this directory to one run identity; False if it already was (a resume)."""
        existing = self.meta(key)
        if existing is None:
            self.set_meta(key, identity)
            return True
        if existing != identity:
            diff = sorted(k for k in set(existing) | set(identity) if existing.get(k) != identity.get(k))
            raise RunStoreError(
                f"{self.run_dir} holds a different run (differs in: {', '.join(diff)}); "
                "use another --run-dir or delete that directory"
            )
        return False

    def add_samples(self, rows: list[tuple[str, int, str, str | None, str | None, dict[str, Any]]]) -> None:
        """Record samples (task_id, index, program_hash, completion, solution, extra) in file order; existing ones are kept."""
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR IGNORE INTO samples(task_id, idx, seq, program_hash, completion, solution, extra) VALUES (?,?,?,?,?,?,?)",
                [(t, i, seq, h, c, s, json.dumps(e)) for seq, (t, i, h, c, s, e) in enumerate(rows)],
            )
            self._db.execute("COMMIT")

    def add_generation(
        self, task_id: str, idx: int, record: dict[str, Any], sample: tuple[int, str, str | None, str | None, dict[str, Any]] | None, error: str | None = None
    ) -> None:
        """Record one generated sample (with its samples row, seq/program_hash/completion/solution/extra) or its failure, atomically."""
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT OR REPLACE INTO generations(task_id, idx, ok, error, record) VALUES (?,?,?,?,?)",
                (task_id, idx, int(sample is not None), error, json.dumps(record)),
            )
            if sample is not None:
                seq, h, completion, solution, extra = sample
                self._db.execute(
                    "INSERT OR REPLACE INTO samples(task_id, idx, seq, program_hash, completion, solution, extra) VALUES (?,?,?,?,?,?,?)",
                    (task_id, idx, seq, h, completion, solution, json.dumps(extra)),
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

    def samples(self) -> list[tuple[str, int, str, str | None, str | None, dict[str, Any]]]:
        """Every sample: task_id, index, program_hash, completion, solution, extra (in seq order)."""
        with self._lock:
            rows = self._db.execute("SELECT task_id, idx, program_hash, completion, solution, extra FROM samples ORDER BY seq").fetchall()
        return [(t, i, h, c, s, json.loads(e)) for t, i, h, c, s, e in rows]

    def set_program_hashes(self, rows: list[tuple[str, str, int]]) -> None:
        """Update samples' program hashes (program_hash, task_id, index): the limits or sandbox changed."""
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("UPDATE samples SET program_hash=? WHERE task_id=? AND idx=?", rows)
            self._db.execute("COMMIT")

    def done_programs(self) -> set[str]:
        """Program hashes that already have a verdict (a sandbox error is retried, so it does not count)."""
        with self._lock:
            return {row[0] for row in self._db.execute("SELECT program_hash FROM verdicts WHERE status != 'sandbox_error'")}

    def results(self) -> Iterator[tuple[str, int, str | None, str | None, dict[str, Any], Verdict | None]]:
        """Every sample with its verdict (None if not judged yet), in samples-file order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT s.task_id, s.idx, s.completion, s.solution, s.extra, v.verdict FROM samples s "
                "LEFT JOIN verdicts v ON v.program_hash = s.program_hash ORDER BY s.seq"
            ).fetchall()
        for task_id, idx, completion, solution, extra, verdict in rows:
            yield task_id, idx, completion, solution, json.loads(extra), verdict_from_json(verdict) if verdict else None

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
