"""One per-item call of a judge (docs/guides/per-item.md), with the Judge's own call path and
retries.

`ask_item` sends an `ItemRequest` through `Judge._call` (the call cache, single flight,
concurrency slots, rate limit and live counters of a per-criterion call) and retries it with
the Judge's policy: transient failures and replies with no usable entry at all are retried
(an unusable reply is re-asked in the same conversation) until `max_attempts` attempts are
spent. A reply with some usable entries ends the round: the grader re-asks the others in a new
call. A reply is stored in the call cache once it has a usable entry, so a rerun is served the
same partial reply and the same follow-up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from autorubric_cli.judges.judge import Judge
from autorubric_cli.judges.per_item.replies import ItemReply, parse_item_reply
from autorubric_cli.judges.per_item.request import ItemRequest
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.policy.retry import is_retryable
from autorubric_cli.judges.prompts import reask_messages
from autorubric_cli.judges.request import Completion


@dataclass
class ItemRound:
    """The attempts of one per-item request: every completion received (paid or cached), and
    the usable reply or the last failure."""

    messages: list[dict[str, str]]
    attempts: int = 0
    completions: list[Completion] = field(default_factory=list)
    reply: ItemReply | None = None
    reasoning: str | None = None
    failure: JudgeFailure | None = None


async def ask_item(judge: Judge, request: ItemRequest, max_attempts: int) -> ItemRound:
    """Ask until a usable reply or `max_attempts` attempts; only JudgeAuthError escapes."""
    state = ItemRound(messages=list(request.messages))
    retrying = AsyncRetrying(
        stop=stop_after_attempt(max_attempts),
        wait=judge.policy.tenacity_wait,
        retry=retry_if_exception(is_retryable),
        before_sleep=judge._count_retry,
        reraise=True,
    )
    try:
        await retrying(_attempt, judge, request, state)
    except JudgeFailure as failure:
        state.failure = failure
    return state


async def _attempt(judge: Judge, request: ItemRequest, state: ItemRound) -> None:
    state.attempts += 1
    completion = await judge._call(request, state.messages)
    state.completions.append(completion)
    try:
        state.reply = parse_item_reply(completion.content, request.asked)
    except JudgeFailure as failure:
        state.messages = reask_messages(request.messages, completion.content, failure.detail)
        raise
    state.reasoning = completion.reasoning
    if completion.confirm is not None:
        completion.confirm()
