"""Per-criterion validation: JSON shape, nulls, warnings, flag resolution and the beta sweep."""

from __future__ import annotations

from typing import Any

import pytest

from autorubric_cli.core.rubric import Criterion, CriterionOption
from autorubric_cli.errors import InputError
from autorubric_cli.validate.analysis import validate_collected
from autorubric_cli.validate.collect import Collected, CriterionRatings
from autorubric_cli.validate.performance import METRICS, RANKED
from autorubric_cli.validate.settings import (
    DEFAULT_SWEEP,
    ValidateSettings,
    default_positive,
    split_numbers,
)
from autorubric_cli.validate.space import OptionSpace, Rating, option_space

BINARY = Criterion(name="resolved", requirement="Resolves it")
MULTI = Criterion(
    name="satisfaction",
    requirement="How satisfied?",
    options=[
        CriterionOption(label="Bad", value=0.0),
        CriterionOption(label="Okay", value=0.5),
        CriterionOption(label="Good", value=1.0),
    ],
)
MET, UNMET = Rating(choice=0), Rating(choice=1)


def binary_ratings(
    human: list[list[Rating]], judges: dict[str, list[list[Rating]]]
) -> CriterionRatings:
    space = option_space(BINARY, [])
    ids = [f"i{n}" for n in range(len(human))]
    return CriterionRatings(BINARY, space, ids, human, judges)


def run(ratings: CriterionRatings, **settings: Any) -> dict[str, Any]:
    judges = [j for j in ratings.judges if j != "ensemble"]
    collected = Collected([ratings], judges, "ensemble")
    return validate_collected(collected, ValidateSettings(**settings))


HUMAN = [[MET, MET, UNMET], [UNMET, UNMET, MET], [MET, MET, MET], [UNMET, UNMET, UNMET]]
ALWAYS_MET = [[MET] * 5 for _ in HUMAN]
FAITHFUL = [[MET] * 4 + [UNMET], [UNMET] * 4 + [MET], [MET] * 5, [UNMET] * 5]


def test_result_has_the_documented_shape() -> None:
    ratings = binary_ratings(HUMAN, {"yes": ALWAYS_MET, "fair": FAITHFUL, "ensemble": FAITHFUL})
    result = run(ratings)
    (criterion,) = result["criteria"]
    assert criterion["name"] == "resolved" and criterion["n_items"] == 4
    assert criterion["ratings_per_item"] == {"min": 3, "mean": 3.0}
    assert set(criterion["judges"]) == {"yes", "fair", "ensemble"}
    for block in criterion["judges"].values():
        assert set(METRICS) <= set(block)
    assert set(criterion["best"]) == set(RANKED)
    assert criterion["best"]["hit_rate"] == "fair"
    assert isinstance(criterion["rank_inversions"], list)
    assert [row["beta"] for row in criterion["beta_sweep"]] == list(DEFAULT_SWEEP)
    assert criterion["positive"] == ["MET"] and criterion["beta_pair"] == ["MET", "UNMET"]
    assert result["judges"] == ["yes", "fair", "ensemble"]


def test_undefined_figures_are_null_with_a_reason_never_zero() -> None:
    unanimous = [[MET, MET, MET]] * 4
    ratings = binary_ratings(unanimous, {"yes": ALWAYS_MET, "ensemble": ALWAYS_MET})
    criterion = run(ratings)["criteria"][0]
    # both sides use one class only: the kappas have no chance disagreement to correct for
    assert criterion["judges"]["yes"]["cohen_kappa"] is None
    assert criterion["judges"]["yes"]["krippendorff_alpha"] is None
    assert "cohen_kappa" in criterion["undefined"]["yes"]
    assert criterion["judges"]["yes"]["hit_rate"] == pytest.approx(1.0)
    assert criterion["best"]["cohen_kappa"] is None


def test_a_judge_without_votes_has_null_figures_and_a_warning() -> None:
    ratings = binary_ratings(HUMAN, {"silent": [[] for _ in HUMAN], "ensemble": FAITHFUL})
    criterion = run(ratings)["criteria"][0]
    assert criterion["judges"]["silent"]["hit_rate"] is None
    assert criterion["judges"]["silent"]["n_items"] == 0
    assert any("'silent' has no usable vote" in w for w in criterion["warnings"])


def test_fewer_than_three_ratings_per_item_warns() -> None:
    human = [[MET, UNMET], *HUMAN[1:]]
    criterion = run(binary_ratings(human, {"fair": FAITHFUL, "ensemble": FAITHFUL}))["criteria"][0]
    assert criterion["ratings_per_item"]["min"] == 2
    assert any("fewer than 3 human ratings" in w for w in criterion["warnings"])
    full = run(binary_ratings(HUMAN, {"fair": FAITHFUL, "ensemble": FAITHFUL}))["criteria"][0]
    assert not any("fewer than 3" in w for w in full["warnings"])


def test_forced_choice_only_with_frequent_splits_warns_underspecified() -> None:
    criterion = run(binary_ratings(HUMAN, {"fair": FAITHFUL, "ensemble": FAITHFUL}))["criteria"][0]
    assert any("underspecified" in w for w in criterion["warnings"])
    sets = [[Rating(members=frozenset({0, 1})), MET, UNMET] for _ in HUMAN]
    with_sets = run(binary_ratings(sets, {"fair": FAITHFUL, "ensemble": FAITHFUL}))
    assert not any("underspecified" in w for w in with_sets["criteria"][0]["warnings"])


def test_one_sample_per_item_warns_that_the_distribution_is_one_hot() -> None:
    one = [[MET], [UNMET], [MET], [UNMET]]
    criterion = run(binary_ratings(HUMAN, {"once": one, "ensemble": one}))["criteria"][0]
    assert any("'once' has one sample per item" in w for w in criterion["warnings"])
    assert not any("'ensemble' has one sample" in w for w in criterion["warnings"])


def test_rank_inversion_is_reported_when_definitions_select_different_judges() -> None:
    """'sharp' always gives the human majority, one-hot; 'hedge' spreads its samples like the
    humans do but ties on item 2 (the tie goes to MET, the wrong hard label)."""
    sharp = [[MET] * 3, [UNMET] * 3, [MET] * 3, [UNMET] * 3]
    hedge = [[MET, MET, UNMET], [MET, UNMET], [MET, MET, UNMET], [UNMET, UNMET, MET]]
    ensemble = [[MET]] * 4
    ratings = binary_ratings(HUMAN, {"sharp": sharp, "hedge": hedge, "ensemble": ensemble})
    criterion = run(ratings)["criteria"][0]
    assert criterion["judges"]["sharp"]["hit_rate"] == pytest.approx(1.0)
    assert criterion["judges"]["hedge"]["hit_rate"] == pytest.approx(3 / 4)
    assert criterion["best"]["hit_rate"] == "sharp"
    assert criterion["best"]["kl_human_judge"] == "hedge"
    assert {
        "a": "hit_rate",
        "b": "kl_human_judge",
        "a_best": ["sharp"],
        "b_best": ["hedge"],
    } in criterion["rank_inversions"]
    assert any("rank inversion" in w and "hedge by" in w for w in criterion["warnings"])


def test_beta_sweep_moves_the_human_decisions() -> None:
    """beta = P(MET in set | chose UNMET): at 0.4 the item rated (UNMET, UNMET, MET) has
    Omega_MET = 1/3 + 0.4 * 2/3 = 0.6 >= 0.5, so the always-MET judge now agrees there."""
    ratings = binary_ratings(HUMAN, {"yes": ALWAYS_MET, "ensemble": FAITHFUL})
    criterion = run(ratings, beta_sweep=(0.0, 0.4))["criteria"][0]
    low, high = criterion["beta_sweep"]
    assert low["decision_consistency"]["yes"] == pytest.approx(2 / 4)
    assert high["decision_consistency"]["yes"] == pytest.approx(3 / 4)
    assert low["prevalence_bias"]["yes"] == pytest.approx(1.0 - 2 / 4)
    main = run(ratings, beta=0.4)["criteria"][0]
    assert main["judges"]["yes"]["decision_consistency"] == pytest.approx(3 / 4)
    assert main["judges"]["yes"]["decision_consistency_fc"] == pytest.approx(2 / 4)
    assert main["fc_model"] == {"kind": "beta", "beta": 0.4, "pair": ["MET", "UNMET"]}


def test_multi_choice_needs_a_beta_pair_for_beta_and_has_no_default_sweep() -> None:
    space = option_space(MULTI, [])
    human = [[Rating(choice=2), Rating(choice=1), Rating(choice=2)]] * 3
    ratings = CriterionRatings(
        MULTI, space, ["a", "b", "c"], human, {"j": human, "ensemble": human}
    )
    assert run(ratings)["criteria"][0]["beta_sweep"] == []
    with pytest.raises(InputError, match="needs --beta-pair"):
        run(ratings, beta=0.2)
    with pytest.raises(InputError, match="needs --beta-pair"):
        run(ratings, beta_sweep=(0.0, 0.1))
    paired = run(ratings, beta=0.2, beta_pair=("good", "Okay"))["criteria"][0]
    assert paired["fc_model"]["pair"] == ["Good", "Okay"]
    assert len(paired["beta_sweep"]) == len(DEFAULT_SWEEP)


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"positive": ("Great",)}, "--positive"),
        ({"beta_pair": ("Great", "Okay")}, "--beta-pair"),
        ({"tau": 0.0}, "--tau"),
        ({"beta": 1.5}, "--beta"),
        ({"fc_matrix": {}, "beta": 0.2}, "--fc-matrix"),
    ],
)
def test_flags_that_match_nothing_or_conflict_are_input_errors(
    settings: dict[str, Any], key: str
) -> None:
    ratings = binary_ratings(HUMAN, {"fair": FAITHFUL, "ensemble": FAITHFUL})
    with pytest.raises(InputError) as info:
        run(ratings, **settings)
    assert info.value.key == key


def test_positive_flag_applies_where_the_criterion_has_the_options() -> None:
    ratings = binary_ratings(HUMAN, {"fair": FAITHFUL, "ensemble": FAITHFUL})
    criterion = run(ratings, positive=("unmet",))["criteria"][0]
    assert criterion["positive"] == ["UNMET"] and criterion["positive_from_flag"] is True


def test_user_matrix_errors_name_the_file_and_key() -> None:
    ratings = binary_ratings(HUMAN, {"fair": FAITHFUL, "ensemble": FAITHFUL})
    matrix = {"resolved": {"UNMET": [{"set": ["MET"], "p": 1.0}]}}
    with pytest.raises(InputError) as info:
        run(ratings, fc_matrix=matrix, fc_matrix_source="m.json")
    assert info.value.one_line().startswith("m.json: resolved.UNMET[0].set:")


def test_user_matrix_drives_the_response_set_figures_and_disables_the_sweep() -> None:
    ratings = binary_ratings(HUMAN, {"yes": ALWAYS_MET, "ensemble": FAITHFUL})
    matrix = {
        "resolved": {"UNMET": [{"set": ["UNMET"], "p": 0.6}, {"set": ["MET", "UNMET"], "p": 0.4}]}
    }
    criterion = run(ratings, fc_matrix=matrix)["criteria"][0]
    assert criterion["fc_model"]["kind"] == "matrix" and criterion["beta_sweep"] == []
    assert criterion["judges"]["yes"]["decision_consistency"] == pytest.approx(3 / 4)


def test_default_positive_is_the_options_valued_above_one_half() -> None:
    assert default_positive(option_space(MULTI, [])) == (2,)
    assert default_positive(OptionSpace("c", ("x", "y"), (0.2, 0.4))) == (1,)
    assert default_positive(option_space(BINARY, ["CANNOT_ASSESS"])) == (0,)


def test_split_numbers_reports_the_flag() -> None:
    assert split_numbers("0, 0.1,0.2", "--beta-sweep") == (0.0, 0.1, 0.2)
    with pytest.raises(InputError) as info:
        split_numbers("0,x", "--beta-sweep")
    assert info.value.key == "--beta-sweep"
