"""An experiment directory opened for reading: its manifest and the rubric it was run with.

The read side of the directory, used by `resume` and by every reader (`report`, `compare`,
`label`, `validate`, the Python API); the write side is experiment/lifecycle.py. It imports no
part of the run (grader, loop, judges), so a reader does not load them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import MANIFEST, RUBRIC_COPY, Manifest, load_manifest
from autorubric_cli.loading.rubric_loader import load_rubric


@dataclass
class OpenedExperiment:
    """An experiment directory as read: its manifest and the rubric it ran with (its grader
    the resolved configuration). Not the public `autorubric_cli.api.Experiment`, which opens
    one each time it reads."""

    directory: Path
    manifest: Manifest
    rubric: Rubric

    @property
    def rules(self) -> ScoringRules:
        return ScoringRules.from_rubric(self.rubric)


def open_experiment(directory: Path) -> OpenedExperiment:
    """The manifest plus the rubric copy, with the resolved configuration it was run with. A
    pairwise experiment is refused: its records are comparisons, not graded items."""
    manifest = load_manifest(directory)
    if manifest.kind == "pairwise":
        raise InputError(
            "a pairwise experiment (comparisons, not graded items): `autorubric report` and "
            "`autorubric resume` read it; this command reads the directories of `run`",
            path=str(directory),
        )
    rubric = load_rubric(directory / RUBRIC_COPY)
    try:
        resolved = LLMConfig.model_validate(manifest.config)
    except ValidationError as exc:
        error = exc.errors()[0]
        raise InputError(
            f"manifest.json: `config` is invalid: {error['msg']}",
            path=str(directory / MANIFEST),
            key=".".join(str(p) for p in ("config", *error["loc"])),
        ) from None
    return OpenedExperiment(directory, manifest, rubric.model_copy(update={"grader": resolved}))
