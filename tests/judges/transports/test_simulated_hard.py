"""The simulated judge's hard items: shared by every judge, errors only there, samples that
disagree there, the mean accuracy kept, and a bad combination refused."""

from __future__ import annotations

from typing import Any

import pytest

from autorubric_cli.core.records import CriterionVerdict, ItemRecord
from autorubric_cli.errors import InputError
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.transports.simulated import is_hard
from tests.support import BINARY, make_item, make_rubric

N = 300
HARD = {"accuracy": 0.85, "hard_share": 0.3, "hard_accuracy": 0.5}


def judge(judge_id: str, **params: Any) -> dict[str, Any]:
    return {"model": f"simulated/{judge_id}", "id": judge_id, "samples": 3, "params": params}


async def graded(judges: list[dict[str, Any]]) -> list[ItemRecord]:
    engine = CriterionGrader(make_rubric(judges, [BINARY]), seed=3)
    records = []
    for i in range(N):
        truth = {"accuracy": truth_of(f"h{i}").value}
        records.append(await engine.grade(make_item(f"h{i}", index=i, ground_truth=truth)))
    await engine.aclose()
    return records


def truth_of(item_id: str) -> CriterionVerdict:
    return CriterionVerdict.MET if int(item_id[1:]) % 3 else CriterionVerdict.UNMET


def wrong(record: ItemRecord, judge_id: str) -> list[bool]:
    truth = truth_of(record.id)
    return [v.verdict != truth for v in record.criteria[0].votes if v.judge == judge_id]


async def test_every_judge_errs_only_on_the_same_hard_pairs_and_splits_there() -> None:
    records = await graded([judge("cheap", **HARD), judge("other", **HARD, seed=99)])
    hard = [is_hard(r.id, "accuracy", 0.3) for r in records]
    assert 0.2 < sum(hard) / N < 0.4
    for judge_id in ("cheap", "other"):
        errs = [wrong(r, judge_id) for r in records]
        # the other pairs' accuracy is (0.85 - 0.3 * 0.5) / 0.7 = 1: no error outside hard pairs
        assert not any(any(e) for e, h in zip(errs, hard, strict=True) if not h)
        split = [0 < sum(e) < 3 for e, h in zip(errs, hard, strict=True) if h]
        assert 0.6 < sum(split) / len(split) < 0.9  # 3 draws at 0.5 split 3/4 of the time
    # the two judges draw on their own streams: they do not err on the same samples
    assert [wrong(r, "cheap") for r in records] != [wrong(r, "other") for r in records]


async def test_the_mean_accuracy_stays_the_configured_one() -> None:
    params = {"accuracy": 0.8, "hard_share": 0.4, "hard_accuracy": 0.6}
    records = await graded([judge("j", **params)])
    errors = [e for r in records for e in wrong(r, "j")]
    assert 0.75 < 1 - sum(errors) / len(errors) < 0.85
    hard_errors = [e for r in records if is_hard(r.id, "accuracy", 0.4) for e in wrong(r, "j")]
    assert 0.5 < 1 - sum(hard_errors) / len(hard_errors) < 0.7


async def test_without_hard_items_the_answers_are_unchanged() -> None:
    plain = await graded([judge("j", accuracy=0.7)])
    same = await graded([judge("j", accuracy=0.7, hard_share=0.0, hard_accuracy=0.1)])
    also = await graded([judge("j", accuracy=0.7, hard_share=0.5)])  # hard_accuracy: accuracy
    dump = [r.model_dump(exclude={"duration_s"}) for r in plain]
    assert dump == [r.model_dump(exclude={"duration_s"}) for r in same]
    assert dump == [r.model_dump(exclude={"duration_s"}) for r in also]


@pytest.mark.parametrize(
    "params",
    [
        {"accuracy": 0.9, "hard_share": 0.3, "hard_accuracy": 0.5},  # others 1.17
        {"accuracy": 0.2, "hard_share": 0.5, "hard_accuracy": 0.9},  # others -0.5
        {"accuracy": 0.8, "hard_share": 1.0, "hard_accuracy": 0.5},  # no other pair
    ],
)
def test_a_combination_leaving_no_accuracy_in_range_is_refused(params: dict[str, Any]) -> None:
    with pytest.raises(InputError) as caught:
        CriterionGrader(make_rubric([judge("j", **params)]), seed=1)
    assert caught.value.key == "params.hard_accuracy"
    assert "'j'" in str(caught.value) and "\n" not in str(caught.value)


def test_hard_params_must_be_probabilities() -> None:
    with pytest.raises(InputError) as caught:
        CriterionGrader(make_rubric([judge("j", hard_share=1.5)]), seed=1)
    assert caught.value.key == "params.hard_share"
