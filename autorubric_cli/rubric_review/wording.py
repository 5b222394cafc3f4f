"""A rubric's wording as data (`improve`): the rubric file read into our YAML shape, revisions
applied to it (requirements and option descriptions only), the invariant checked, the files
written.

The invariant: names, their order and number, weights, kinds and options (labels, values, NA)
never change; only `requirement` and options' `description` do. It is checked on every rubric
`improve` writes (`check_same_shape`), so a reviser cannot change more, whatever it answers.
Relative `few_shot.examples` paths are made absolute, since the copies live elsewhere.
"""

from __future__ import annotations

import copy
import difflib
from pathlib import Path
from typing import Any

import yaml

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.judges.revision import Revision
from autorubric_cli.loading.library_format import library_rubric
from autorubric_cli.loading.rubric_loader import MAX_RUBRIC_BYTES, parse_rubric, read_text_file

RubricData = dict[str, Any]


def rubric_data(path: Path) -> RubricData:
    """The rubric file as a mapping in our shape (the library's shapes converted), every
    criterion named, relative example paths made absolute."""
    text = read_text_file(path, "rubric", MAX_RUBRIC_BYTES)
    rubric = parse_rubric(text, str(path))
    data, _ = library_rubric(yaml.safe_load(text))
    data = copy.deepcopy(data)
    for criterion, parsed in zip(data["criteria"], rubric.criteria, strict=True):
        criterion["name"] = parsed.name
    few_shot = (data.get("grader") or {}).get("few_shot")
    if isinstance(few_shot, dict) and "examples" in few_shot:
        examples = Path(str(few_shot["examples"]))
        few_shot["examples"] = str(
            examples if examples.is_absolute() else (path.parent / examples).resolve()
        )
    return data


def revised(data: RubricData, revisions: dict[str, Revision]) -> RubricData:
    """`data` with each named criterion's requirement and option descriptions replaced."""
    out = copy.deepcopy(data)
    for criterion in out["criteria"]:
        revision = revisions.get(criterion["name"])
        if revision is None:
            continue
        criterion["requirement"] = revision.requirement
        descriptions = {o.label: o.description for o in revision.option_descriptions}
        for option in criterion.get("options") or []:
            if option["label"] in descriptions:
                option["description"] = descriptions[option["label"]]
    return out


def shape(rubric: Rubric) -> list[Any]:
    return [
        (
            c.name,
            c.weight,
            c.kind,
            c.aggregation,
            c.scope,
            c.elicitation,
            [(o.label, o.value, o.na) for o in c.options or []],
        )
        for c in rubric.criteria
    ]


def check_same_shape(original: RubricData, changed: RubricData) -> Rubric:
    """The changed rubric, validated; an AssertionError (a bug) if more than wording changed."""
    before = parse_rubric(dump(original), "rubric")
    after = parse_rubric(dump(changed), "rubric")
    assert shape(before) == shape(after), "improve changed more than the wording"
    assert before.grader == after.grader and before.guidelines == after.guidelines
    return after


def dump(data: RubricData) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def wording_diff(original: RubricData, improved: RubricData, name: str) -> str:
    """A unified diff of the two rubrics, both written the same way, so only wording shows."""
    lines = difflib.unified_diff(
        dump(original).splitlines(keepends=True),
        dump(improved).splitlines(keepends=True),
        fromfile=f"{name} (as read)",
        tofile="rubric.improved.yaml",
    )
    return "".join(lines)
