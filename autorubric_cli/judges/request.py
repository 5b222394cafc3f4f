"""What one judge call is about, and what a transport brings back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from autorubric_cli.core.rubric import Criterion, Elicitation
from autorubric_cli.judges.pairs import PairRequest
from autorubric_cli.judges.per_item.request import ItemRequest
from autorubric_cli.judges.policy.providers import Dialect
from autorubric_cli.judges.replies import ASKED_FIELDS, criterion_response_format, with_affected
from autorubric_cli.judges.revision import ReviseRequest


@dataclass(frozen=True)
class VoteRequest:
    """One (item, criterion, sample) for one judge, with the messages already built.

    `shuffle_order[p]` is the original index of the option shown at 0-based position p (None
    for binary criteria). `truth` is the item's ground-truth label for the criterion: only the
    simulated judge reads it. The reply schema is the criterion's own, or the one every
    per-criterion call shares for a provider whose prompt cache covers the schema
    (`response_format(shared)`); the criterion's kind and `elicitation` pick the fields it fills
    (`asked_fields`). `prefix_chars`: how many leading characters of the user message
    are the item's shared prefix (`prompts.shared_prefix`), the same for all its criteria; the
    transport marks them for providers with explicit prompt caching. `names_criteria`: the
    reply also lists `affected_criteria` (`grader.affected_criteria`).
    """

    item_id: str
    criterion: Criterion
    sample: int
    messages: list[dict[str, str]]
    shuffle_order: list[int] | None = None
    truth: str | None = None
    prefix_chars: int | None = None
    names_criteria: bool = False
    # the samples one request asks for (several choices, `n`; judges/samples.py); empty: `sample`
    samples: tuple[int, ...] = ()

    @property
    def option_count(self) -> int | None:
        return None if self.shuffle_order is None else len(self.shuffle_order)

    @property
    def votes(self) -> int:
        """The votes this request stands for: one criterion's, a vote per sample it asks for."""
        return len(self.samples) or 1

    @property
    def elicitation(self) -> Elicitation:
        return self.criterion.elicitation

    @property
    def asked_fields(self) -> tuple[str, ...]:
        return ASKED_FIELDS[(self.option_count is not None, self.elicitation)]

    def response_format(self, shared: bool) -> dict[str, Any]:
        own = criterion_response_format(self.option_count, self.elicitation, shared)
        return with_affected(own) if self.names_criteria else own


@dataclass(frozen=True)
class Choice:
    """One choice of a reply that holds several (a request for several samples, `n`)."""

    content: str | None
    reasoning: str | None = None
    truncated: bool = False  # cut off at the token limit (`finish_reason: length`)


@dataclass
class Completion:
    """A transport's reply: the text, an optional reasoning trace, usage and cost.

    `cached`: served by the call cache (docs/guides/cache-and-cost.md); `usage`/`cost` are then the
    original call's, paid once before. `confirm`, when set, stores the answer in the cache: the
    Judge calls it once the reply parsed, so only usable answers are ever stored. `truncated`:
    the provider cut the reply off at its token limit (`finish_reason: length`, as litellm maps
    every provider's own word for it).
    """

    content: str | None
    reasoning: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    cost: float | None = None
    cached: bool = False
    prompt_cache_saved: float | None = None  # cost with no cached tokens minus cost billed
    model: str | None = None  # the model the provider says answered (unknown for a cache hit)
    truncated: bool = False
    # every choice of a reply for several samples, in order (the first is `content`); empty
    # for a one-choice reply
    choices: tuple[Choice, ...] = ()
    confirm: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def all_choices(self) -> tuple[Choice, ...]:
        return self.choices or (Choice(self.content, self.reasoning, self.truncated),)


CallRequest = VoteRequest | ItemRequest | PairRequest | ReviseRequest
"""What a transport is asked: one criterion (per_criterion), several of one item (per_item),
one question about two responses (pairwise), or new wording for a criterion (the reviser of
`improve`)."""


@dataclass(frozen=True)
class Call:
    """One attempt's call: the messages sent (a re-ask adds the bad reply to the request's),
    the reply schema (OpenAI's `json_schema` form), the request it is about, the dialect the
    body asks for the schema in (`transports/body.py` renders it) and `reasks`, the unusable
    replies the request has had before this attempt (each raises the temperature a step:
    `providers.attempt_temperature`)."""

    messages: list[dict[str, str]]
    response_format: dict[str, Any]
    request: CallRequest
    dialect: Dialect = "json_schema"
    reasks: int = 0

    @property
    def samples(self) -> tuple[int, ...]:
        """The samples the call asks for: one choice each (`n` when several)."""
        samples: tuple[int, ...] = getattr(self.request, "samples", ())
        return samples or (getattr(self.request, "sample", 0),)  # a bare call: one

    @property
    def choices(self) -> int:
        return len(self.samples)


class Transport(Protocol):
    """Sends messages and returns a completion; raises JudgeFailure or JudgeAuthError, mapped
    from its own library's exceptions (policy/failures.py). `aclose` releases what it owns
    (sessions, the transport it wraps) before the event loop ends."""

    async def complete(self, call: Call) -> Completion: ...

    async def aclose(self) -> None: ...
