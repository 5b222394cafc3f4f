"""Several samples in one request (docs/guides/judges.md#samples-in-one-request).

A judge with `samples: N` whose provider returns several choices for one request (OpenAI and
OpenAI-compatible servers: `n`; Gemini: `candidateCount`, which litellm maps `n` to) asks one
request for the samples whose prompts are identical (`sample_request: one`, the default
there). Each choice is one sample's vote, recorded and cached as if it had been asked alone.

- `asks_together`: whether a judge asks its samples in one request;
- `sample_groups`: which requests share one: those of one criterion with identical messages
  (a multi-choice criterion whose options are shuffled per sample shows each sample its own
  order, so each of its samples keeps a request of its own);
- `sample_votes`: the votes of one group. Each request goes through `Judge.ask` (attempts,
  retries, re-asks, accounting, the breaker, spans) with a parser that reads every choice. A
  reply with fewer usable choices than asked is followed by a request for the samples still
  missing (`follow_up`, counted as a retry), within each sample's `max_attempts`, a
  temperature step hotter per unusable choice they had (a missing choice is not one), as a
  re-ask would be; a reply with no usable choice is re-asked in the conversation like any
  unusable reply. Each choice that answered is stored in the call cache under its sample's own
  key (the key of the call that got it: its temperature included).
- Billing (`split_usage`, `split_cost`): what a request cost is shared by the samples it asked
  for so that their votes add up to it: the prompt (with its cached and written tokens) on the
  first sample asked, the completion tokens evenly over the choices (the remainder on the
  earliest), the cost in proportion to each share's tokens at the model's list rates for input
  and output (in proportion to the tokens for a model without a list price).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.records import Vote
from autorubric_cli.judges.asked import Asked, Bill
from autorubric_cli.judges.judge import Judge
from autorubric_cli.judges.parsers import Parser, vote_parser
from autorubric_cli.judges.policy.failures import JudgeFailure, cut_off
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.policy.providers import facts_for
from autorubric_cli.judges.price_table import price_table
from autorubric_cli.judges.replies import Answer
from autorubric_cli.judges.request import Completion, VoteRequest

T = TypeVar("T")
R = TypeVar("R")
SHORT = "the reply held fewer choices than samples asked for"


def asks_together(spec: JudgeSpec) -> bool:
    """`sample_request: one`, or unset on a provider that returns several choices."""
    if spec.samples < 2 or spec.sample_request == "separate":
        return False
    return spec.sample_request == "one" or facts_for(spec.model).several_choices


def sample_groups(spec: JudgeSpec, requests: Sequence[R]) -> list[list[R]]:
    """The requests in the groups they are sent in, in order of first appearance: one group
    per criterion and prompt when the judge asks its samples together, else one each (and
    one each for requests other than a criterion's: comparisons, revisions)."""
    groups: dict[object, list[R]] = {}
    together = asks_together(spec)
    for position, request in enumerate(requests):
        key: object = position
        if together and isinstance(request, VoteRequest):
            key = (request.criterion.name, repr(request.messages))
        groups.setdefault(key, []).append(request)
    return list(groups.values())


def split_usage(usage: dict[str, int], parts: int) -> list[dict[str, int]]:
    """The shares of a request's usage (the module docstring says how)."""
    whole, left = divmod(usage.get("completion_tokens", 0), parts)
    later = {"prompt_tokens": 0} if "prompt_tokens" in usage else {}
    shares: list[dict[str, int]] = [dict(usage)] + [dict(later) for _ in range(parts - 1)]
    if "completion_tokens" in usage:
        for i, share in enumerate(shares):
            share["completion_tokens"] = whole + (1 if i < left else 0)
    return shares


def split_cost(cost: float | None, model: str, usages: list[dict[str, int]]) -> list[float | None]:
    """`cost` over the usage shares, in proportion to their tokens at the model's list rates."""
    if cost is None:
        return [None for _ in usages]
    entry = price_table().get(model.partition("/")[2] or model, {})
    rate_in = float(entry.get("input_cost_per_token") or 1.0)
    rate_out = float(entry.get("output_cost_per_token") or 1.0)
    weights = [
        u.get("prompt_tokens", 0) * rate_in + u.get("completion_tokens", 0) * rate_out
        for u in usages
    ]
    total = sum(weights)
    shares: list[float | None] = [
        cost * w / total if total > 0 else cost / len(usages) for w in weights
    ]
    return shares


def split_bill(bill: Bill, parts: int, model: str) -> list[Bill]:
    usages = split_usage(bill.usage, parts)
    costs = split_cost(bill.cost, model, usages)
    return [
        Bill(usage, cost, bill.priced, bill.calls, bill.prompt_cache_saved if i == 0 else None)
        for i, (usage, cost) in enumerate(zip(usages, costs, strict=True))
    ]


def split_choices(completion: Completion, model: str) -> list[Completion]:
    """One completion per choice of a reply, each with its share of the bill."""
    choices = completion.all_choices()
    usages = split_usage(completion.usage, len(choices))
    costs = split_cost(completion.cost, model, usages)
    return [
        replace(
            completion,
            content=choice.content,
            reasoning=choice.reasoning,
            truncated=choice.truncated,
            usage=usage,
            cost=cost,
            prompt_cache_saved=completion.prompt_cache_saved if i == 0 else None,
            choices=(),
            confirm=None,
        )
        for i, (choice, usage, cost) in enumerate(zip(choices, usages, costs, strict=True))
    ]


@dataclass
class SampleReplies:
    """What one reply answered: per sample asked, its choice's answer and reply, or why not."""

    answers: dict[int, Answer] = field(default_factory=dict)
    replies: dict[int, Completion] = field(default_factory=dict)
    problems: dict[int, JudgeFailure] = field(default_factory=dict)


def choices_parser(
    parse: Parser[Answer], samples: Sequence[int], spec: JudgeSpec
) -> Parser[SampleReplies]:
    """Reads every choice of a reply as its sample's answer (an unusable choice cut off at the
    token limit is named so); raises the first problem when no choice is usable (the reply is
    then re-asked as any unusable reply is)."""

    def read(completion: Completion) -> SampleReplies:
        found = SampleReplies()
        parts = split_choices(completion, spec.model)
        for position, sample in enumerate(samples):
            if position >= len(parts):
                found.problems[sample] = JudgeFailure(FailureKind.PARSE, SHORT)
                continue
            part = parts[position]
            try:
                found.answers[sample] = parse(part)
                found.replies[sample] = part
            except JudgeFailure as failure:
                found.problems[sample] = cut_off(spec.max_tokens) if part.truncated else failure
        if not found.answers:
            raise found.problems[samples[0]]
        return found

    return read


def record_round(
    state: dict[int, Asked[Answer]], request: VoteRequest, asked: Asked[SampleReplies], model: str
) -> None:
    """Each sample's share of one request's attempts and bill, and its answer or problem."""
    samples = request.samples
    paid = split_bill(asked.paid, len(samples), model)
    saved = split_bill(asked.saved, len(samples), model)
    replies = asked.value
    for position, sample in enumerate(samples):
        mine = state[sample]
        mine.attempts += asked.attempts
        mine.paid.merge(paid[position])
        mine.saved.merge(saved[position])
        if asked.failure is not None:
            mine.failure = asked.failure
        elif replies is not None and sample in replies.answers:
            mine.value, mine.completion = replies.answers[sample], replies.replies[sample]
            mine.failure, mine.messages, mine.call = None, asked.messages, asked.call
            mine.temperature = asked.temperature
        elif replies is not None:
            mine.failure = replies.problems[sample]
            # an unusable choice is an unusable reply for its sample; a missing one is not
            mine.reasks = asked.reasks + (mine.failure.detail != SHORT)


async def sample_votes(judge: Judge, requests: list[VoteRequest]) -> list[Vote]:
    """The votes of several samples of one criterion with identical prompts, as few requests
    as their answers take (the module docstring says how)."""
    by_sample = {r.sample: r for r in requests}
    state: dict[int, Asked[Answer]] = {s: Asked(messages=[]) for s in by_sample}
    parse, model = vote_parser(requests[0]), judge.spec.model
    limit = judge.max_attempts
    pending, follow_up = list(by_sample), False
    failed: set[int] = set()  # the samples of a failed request: `ask` counted their error votes
    while pending:
        request = replace(by_sample[pending[0]], samples=tuple(pending))
        left = limit - state[pending[0]].attempts
        parser = choices_parser(parse, pending, judge.spec)
        hotter = max(state[s].reasks for s in pending)
        asked = await judge.ask(request, parser, attempts=left, follow_up=follow_up, reasks=hotter)
        follow_up = True
        record_round(state, request, asked, model)
        keep_answers(judge, [by_sample[s] for s in pending], state)
        if asked.failure is not None:
            failed.update(pending)
            break
        pending = [s for s in pending if state[s].value is None and state[s].attempts < limit]
    together = {"together": list(by_sample)}
    return [
        judge.vote_of(by_sample[s], state[s], error_counted=s in failed).model_copy(update=together)
        for s in by_sample
    ]


def keep_answers(
    judge: Judge, requests: list[VoteRequest], state: dict[int, Asked[Answer]]
) -> None:
    """Store each answered sample's choice under its own call's key: the call that got it
    (messages, schema, dialect, re-asks), asking for that sample alone."""
    if judge.cache is None:
        return
    for request in requests:
        mine = state[request.sample]
        if mine.completion is not None and not mine.completion.cached and mine.call is not None:
            judge.cache.keep(replace(mine.call, request=request), mine.completion)
