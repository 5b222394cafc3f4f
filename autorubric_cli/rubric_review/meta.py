"""The meta-rubric side of `review`: the meta-rubric file as run, the rubric under review as the
item it grades, and the criteria names a check's reply gives mapped to the rubric's.

The shipped meta-rubric is `meta_rubric.yaml` beside this module; `--meta FILE` replaces it.
Criteria named `task_*` are asked only with a task. The file the stage runs (`meta-rubric.yaml`
in the output directory) is the meta-rubric with `affected_criteria: true` and per-criterion
calls, and with the judges of `--judge`, else its own, else the reviewed rubric's.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading.rubric_loader import MAX_RUBRIC_BYTES, parse_rubric, read_text_file

TASK_PREFIX = "task_"
ITEM_ID = "rubric"


def shipped_meta_rubric() -> str:
    return resources.files("autorubric_cli.rubric_review").joinpath("meta_rubric.yaml").read_text()


def meta_rubric_data(meta: Path | None, task: bool, reviewed: Rubric) -> dict[str, Any]:
    """The meta-rubric as the stage runs it (a YAML mapping)."""
    source = str(meta) if meta is not None else "meta_rubric.yaml"
    text = (
        shipped_meta_rubric()
        if meta is None
        else read_text_file(meta, "meta-rubric", MAX_RUBRIC_BYTES)
    )
    parse_rubric(text, source)  # every error names the meta-rubric's file, line and key
    data = yaml.safe_load(text)
    if not task:
        data["criteria"] = [c for c in data["criteria"] if not _is_task_check(c)]
    if not data["criteria"]:
        raise InputError("the meta-rubric has no check to ask without --task", path=source)
    grader = dict(data.get("grader") or {})
    grader.update(affected_criteria=True, llm_calls="per_criterion")
    if not grader.get("judges"):
        grader["judges"] = [
            j.model_dump(mode="json", exclude_defaults=True) for j in reviewed.grader.judges
        ]
    data["grader"] = grader
    return data


def _is_task_check(criterion: Any) -> bool:
    return isinstance(criterion, dict) and str(criterion.get("name", "")).startswith(TASK_PREFIX)


def write_yaml(path: Path, data: dict[str, Any]) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), "utf-8")


def criterion_text(position: int, criterion: Criterion) -> list[str]:
    notes = [f"weight {criterion.weight:g}"]
    if criterion.weight < 0:
        notes.append("a penalty: MET means the error is present")
    if criterion.options is not None:
        notes.append(f"multi-choice, {criterion.scale_type}")
    lines = [f"{position}. {criterion.name} ({', '.join(notes)})"]
    lines.append(f"   Requirement: {' '.join(criterion.requirement.split())}")
    if criterion.options is not None:
        lines.append("   Options:")
        for option in criterion.options:
            value = "not applicable: not scored" if option.na else f"value {option.value:g}"
            lines.append(f"   - {option.label} ({value})")
            if option.description:
                lines.append(f"     {' '.join(option.description.split())}")
    return lines


def rubric_text(rubric: Rubric) -> str:
    """The rubric under review, as the meta-rubric's judges read it."""
    lines = [f"Rubric: {rubric.name}"] if rubric.name else []
    if rubric.guidelines and rubric.guidelines.strip():
        lines += ["Guidelines given to the judge:", rubric.guidelines.strip(), ""]
    lines.append(f"Criteria ({len(rubric.criteria)}):")
    for position, criterion in enumerate(rubric.criteria, start=1):
        lines += criterion_text(position, criterion)
    return "\n".join(lines)


def meta_item(rubric: Rubric, task: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {"id": ITEM_ID, "submission": rubric_text(rubric)}
    if task:
        item["query"] = task
    return item


def normal(name: str) -> str:
    """A name as compared: case-folded, quotes and backticks dropped, spaces and hyphens as _."""
    return re.sub(r"[\s\-]+", "_", name.strip().strip("`'\"").casefold())


def known_names(named: list[str], rubric: Rubric) -> tuple[list[str], int]:
    """The criteria a reply names, as the rubric spells them and in its order; and how many
    names it gave that are no criterion of the rubric (dropped)."""
    by_normal = {normal(c.name): c.name for c in rubric.criteria}
    found = {by_normal.get(normal(name)) for name in named}
    unknown = sum(normal(name) not in by_normal for name in named)
    return [c.name for c in rubric.criteria if c.name in found], unknown
