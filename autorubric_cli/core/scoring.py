"""Item scoring (docs/guides/rubrics.md): cannot-assess strategies, normalization, length
penalty."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autorubric_cli.core.config import CannotAssessConfig, CannotAssessStrategy, Clip, LengthPenalty
from autorubric_cli.core.conversation import assistant_word_counts
from autorubric_cli.core.items import Submission
from autorubric_cli.core.numeric import EPS


@dataclass(frozen=True)
class ItemScore:
    score: float | None
    raw_score: float | None
    length_penalty: float


def worst_option_value(weight: float, option_values: Sequence[float]) -> float:
    """A multi-choice criterion's worst non-NA value: the lowest when w >= 0, else the highest."""
    return min(option_values) if weight >= 0 else max(option_values)


def criterion_value(
    weight: float,
    value: float | None,
    cannot_assess: CannotAssessConfig,
    option_values: Sequence[float] = (),
) -> float | None:
    """v_i for one criterion; `value=None` means CANNOT_ASSESS / NA. None means skipped.

    `option_values` are a multi-choice criterion's non-NA option values (empty for binary);
    `fail` gives the worst of them (docs/guides/rubrics.md).
    """
    if value is not None:
        return value
    strategy = cannot_assess.strategy
    if strategy is CannotAssessStrategy.SKIP:
        return None
    if strategy is CannotAssessStrategy.ZERO:
        return 0.0
    if strategy is CannotAssessStrategy.PARTIAL:
        return cannot_assess.partial_credit if weight > 0 else 0.0
    if option_values:
        return worst_option_value(weight, option_values)
    return 0.0 if weight > 0 else 1.0


def normalized_score(
    raw: float, positive: float, negative: float, clip: Clip = "item"
) -> float | None:
    """raw/P clamped to [0, 1] (with only penalties scored: 1 + raw/N). Under `clip: mean`
    (HealthBench's convention) raw/P unclamped, and undefined when P = 0: the report clamps
    the mean instead (docs/reference/rubric-file.md)."""
    if clip == "mean":
        return raw / positive if positive > EPS else None
    if positive > EPS:
        return min(max(raw / positive, 0.0), 1.0)
    if negative > EPS:
        return min(max(1.0 + raw / negative, 0.0), 1.0)
    return None


def length_penalty_amount(word_count: int, config: LengthPenalty) -> float:
    if word_count <= config.free_budget:
        return 0.0
    if word_count >= config.max_cap:
        return config.penalty_at_cap
    fraction = (word_count - config.free_budget) / (config.max_cap - config.free_budget)
    return config.penalty_at_cap * float(fraction**config.exponent)


def score_item(
    weighted_values: Sequence[tuple[float, float | None]],
    cannot_assess: CannotAssessConfig,
    normalize: bool,
    penalty: float = 0.0,
    option_values: Sequence[Sequence[float]] = (),
    clip: Clip = "item",
) -> ItemScore:
    """`weighted_values`: (w_i, value or None for abstain) per criterion, after aggregation;
    `option_values`: per criterion, its non-NA option values (empty for binary), or nothing.
    `clip: mean` leaves a normalized score and its length penalty unclamped."""
    raw = positive = negative = 0.0
    scored = 0
    for position, (weight, value) in enumerate(weighted_values):
        values = option_values[position] if option_values else ()
        v = criterion_value(weight, value, cannot_assess, values)
        if v is None:
            continue
        scored += 1
        raw += weight * v
        if weight > 0:
            positive += weight
        elif weight < 0:
            negative += -weight
    if scored == 0:
        return ItemScore(score=None, raw_score=None, length_penalty=penalty)
    if normalize:
        norm = normalized_score(raw, positive, negative, clip)
        floor = 0.0 if clip == "item" else -math.inf
        score = None if norm is None else max(norm - penalty, floor)
    else:
        score = raw - penalty
    return ItemScore(score=score, raw_score=raw, length_penalty=penalty)


def tag_scores(
    scored: Iterable[tuple[float, float | None, Sequence[str]]], clip: Clip = "item"
) -> dict[str, float]:
    """An item's score per criterion tag (docs/reference/report-json.md, "Tags"): for tag T,
    Σ w_i·v_i / Σ w_i over w_i > 0, both over the item's scored criteria tagged T, normalized
    and clamped as `normalized_score` does under `clip`. `scored`: (w_i, v_i as
    `criterion_value` gives it, None when left out, the criterion's tags). A tag that no
    scored positive-weight criterion carries has no score (HealthBench leaves the item out)."""
    raw: dict[str, float] = {}
    positive: dict[str, float] = {}
    for weight, value, tags in scored:
        if value is None:
            continue
        for tag in tags:
            raw[tag] = raw.get(tag, 0.0) + weight * value
            if weight > 0:
                positive[tag] = positive.get(tag, 0.0) + weight
    scores = {}
    for tag, total in positive.items():
        score = normalized_score(raw[tag], total, 0.0, clip)
        if score is not None:
            scores[tag] = score
    return scores


def word_counts(thinking: str | None, output: str) -> dict[str, int]:
    """Whitespace-separated word counts of the two parts of a submission."""
    return {"output": len(output.split()), "thinking": len((thinking or "").split())}


def submission_word_counts(submission: Submission) -> dict[str, int]:
    """The words of a submission the length penalty reads: of a conversation, assistant
    content is output and assistant reasoning thinking; nothing else counts."""
    if submission.messages is not None:
        return assistant_word_counts(submission.messages)
    return word_counts(submission.thinking, submission.output)


def counted_words(counts: dict[str, int], apply_to: str) -> int:
    """The word count the length penalty sees for `apply_to` (all | output | thinking)."""
    if apply_to == "all":
        return counts.get("output", 0) + counts.get("thinking", 0)
    return counts.get(apply_to, 0)


def word_count(thinking: str | None, output: str, apply_to: str) -> int:
    return counted_words(word_counts(thinking, output), apply_to)
