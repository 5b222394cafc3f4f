"""`validate` for each criterion: figures per judge, selections, inversions, beta sweep (no I/O).

The result is the JSON of `autorubric validate --format json`: undefined figures are null
(with the reason under ``undefined``), never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from autorubric_cli.core.json_model import to_json_dict
from autorubric_cli.errors import InputError
from autorubric_cli.metrics.figures import Figure, Undefined, value_or_none
from autorubric_cli.validate import advice
from autorubric_cli.validate.collect import Collected, CriterionRatings
from autorubric_cli.validate.distributions import RaterDistributions, rater_distributions
from autorubric_cli.validate.fc_model import FcModel, beta_model
from autorubric_cli.validate.performance import (
    METRICS,
    RANKED,
    Downstream,
    direction,
    judge_performance,
)
from autorubric_cli.validate.result import (
    CriterionValidation,
    FcModelDescription,
    JudgeValidation,
    RankInversion,
    RatingsPerItem,
    SweepRow,
    Validation,
)
from autorubric_cli.validate.selection import (
    JudgeFigures,
    best_by_metric,
    first_best,
    rank_correlations,
    rank_inversions,
    selection_groups,
)
from autorubric_cli.validate.settings import (
    ValidateSettings,
    main_model,
    pair_for,
    positive_for,
    sweep_values,
)


def validate_collected(collected: Collected, settings: ValidateSettings) -> dict[str, Any]:
    """`validation`'s JSON form."""
    return to_json_dict(validation(collected, settings))


def validation(collected: Collected, settings: ValidateSettings) -> Validation:
    """The whole `validate` result for every criterion that has human ratings."""
    settings.check()
    criteria = [validate_criterion(c, settings) for c in collected.criteria]
    _check_flags_matched(collected, settings, criteria)
    warnings = [w for c in criteria for w in c.warnings]
    if collected.unmatched_human_ids:
        warnings.append(
            f"{collected.unmatched_human_ids} ids in the --human file are not in the "
            "experiment and were ignored"
        )
    return Validation(
        judges=[*collected.judge_ids, collected.ensemble_id],
        directions={name: direction(name) for name in METRICS},
        criteria=criteria,
        warnings=warnings,
    )


def _check_flags_matched(
    collected: Collected, settings: ValidateSettings, criteria: Sequence[CriterionValidation]
) -> None:
    """--positive and --beta-pair must name options of at least one validated criterion."""
    if settings.positive is not None and not any(c.positive_from_flag for c in criteria):
        raise InputError(
            f"no validated criterion has all of the options {list(settings.positive)}",
            key="--positive",
        )
    if settings.beta_pair is not None and not any(
        pair_for(c.space, settings, binary=False) is not None for c in collected.criteria
    ):
        raise InputError(
            f"no validated criterion has both options {list(settings.beta_pair)}",
            key="--beta-pair",
        )


def judge_distributions(
    ratings: CriterionRatings, model: FcModel
) -> tuple[RaterDistributions, dict[str, RaterDistributions]]:
    q = ratings.space.q
    human = rater_distributions(ratings.human, q, model)
    judges = {j: rater_distributions(r, q, model) for j, r in ratings.judges.items()}
    return human, judges


def figures_for(
    ratings: CriterionRatings, model: FcModel, downstream: Downstream
) -> dict[str, dict[str, Figure]]:
    """judge -> metric -> figure under one forced-choice -> response-set model."""
    human, judges = judge_distributions(ratings, model)
    return {
        j: judge_performance(human, dist, downstream, ratings.space.q) for j, dist in judges.items()
    }


def validate_criterion(
    ratings: CriterionRatings, settings: ValidateSettings
) -> CriterionValidation:
    space = ratings.space
    binary = ratings.criterion.options is None
    positive, from_flag = positive_for(space, settings)
    pair = pair_for(space, settings, binary)
    model = main_model(space, settings, pair)
    downstream = Downstream(positive, settings.tau)
    figures = figures_for(ratings, model, downstream)
    judges = list(ratings.judges)
    best = best_by_metric(figures, judges)
    counts = [len(r) for r in ratings.human]
    groups = selection_groups(best)
    warnings = [
        advice.few_ratings(space.criterion, counts),
        advice.underspecified(space.criterion, ratings.human, model.describe(space)),
        advice.inversion_text(space.criterion, groups),
        *advice.thin_judges(space.criterion, ratings.judges, judges[-1]),
    ]
    return CriterionValidation(
        name=space.criterion,
        kind=ratings.criterion.kind,
        options=list(space.labels),
        positive=[space.labels[i] for i in positive],
        positive_from_flag=from_flag,
        tau=settings.tau,
        fc_model=FcModelDescription.model_validate(model.describe(space)),
        beta_pair=None if pair is None else [space.labels[i] for i in pair],
        n_items=len(ratings.item_ids),
        ratings_per_item=RatingsPerItem(min=min(counts), mean=float(np.mean(counts))),
        human_response_sets=sum(r.members is not None for rs in ratings.human for r in rs),
        judges={j: _judge_json(figures[j], ratings.judges[j]) for j in judges},
        best=first_best(best),
        best_tied=best,
        selections=groups,
        rank_correlation=rank_correlations(figures, judges),
        rank_inversions=[RankInversion.model_validate(i) for i in rank_inversions(best)],
        beta_sweep=beta_sweep(ratings, settings, downstream, pair),
        undefined=_undefined(figures),
        warnings=[w for w in warnings if w is not None],
    )


def _judge_json(figures: dict[str, Figure], per_item: Sequence[Sequence[Any]]) -> JudgeValidation:
    sizes = [len(r) for r in per_item if r]
    return JudgeValidation(
        **{name: value_or_none(figures[name]) for name in METRICS},
        n_items=sum(1 for r in per_item if r),
        samples_per_item=float(np.mean(sizes)) if sizes else None,
    )


def _undefined(figures: JudgeFigures) -> dict[str, dict[str, str]]:
    """judge -> metric -> why it has no value."""
    found: dict[str, dict[str, str]] = {}
    for judge, block in figures.items():
        for name, value in block.items():
            if isinstance(value, Undefined):
                found.setdefault(judge, {})[name] = value.reason
    return found


def beta_sweep(
    ratings: CriterionRatings,
    settings: ValidateSettings,
    downstream: Downstream,
    pair: tuple[int, int] | None,
) -> list[SweepRow]:
    """For each beta: the judge every definition selects, and C and B per judge."""
    values = sweep_values(ratings.space, settings, pair)
    if pair is None or not values:
        return []
    rows = []
    judges = list(ratings.judges)
    for beta in values:
        model = beta_model(ratings.space.q, beta, pair)
        figures = figures_for(ratings, model, downstream)
        rows.append(
            SweepRow(
                beta=beta,
                best=first_best(best_by_metric(figures, judges)),
                decision_consistency={
                    j: value_or_none(figures[j]["decision_consistency"]) for j in judges
                },
                prevalence_bias={j: value_or_none(figures[j]["prevalence_bias"]) for j in judges},
            )
        )
    return rows


__all__ = ["RANKED", "validate_collected", "validate_criterion", "validation"]
