"""Per-item grading (docs/guides/per-item.md, `llm_calls: per_item`): one call per (item, judge,
sample) asks for every criterion that needs a vote; its reply is split into per-criterion votes
stored exactly as per-criterion votes are (docs/reference/experiment-directory.md), with the same
option shuffles (docs/guides/rubrics.md).

Follow-ups: criteria whose entry is missing, repeated or invalid are asked again in ONE new
call listing only them (the same prompt restricted to those criteria, so it is exactly the
call `resume --retry-errors` would make for them). Every call that lists a criterion counts
as an attempt of that criterion's vote (`attempts`), within `max_attempts`; when they are spent
the criterion gets an error vote and the others keep their answers. A reply with no usable
entry is retried like any failed call (`Judge.ask`).

Accounting: a call's usage and cost (and reasoning trace) are recorded once, on the vote of
the FIRST criterion it asked for, in rubric order. The other votes of that call carry
`usage: {}`, `cost: 0.0` (null when the call was unpriced) and `billed_with: <that criterion>`,
so every total over votes (item, report, judges, `cost_saved`) counts each call once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from autorubric_cli.core.items import Item
from autorubric_cli.core.records import Vote
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.grading.item_examples import ItemExamples
from autorubric_cli.grading.requests import shown_order
from autorubric_cli.grading.reuse import VoteKey, gather_or_cancel
from autorubric_cli.judges.asked import Asked
from autorubric_cli.judges.judge import Judge
from autorubric_cli.judges.parsers import answer_fields, of_text
from autorubric_cli.judges.per_item.asked import AskedCriterion
from autorubric_cli.judges.per_item.prompts import item_system_prompt, item_user_message
from autorubric_cli.judges.per_item.replies import MISSING_ENTRY, ItemReply, parse_item_reply
from autorubric_cli.judges.per_item.request import ItemRequest
from autorubric_cli.judges.replies import Answer

logger = logging.getLogger("autorubric_cli.judges")


@dataclass(frozen=True)
class ItemRequestBuilder:
    """`rubric`: the file's; an item's own criteria come with the item (`criteria` asked)."""

    rubric: Rubric
    seed: int
    examples: ItemExamples

    def example_names(self, item: Item) -> tuple[str, ...]:
        """The criteria whose labels pick the item's examples: the file's, then its own."""
        return (*(c.name for c in self.rubric.criteria), *(c.name for c in item.rubric))

    def request(
        self, item: Item, criteria: Sequence[Criterion], *, judge_id: str, sample: int
    ) -> ItemRequest:
        config = self.rubric.grader
        asked = [
            AskedCriterion(
                criterion=c,
                shuffle_order=shown_order(config, self.seed, item, judge_id, c, sample),
                truth=item.ground_truth.get(c.name),
            )
            for c in criteria
        ]
        user = item_user_message(
            submission=item.judged(),
            asked=asked,
            guidelines=self.rubric.guidelines,
            query=item.query,
            reference_submission=item.reference_submission,
            examples=self.examples.for_names(self.example_names(item), item.id),
        )
        messages = [
            {"role": "system", "content": item_system_prompt(config.item_system_prompt)},
            {"role": "user", "content": user},
        ]
        return ItemRequest(item_id=item.id, sample=sample, asked=asked, messages=messages)


@dataclass
class Ledger:
    """What one criterion's vote accumulates over the calls that listed it: the calls it
    carries the bill of (`carried`: it was the first criterion they asked for), and all of them
    (`attempts`, paid or served)."""

    carried: Asked[ItemReply] = field(default_factory=lambda: Asked(messages=[]))
    attempts: int = 0
    paid_calls: int = 0
    served_calls: int = 0
    first_carrier: str | None = None
    answer: Answer | None = None
    problem: str | None = None
    temperature: float | None = None  # the raised temperature of a re-ask that answered it

    @property
    def cached(self) -> bool:
        return self.paid_calls == 0 and self.served_calls > 0

    @property
    def carries(self) -> bool:
        return self.carried.paid.calls + self.carried.saved.calls > 0


def record_round(ledgers: dict[str, Ledger], request: ItemRequest, asked: Asked[ItemReply]) -> None:
    names = [a.name for a in request.asked]
    carrier = ledgers[names[0]].carried
    carrier.paid.merge(asked.paid)
    carrier.saved.merge(asked.saved)
    carrier.completion = carrier.completion or asked.completion
    reply = asked.value
    for name in names:
        ledger = ledgers[name]
        ledger.attempts += asked.attempts
        ledger.paid_calls += asked.paid.calls
        ledger.served_calls += asked.saved.calls
        ledger.first_carrier = ledger.first_carrier or names[0]
        if asked.failure is not None:
            ledger.problem = asked.failure.describe()
        elif reply is not None and name in reply.answers:
            ledger.answer, ledger.temperature = reply.answers[name], asked.temperature
        elif reply is not None:
            ledger.problem = unanswered(asked, reply.problems[name])


def unanswered(asked: Asked[ItemReply], problem: str) -> str:
    """Why a reply that answered others has no answer for a criterion: a missing entry of a
    reply cut off at its token limit is the cut's (`truncated: ...`), else a `parse` problem."""
    if asked.cut_off is not None and problem == MISSING_ENTRY:
        return f"{asked.cut_off.describe()} before this criterion's entry"
    return f"parse: {problem}"


async def judge_item_votes(
    judge: Judge,
    build: Callable[[Sequence[Criterion]], ItemRequest],
    criteria: Sequence[Criterion],
    *,
    sample: int,
    max_attempts: int,
) -> dict[str, Vote]:
    """One judge's votes (one sample) for `criteria`: one call, then follow-ups as needed.

    Each call goes through `Judge.ask` with the per-item reply parser, so retries, re-asks, the
    adaptive limit and the circuit breaker treat it as they treat a per-criterion vote."""
    ledgers = {c.name: Ledger() for c in criteria}
    asked: dict[str, AskedCriterion] = {}
    pending = list(criteria)
    follow_up = False
    failed: set[str] = set()  # asked by a request that failed: `ask` counted their error votes
    while pending:
        request = build(pending)
        asked.update((a.name, a) for a in request.asked)
        parse = of_text(partial(parse_item_reply, asked=request.asked))
        left = max_attempts - ledgers[pending[0].name].attempts
        answered = await judge.ask(request, parse, attempts=left, follow_up=follow_up)
        follow_up = True
        record_round(ledgers, request, answered)
        if answered.failure is not None:
            failed = {a.name for a in request.asked}
            break
        pending = [
            c
            for c in pending
            if ledgers[c.name].answer is None and ledgers[c.name].attempts < max_attempts
        ]
    return {
        c.name: judge.counted(
            ledger_vote(judge.id, sample, asked[c.name], ledgers), error_counted=c.name in failed
        )
        for c in criteria
    }


def ledger_vote(
    judge_id: str, sample: int, asked: AskedCriterion, ledgers: dict[str, Ledger]
) -> Vote:
    ledger = ledgers[asked.name]
    bill = ledger.carried.saved if ledger.cached else ledger.carried.paid
    billed_with = None if ledger.carries else ledger.first_carrier
    cost = bill.cost
    if billed_with is not None:
        cost = 0.0 if ledgers[billed_with].carried.bill.cost is not None else None
    common = {
        "judge": judge_id,
        "sample": sample,
        "shuffle_order": asked.shuffle_order,
        "usage": bill.usage,
        "cost": cost,
        "cached": ledger.cached,
        "attempts": max(ledger.attempts, 1),
        "billed_with": billed_with,
    }
    answer = ledger.answer
    if answer is None:
        logger.info(
            "judge %s: %s sample %d failed after %d attempt(s): %s",
            judge_id,
            asked.name,
            sample,
            ledger.attempts,
            ledger.problem,
        )
        return Vote(error=ledger.problem or "error: no answer", **common)
    return Vote(
        thinking=ledger.carried.reasoning,
        **answer_fields(asked.shuffle_order, answer),
        **common,
        temperature=ledger.temperature,
    )


async def item_votes_by_criterion(
    judges: Sequence[Judge],
    builder: ItemRequestBuilder,
    item: Item,
    criteria: Sequence[Criterion],
    reuse: dict[VoteKey, Vote],
    max_attempts: int,
) -> list[list[Vote]]:
    """Per criterion of `criteria` (the item's: the file's, then its own), per judge, per
    sample: a reused vote or a per-item call's."""
    keys: list[tuple[str, int]] = []
    calls = []
    for judge in judges:
        for sample in range(judge.spec.samples):
            needed = [c for c in criteria if (c.name, judge.id, sample) not in reuse]
            if needed:
                build = partial(builder.request, item, judge_id=judge.id, sample=sample)
                keys.append((judge.id, sample))
                calls.append(
                    judge_item_votes(judge, build, needed, sample=sample, max_attempts=max_attempts)
                )
    fresh: dict[VoteKey, Vote] = {}
    for (judge_id, sample), votes in zip(keys, await gather_or_cancel(calls), strict=True):
        fresh.update(((name, judge_id, sample), vote) for name, vote in votes.items())
    both = {**fresh, **reuse}
    return [
        [both[(c.name, j.id, s)] for j in judges for s in range(j.spec.samples)] for c in criteria
    ]
