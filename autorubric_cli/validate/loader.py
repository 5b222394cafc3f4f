"""The one module of `validate` that reads files: the experiment, --human and --fc-matrix.

--human FILE: any dataset format (docs/reference/dataset-files.md, read by `loading.readers`), one
record per item,
`{"id": ..., "human_ratings": {...}}` (other dataset keys are allowed and ignored, so the
dataset itself can be passed). Labels are checked and canonicalised exactly as the dataset
loader does; an error names file:line:key. When given,
it replaces the ratings stored in the experiment's records.

--fc-matrix FILE: JSON, `{"<criterion>": {"<chosen label>": [{"set": [labels], "p": prob}]}}`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.loading.dataset import parse_human_ratings
from autorubric_cli.loading.readers import iter_records
from autorubric_cli.loading.where import Where
from autorubric_cli.validate.analysis import validation
from autorubric_cli.validate.collect import HumanEntries, collect
from autorubric_cli.validate.result import ValidateResult
from autorubric_cli.validate.settings import ValidateSettings

HumanFile = dict[str, dict[str, HumanEntries]]


def validate_experiment(
    directory: Path,
    settings: ValidateSettings,
    *,
    human_path: Path | None = None,
    criteria: Sequence[str] = (),
    overlay: Callable[[ItemRecord], ItemRecord] | None = None,
) -> ValidateResult:
    """Read the experiment (and --human), compare judges with humans; no judge is called.
    `overlay` adds ratings to each record (the human labels' `LabelOverlay.apply`)."""
    settings.check()
    experiment = open_experiment(directory)
    rubric = experiment.rubric
    names = selected_criteria(rubric, criteria)
    human = read_human_file(human_path, rubric) if human_path is not None else None
    issues = ReadIssues()
    items = directory / ITEMS
    records = iter_latest_records(items, issues, rubric.criteria)
    # human labels (docs/guides/labels.md), where the records have no ratings
    if overlay is not None:
        records = map(overlay, records)
    collected = collect(rubric, records, names, human)
    if not collected.criteria:
        source = str(human_path) if human_path is not None else str(items)
        raise InputError(
            "no human ratings for any validated criterion: add `human_ratings` to the dataset "
            "(criterion -> one label or list of labels per rater) or pass --human FILE",
            path=source,
        )
    result = validation(collected, settings)
    return ValidateResult(
        experiment=experiment.manifest.name,
        simulated=experiment.manifest.simulated,
        judges=result.judges,
        directions=result.directions,
        criteria=result.criteria,
        warnings=[*result.warnings, *issues.warnings(items)],
    )


def selected_criteria(rubric: Rubric, names: Sequence[str]) -> list[str]:
    """--criterion names (checked), or every criterion of the rubric."""
    known = [c.name for c in rubric.criteria]
    for name in names:
        if name not in known:
            raise InputError(
                f"unknown criterion {name!r} (one of: {', '.join(known)})", key="--criterion"
            )
    return list(names) or known


def read_human_file(path: Path, rubric: Rubric) -> HumanFile:
    """id -> criterion -> canonical rating entries."""
    if not path.is_file():
        raise InputError("human ratings file not found", path=str(path), key="--human")
    table: HumanFile = {}
    for where, obj in iter_records(path):
        item_id, ratings = _human_line(obj, where, rubric)
        if item_id in table:
            raise where.error(f"duplicate id {item_id!r}", key="id")
        table[item_id] = ratings
    return table


def _human_line(obj: Any, where: Where, rubric: Rubric) -> tuple[str, dict[str, HumanEntries]]:
    if not isinstance(obj, dict):
        raise where.error("each line must be a JSON object")
    item_id = obj.get("id")
    if isinstance(item_id, bool) or not isinstance(item_id, str | int) or not str(item_id).strip():
        raise where.error("each line needs an `id` (string) naming an item", key="id")
    if "human_ratings" not in obj:
        raise where.error("missing required key 'human_ratings'", key="human_ratings")
    parsed = parse_human_ratings(obj["human_ratings"], where, rubric)
    return str(item_id).strip(), {name: list(entries) for name, entries in parsed.items()}


def read_fc_matrix(path: Path, rubric: Rubric) -> dict[str, Any]:
    """criterion name -> rows, from a JSON object keyed by criterion name."""
    if not path.is_file():
        raise InputError("forced-choice matrix file not found", path=str(path), key="--fc-matrix")
    try:
        obj = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {str(exc).split(':')[0]}", path=str(path)) from None
    if not isinstance(obj, dict):
        raise InputError(
            'must be a JSON object: {"<criterion>": {"<chosen label>": [{"set", "p"}, ...]}}',
            path=str(path),
        )
    known = {c.name for c in rubric.criteria}
    for name in obj:
        if name not in known:
            raise InputError(f"unknown criterion {name!r}", path=str(path), key=name)
    return dict(obj)
