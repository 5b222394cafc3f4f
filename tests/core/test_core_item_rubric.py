"""Per-item rubrics in core (docs/reference/dataset-files.md): an item's effective rubric, the
names of its criteria, `clip: mean`, and the definitions an item record keeps (written and read
back as one pair)."""

from __future__ import annotations

import orjson
import pytest

from autorubric_cli.core.config import CannotAssessConfig
from autorubric_cli.core.criterion import Criterion, CriterionOption
from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.item_rubric import (
    name_item_criteria,
    record_rubric,
    with_definitions,
)
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import CriterionRecord, CriterionVerdict, ItemRecord, Vote
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.scoring import score_item
from autorubric_cli.errors import InputError

SKIP = CannotAssessConfig()
SHARED = Rubric.model_validate({"criteria": [{"name": "tone", "requirement": "Is polite"}]})


def own(*criteria: dict[str, object]) -> list[Criterion]:
    return [Criterion.model_validate(c) for c in criteria]


def test_a_rubric_may_have_no_shared_criteria_and_criteria_carry_tags() -> None:
    rubric = Rubric.model_validate({"criteria": []})
    assert rubric.criteria == []
    assert Rubric.model_validate({}).criteria == []
    tagged = Criterion(requirement="x", tags=["axis:accuracy"])
    assert tagged.tags == ["axis:accuracy"]
    assert Criterion(requirement="x").tags == []


def test_for_item_puts_the_items_criteria_after_the_shared_ones() -> None:
    mine = name_item_criteria(own({"requirement": "a"}, {"requirement": "b", "weight": -5}), SHARED)
    rubric = SHARED.for_item(mine)
    assert [c.name for c in rubric.criteria] == ["tone", "i1", "i2"]
    assert rubric.grader is SHARED.grader
    assert [c.name for c in SHARED.criteria] == ["tone"]  # the file's rubric is untouched
    assert SHARED.for_item([]) is SHARED


def test_unnamed_item_criteria_are_named_by_their_position_in_the_item() -> None:
    mine = name_item_criteria(own({"name": "x", "requirement": "a"}, {"requirement": "b"}), SHARED)
    assert [c.name for c in mine] == ["x", "i2"]


@pytest.mark.parametrize(
    ("criteria", "key", "words"),
    [
        (
            [{"name": "a", "requirement": "a"}, {"name": "a", "requirement": "b"}],
            "rubric[1].name",
            "duplicate",
        ),
        ([{"requirement": "a"}, {"name": "i1", "requirement": "b"}], "rubric[1].name", "duplicate"),
        (
            [{"requirement": "a"}, {"name": "tone", "requirement": "b"}],
            "rubric[1].name",
            "rubric file",
        ),
    ],
)
def test_a_name_used_twice_is_an_error_at_its_key(
    criteria: list[dict[str, object]], key: str, words: str
) -> None:
    with pytest.raises(InputError) as caught:
        name_item_criteria(own(*criteria), SHARED)
    assert caught.value.key == key
    assert words in caught.value.message


def test_auto_na_option_reaches_item_criteria() -> None:
    rubric = Rubric.model_validate({"grader": {"auto_na_option": True}})
    options = [{"label": "no", "value": 0}, {"label": "yes", "value": 1}]
    mine = name_item_criteria(own({"requirement": "q", "options": options}), rubric)
    assert [o.label for o in mine[0].options or []] == ["no", "yes", "Cannot assess"]


def test_item_context_and_tags() -> None:
    item = Item(
        id="a",
        submission="answer",
        context=[{"role": "user", "content": "hi"}],
        tags=["theme:hedging"],
    )
    assert item.context is not None and item.context[0].role == "user"
    assert item.tags == ["theme:hedging"]
    with pytest.raises(InputError) as caught:
        Item(id="a", submission="x", context=[{"role": "user"}, {"role": "robot", "content": ""}])
    assert caught.value.key == "context[0].content"


# clip (docs/reference/rubric-file.md `grader.clip`): HealthBench's item score is raw / P,
# unclamped; penalties can push it below 0
def test_clip_mean_leaves_an_item_score_unclamped() -> None:
    # met +5 and the -10 penalty: raw = 5 - 10 = -5; P = 5 + 3 = 8
    weighted = [(5.0, 1.0), (3.0, 0.0), (-10.0, 1.0)]
    assert score_item(weighted, SKIP, True, clip="item").score == 0.0
    assert score_item(weighted, SKIP, True, clip="mean").score == pytest.approx(-5 / 8)
    # above 1 cannot happen with v <= 1; penalties subtract unfloored
    mean = score_item(weighted, SKIP, True, penalty=0.25, clip="mean")
    assert mean.score == pytest.approx(-5 / 8 - 0.25)
    assert mean.raw_score == pytest.approx(-5.0)


def test_clip_mean_with_no_positive_criterion_scored_is_undefined() -> None:
    only_penalties = [(-5.0, 1.0), (-15.0, 0.0)]
    assert score_item(only_penalties, SKIP, True, clip="item").score == pytest.approx(0.75)
    assert score_item(only_penalties, SKIP, True, clip="mean").score is None
    assert score_item(only_penalties, SKIP, False, clip="mean").score == pytest.approx(-5.0)


def test_scoring_rules_take_clip_from_the_config() -> None:
    rubric = Rubric.model_validate(
        {
            "grader": {"clip": "mean"},
            "criteria": [{"requirement": "a", "weight": 4}, {"requirement": "b", "weight": -8}],
        }
    )
    rules = ScoringRules.from_rubric(rubric)
    assert rules.clip == "mean"
    met = [Vote(judge="j", verdict=CriterionVerdict.MET)]
    unmet = [Vote(judge="j", verdict=CriterionVerdict.UNMET)]
    assert evaluate_votes([unmet, met], rules, 0).score.score == pytest.approx(-2.0)


ITEM_CRITERIA = [
    {"requirement": "Advises seeing a provider", "weight": 10, "tags": ["axis:completeness"]},
    {"name": "risk", "requirement": "Skips appointments", "weight": -10, "tags": ["axis:accuracy"]},
    {
        "requirement": "How clear is it?",
        "options": [
            {"label": "unclear", "value": 0},
            {"label": "clear", "value": 1},
            {"label": "n/a", "na": True},
        ],
        "scale_type": "nominal",
        "aggregation": "unanimous",
        "scope": "final_turn",
        "elicitation": "both",
    },
]


def written_record(rubric: Rubric, item_criteria: list[Criterion]) -> ItemRecord:
    graded = rubric.for_item(item_criteria)
    entries = [CriterionRecord(name=c.name) for c in graded.criteria]
    return ItemRecord(
        id="hb-1", index=0, status="ok", criteria=with_definitions(entries, item_criteria)
    )


def test_record_rubric_reads_back_what_the_record_wrote() -> None:
    mine = name_item_criteria(own(*ITEM_CRITERIA), SHARED)
    record = written_record(SHARED, mine)
    line = orjson.dumps(record.model_dump(mode="json"))
    back = ItemRecord.model_validate(orjson.loads(line))
    rebuilt = record_rubric(SHARED, back)
    assert rebuilt.criteria == SHARED.for_item(mine).criteria
    assert [c.name for c in rebuilt.criteria] == ["tone", "i1", "risk", "i3"]


def test_a_shared_entry_keeps_no_definition_and_defaults_are_left_out() -> None:
    mine = name_item_criteria(own(*ITEM_CRITERIA), SHARED)
    entries = orjson.loads(orjson.dumps(written_record(SHARED, mine).model_dump(mode="json")))
    shared, first, _, third = entries["criteria"]
    assert "requirement" not in shared and "weight" not in shared and "tags" not in shared
    assert first["requirement"] == "Advises seeing a provider"
    assert first["weight"] == 10 and first["tags"] == ["axis:completeness"]
    assert "options" not in first  # binary
    assert not {"scale_type", "aggregation", "scope", "elicitation"} & set(first)
    assert third["options"][2] == {"label": "n/a", "value": None, "na": True}
    assert (third["scale_type"], third["aggregation"]) == ("nominal", "unanimous")
    assert (third["scope"], third["elicitation"]) == ("final_turn", "both")


def test_records_without_the_new_keys_still_read() -> None:
    old = {"id": "a", "index": 0, "status": "ok", "criteria": [{"name": "tone"}]}
    record = ItemRecord.model_validate(old)
    assert record.context is None and record.tags == []
    assert record_rubric(SHARED, record) is SHARED
    dumped = record.model_dump(mode="json")
    assert "context" not in dumped and "tags" not in dumped
    tagged = record.model_copy(update={"tags": ["theme:x"], "context": [{"role": "user"}]})
    dumped = tagged.model_dump(mode="json")
    assert dumped["tags"] == ["theme:x"] and dumped["context"] == [{"role": "user"}]


def test_an_auto_na_option_is_kept_in_the_definition_once() -> None:
    rubric = Rubric.model_validate({"grader": {"auto_na_option": True}})
    options = [{"label": "no", "value": 0}, {"label": "yes", "value": 1}]
    mine = name_item_criteria(own({"requirement": "q", "options": options}), rubric)
    rebuilt = record_rubric(rubric, written_record(rubric, mine))
    assert rebuilt.criteria[0].options == [
        CriterionOption(label="no", value=0),
        CriterionOption(label="yes", value=1),
        CriterionOption(label="Cannot assess", na=True),
    ]
