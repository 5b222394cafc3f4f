"""The offline simulated judge: determinism, accuracy, biases, and the shuffle it exercises."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.records import CriterionVerdict, ItemRecord
from autorubric_cli.errors import InputError
from autorubric_cli.grading import CriterionGrader
from tests.support import BINARY, MULTI_CHOICE, make_item, make_rubric

WITH_NA = {
    **MULTI_CHOICE,
    "name": "with_na",
    "options": [*MULTI_CHOICE["options"], {"label": "Not applicable", "na": True}],
}


def simulated(name: str = "sim", **params: Any) -> dict[str, Any]:
    return {"model": f"simulated/{name}", "params": params}


async def grade_items(
    judges: list[dict[str, Any]], criteria: list[dict[str, Any]], n: int, **grader: Any
) -> list[ItemRecord]:
    engine = CriterionGrader(make_rubric(judges, criteria, **grader), seed=11)
    records = []
    for i in range(n):
        truth = {"accuracy": "MET" if i % 2 else "UNMET", "quality": "Good"}
        item = make_item(f"item-{i}", f"answer number {i}", index=i, ground_truth=truth)
        records.append(await engine.grade(item))
    await engine.aclose()
    return records


def votes(records: list[ItemRecord], criterion: str) -> list[Any]:
    return [v for r in records for c in r.criteria if c.name == criterion for v in c.votes]


async def test_position_bias_with_shuffle_spreads_over_all_options() -> None:
    records = await grade_items([simulated(position_bias=1.0)], [MULTI_CHOICE], 40)
    chosen = Counter(v.option_index for v in votes(records, "quality"))
    assert set(chosen) == {0, 1, 2, 3}
    assert all(v.option_index == v.shuffle_order[0] for v in votes(records, "quality"))


async def test_position_bias_without_shuffle_always_picks_the_first_option() -> None:
    records = await grade_items(
        [simulated(position_bias=1.0)], [MULTI_CHOICE], 40, shuffle_options=False
    )
    assert {v.option_index for v in votes(records, "quality")} == {0}
    assert all(v.shuffle_order == [0, 1, 2, 3] for v in votes(records, "quality"))


async def test_perfect_accuracy_finds_the_truth_through_any_shuffle() -> None:
    records = await grade_items([simulated(accuracy=1.0)], [BINARY, MULTI_CHOICE], 20)
    assert {v.option_index for v in votes(records, "quality")} == {2}
    for i, record in enumerate(records):
        expected = CriterionVerdict.MET if i % 2 else CriterionVerdict.UNMET
        assert record.criteria[0].votes[0].verdict == expected
    assert all(r.simulated for r in records)


async def test_zero_accuracy_never_answers_the_truth() -> None:
    records = await grade_items([simulated(accuracy=0.0)], [BINARY, MULTI_CHOICE], 20)
    assert 2 not in {v.option_index for v in votes(records, "quality")}
    for i, record in enumerate(records):
        truth = CriterionVerdict.MET if i % 2 else CriterionVerdict.UNMET
        assert record.criteria[0].votes[0].verdict != truth


async def test_accuracy_is_roughly_the_configured_rate() -> None:
    records = await grade_items([simulated(accuracy=0.7, seed=5)], [MULTI_CHOICE], 200)
    right = sum(v.option_index == 2 for v in votes(records, "quality"))
    assert 0.6 < right / 200 < 0.8


async def test_abstain_rate_one_abstains_everywhere_it_can() -> None:
    records = await grade_items([simulated(abstain_rate=1.0)], [BINARY, WITH_NA], 10)
    assert {v.verdict for v in votes(records, "accuracy")} == {CriterionVerdict.CANNOT_ASSESS}
    assert {v.option_index for v in votes(records, "with_na")} == {4}


async def test_answers_depend_on_seed_not_on_call_order() -> None:
    judge = simulated(accuracy=0.5, seed=3)
    forward = await grade_items([judge], [BINARY, MULTI_CHOICE], 12)
    engine = CriterionGrader(make_rubric([judge], [BINARY, MULTI_CHOICE]), seed=11)
    backward = {}
    for i in reversed(range(12)):
        truth = {"accuracy": "MET" if i % 2 else "UNMET", "quality": "Good"}
        item = make_item(f"item-{i}", f"answer number {i}", index=i, ground_truth=truth)
        backward[i] = await engine.grade(item)
    for i, record in enumerate(forward):
        assert record.model_dump(exclude={"duration_s"}) == backward[i].model_dump(
            exclude={"duration_s"}
        )
    other_seed = await grade_items([simulated(accuracy=0.5, seed=4)], [BINARY, MULTI_CHOICE], 12)
    assert [v.verdict for v in votes(forward, "accuracy")] != [
        v.verdict for v in votes(other_seed, "accuracy")
    ]


async def test_pseudo_truth_without_labels_is_stable_and_not_constant() -> None:
    engine = CriterionGrader(make_rubric([simulated(accuracy=1.0)], [BINARY]), seed=1)
    first = [await engine.grade(make_item(f"x{i}")) for i in range(20)]
    again = [await engine.grade(make_item(f"x{i}")) for i in range(20)]
    verdicts = [r.criteria[0].verdict for r in first]
    assert verdicts == [r.criteria[0].verdict for r in again]
    assert set(verdicts) == {CriterionVerdict.MET, CriterionVerdict.UNMET}


async def test_usage_is_a_word_count_and_cost_is_zero() -> None:
    (record,) = await grade_items([simulated()], [BINARY], 1)
    vote = record.criteria[0].votes[0]
    assert vote.cost == 0.0 and record.cost == 0.0
    assert vote.usage["prompt_tokens"] > 100 and vote.usage["completion_tokens"] >= 4
    assert vote.reason == "simulated judge simulated/sim"


@pytest.mark.parametrize(
    ("params", "key"),
    [({"acuracy": 0.5}, "params.acuracy"), ({"accuracy": 1.5}, "params.accuracy")],
)
def test_bad_params_are_input_errors(params: dict[str, Any], key: str) -> None:
    with pytest.raises(InputError) as caught:
        CriterionGrader(make_rubric([simulated(**params)]), seed=1)
    assert caught.value.key == key
    assert "'simulated/sim'" in str(caught.value)


def test_simulated_grading_never_imports_litellm() -> None:
    code = (
        "import asyncio, sys\n"
        "from autorubric_cli.grading import CriterionGrader\n"
        "from tests.support import make_item, make_rubric\n"
        "async def main():\n"
        "    g = CriterionGrader(make_rubric([{'model': 'simulated/x'}]), seed=1)\n"
        "    await g.grade(make_item())\n"
        "    await g.aclose()\n"
        "asyncio.run(main())\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
