"""Verdicts, votes and the item record written to items.jsonl
(docs/reference/experiment-directory.md)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from autorubric_cli.core.items import GivenSubmission
from autorubric_cli.core.json_model import absent


class CriterionVerdict(StrEnum):
    MET = "MET"
    UNMET = "UNMET"
    CANNOT_ASSESS = "CANNOT_ASSESS"


def add_counts(total: dict[str, int], more: dict[str, int]) -> None:
    """Add counts (token usage, label tallies) key by key."""
    for key, value in more.items():
        total[key] = total.get(key, 0) + value


class Record(BaseModel):
    """Records ignore unknown keys so that newer files stay readable."""

    model_config = ConfigDict(extra="ignore")


class Vote(Record):
    """One judge's answer for one criterion and sample; `option_index` is the original index."""

    judge: str
    sample: int = 0
    verdict: CriterionVerdict | None = None
    option_index: int | None = None
    shuffle_order: list[int] | None = None
    reason: str | None = None
    error: str | None = None
    usage: dict[str, int] = Field(default_factory=dict)
    cost: float | None = None
    thinking: str | None = None
    attempts: int = Field(1, ge=1)
    option_set: list[int] | None = None  # response-set elicitation: original option indices
    # served by the call cache: usage/cost are the original call's (docs/guides/cache-and-cost.md)
    cached: bool = False
    # per-item call (docs/guides/per-item.md): the criterion whose vote carries it
    billed_with: str | None = None
    # USD the provider's prompt cache saved on this vote's paid calls: their cost with no cached
    # tokens minus what was billed (negative for a call that only wrote the cache);
    # docs/guides/prompt-caching.md
    prompt_cache_saved: float | None = None
    # judge cascades (docs/guides/cascades.md): which stage asked; absent outside a cascade
    stage: Literal["first", "then"] | None = Field(None, exclude_if=lambda v: v is None)
    # reply fields the judge filled although not asked (ignored; docs/reference/report-json.md)
    ignored_fields: list[str] | None = absent()
    # the criteria the answer names (`grader.affected_criteria`: review's meta-rubric)
    affected: list[str] | None = absent()
    # the raised temperature a re-ask got the kept answer at; absent: the judge's own
    # (docs/reference/experiment-directory.md)
    temperature: float | None = absent()
    # samples asked in one request (docs/guides/judges.md#samples-in-one-request): those the
    # first request for this vote's sample asked for; absent for a sample asked alone
    together: list[int] | None = absent()


class OptionRecord(Record):
    index: int
    label: str
    value: float | None
    na: bool


class DefinedOption(Record):
    """An option of an item criterion's definition, as the record keeps it."""

    label: str
    value: float | None = None
    na: bool = False


class CriterionRecord(Record):
    name: str
    verdict: CriterionVerdict | None = None
    option: OptionRecord | None = None
    aggregated_value: float | None = None
    reason: str | None = None
    agreement: float | None = None
    votes: list[Vote] = Field(default_factory=list)
    # judge cascades: true when the `then` judges decided; absent outside a cascade
    escalated: bool | None = Field(None, exclude_if=lambda v: v is None)
    # An item criterion's definition (docs/reference/experiment-directory.md), so the record
    # stands alone; absent on a shared criterion (rubric.yaml holds it). `requirement` set means
    # an item criterion; the last four only when not their default. Written and read back by
    # core/item_rubric.py.
    requirement: str | None = absent()
    weight: float | None = absent()
    tags: list[str] | None = absent()
    options: list[DefinedOption] | None = absent()
    scale_type: str | None = absent()
    aggregation: str | None = absent()
    scope: str | None = absent()
    elicitation: str | None = absent()


class ItemRecord(Record):
    id: str
    index: int
    status: Literal["ok", "error"]
    score: float | None = None
    raw_score: float | None = None
    length_penalty: float = 0.0
    criteria: list[CriterionRecord] = Field(default_factory=list)
    judge_scores: dict[str, float | None] = Field(default_factory=dict)
    usage: dict[str, int] = Field(default_factory=dict)
    cost: float | None = None
    # cached votes (docs/guides/cache-and-cost.md)
    usage_saved: dict[str, int] = Field(default_factory=dict)
    cost_saved: float | None = 0.0
    duration_s: float = 0.0
    error: str | None = None
    simulated: bool = False
    # Extensions to docs/reference/experiment-directory.md so that `report` needs nothing but
    # items.jsonl:
    word_counts: dict[str, int] = Field(default_factory=dict)  # {"output": n, "thinking": m}
    ground_truth: dict[str, str] = Field(default_factory=dict)
    human_ratings: dict[str, list[str | list[str]]] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)  # clusters, self-preference
    # What was graded, so that the directory stands alone (docs/reference/experiment-directory.md);
    # absent from records written before they were kept, and query/reference when the item has none
    submission: GivenSubmission | None = absent()
    query: str | None = absent()
    reference_submission: str | None = absent()
    # per-item rubrics: the conversation before the submission (as given), the item's tags
    context: list[dict[str, Any]] | None = absent()
    tags: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    # its own few-shot example was withheld from its prompts (docs/reference/rubric-file.md)
    few_shot_withheld: bool | None = absent()


def retried_calls(record: ItemRecord, per_item: bool) -> dict[str, int]:
    """Retries by judge in one record, counted per call: the calls sent again for the same
    request (after a failure or an unusable reply) and, per item, the follow-up calls asking
    again for the criteria a reply left out. Per criterion a vote is one request: its attempts
    beyond the first. Per item, one request per (judge, sample) asks every criterion, each call
    listing the ones still pending, so the criterion asked last was listed in every call: the
    request's calls are the most attempts among its votes. Samples asked in one request
    (`together`) are one request likewise: the sample asked most was in every call."""
    calls: dict[tuple[str, int | str], int] = {}
    for criterion in record.criteria:
        for vote in criterion.votes:
            asked = vote.together or vote.sample
            key = (vote.judge, vote.sample if per_item else f"{criterion.name}/{asked}")
            calls[key] = max(calls.get(key, 0), vote.attempts)
    retried: dict[str, int] = {}
    for (judge, _), attempts in calls.items():
        retried[judge] = retried.get(judge, 0) + attempts - 1
    return retried
