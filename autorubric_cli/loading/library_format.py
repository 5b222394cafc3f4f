"""The `autorubric` Python library's files, read as they are.

Rubric shapes (its `Rubric.from_dict`): a top-level list of criteria and/or sections (a
section is a mapping with a `criteria:` list), a mapping with `sections:` or `criteria:`
(whose entries may themselves be sections), or a mapping with a `rubric:` key holding one of
those — which is also how its `RubricDataset` JSON embeds its rubric, so that file can be
given as the rubric too. `library_rubric` turns each into our shape and remembers where every
criterion came from, so errors still name the line of the file.

Dataset shape (its `RubricDataset.to_json`): `{"rubric": ..., "items": [{"submission",
"description", "ground_truth": [by criterion position], "reference_submission", "prompt",
"ground_truth_reasons", "rubric"}], "prompt", "reference_submission", "name"}`.

Per-item rubrics: in the library an item's own `rubric` replaces the dataset's. So when any item
has one, every item carries its criteria as its own (its `rubric`, else the dataset's), and the
file read as a rubric has no shared criteria: graded against it, each item gets exactly the
criteria the library would grade it with, ground truth by their position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autorubric_cli.errors import InputError

Loc = tuple[Any, ...]
RUBRIC_KEYS_KEPT = ("name", "guidelines", "grader", "gate", "dataset")


def library_rubric(data: Any) -> tuple[Any, Callable[[Loc], Loc]]:
    """(our rubric mapping, map from a location in it to the location in `data`)."""
    if isinstance(data, list):
        criteria, origins = _flatten(data, ())
        return {"criteria": criteria}, _remap(origins, {})
    if not isinstance(data, dict):
        return data, _identity
    moved: dict[str, Loc] = {}
    outer, inner = data, data
    base: Loc = ()
    if is_rubric_dataset(data) and (data["rubric"] is None or has_item_rubrics(data)):
        kept = {k: data[k] for k in ("name", "guidelines") if data.get(k) is not None}
        return {**kept, "criteria": []}, _identity
    if "rubric" in data and "criteria" not in data and "sections" not in data:
        inner, base = data["rubric"], ("rubric",)
        if isinstance(inner, list):
            criteria, origins = _flatten(inner, base)
            kept = {k: outer[k] for k in ("name", "guidelines") if outer.get(k) is not None}
            return {**kept, "criteria": criteria}, _remap(origins, moved)
        if not isinstance(inner, dict):
            return {"criteria": inner}, _remap([], {"criteria": base})
    key = "sections" if "sections" in inner and "criteria" not in inner else "criteria"
    if key not in inner or not isinstance(inner[key], list):
        return data, _identity
    criteria, origins = _flatten(inner[key], (*base, key))
    out: dict[str, Any] = {}
    for name in RUBRIC_KEYS_KEPT:
        for source, prefix in ((inner, base), (outer, ())):
            if name not in out and isinstance(source, dict) and source.get(name) is not None:
                out[name] = source[name]
                moved[name] = (*prefix, name)
    if base == ():
        out.update({k: v for k, v in data.items() if k not in ("sections", "criteria")})
        moved = {}
    out["criteria"] = criteria
    return out, _remap(origins, moved)


def _flatten(entries: list[Any], base: Loc) -> tuple[list[Any], list[Loc]]:
    """Sections' criteria spliced in place; criteria with `name: null` get the default name."""
    criteria: list[Any] = []
    origins: list[Loc] = []
    for i, entry in enumerate(entries):
        is_section = isinstance(entry, dict) and "criteria" in entry and "requirement" not in entry
        if is_section and isinstance(entry["criteria"], list):
            for j, criterion in enumerate(entry["criteria"]):
                criteria.append(_without_null_name(criterion))
                origins.append((*base, i, "criteria", j))
        else:
            criteria.append(_without_null_name(entry))
            origins.append((*base, i))
    return criteria, origins


def _without_null_name(criterion: Any) -> Any:
    if isinstance(criterion, dict) and "name" in criterion and criterion["name"] is None:
        return {k: v for k, v in criterion.items() if k != "name"}
    return criterion


def _remap(origins: list[Loc], moved: dict[str, Loc]) -> Callable[[Loc], Loc]:
    def remap(loc: Loc) -> Loc:
        if not loc:
            return loc
        head = loc[0]
        at_criterion = head == "criteria" and len(loc) > 1 and isinstance(loc[1], int)
        if at_criterion and 0 <= loc[1] < len(origins):
            return (*origins[loc[1]], *loc[2:])
        if isinstance(head, str) and head in moved:
            return (*moved[head], *loc[1:])
        return loc

    return remap


def _identity(loc: Loc) -> Loc:
    return loc


def is_rubric_dataset(obj: dict[str, Any]) -> bool:
    return "items" in obj and "rubric" in obj


def has_item_rubrics(obj: dict[str, Any]) -> bool:
    """Some item of a RubricDataset object has its own rubric."""
    items = obj.get("items")
    return isinstance(items, list) and any(
        isinstance(item, dict) and item.get("rubric") is not None for item in items
    )


def dataset_items(obj: dict[str, Any], source: str) -> list[Any]:
    """A RubricDataset object's items in our record shape (ground truth stays positional)."""
    if not is_rubric_dataset(obj):
        raise InputError(
            "a .json dataset must be an array of objects, or a RubricDataset object "
            "with `rubric` and `items`",
            path=source,
            line=1,
        )
    items = obj["items"]
    if not isinstance(items, list):
        raise InputError("`items` must be a list", path=source, line=1, key="items")
    shared = obj["rubric"] if has_item_rubrics(obj) else None
    return [_library_item(item, obj, shared) for item in items]


def _library_item(item: Any, dataset: dict[str, Any], shared: Any) -> Any:
    """An item in our record shape; `shared`: the dataset's rubric, given to the items without
    their own when some item has one (None otherwise)."""
    if not isinstance(item, dict):
        return item
    out: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for key, value in item.items():
        if key in ("submission", "ground_truth", "reference_submission", "id"):
            out[key] = value
        elif key == "rubric":
            continue
        elif key == "prompt":
            out["query"] = value
        elif value is not None:
            metadata[key] = value
    for ours, theirs in (("query", "prompt"), ("reference_submission", "reference_submission")):
        if out.get(ours) is None and dataset.get(theirs) is not None:
            out[ours] = dataset[theirs]
    if metadata:
        out["metadata"] = metadata
    own = item.get("rubric")
    rubric = shared if own is None else own
    if rubric is not None:
        out["rubric"] = _criteria_list(rubric)
    return out


def _criteria_list(rubric: Any) -> Any:
    """A library rubric (a list, or a mapping with `criteria:` or `sections:`) as a flat list of
    criteria; anything else as it is (the item's parser says what is wrong)."""
    if isinstance(rubric, dict):
        key = "sections" if "sections" in rubric and "criteria" not in rubric else "criteria"
        rubric = rubric.get(key, rubric)
    return _flatten(rubric, ())[0] if isinstance(rubric, list) else rubric
