"""A dataset item (SPEC §2) after validation against the rubric."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

HumanRating = str | list[str]
ITEM_FIELDS = (
    "id",
    "submission",
    "query",
    "reference_submission",
    "ground_truth",
    "human_ratings",
    "metadata",
)


class Submission(BaseModel):
    output: str
    thinking: str | None = None


class Item(BaseModel):
    id: str
    index: int
    line: int
    submission: Submission
    query: str | None = None
    reference_submission: str | None = None
    ground_truth: dict[str, str] = Field(default_factory=dict)
    human_ratings: dict[str, list[HumanRating]] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
