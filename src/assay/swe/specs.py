"""SWE-bench's per-repository, per-version environment specs, and tasks set up from them.

SWE-bench's harness (up to 4.x) keeps, for each repository and each `version` its instances carry, how
the environment is made and the tests run: `MAP_REPO_VERSION_TO_SPECS[repo][version]` with keys
`python` (the interpreter's version), `packages` (a package list, `requirements.txt`, read from the
repository at the instance's `environment_setup_commit` by `MAP_REPO_TO_REQS_PATHS`, or conda's
`environment.yml`), `pip_packages`, `pre_install` (commands run in the checkout), `install` (run in the
checkout, e.g. `python -m pip install -e .`), `test_cmd` and `eval_commands`. SWE-bench 5 dropped the
table: its rows name their image and eval script instead (`--image dataset`).

Sources (`--specs`): `swebench`, the installed swebench package's table (`pip install --no-deps
swebench==4.1.0`; only its pure-data constants modules are read, none of its Docker code is imported),
or a JSON file of the same shape, `{"owner/name": {"version": spec}}`, optionally as
`{"specs": {...}, "requirements_paths": {"owner/name": [...]}}`.

A task set up from a spec gets SWE-bench's test command with the test patch's files as directives,
the log parser of its repository (Django's unittest runner, pytest otherwise; SymPy's `bin/test` has
no parser here, so its tasks end as infrastructure errors naming that), `export` lines of
`eval_commands` as variables, and the spec itself under `extra["spec"]`, from which `assay.swe.envs`
builds the environment.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import shlex
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.swe.tasks import Task

NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml")  # SWE-bench's, for directives
PARSER_OF = {"django/django": "unittest", "sympy/sympy": "sympy"}


class SpecsUnavailable(RuntimeError):
    """The specs cannot be read (one line: what to install or fix)."""


@dataclass(frozen=True)
class Specs:
    """A table of specs: repo -> version -> spec, where each repository's requirements files are, and its source."""

    by_repo: dict[str, dict[str, dict[str, Any]]]
    requirements_paths: dict[str, list[str]]
    source: str

    def spec_for(self, repo: str, version: object) -> dict[str, Any] | None:
        return self.by_repo.get(repo, {}).get(str(version)) if version is not None else None


def from_swebench() -> Specs:
    """The installed swebench package's MAP_REPO_VERSION_TO_SPECS and MAP_REPO_TO_REQS_PATHS.

    Only `swebench/harness/constants/` is executed (data modules that import enum, pathlib and typing):
    the packages above it are stand-ins for the import, so swebench's own `__init__` (which imports its
    Docker and dataset code) never runs, and the interpreter's modules are left as they were."""
    from importlib import import_module, metadata

    try:
        dist = metadata.distribution("swebench")
    except metadata.PackageNotFoundError:
        raise SpecsUnavailable("SWE-bench's specs need the swebench package: pip install --no-deps swebench==4.1.0 "
                               "(install.sh does), or give --specs FILE") from None
    root = Path(str(dist.locate_file("swebench")))
    constants = root / "harness" / "constants"
    if not (constants / "__init__.py").is_file():
        raise SpecsUnavailable(f"swebench {dist.version} has no harness/constants/ (SWE-bench 5 keeps no spec table: its rows name an image, "
                               "--image dataset); pip install --no-deps swebench==4.1.0, or give --specs FILE")
    saved = {k: m for k, m in sys.modules.items() if k == "swebench" or k.startswith("swebench.")}
    for key in saved:
        del sys.modules[key]
    try:
        for name, path in (("swebench", root), ("swebench.harness", root / "harness")):
            stand_in = types.ModuleType(name)
            stand_in.__path__ = [str(path)]
            sys.modules[name] = stand_in
        module = import_module("swebench.harness.constants")
        table = getattr(module, "MAP_REPO_VERSION_TO_SPECS", None)
        if not isinstance(table, dict):
            raise SpecsUnavailable(f"swebench {dist.version}: harness.constants has no MAP_REPO_VERSION_TO_SPECS; "
                                   "pip install --no-deps swebench==4.1.0, or give --specs FILE")
        specs = copy.deepcopy(table)
        reqs = copy.deepcopy(getattr(module, "MAP_REPO_TO_REQS_PATHS", {}))
    except SpecsUnavailable:
        raise
    except Exception as exc:  # a swebench whose constants import something else: say which
        raise SpecsUnavailable(f"swebench {dist.version}: its specs could not be read ({type(exc).__name__}: {exc}); "
                               "pip install --no-deps swebench==4.1.0, or give --specs FILE") from None
    finally:
        for key in [k for k in sys.modules if k == "swebench" or k.startswith("swebench.")]:
            del sys.modules[key]
        sys.modules.update(saved)
    return Specs(_checked(specs, "swebench", strict=False), {str(k): [str(p) for p in v] for k, v in reqs.items()}, f"swebench {dist.version}")


def from_file(path: Path) -> Specs:
    """Specs from a JSON file: `{repo: {version: spec}}`, or `{"specs": ..., "requirements_paths": ...}`."""
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise SpecsUnavailable(f"{path}: cannot be read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise SpecsUnavailable(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise SpecsUnavailable(f"{path}: specs must be a JSON object (repo -> version -> spec)")
    reqs = data.get("requirements_paths", {}) if "specs" in data else {}
    table = data.get("specs", data)
    if not isinstance(reqs, dict) or not all(isinstance(v, list) for v in reqs.values()):
        raise SpecsUnavailable(f"{path}: requirements_paths must map each repo to a list of paths")
    return Specs(_checked(table, str(path)), {str(k): [str(p) for p in v] for k, v in reqs.items()}, str(path))


def _checked(table: Any, where: str, strict: bool = True) -> dict[str, dict[str, dict[str, Any]]]:
    if not isinstance(table, dict):
        raise SpecsUnavailable(f"{where}: specs must be an object (repo -> version -> spec)")
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for repo, versions in table.items():
        if not isinstance(versions, dict) or not all(isinstance(s, dict) for s in versions.values()):
            raise SpecsUnavailable(f"{where}: {repo}: each version's spec must be an object")
        for version, spec in versions.items():
            if strict and "test_cmd" not in spec:
                raise SpecsUnavailable(f"{where}: {repo} {version}: a spec needs a test_cmd")
        out[str(repo)] = {str(v): dict(s) for v, s in versions.items()}
    return out


def load_specs(source: str) -> Specs:
    """`swebench` (the installed package's table) or a JSON file's path."""
    return from_swebench() if source == "swebench" else from_file(Path(source))


def directives(task: Task) -> list[str]:
    """The test patch's files, as SWE-bench's harness passes them to the test command (Django: as modules)."""
    found = [d for d in re.findall(r"diff --git a/.* b/(.*)", task.test_patch) if not d.endswith(NON_TEST_EXTS)]
    if task.repo == "django/django":
        found = [(d[:-3] if d.endswith(".py") else d).removeprefix("tests/").replace("/", ".") for d in found]
    return list(dict.fromkeys(found))


def set_up(task: Task, specs: Specs, override: bool = False) -> Task:
    """The task with its spec's setup (test command, parser, variables; `extra["spec"]` for the environment),
    where it names no test command of its own, or always with `override`; unchanged if the table has no spec
    for its repo and version."""
    spec = specs.spec_for(task.repo, task.extra.get("version"))
    # SWE-bench's other languages' specs (docker_specs) and a few of its own without a test_cmd are not set up here
    if spec is None or "python" not in spec or "test_cmd" not in spec or (task.test_cmd and not override):
        return task
    wanted = directives(task)
    command = spec["test_cmd"]
    steps = [str(c) for c in command] if isinstance(command, list) else [str(command)]
    steps[-1] = " ".join([steps[-1], *map(shlex.quote, wanted)])
    variables = {}
    for line in spec.get("eval_commands") or ():
        match = re.fullmatch(r"\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)", str(line))
        if match:
            value = shlex.split(match[2])
            variables[match[1]] = value[0] if value else ""
    env = {**variables, **dict(task.env_vars)} if not override else variables
    install = spec.get("install") or ""
    chosen = {**spec, "repo": task.repo, "version": str(task.extra.get("version")), "source": specs.source,
              "requirements_paths": specs.requirements_paths.get(task.repo, [])}
    return dataclasses.replace(task, language="python", test_cmd=" && ".join(steps), test_directives=tuple(wanted),
                               log_parser=PARSER_OF.get(task.repo, "pytest"), env_vars=tuple(sorted(env.items())),
                               install=str(install), extra={**task.extra, "spec": chosen})


def set_up_all(tasks: list[Task], source: str | None) -> list[Task]:
    """Tasks with specs applied: `source` given, to every task it has a spec for (over the row's own setup);
    without it, the installed swebench package's, to tasks that name no test command and carry a `version`
    (none needed, none read, when every task names its own)."""
    if source is not None:
        specs = load_specs(source)
        return [set_up(t, specs, override=True) for t in tasks]
    if all(t.test_cmd or "version" not in t.extra for t in tasks):
        return tasks
    specs = from_swebench()
    return [set_up(t, specs) for t in tasks]
