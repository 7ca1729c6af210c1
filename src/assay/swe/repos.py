"""One object store per repository, and a cheap checkout per task.

A repository comes from, in order: `<owner>__<name>.bundle` or a git directory `<owner>__<name>` in one
of the given source directories (shared/data/repos holds bundles), else `https://github.com/<repo>`
(for real users; never in tests). It is mirrored once into the cache (`<cache>/swe/repos/<key>.git`);
a task's checkout is a `git clone --shared` of the mirror (objects borrowed, not copied) at the base
commit.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path


class RepoUnavailable(RuntimeError):
    """The repository or its commit cannot be had here (one line: what was looked for)."""


class RepoStore:
    def __init__(self, cache_dir: Path, sources: list[Path], allow_network: bool = False, local: dict[str, Path] | None = None) -> None:
        """`sources`: directories of bundles or clones; `local`: repository key -> a clone to mirror (`assay swe mine`)."""
        self.root = cache_dir / "swe" / "repos"
        self.sources = sources
        self.local = dict(local or {})
        self.allow_network = allow_network
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def _source(self, key: str, repo: str) -> str:
        if key in self.local:
            return str(self.local[key])
        for folder in self.sources:
            for candidate in (folder / f"{key}.bundle", folder / key, folder / f"{key}.git"):
                if candidate.exists():
                    return str(candidate)
        if self.allow_network:
            return f"https://github.com/{repo}.git"
        places = ", ".join(str(s) for s in self.sources) or "no --repos directory"
        raise RepoUnavailable(f"{repo}: no {key}.bundle or {key}/ in {places} (give --repos DIR, e.g. ../shared/data/repos)")

    def mirror(self, key: str, repo: str) -> Path:
        """The mirror of a repository, made once."""
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            path = self.root / f"{key}.git"
            if key in self.local and (path / "HEAD").exists():  # a local clone may have moved on: fetch what it has now
                subprocess.run(["git", "fetch", "-q", "--prune", str(self.local[key]), "+refs/*:refs/*"], cwd=path, capture_output=True)
            if not (path / "HEAD").exists():
                source = self._source(key, repo)
                self.root.mkdir(parents=True, exist_ok=True)
                tmp = self.root / f".{key}.tmp"
                shutil.rmtree(tmp, ignore_errors=True)
                done = subprocess.run(["git", "clone", "-q", "--mirror", source, str(tmp)], capture_output=True, text=True)
                if done.returncode != 0:
                    shutil.rmtree(tmp, ignore_errors=True)
                    raise RepoUnavailable(f"{repo}: git clone --mirror {source} failed: {done.stderr.strip()[-300:]}")
                tmp.rename(path)
            return path

    def checkout(self, key: str, repo: str, commit: str, dest: Path) -> Path:
        """A working tree of the repository at `commit`, in `dest` (created)."""
        mirror = self.mirror(key, repo)
        if subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=mirror, capture_output=True).returncode != 0:
            raise RepoUnavailable(f"{repo}: commit {commit} is not in {mirror}")
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(dest)], check=True, capture_output=True)
        done = subprocess.run(["git", "checkout", "-q", "--detach", commit], cwd=dest, capture_output=True, text=True)
        if done.returncode != 0:
            raise RepoUnavailable(f"{repo}: checkout of {commit} failed: {done.stderr.strip()[-300:]}")
        for key_, value in (("user.email", "assay@localhost"), ("user.name", "assay")):
            subprocess.run(["git", "config", key_, value], cwd=dest, check=True)
        return dest
