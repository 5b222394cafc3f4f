"""The option space, ratings, the forced-choice -> response-set model and the distributions."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from autorubric_cli.core.records import CriterionRecord, CriterionVerdict, OptionRecord, Vote
from autorubric_cli.core.rubric import Criterion, CriterionOption
from autorubric_cli.validate.distributions import (
    forced_choice_distribution,
    multilabel_vector,
    rater_distributions,
)
from autorubric_cli.validate.fc_model import (
    FcModelError,
    beta_model,
    identity_model,
    matrix_model,
)
from autorubric_cli.validate.space import (
    OptionSpace,
    Rating,
    ensemble_rating,
    human_rating,
    option_space,
    vote_rating,
)

SATISFACTION = Criterion(
    name="satisfaction",
    requirement="How satisfied?",
    options=[
        CriterionOption(label="Very dissatisfied", value=0.0),
        CriterionOption(label="Satisfied", value=0.67),
        CriterionOption(label="Very satisfied", value=1.0),
        CriterionOption(label="NA", na=True),
    ],
)
BINARY = Criterion(name="resolved", requirement="Resolves the question")
SPACE = option_space(SATISFACTION, [])
VD, S, VS = 0, 1, 2


def test_binary_space_is_met_unmet_plus_cannot_assess_only_when_a_human_used_it() -> None:
    assert option_space(BINARY, ["MET"]).labels == ("MET", "UNMET")
    assert option_space(BINARY, ["CANNOT_ASSESS"]).labels == ("MET", "UNMET", "CANNOT_ASSESS")


def test_multi_choice_space_keeps_an_na_option_only_when_a_human_used_it() -> None:
    assert SPACE.labels == ("Very dissatisfied", "Satisfied", "Very satisfied")
    assert option_space(SATISFACTION, ["NA"]).labels[-1] == "NA"


def test_human_entries_are_forced_choices_or_response_sets() -> None:
    assert human_rating("Satisfied", SPACE) == Rating(choice=S)
    assert human_rating(["Satisfied", "Very satisfied"], SPACE) == Rating(
        members=frozenset({S, VS})
    )
    assert human_rating("NA", SPACE) is None  # outside this space


def test_votes_become_ratings_and_abstentions_errors_are_dropped() -> None:
    assert vote_rating(Vote(judge="j", option_index=2), SATISFACTION, SPACE) == Rating(choice=VS)
    both = Vote(judge="j", option_index=1, option_set=[1, 2])
    assert vote_rating(both, SATISFACTION, SPACE) == Rating(S, frozenset({S, VS}))
    assert vote_rating(Vote(judge="j", option_index=3), SATISFACTION, SPACE) is None
    assert (
        vote_rating(Vote(judge="j", option_index=1, error="timeout"), SATISFACTION, SPACE) is None
    )
    binary = option_space(BINARY, [])
    met = Vote(judge="j", verdict=CriterionVerdict.MET)
    assert vote_rating(met, BINARY, binary) == Rating(choice=0)
    abstain = Vote(judge="j", verdict=CriterionVerdict.CANNOT_ASSESS)
    assert vote_rating(abstain, BINARY, binary) is None
    set_only = Vote(judge="j", option_set=[0, 1])  # binary set indices: 0 = UNMET, 1 = MET
    assert vote_rating(set_only, BINARY, binary) == Rating(members=frozenset({0, 1}))
    met_only = Vote(judge="j", option_set=[1])
    assert vote_rating(met_only, BINARY, binary) == Rating(members=frozenset({binary.index("MET")}))
    unmet_only = Vote(judge="j", option_set=[0])
    assert vote_rating(unmet_only, BINARY, binary) == Rating(
        members=frozenset({binary.index("UNMET")})
    )


def test_the_ensemble_outcome_is_one_forced_choice_and_na_when_every_vote_abstained() -> None:
    chosen = CriterionRecord(
        name="satisfaction",
        option=OptionRecord(index=1, label="Satisfied", value=0.67, na=False),
        votes=[Vote(judge="j", option_index=1)],
    )
    assert ensemble_rating(chosen, SATISFACTION, SPACE) == Rating(choice=S)
    abstained = CriterionRecord(name="satisfaction", votes=[Vote(judge="j", option_index=3)])
    with_na = option_space(SATISFACTION, ["NA"])
    assert ensemble_rating(abstained, SATISFACTION, with_na) == Rating(choice=3)
    assert ensemble_rating(abstained, SATISFACTION, SPACE) is None
    errored = CriterionRecord(name="satisfaction", votes=[Vote(judge="j", error="boom")])
    assert ensemble_rating(errored, SATISFACTION, with_na) is None


def test_forced_choice_distribution_counts_a_set_only_rating_uniformly() -> None:
    ratings = [Rating(choice=VS), Rating(choice=VS), Rating(members=frozenset({S, VS}))]
    assert forced_choice_distribution(ratings, 3) == pytest.approx([0.0, 1 / 6, 5 / 6])


def test_multilabel_vector_counts_sets_as_indicators_and_choices_through_the_model() -> None:
    ratings = [Rating(choice=VS), Rating(choice=S), Rating(members=frozenset({VD, S}))]
    identity = identity_model(3)
    assert multilabel_vector(ratings, identity) == pytest.approx([1 / 3, 2 / 3, 1 / 3])
    # beta = P(Satisfied in set | chose Very satisfied) = 0.2
    model = beta_model(3, 0.2, (S, VS))
    assert multilabel_vector(ratings, model) == pytest.approx([1 / 3, (2 + 0.2) / 3, 1 / 3])


def test_beta_model_matches_the_response_set_distribution_route() -> None:
    """Omega = Lambda theta with theta = F'^T O equals inclusion^T O."""
    q, beta = 3, 0.3
    sets = [s for size in (1, 2, 3) for s in combinations(range(q), size)]
    f_prime = np.zeros((q, len(sets)))  # P(set | chose k')
    for k in range(q):
        f_prime[k, sets.index((k,))] = 1.0
    f_prime[VS, sets.index((VS,))] = 1 - beta
    f_prime[VS, sets.index((S, VS))] = beta
    lam = np.array([[1.0 if k in s else 0.0 for s in sets] for k in range(q)])
    forced = np.array([0.1, 0.3, 0.6])
    theta = f_prime.T @ forced
    model = beta_model(q, beta, (S, VS))
    assert model.inclusion.T @ forced == pytest.approx(lam @ theta)


def test_beta_zero_is_the_identity_and_beta_must_be_a_probability() -> None:
    assert beta_model(3, 0.0, (S, VS)).inclusion == pytest.approx(np.eye(3))
    with pytest.raises(ValueError):
        beta_model(3, 1.5, (S, VS))
    with pytest.raises(ValueError):
        beta_model(3, 0.2, (S, S))


def test_user_matrix_rows_become_inclusion_probabilities() -> None:
    rows = {
        "very satisfied": [
            {"set": ["Very satisfied"], "p": 0.5},
            {"set": ["Satisfied", "Very satisfied"], "p": 0.3},
            {"set": ["Very dissatisfied", "Satisfied", "Very satisfied"], "p": 0.2},
        ]
    }
    model = matrix_model(SPACE, rows, "satisfaction")
    assert model.inclusion[VS] == pytest.approx([0.2, 0.5, 1.0])
    assert model.inclusion[S] == pytest.approx([0.0, 1.0, 0.0])  # unlisted rows: identity


@pytest.mark.parametrize(
    ("rows", "key", "message"),
    [
        ({"Satisfied": [{"set": ["Satisfied"], "p": 0.5}]}, "c.Satisfied", "sum to 0.5"),
        ({"Satisfied": [{"set": ["Very satisfied"], "p": 1.0}]}, "c.Satisfied[0].set", "contain"),
        ({"Great": [{"set": ["Satisfied"], "p": 1.0}]}, "c.Great", "not an option"),
        ({"Satisfied": [{"set": ["Satisfied"], "p": "1"}]}, "c.Satisfied[0].p", "probability"),
        ({"Satisfied": [{"set": [], "p": 1.0}]}, "c.Satisfied[0].set", "non-empty"),
        ({"Satisfied": {"set": ["Satisfied"]}}, "c.Satisfied", "non-empty list"),
        ([], "c", "must be an object"),
    ],
)
def test_bad_user_matrices_name_the_key(rows: object, key: str, message: str) -> None:
    with pytest.raises(FcModelError, match=message) as info:
        matrix_model(SPACE, rows, "c")
    assert info.value.key == key


def test_rater_distributions_leave_unrated_items_as_nan_rows() -> None:
    per_item = [[Rating(choice=VD), Rating(choice=S)], []]
    dist = rater_distributions(per_item, 3, identity_model(3))
    assert dist.forced[0] == pytest.approx([0.5, 0.5, 0.0])
    assert np.isnan(dist.forced[1]).all() and np.isnan(dist.multilabel[1]).all()
    assert dist.present.tolist() == [True, False]
    assert dist.counts.tolist() == [2, 0]


def test_option_space_find_is_case_insensitive_and_index_exact() -> None:
    space = OptionSpace("c", ("Yes", "No"), (1.0, 0.0))
    assert space.find("  yes ") == 0 and space.index("yes") is None
