"""BigCodeBench's package environment: a venv of upstream's pinned libraries, built once from PyPI, shown read-only to the sandbox.

Upstream pins ~70 packages (requirements-eval.txt) for Python 3.10. Here Python is 3.11, where some pins have no
wheel; each is replaced by the nearest version that installs (SUBSTITUTES, with why); a dependency upstream leaves
unpinned whose newest version breaks a task is pinned in the full set (PINS, with why); and every substitution, pin and
every installed version (pip freeze) is written to the environment's manifest.json, which the run record carries.
`assay env build bigcodebench` builds the full set; `--subset core` builds a small one (numpy, pandas, dateutil,
pytz: what CI can afford). The manifest is written last: an environment without one is unfinished and not used.

The samples run on Assay's own interpreter with the environment's site-packages in place of Assay's (so the
environment must be built with the same Python version), bound read-only into the sandbox.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import default_cache_dir

ENV_VAR = "ASSAY_BIGCODEBENCH_ENV"  # a built environment's directory, in place of the cache's
MANIFEST = "manifest.json"
# Pins that have no CPython 3.11 wheel (or cannot be resolved together with the others there), and what is installed instead.
SUBSTITUTES: dict[str, tuple[str, str]] = {
    "numpy": ("numpy==1.23.5", "1.21.2 has no cp311 wheel (first: 1.23.2); 1.23.5 is the newest tensorflow 2.12 and numba 0.57 accept"),
    "scipy": ("scipy==1.10.1", "1.7.2 has no cp311 wheel (first: 1.9.2)"),
    "numba": ("numba==0.57.1", "0.55.0 has no cp311 wheel (first: 0.57.0)"),
    "scikit-image": ("scikit-image==0.20.0", "0.18.0 and 0.19.3 have no cp311 wheel (first: 0.20.0)"),
    "tensorflow": ("tensorflow==2.12.0", "2.11.0 has no cp311 wheel (first: 2.12.0)"),
    "keras": ("keras==2.12.0", "tensorflow 2.12 requires keras 2.12"),
    "networkx": ("networkx==2.8.8", "scikit-image 0.20 requires networkx >= 2.8 (2.6.3 pinned)"),
}
# Packages upstream does not pin (dependencies pip resolves to their newest version) whose newest version breaks a task,
# pinned in the full environment: each is a requirement line added after upstream's, recorded with its reason.
PINS: dict[str, tuple[str, str]] = {
    "setuptools": ("setuptools<81", "not pinned upstream (a dependency); the newest (84) has no pkg_resources, which "
                                    "BigCodeBench/227's task imports (80.10 still has it)"),
}
# The small environment: the libraries most tasks import after the standard library, with quick wheels.
CORE = ("numpy", "pandas", "python-dateutil", "pytz")
# Import names (as the tasks' `libs` give them) that are not their distribution's name.
DISTRIBUTION = {"sklearn": "scikit-learn", "bs4": "beautifulsoup4", "cv2": "opencv-python-headless", "PIL": "Pillow",
                "dateutil": "python-dateutil", "yaml": "PyYAML", "docx": "python-docx", "skimage": "scikit-image",
                "Crypto": "pycryptodome", "mpl_toolkits": "matplotlib", "faker": "Faker", "django": "Django"}


class EnvironmentError_(RuntimeError):
    """An environment that cannot be built or used (one line, saying what to do)."""


@dataclass(frozen=True)
class BuiltEnv:
    """A finished environment: its directory, site-packages and manifest."""

    path: Path
    manifest: dict[str, Any]

    @property
    def site_packages(self) -> Path:
        v = self.manifest["python"].split(".")
        return self.path / "lib" / f"python{v[0]}.{v[1]}" / "site-packages"

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.manifest["installed"], sort_keys=True).encode()).hexdigest()

    def modules(self) -> set[str]:
        """Top-level import names the environment provides (packages, modules, extension modules, namespace dirs)."""
        found: set[str] = set()
        for entry in self.site_packages.iterdir():
            name = entry.name
            if name.endswith((".dist-info", ".egg-info", ".pth")) or name.startswith(("_", ".")):
                if name.endswith(".dist-info") and (entry / "top_level.txt").is_file():
                    found.update(line.strip() for line in (entry / "top_level.txt").read_text().splitlines() if line.strip())
                continue
            found.add(name.split(".")[0] if entry.is_file() else name)
        return found


def requirement_lines(text: str, subset: str) -> tuple[list[str], list[dict[str, str]]]:
    """The requirement lines to install (deduplicated, substituted, plus the full set's PINS) and the substitutions and
    pins made (a pin's `pinned` is "NAME (unpinned)": upstream names no version)."""
    seen: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name = line.split("==")[0].strip().lower().replace("_", "-")
        seen.setdefault(name, line)
    if subset == "core":
        seen = {k: v for k, v in seen.items() if k in CORE}
    elif subset != "full":
        raise EnvironmentError_(f"no environment subset {subset!r}: choose full or core")
    lines, subs = [], []
    for name, line in seen.items():
        if name in SUBSTITUTES:
            new, why = SUBSTITUTES[name]
            subs.append({"pinned": line, "installed": new, "why": why})
            line = new
        lines.append(line)
    if subset == "full":
        for name, (line, why) in PINS.items():
            if name not in seen:
                subs.append({"pinned": f"{name} (unpinned)", "installed": line, "why": why})
                lines.append(line)
    return lines, subs


def env_name(lines: list[str]) -> str:
    """bigcodebench-<digest of the requirement lines and the Python version>."""
    key = "\n".join(sorted(lines)) + f"\npython {sys.version_info.major}.{sys.version_info.minor}"
    return "bigcodebench-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def build_env(requirements: Path, subset: str = "full", directory: Path | None = None, cache_dir: Path | None = None,
              log: Any = None) -> BuiltEnv:
    """Make the venv, pip install the (substituted) pins, and write the manifest with pip freeze."""
    lines, subs = requirement_lines(requirements.read_text(encoding="utf-8"), subset)
    target = directory or (cache_dir or default_cache_dir()) / "envs" / env_name(lines)
    if (target / MANIFEST).is_file():
        return BuiltEnv(target, json.loads((target / MANIFEST).read_text()))
    if target.exists():
        shutil.rmtree(target)  # an unfinished build
    target.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True)
    req = target / "requirements.txt"
    req.write_text("\n".join(lines) + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(target / "bin" / "python"), "--disable-pip-version-check", "--no-input"]
    done = subprocess.run([*pip, "install", "-r", str(req)], stdout=log, stderr=subprocess.STDOUT if log else None)
    if done.returncode != 0:
        raise EnvironmentError_(f"pip could not install the environment in {target} (exit {done.returncode}); see pip's output above")
    frozen = subprocess.run([*pip, "list", "--format=json"], capture_output=True, text=True, check=True).stdout
    installed = {p["name"]: p["version"] for p in json.loads(frozen)}
    size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file() and not f.is_symlink())
    manifest = {"benchmark": "bigcodebench", "subset": subset, "python": ".".join(map(str, sys.version_info[:3])),
                "requirements_sha256": hashlib.sha256(requirements.read_bytes()).hexdigest(), "requested": lines,
                "substitutions": subs, "installed": dict(sorted(installed.items(), key=lambda kv: kv[0].lower())),
                "build_seconds": round(time.monotonic() - started, 1), "size_mb": round(size / 2**20, 1)}
    tmp = target / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2))
    tmp.replace(target / MANIFEST)
    return BuiltEnv(target, manifest)


def find_env(cache_dir: Path | None = None) -> BuiltEnv | None:
    """The environment samples run in: $ASSAY_BIGCODEBENCH_ENV, else the fullest finished one in the cache (None: none built)."""
    named = os.environ.get(ENV_VAR)
    if named:
        path = Path(named).expanduser()
        if not (path / MANIFEST).is_file():
            raise EnvironmentError_(f"{ENV_VAR}={named} is not a built BigCodeBench environment (no {MANIFEST}); "
                                    "build one with `assay env build bigcodebench --dir DIR`")
        candidates = [path]
    else:
        root = (cache_dir or default_cache_dir()) / "envs"
        candidates = sorted(root.glob("bigcodebench-*/" + MANIFEST)) if root.is_dir() else []
        candidates = [c.parent for c in candidates]
    envs = []
    mine = ".".join(map(str, sys.version_info[:2]))
    for path in candidates:
        manifest = json.loads((path / MANIFEST).read_text())
        if manifest.get("python", "").rsplit(".", 1)[0] == mine:
            envs.append(BuiltEnv(path, manifest))
        elif named:
            raise EnvironmentError_(f"{path} was built for Python {manifest.get('python')}, not this Python {mine}: rebuild it")
    if not envs:
        return None
    return max(envs, key=lambda e: (e.manifest.get("subset") == "full", len(e.manifest["installed"]), str(e.path)))


def record(env: BuiltEnv | None) -> dict[str, Any]:
    """The environment's part of the run record: where, what was asked for, what was substituted and installed."""
    if env is None:
        return {"name": "none", "note": "no BigCodeBench environment built: only tasks using the standard library run "
                                        "(`assay env build bigcodebench`)"}
    m = env.manifest
    return {"name": env.path.name, "path": str(env.path), "digest": env.digest, "subset": m["subset"], "python": m["python"],
            "requirements_sha256": m["requirements_sha256"], "substitutions": m["substitutions"], "installed": m["installed"]}
