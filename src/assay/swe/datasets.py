"""Repository-task datasets from the Hugging Face Hub, pinned to a commit, with a local cache.

`--dataset swe-bench-lite` (or any Hub id, `SWE-bench/SWE-bench_Lite`) is fetched once at a revision:
the revision (a branch, a tag or a commit) is resolved to its commit through the Hub's API, the split's
data files are downloaded from that commit (`/resolve/<commit>/<file>`) and kept with their sha256
under `<cache>/swe/datasets/<id>/<commit>/`. The first commit a branch resolved to is pinned in
`pins.json`, so later runs read the same files offline, and a run records the commit
(`hf://<id>@<commit>`); `--refresh` resolves the branch again. `HF_ENDPOINT` names another Hub (a
mirror), and `HF_TOKEN` is sent when set. Parquet files need pyarrow (`pip install -e '.[swe]'`);
JSON Lines files (Multi-SWE-bench's) need nothing. A local file is read by `--tasks` instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from assay.swe.tasks import Task, TaskFormatError, task_from

# Short names for the datasets the seeds use; any other Hub id is taken as it is.
KNOWN = {
    "swe-bench": "SWE-bench/SWE-bench",
    "swe-bench-lite": "SWE-bench/SWE-bench_Lite",
    "swe-bench-verified": "SWE-bench/SWE-bench_Verified",
    "swe-bench-multilingual": "SWE-bench/SWE-bench_Multilingual",
    "multi-swe-bench": "ByteDance-Seed/Multi-SWE-bench",
    "multi-swe-bench-mini": "ByteDance-Seed/Multi-SWE-bench_mini",
}
DATA_SUFFIXES = (".parquet", ".jsonl", ".json")


class DatasetUnavailable(RuntimeError):
    """The dataset could not be fetched or read (one line: what and what to do)."""


@dataclass(frozen=True)
class Fetched:
    """A dataset's split as fetched: where it came from (the commit) and its data files in the cache."""

    repo_id: str
    commit: str
    split: str
    files: tuple[Path, ...]

    @property
    def source(self) -> str:
        return f"hf://{self.repo_id}@{self.commit}/{self.split}"


def repo_id_of(name: str) -> str:
    if name in KNOWN:
        return KNOWN[name]
    if re.fullmatch(r"[\w.-]+/[\w.-]+", name):
        return name
    raise DatasetUnavailable(f"--dataset {name}: not a Hub id (owner/name) nor one of {', '.join(KNOWN)}")


def _endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def _headers() -> dict[str, str]:
    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    return {"authorization": f"Bearer {token}"} if token else {}


def _split_files(names: list[str], split: str) -> list[str]:
    data = sorted(n for n in names if n.endswith(DATA_SUFFIXES) and not n.startswith("."))
    chosen = [n for n in data if re.search(rf"(^|/){re.escape(split)}([-_.][^/]*)?\.[a-z]+$", n) or f"/{split}/" in f"/{n}"]
    if chosen:
        return chosen
    # Multi-SWE-bench has no split in its file names: one JSON Lines file per repository.
    return [n for n in data if n.endswith(".jsonl")]


def fetch(name: str, cache_dir: Path, revision: str = "main", split: str = "test", refresh: bool = False, timeout: float = 120.0) -> Fetched:
    """The split's files at `revision`, from the cache when they are there (see the module docstring)."""
    repo_id = repo_id_of(name)
    root = cache_dir / "swe" / "datasets" / repo_id.replace("/", "__")
    pins_path = root / "pins.json"
    pins: dict[str, str] = json.loads(pins_path.read_text()) if pins_path.exists() else {}
    commit = revision if re.fullmatch(r"[0-9a-f]{40}", revision) else ("" if refresh else pins.get(revision, ""))
    if commit:
        manifest = root / commit / f"{split}.json"
        if manifest.exists():
            entry = json.loads(manifest.read_text())
            files = tuple(root / commit / f for f in entry["files"])
            if all(p.exists() and hashlib.sha256(p.read_bytes()).hexdigest() == entry["sha256"][p.name] for p in files):
                return Fetched(repo_id, commit, split, files)
    base = _endpoint()
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True, headers=_headers()) as client:
            info = client.get(f"{base}/api/datasets/{repo_id}/revision/{urllib.parse.quote(revision, safe='')}")
            if info.status_code == 404:
                raise DatasetUnavailable(f"{repo_id}: no revision {revision!r} on {base} (a branch, a tag or a 40-hex commit)")
            info.raise_for_status()
            body = info.json()
            commit = str(body["sha"])
            names = _split_files([str(s["rfilename"]) for s in body.get("siblings", [])], split)
            if not names:
                raise DatasetUnavailable(f"{repo_id}@{commit[:12]}: no data file for split {split!r}")
            folder = root / commit
            sums: dict[str, str] = {}
            kept: list[str] = []
            for n in names:
                got = client.get(f"{base}/datasets/{repo_id}/resolve/{commit}/{urllib.parse.quote(n)}")
                got.raise_for_status()
                local = n.replace("/", "__")
                (folder / local).parent.mkdir(parents=True, exist_ok=True)
                (folder / local).write_bytes(got.content)
                sums[local] = hashlib.sha256(got.content).hexdigest()
                kept.append(local)
    except httpx.HTTPError as exc:
        raise DatasetUnavailable(f"{repo_id}@{revision}: not in the cache and not fetched from {base} ({type(exc).__name__}: {exc}); "
                                 "fetch it once with network, or give the file with --tasks") from None
    except (KeyError, ValueError) as exc:
        raise DatasetUnavailable(f"{repo_id}: {base} answered with something that is not the Hub's API ({exc})") from None
    (folder / f"{split}.json").write_text(json.dumps({"repo_id": repo_id, "commit": commit, "revision": revision, "files": kept,
                                                      "sha256": sums}, indent=1))
    if not re.fullmatch(r"[0-9a-f]{40}", revision):
        pins[revision] = commit
        pins_path.write_text(json.dumps(pins, indent=1))
    return Fetched(repo_id, commit, split, tuple(folder / f for f in kept))


def rows_of(path: Path) -> list[dict[str, Any]]:
    """A data file's rows: parquet (pyarrow), JSON Lines or JSON."""
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq  # type: ignore[import-untyped]
        except ImportError:
            raise DatasetUnavailable(f"{path.name} is parquet: pip install pyarrow (or -e '.[swe]')") from None
        return [dict(r) for r in pq.read_table(path).to_pylist()]
    text = path.read_text()
    if path.suffix == ".json":
        data = json.loads(text)
        return list(data) if isinstance(data, list) else [data]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load(fetched: Fetched) -> list[Task]:
    """The fetched split's rows as tasks (SWE-bench's or Multi-SWE-bench's schema), each noting its source."""
    tasks: list[Task] = []
    for path in fetched.files:
        for n, row in enumerate(rows_of(path), 1):
            if not isinstance(row, dict):
                raise TaskFormatError(f"{fetched.source}: {path.name}:{n}: not an object")
            task = task_from(row, f"{fetched.source}:{path.name}:{n}")
            task.extra.setdefault("source", fetched.source)
            tasks.append(task)
    if not tasks:
        raise DatasetUnavailable(f"{fetched.source}: no rows")
    return tasks
