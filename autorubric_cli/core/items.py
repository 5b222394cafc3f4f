"""A dataset item (docs/reference/dataset-files.md) after validation against the rubric."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from autorubric_cli.core.conversation import Message, as_given
from autorubric_cli.core.conversation_rules import parse_conversation
from autorubric_cli.core.criterion import Criterion

HumanRating = str | list[str]
GivenSubmission = str | dict[str, Any] | list[dict[str, Any]]
"""A submission as given: a text, `{thinking, output}`, or a conversation's messages."""
ITEM_FIELDS = (
    "id",
    "submission",
    "query",
    "reference_submission",
    "ground_truth",
    "human_ratings",
    "metadata",
    "context",
    "rubric",
    "tags",
)


class Submission(BaseModel):
    """A string (`output`), `{thinking, output}`, or a conversation (`messages`, kept as
    given; docs/reference/dataset-files.md). A conversation leaves `output` empty."""

    output: str = ""
    thinking: str | None = None
    messages: list[Message] | None = None
    # how many of `messages` are an item's context, shown to a judge but not graded (only in
    # the transcript a judge is shown: `Item.judged`)
    context_turns: int = 0

    def as_given(self) -> GivenSubmission:
        """The submission as a dataset gives it, as item records keep it: a conversation as
        its list of messages, a text with thinking as `{thinking, output}`, else the text."""
        if self.messages is not None:
            return as_given(self.messages)
        if self.thinking is not None:
            return {"thinking": self.thinking, "output": self.output}
        return self.output


class Item(BaseModel):
    """`index` (0-based position) and `line` (where the loader found it) are bookkeeping the
    loaders fill in; an item built in code may leave them at 0."""

    id: str
    index: int = 0
    line: int = 0
    submission: Submission
    query: str | None = None
    reference_submission: str | None = None
    ground_truth: dict[str, str] = Field(default_factory=dict)
    human_ratings: dict[str, list[HumanRating]] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    # per-item rubrics (docs/reference/dataset-files.md): the conversation before the
    # submission, the item's own criteria (named: `i<n>` by position when unnamed), its tags
    context: list[Message] | None = None
    rubric: list[Criterion] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)

    def judged(self) -> Submission:
        """What a judge is shown as the submission. With a `context`, one conversation: the
        context's turns, then the submission (a text becomes the final assistant turn, its
        thinking that turn's reasoning); the length penalty still counts the submission only."""
        if not self.context:
            return self.submission
        submission = self.submission
        turns = submission.messages
        if turns is None:
            reply: dict[str, Any] = {"role": "assistant", "content": submission.output}
            if submission.thinking is not None:
                reply["reasoning"] = submission.thinking
            turns = [Message.model_validate(reply)]
        return Submission(messages=[*self.context, *turns], context_turns=len(self.context))

    @field_validator("context", mode="before")
    @classmethod
    def _context_conversation(cls, value: Any) -> Any:
        """A list of messages or `{"messages": [...]}`, checked by the conversation rules
        (messages a loader already checked pass as they are)."""
        if isinstance(value, list) and all(isinstance(m, Message) for m in value):
            return value
        if isinstance(value, list) or (isinstance(value, dict) and "messages" in value):
            return parse_conversation(value, key="context")
        return value

    @field_validator("submission", mode="before")
    @classmethod
    def _plain_text(cls, value: Any) -> Any:
        """A plain string is the submission's output; a list of messages or
        `{"messages": [...]}` is a conversation, checked by the same rules as a file's."""
        if isinstance(value, str):
            return {"output": value}
        if isinstance(value, list) or (isinstance(value, dict) and "messages" in value):
            return {"messages": parse_conversation(value)}
        return value
