"""A pairwise experiment directory opened for reading (`report`, `resume`, `merge`): its manifest,
its rubric with the resolved configuration, its setup, and what items.jsonl already holds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson
from pydantic import ValidationError

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.pair_records import PairRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import (
    ITEMS,
    MANIFEST,
    RUBRIC_COPY,
    Manifest,
    load_manifest,
    sha256_file,
)
from autorubric_cli.experiment.store import ReadIssues, latest_lines, open_records
from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.pairwise.plan import PairwiseSetup


@dataclass
class OpenedPairwise:
    directory: Path
    manifest: Manifest
    rubric: Rubric  # its grader: the resolved configuration the comparison ran with
    setup: PairwiseSetup


def open_pairwise(directory: Path) -> OpenedPairwise:
    manifest = load_manifest(directory)
    where = str(directory / MANIFEST)
    if manifest.kind != "pairwise":
        raise InputError("not a pairwise experiment", path=str(directory))
    rubric = load_rubric(directory / RUBRIC_COPY)
    try:
        config = LLMConfig.model_validate(manifest.config)
        setup = PairwiseSetup.model_validate((manifest.model_extra or {}).get("pairwise"))
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(p) for p in error["loc"])
        raise InputError(f"manifest.json is invalid: {error['msg']}", path=where, key=key) from None
    return OpenedPairwise(directory, manifest, rubric.model_copy(update={"grader": config}), setup)


def check_rubric_unchanged(opened: OpenedPairwise) -> None:
    """Resume only with the rubric the comparison started with."""
    for rubric in (opened.directory / RUBRIC_COPY, Path(opened.manifest.rubric.path)):
        if rubric.is_file() and sha256_file(rubric) != opened.manifest.rubric.sha256:
            raise InputError(
                "rubric changed since the comparison started (SHA-256 differs); "
                "start a new comparison instead of resuming",
                path=str(rubric),
            )


def recorded_comparisons(
    directory: Path, retry_errors: bool, issues: ReadIssues
) -> tuple[set[str], dict[str, PairRecord]]:
    """Ids not to judge again, and (with `retry_errors`) the errored records to judge again."""
    path = directory / ITEMS
    latest = latest_lines(path, issues)
    errored = {i for i, (_, status) in latest.items() if status == "error"}
    if not retry_errors:
        return set(latest), {}
    numbers = {latest[i][0] for i in errored}
    priors: dict[str, PairRecord] = {}
    if numbers:
        with open_records(path) as handle:
            for number, raw in enumerate(handle, start=1):
                if number in numbers:
                    try:
                        record = PairRecord.model_validate(orjson.loads(raw))
                    except (ValidationError, orjson.JSONDecodeError):
                        continue
                    priors[record.id] = record
    return set(latest) - errored, priors
