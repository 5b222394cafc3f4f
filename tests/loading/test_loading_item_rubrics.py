"""Datasets whose items carry their own criteria (docs/reference/dataset-files.md, per-item
rubrics): what is read, and each bad input as one error naming file, line and key."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.rubric_loader import load_rubric
from tests.support.cli import cli
from tests.support.experiment.item_rubrics import HEALTHBENCH_FIELDS

NO_SHARED = Rubric.model_validate({"criteria": []})
SHARED = Rubric.model_validate({"criteria": [{"name": "tone", "requirement": "Is polite"}]})
HB_ROW: dict[str, Any] = {
    "prompt_id": "hb-7",
    "prompt": [
        {"role": "user", "content": "My baby has a fever of 38.5."},
        {"role": "assistant", "content": "How old is your baby?"},
        {"role": "user", "content": "Two months."},
    ],
    "rubrics": [
        {"criterion": "Advises urgent care", "points": 9, "tags": ["axis:accuracy"]},
        {"criterion": "Suggests waiting a week", "points": -6, "tags": ["axis:accuracy"]},
    ],
    "example_tags": ["theme:emergency_referrals"],
    "ideal_completions_data": {"ideal_completion": "Call your doctor now.", "group": "g1"},
    "canary": "xyz",
}


def write_jsonl(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def items_of(
    path: Path, rubric: Rubric = NO_SHARED, fields: dict[str, str] | None = None
) -> list[Item]:
    return list(iter_items(path, rubric, fields))


def test_a_healthbench_row_is_read_with_the_field_mapping(tmp_path: Path) -> None:
    [item] = items_of(write_jsonl(tmp_path / "hb.jsonl", HB_ROW), fields=HEALTHBENCH_FIELDS)
    assert item.id == "hb-7" and item.submission.output == "Call your doctor now."
    assert item.context is not None and [m.role for m in item.context] == [
        "user",
        "assistant",
        "user",
    ]
    assert [(c.name, c.requirement, c.weight) for c in item.rubric] == [
        ("i1", "Advises urgent care", 9.0),
        ("i2", "Suggests waiting a week", -6.0),
    ]
    assert item.rubric[0].tags == ["axis:accuracy"]
    assert item.tags == ["theme:emergency_referrals"]
    assert item.metadata == {"canary": "xyz"}  # what no field names is kept


def test_our_criterion_form_follows_the_shared_criteria(tmp_path: Path) -> None:
    options = [{"label": "no", "value": 0}, {"label": "yes", "value": 1}]
    row = {
        "submission": "x",
        "rubric": [{"name": "asks", "requirement": "Asks the age", "options": options}],
        "ground_truth": {"tone": "MET", "asks": "Yes"},
        "human_ratings": {"asks": ["no", ["no", "yes"]]},
    }
    [item] = items_of(write_jsonl(tmp_path / "d.jsonl", row), SHARED)
    assert [c.name for c in SHARED.for_item(item.rubric).criteria] == ["tone", "asks"]
    assert item.ground_truth == {"tone": "MET", "asks": "yes"}  # the rubric's spelling
    assert item.human_ratings == {"asks": ["no", ["no", "yes"]]}
    positional = {**row, "ground_truth": ["UNMET", "no"]}
    [item] = items_of(write_jsonl(tmp_path / "p.jsonl", positional), SHARED)
    assert item.ground_truth == {"tone": "UNMET", "asks": "no"}


def test_a_null_key_is_absent_and_a_context_object_is_a_conversation(tmp_path: Path) -> None:
    row = {
        "submission": "x",
        "context": {"messages": [{"role": "user", "content": "hi"}]},
        "rubric": [{"name": None, "criterion": "a", "points": 3, "tags": None}],
        "tags": None,
    }
    [item] = items_of(write_jsonl(tmp_path / "d.jsonl", row))
    assert item.context is not None and item.context[0].content == "hi"
    assert (item.rubric[0].name, item.rubric[0].tags, item.tags) == ("i1", [], [])


GOOD = {"submission": "x", "rubric": [{"requirement": "a"}]}
TWO_OPTIONS = [{"label": "no", "value": 0}, {"label": "yes", "value": 1}]
# (id, the bad item's changes, expected key, words of the message)
BAD_ITEMS: list[tuple[str, dict[str, Any], str, str]] = [
    ("no-criterion", {"rubric": None}, "rubric", "no criterion"),
    ("empty-rubric", {"rubric": []}, "rubric", "no criterion"),
    ("rubric-not-list", {"rubric": {"requirement": "a"}}, "rubric", "list"),
    ("criterion-not-object", {"rubric": [{"requirement": "a"}, "b"]}, "rubric[1]", "object"),
    (
        "points-string",
        {"rubric": [{"criterion": "a", "points": "5"}]},
        "rubric[0].points",
        "number",
    ),
    ("weight-bool", {"rubric": [{"requirement": "a", "weight": [1]}]}, "rubric[0].weight", ""),
    ("missing-requirement", {"rubric": [{"weight": 2}]}, "rubric[0].requirement", "missing"),
    ("unknown-key", {"rubric": [{"requirement": "a", "wieght": 2}]}, "rubric[0].wieght", "weight"),
    (
        "both-forms",
        {"rubric": [{"requirement": "a", "criterion": "b"}]},
        "rubric[0].criterion",
        "not both",
    ),
    (
        "option-value",
        {
            "rubric": [
                {
                    "requirement": "a",
                    "options": [{"label": "x", "value": 0}, {"label": "y", "value": 2}],
                }
            ]
        },
        "rubric[0].options[1].value",
        "outside [0, 1]",
    ),
    (
        "one-option",
        {"rubric": [{"requirement": "a", "options": TWO_OPTIONS[:1]}]},
        "rubric[0].options",
        "two",
    ),
    (
        "bad-aggregation",
        {"rubric": [{"requirement": "a", "aggregation": "median"}]},
        "rubric[0].aggregation",
        "binary",
    ),
    (
        "duplicate-name",
        {"rubric": [{"name": "a", "requirement": "a"}, {"name": "a", "requirement": "b"}]},
        "rubric[1].name",
        "duplicate",
    ),
    (
        "shared-name",
        {"rubric": [{"name": "tone", "requirement": "a"}]},
        "rubric[0].name",
        "rubric file",
    ),
    (
        "empty-criterion-tag",
        {"rubric": [{"requirement": "a", "tags": [""]}]},
        "rubric[0].tags",
        "tag",
    ),
    ("tags-not-list", {"tags": "theme:x"}, "tags", "list"),
    ("tag-not-string", {"tags": ["a", 3]}, "tags[1]", "string"),
    ("context-not-list", {"context": "hello"}, "context", "list of messages"),
    (
        "context-role",
        {"context": [{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]},
        "context[1].role",
        "role",
    ),
    ("truth-unknown-criterion", {"ground_truth": {"i9": "MET"}}, "ground_truth.i9", "unknown"),
    ("truth-bad-label", {"ground_truth": {"i1": "Yes"}}, "ground_truth.i1", "not valid"),
    ("ratings-bad-label", {"human_ratings": {"i1": ["MAYBE"]}}, "human_ratings.i1", "not valid"),
]


@pytest.mark.parametrize(
    ("case", "change", "key", "words"), BAD_ITEMS, ids=[c[0] for c in BAD_ITEMS]
)
def test_a_bad_item_is_one_error_naming_its_line_and_key(
    tmp_path: Path, case: str, change: dict[str, Any], key: str, words: str
) -> None:
    rubric = SHARED if case == "shared-name" else NO_SHARED
    path = write_jsonl(tmp_path / "d.jsonl", GOOD, {**GOOD, **change})
    with pytest.raises(InputError) as caught:
        items_of(path, rubric)
    assert (caught.value.path, caught.value.line, caught.value.key) == (str(path), 2, key)
    assert words in caught.value.message
    assert "\n" not in caught.value.one_line()


def test_csv_cells_hold_the_rubric_context_and_tags_as_json(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "submission", "context", "rubric", "tags"])
        writer.writerow(
            ["a", "ok", json.dumps(HB_ROW["prompt"]), json.dumps(HB_ROW["rubrics"]), '["t:1"]']
        )
        writer.writerow(["b", "ok", "[{]", json.dumps(HB_ROW["rubrics"]), ""])
    with pytest.raises(InputError) as caught:
        items_of(path)
    assert (caught.value.line, caught.value.key) == (3, "context")
    path.write_text("\n".join(path.read_text().splitlines()[:2]) + "\n")
    [item] = items_of(path)
    assert item.context is not None and len(item.context) == 3
    assert [c.weight for c in item.rubric] == [9.0, -6.0] and item.tags == ["t:1"]


def test_the_librarys_per_item_rubrics_replace_the_datasets(tmp_path: Path) -> None:
    """In the `autorubric` library an item's own rubric replaces the dataset's: read as its
    rubric, such a file has no shared criteria and each item carries the criteria the library
    grades it with, its ground truth by their position."""
    path = tmp_path / "lib.json"
    shared = [{"name": "clear", "weight": 5, "requirement": "Is clear"}]
    data = {
        "rubric": shared,
        "prompt": "P",
        "items": [
            {"text": "x", "submission": "s1", "description": "d", "ground_truth": ["MET"]},
            {
                "submission": "s2",
                "description": "e",
                "ground_truth": ["UNMET", "MET"],
                "rubric": [
                    {"name": None, "weight": 3, "requirement": "Cites"},
                    {"name": "short", "weight": -2, "requirement": "Too short"},
                ],
            },
        ],
    }
    path.write_text(json.dumps(data))
    rubric = load_rubric(path)
    assert rubric.criteria == []
    first, second = items_of(path, rubric)
    assert [(c.name, c.weight) for c in first.rubric] == [("clear", 5.0)]
    assert first.ground_truth == {"clear": "MET"}
    assert [(c.name, c.weight) for c in second.rubric] == [("i1", 3.0), ("short", -2.0)]
    assert second.ground_truth == {"i1": "UNMET", "short": "MET"}


def test_check_refuses_a_bad_item_criterion_with_file_line_and_key(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text("criteria: []\n")
    bad = {**HB_ROW, "rubrics": [HB_ROW["rubrics"][0], {"criterion": "b", "points": "x"}]}
    data = write_jsonl(tmp_path / "hb.jsonl", HB_ROW, bad)
    flags = [f"--field={ours}={theirs}" for ours, theirs in HEALTHBENCH_FIELDS.items()]
    result = cli("check", rubric, data, "--no-env", *flags)
    assert result.exit_code == 2
    assert f"{data}:2: rubric[1].points: must be a number" in result.stderr
    write_jsonl(data, HB_ROW)
    result = cli("check", rubric, data, "--no-env", *flags)
    assert result.exit_code == 0, result.output
    assert "1 with criteria of their own (2 in all)" in result.stdout
    alone = cli("check", rubric, "--no-env")
    assert alone.exit_code == 0 and "every item of the dataset must carry its own" in alone.stdout


@pytest.mark.parametrize(
    ("case", "change", "key", "words"), BAD_ITEMS, ids=[c[0] for c in BAD_ITEMS]
)
def test_check_refuses_every_bad_item_as_run_would(
    tmp_path: Path, case: str, change: dict[str, Any], key: str, words: str
) -> None:
    """`check` reads the items as `run` does: each bad item is its one-line error, exit 2."""
    rubric = tmp_path / "r.yaml"
    shared = SHARED if case == "shared-name" else NO_SHARED
    rubric.write_text(yaml.safe_dump(shared.model_dump(mode="json", exclude_defaults=True)))
    data = write_jsonl(tmp_path / "d.jsonl", GOOD, {**GOOD, **change})
    result = cli("check", rubric, data, "--no-env")
    assert result.exit_code == 2, result.output
    [line] = [ln for ln in result.stderr.splitlines() if f"{data}:" in ln]
    assert f"{data}:2: {key}: " in line and words in line
