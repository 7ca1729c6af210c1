"""The models metadata file: display names, sizes and families of the models in a report (format: docs/models-meta.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.report.runs import ReportError, Run, disambiguate

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMbBtT]?)\s*$")
_SCALE = {"": Fraction(1), "b": Fraction(1), "m": Fraction(1, 1000), "k": Fraction(1, 10**6), "t": Fraction(1000)}


def parse_size(value: Any) -> float | None:
    """Billions of parameters from 34, 1.5, "34B", "350M" or "1.2T"; None for null or "unknown"."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "unknown", "?", "-")):
        return None
    if isinstance(value, bool):
        raise ValueError(f"size must be a number of billions or like '7B', got {value!r}")
    if isinstance(value, (int, float)):
        size = float(value)
    else:
        match = _SIZE.match(str(value))
        if not match:
            raise ValueError(f"size must be a number of billions or like '7B', '350M', got {value!r}")
        size = float(Fraction(match.group(1)) * _SCALE[match.group(2).lower()])  # exact: "350M" is 0.35, not 0.35000000000000003
    if not size > 0:
        raise ValueError(f"size must be positive, got {value!r}")
    return size


class ModelInfo(BaseModel):
    """One model: the name tables show, the run model names that mean it, its size and family."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    match: list[str] = Field(default_factory=list)
    size: float | None = None  # billions of parameters; None: unknown
    family: str | None = None

    @field_validator("size", mode="before")
    @classmethod
    def _size(cls, value: Any) -> float | None:
        return parse_size(value)

    @field_validator("match", mode="before")
    @classmethod
    def _match(cls, value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        return value  # type: ignore[no-any-return]

    def names(self) -> list[str]:
        """Every name that matches this model (its display name included), case-folded."""
        return [n.casefold() for n in (self.name, *self.match)]


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")
    models: list[ModelInfo]


@dataclass(frozen=True)
class ModelsMeta:
    """A loaded metadata file: lookup by run model name or label (exact, case-insensitive)."""

    path: Path
    models: tuple[ModelInfo, ...]

    def find(self, *names: str) -> ModelInfo | None:
        """The model one of `names` matches, or None."""
        for name in names:
            key = name.casefold()
            for info in self.models:
                if key in info.names():
                    return info
        return None


def load_models_meta(path: Path | str) -> ModelsMeta:
    """Read and validate a models metadata file; ReportError with one line naming the entry and field at fault."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ReportError(f"models metadata file {path} not found; see docs/models-meta.md for its format") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read it ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ReportError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(data, dict) or "models" not in data:
        raise ReportError(f"{path}: expected a mapping with a `models:` list; see docs/models-meta.md")
    try:
        parsed = _File.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = list(first["loc"])
        where = "top level"
        if len(loc) >= 2 and loc[0] == "models" and isinstance(loc[1], int):
            entries = data.get("models") or []
            entry = entries[loc[1]] if loc[1] < len(entries) else None
            name = entry.get("name") if isinstance(entry, dict) else None
            where = f"model {loc[1] + 1}" + (f" ({name})" if name else "") + (f", field {'.'.join(map(str, loc[2:]))}" if loc[2:] else "")
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ReportError(f"{path}: {where}: {message}") from None
    owners: dict[str, str] = {}
    for info in parsed.models:
        for name in dict.fromkeys(info.names()):
            if name in owners and owners[name] != info.name:
                raise ReportError(f"{path}: {name!r} matches two models ({owners[name]} and {info.name}); give each run name to one model")
            owners[name] = info.name
    return ModelsMeta(path, tuple(parsed.models))


def apply_models_meta(runs: Sequence[Run], meta: ModelsMeta | None) -> list[str]:
    """Give runs their display names, sizes and families; notes list the models the file does not have (kept, not dropped)."""
    if meta is None:
        return []
    missing: list[str] = []
    for run in runs:
        info = meta.find(run.label, run.model)
        if info is None:
            run.display_name, run.size_b, run.family = run.label, None, None
            if run.label not in missing:
                missing.append(run.label)
            continue
        run.display_name, run.size_b, run.family = info.name, info.size, info.family
    disambiguate(runs)
    if not missing:
        return []
    return [f"not in {meta.path.name} (shown with unknown size and family): {', '.join(missing)}"]
