"""Replay: completions from an existing samples file, so old generations can be re-scored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.benchmarks._fetch import sha256_file
from assay.models.base import Completion, GenerateConfig, ModelConfigError, Prompt, Response, Usage
from assay.samples import Sample, SamplesError, read_samples


class ReplayModel:
    """Serves each task's samples from a file in order; the prompt only names the task."""

    name = "replay"
    batched = False
    max_n_per_request = 1

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        try:
            rows = read_samples(self.path)
        except FileNotFoundError:
            raise ModelConfigError(f"replay file {self.path} does not exist; give replay:PATH to a samples JSONL file") from None
        except SamplesError as exc:
            raise ModelConfigError(str(exc)) from None
        self.model = str(self.path)
        self.samples: dict[str, list[Sample]] = {}
        for row in rows:
            self.samples.setdefault(row.task_id, []).append(row)
        for task_rows in self.samples.values():
            task_rows.sort(key=lambda r: r.index)
        self.sha256 = sha256_file(self.path)

    def describe(self) -> dict[str, Any]:
        """The file replayed, with its hash."""
        return {"backend": self.name, "model": str(self.path), "sha256": self.sha256}

    def count(self, task_id: str) -> int:
        """How many samples the file has for a task."""
        return len(self.samples.get(task_id, []))

    def sample(self, task_id: str, index: int) -> Sample:
        """The index-th sample of a task, in file order of sample indexes."""
        try:
            return self.samples[task_id][index]
        except (KeyError, IndexError):
            raise ModelConfigError(f"{self.path} has no sample {index} for {task_id}") from None

    async def generate(self, prompt: Prompt, n: int, config: GenerateConfig) -> Response:
        """A replay has no model behind it: it serves recorded samples by task and index (completion()),
        which is how the generator reads it, and refuses a fresh prompt with a one-line error."""
        raise ModelConfigError(f"replay:{self.path} serves the samples it recorded, by task and index; it cannot answer a new prompt")

    def completion(self, task_id: str, index: int) -> Completion:
        """A replayed sample as a completion (a full program if the file gave `solution`)."""
        row = self.sample(task_id, index)
        text = row.solution if row.solution is not None else (row.completion or "")
        return Completion(text, "replay", Usage())

    async def aclose(self) -> None:
        """Nothing to release."""
