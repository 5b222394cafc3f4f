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
from autorubric_cli.grading.grader import CriterionGrader
from tests.support import BINARY, MULTI_CHOICE, make_item, make_rubric

WITH_NA = {
    **MULTI_CHOICE,
    "name": "with_na",
    "options": [*MULTI_CHOICE["options"], {"label": "Not applicable", "na": True}],
}


CANNOT = CriterionVerdict.CANNOT_ASSESS


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
        "from autorubric_cli.grading.grader import CriterionGrader\n"
        "from tests.support import make_item, make_rubric\n"
        "async def main():\n"
        "    g = CriterionGrader(make_rubric([{'model': 'simulated/x'}]), seed=1)\n"
        "    await g.grade(make_item())\n"
        "    await g.aclose()\n"
        "asyncio.run(main())\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
    )
    root = str(Path(__file__).resolve().parents[3])
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


# -- response-set elicitation ---------------------------------------------------------------


def elicit(base: dict[str, Any], elicitation: str) -> dict[str, Any]:
    return {**base, "elicitation": elicitation}


async def test_both_sets_contain_the_forced_choice_and_keep_it_unchanged() -> None:
    judge = simulated(accuracy=0.5, abstain_rate=0.2, seed=8)
    forced = await grade_items([judge], [BINARY, WITH_NA], 40)
    both = await grade_items([judge], [elicit(BINARY, "both"), elicit(WITH_NA, "both")], 40)
    for name in ("accuracy", "with_na"):
        before, after = votes(forced, name), votes(both, name)
        assert [(v.verdict, v.option_index, v.shuffle_order) for v in before] == [
            (v.verdict, v.option_index, v.shuffle_order) for v in after
        ]
        assert all(v.option_set is None for v in before)
    for vote in votes(both, "with_na"):
        assert vote.option_set == sorted(set(vote.option_set))
        assert vote.option_index in vote.option_set
    encoded = {CriterionVerdict.UNMET: 0, CriterionVerdict.MET: 1}
    statuses = Counter(v.verdict for v in votes(both, "accuracy"))
    assert set(statuses) == {CriterionVerdict.MET, CriterionVerdict.UNMET, CANNOT}
    for vote in votes(both, "accuracy"):
        if vote.verdict == CANNOT:
            assert vote.option_set == [0, 1]
        else:
            assert encoded[vote.verdict] in vote.option_set
    sizes = Counter(len(v.option_set) for v in votes(both, "with_na"))
    assert len(sizes) > 1


async def test_response_set_votes_have_only_a_set_holding_the_forced_choice() -> None:
    judge = simulated(accuracy=0.6, seed=9)
    forced = await grade_items([judge], [BINARY, MULTI_CHOICE], 30)
    sets = await grade_items(
        [judge], [elicit(BINARY, "response_set"), elicit(MULTI_CHOICE, "response_set")], 30
    )
    for before, after in zip(votes(forced, "quality"), votes(sets, "quality"), strict=True):
        assert after.option_index is None and after.verdict is None
        assert before.option_index in (after.option_set or [])
    for before, after in zip(votes(forced, "accuracy"), votes(sets, "accuracy"), strict=True):
        assert after.verdict is None and after.option_set
        assert (1 if before.verdict == CriterionVerdict.MET else 0) in after.option_set


async def test_set_rate_bounds_the_set() -> None:
    criteria = [elicit(BINARY, "both"), elicit(WITH_NA, "both")]
    narrow = await grade_items([simulated(accuracy=0.5, set_rate=0.0)], criteria, 20)
    for vote in votes(narrow, "with_na"):
        assert vote.option_set == [vote.option_index]
    for vote in votes(narrow, "accuracy"):
        assert vote.option_set == [1 if vote.verdict == CriterionVerdict.MET else 0]
    wide = await grade_items([simulated(accuracy=0.5, set_rate=1.0)], criteria, 20)
    for vote in votes(wide, "with_na"):
        assert vote.option_set == sorted({0, 1, 2, 3, vote.option_index})
    assert all(v.option_set == [0, 1] for v in votes(wide, "accuracy"))
    abstaining = await grade_items([simulated(abstain_rate=1.0, set_rate=1.0)], criteria, 5)
    assert all(v.option_set == [0, 1, 2, 3, 4] for v in votes(abstaining, "with_na"))


async def test_set_rate_is_roughly_the_configured_rate() -> None:
    criteria = [elicit(MULTI_CHOICE, "response_set")]
    records = await grade_items([simulated(accuracy=1.0, set_rate=0.3, seed=1)], criteria, 200)
    extra = sum(len(v.option_set or []) - 1 for v in votes(records, "quality"))
    assert 0.22 < extra / (200 * 3) < 0.38


async def test_sets_are_deterministic_and_do_not_depend_on_the_shuffle() -> None:
    judge = simulated(accuracy=0.5, seed=3)
    criteria = [elicit(BINARY, "both"), elicit(MULTI_CHOICE, "both")]
    first = await grade_items([judge], criteria, 12)
    again = await grade_items([judge], criteria, 12)
    assert [r.model_dump(exclude={"duration_s"}) for r in first] == [
        r.model_dump(exclude={"duration_s"}) for r in again
    ]
    accurate = simulated(accuracy=1.0, seed=3)
    shuffled = await grade_items([accurate], criteria, 12)
    unshuffled = await grade_items([accurate], criteria, 12, shuffle_options=False)
    assert [v.shuffle_order for v in votes(shuffled, "quality")] != [
        v.shuffle_order for v in votes(unshuffled, "quality")
    ]
    assert [v.option_set for v in votes(shuffled, "quality")] == [
        v.option_set for v in votes(unshuffled, "quality")
    ]
    other = await grade_items([simulated(accuracy=0.5, seed=4)], criteria, 12)
    assert [v.option_set for v in votes(first, "quality")] != [
        v.option_set for v in votes(other, "quality")
    ]


@pytest.mark.parametrize("value", [-0.1, 1.5, "0.3", True])
def test_set_rate_must_be_a_probability(value: Any) -> None:
    with pytest.raises(InputError) as caught:
        CriterionGrader(make_rubric([simulated(set_rate=value)]), seed=1)
    assert caught.value.key == "params.set_rate"
