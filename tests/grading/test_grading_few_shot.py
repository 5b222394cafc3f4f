"""Few-shot examples: loading, seeded balanced selection per criterion, and the prompt."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.config import FewShotConfig
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.grading.few_shot import examples_by_criterion, load_examples, select_examples
from autorubric_cli.grading.grader import CriterionGrader
from tests.support import BINARY, MULTI_CHOICE, make_item, make_rubric


def write_examples(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def labelled_rows() -> list[dict[str, Any]]:
    rows = []
    for i in range(12):
        status = "MET" if i < 9 else "UNMET"
        rows.append(
            {
                "id": f"ex{i}",
                "submission": f"example answer {i}",
                "ground_truth": {"accuracy": status, "quality": ["Poor", "Good"][i % 2]},
                "metadata": {"reasons": {"accuracy": f"reason {i}"}},
            }
        )
    rows.append({"id": "unlabelled", "submission": "no label here"})
    return rows


def rubric_with(few_shot: dict[str, Any]) -> Rubric:
    judges = [{"model": "simulated/a"}]
    return make_rubric(judges, [BINARY, MULTI_CHOICE], few_shot=few_shot)


def test_balanced_selection_alternates_labels_and_is_seeded(tmp_path: Path) -> None:
    write_examples(tmp_path / "train.jsonl", labelled_rows())
    rubric = rubric_with({"examples": "train.jsonl", "n_examples": 4})
    chosen = examples_by_criterion(rubric, seed=1, base_dir=tmp_path)
    assert Counter(e.answer for e in chosen["accuracy"]) == {"MET": 2, "UNMET": 2}
    assert Counter(e.answer for e in chosen["quality"]) == {"Poor": 2, "Good": 2}
    assert all(e.reason is None for e in chosen["accuracy"])
    same = examples_by_criterion(rubric, seed=1, base_dir=tmp_path)
    assert same == chosen
    others = [examples_by_criterion(rubric, seed=s, base_dir=tmp_path) for s in range(2, 8)]
    assert any(o["accuracy"] != chosen["accuracy"] for o in others)


def test_unbalanced_selection_takes_a_seeded_sample(tmp_path: Path) -> None:
    write_examples(tmp_path / "train.jsonl", labelled_rows())
    rubric = rubric_with({"examples": "train.jsonl", "n_examples": 5, "balance_verdicts": False})
    config = rubric.grader.few_shot
    assert config is not None
    examples = load_examples(config, rubric, tmp_path)
    picks = [select_examples(examples, rubric.criteria[0], config, s) for s in range(20)]
    assert all(len(p) == 5 for p in picks)
    assert any(Counter(e.answer for e in p)["MET"] >= 4 for p in picks)
    assert select_examples(examples, rubric.criteria[0], config, 3) == picks[3]


def test_fewer_labelled_examples_than_asked_gives_all(tmp_path: Path) -> None:
    write_examples(tmp_path / "train.jsonl", labelled_rows()[:2])
    rubric = rubric_with({"examples": "train.jsonl", "n_examples": 10})
    chosen = examples_by_criterion(rubric, seed=1, base_dir=tmp_path)
    assert len(chosen["accuracy"]) == 2


def test_reasons_are_included_only_when_asked(tmp_path: Path) -> None:
    write_examples(tmp_path / "train.jsonl", labelled_rows())
    rubric = rubric_with({"examples": "train.jsonl", "n_examples": 3, "include_reason": True})
    chosen = examples_by_criterion(rubric, seed=1, base_dir=tmp_path)
    assert all(e.reason and e.reason.startswith("reason ") for e in chosen["accuracy"])
    assert all(e.reason is None for e in chosen["quality"])


async def test_examples_reach_the_prompt(tmp_path: Path) -> None:
    path = write_examples(tmp_path / "train.jsonl", labelled_rows())
    rubric = rubric_with({"examples": str(path), "n_examples": 2, "include_reason": True})
    engine = CriterionGrader(rubric, seed=1)
    request = engine.requests.request(make_item(), rubric.criteria[0], "simulated/a", 0)
    user = request.messages[1]["content"]
    assert user.count("<example>") == 2
    assert "<answer>\nMET\n</answer>" in user and "<answer>\nUNMET\n</answer>" in user
    # the examples follow the criterion: the item's shared prefix (submission) comes first
    assert user.index("<submission>\n<output>\nThe cell") < user.index("<criterion>")
    assert user.index("<criterion>") < user.index("<examples>")
    record = await engine.grade(make_item())
    assert record.status == "ok"


def test_missing_examples_file_is_an_input_error(tmp_path: Path) -> None:
    rubric = rubric_with({"examples": "absent.jsonl"})
    with pytest.raises(InputError, match="not found"):
        CriterionGrader(rubric, seed=1, base_dir=tmp_path)


def test_bad_reasons_are_an_input_error_naming_the_line(tmp_path: Path) -> None:
    rows = labelled_rows()[:2]
    rows[1]["metadata"] = {"reasons": ["not", "a", "map"]}
    write_examples(tmp_path / "train.jsonl", rows)
    config = FewShotConfig(examples="train.jsonl")
    with pytest.raises(InputError) as caught:
        load_examples(config, rubric_with({"examples": "train.jsonl"}), tmp_path)
    assert caught.value.line == 2 and caught.value.key == "metadata.reasons"
