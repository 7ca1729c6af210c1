"""Find a benchmark data file locally, or download it once into a cache and verify it."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import httpx

DATA_DIR_ENV = "ASSAY_DATA_DIR"
CACHE_DIR_ENV = "ASSAY_CACHE_DIR"
OFFLINE_ENV = "ASSAY_OFFLINE"  # "1": never touch the network, only local files count

DOWNLOAD_TIMEOUT_S = 60.0
_CHUNK = 1 << 16


class DataError(RuntimeError):
    """A benchmark data file could not be used; the message says what to do."""


class DataUnavailable(DataError):
    """The data file is neither on disk nor downloadable from here."""


class ChecksumMismatch(DataError):
    """A data file's sha256 differs from the one recorded for its release."""


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def default_cache_dir() -> Path:
    """The cache root: $ASSAY_CACHE_DIR, else ~/.cache/assay."""
    env = os.environ.get(CACHE_DIR_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "assay"


def _offline() -> bool:
    return os.environ.get(OFFLINE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def _verify(path: Path, expected_sha256: str | None, *, fix: str) -> None:
    if expected_sha256 is None:
        return
    actual = sha256_file(path)
    if actual != expected_sha256.lower():
        raise ChecksumMismatch(f"{path} has sha256 {actual}, expected {expected_sha256}; {fix}")


def resolve_data_file(
    filename: str,
    *,
    subdir: str,
    url: str | None,
    data_dir: Path | None = None,
    cache_dir: Path | None = None,
    expected_sha256: str | None = None,
) -> Path:
    """Path of `<subdir>/<filename>` from the data dir, else the cache, else downloaded into the cache."""
    looked: list[Path] = []

    data_root = data_dir if data_dir is not None else os.environ.get(DATA_DIR_ENV)
    if data_root:
        candidate = Path(data_root).expanduser() / subdir / filename
        looked.append(candidate)
        if candidate.is_file():
            _verify(
                candidate,
                expected_sha256,
                fix="replace it with the released file, or load it with path= to use it as is",
            )
            return candidate

    cache_root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    cached = cache_root / subdir / filename
    looked.append(cached)
    if cached.is_file():
        _verify(cached, expected_sha256, fix="delete it and it will be downloaded again")
        return cached

    where = ", ".join(str(p) for p in looked)
    hint = f"pass --data-dir DIR or set {DATA_DIR_ENV}=DIR where DIR/{subdir}/{filename} exists"
    if url is None:
        raise DataUnavailable(f"{filename} not found (looked in {where}) and no download URL is known; {hint}")
    if _offline():
        raise DataUnavailable(
            f"{filename} not found (looked in {where}) and {OFFLINE_ENV} forbids downloading {url}; {hint}"
        )
    try:
        _download(url, cached, expected_sha256)
    except ChecksumMismatch:
        raise
    except (httpx.HTTPError, OSError) as exc:
        reason = _describe(exc)
        raise DataUnavailable(
            f"{filename} not found (looked in {where}) and downloading {url} failed ({reason}); {hint}"
        ) from exc
    return cached


def _describe(exc: BaseException) -> str:
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _download(url: str, target: Path, expected_sha256: str | None) -> None:
    """Stream `url` into `target` atomically; a partial or wrong file never takes the final name."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # The temp file sits next to the target so os.replace is a same-filesystem rename.
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            with httpx.stream("GET", url, follow_redirects=True, timeout=DOWNLOAD_TIMEOUT_S) as response:
                response.raise_for_status()
                for chunk in response.iter_bytes(_CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if expected_sha256 is not None and actual != expected_sha256.lower():
            raise ChecksumMismatch(
                f"download of {url} has sha256 {actual}, expected {expected_sha256}; "
                "the release asset changed or the transfer was corrupted, so nothing was cached"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
