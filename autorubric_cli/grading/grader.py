"""CriterionGrader: grades one item with every judge, every criterion and every sample.

Scoring always uses the forced choice. A criterion with `elicitation: both` gets votes with a
forced choice AND an `option_set`, and scores exactly as with `forced_choice`; one with
`elicitation: response_set` gets votes with only an `option_set`, which abstain in scoring (as
CANNOT_ASSESS / NA, so the `cannot_assess` strategy applies to the criterion).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import ItemRecord, Vote
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.core.scoring import submission_word_counts
from autorubric_cli.errors import InputError
from autorubric_cli.grading.cascade import grade_cascade
from autorubric_cli.grading.few_shot import (
    CriterionExamples,
    LabelledExample,
    criterion_examples,
)
from autorubric_cli.grading.item_examples import item_examples
from autorubric_cli.grading.per_item import ItemRequestBuilder, item_votes_by_criterion
from autorubric_cli.grading.record import item_record
from autorubric_cli.grading.requests import RequestBuilder
from autorubric_cli.grading.reuse import VoteKey, gather_or_cancel, reusable_votes
from autorubric_cli.judges.batch.transport import BatchCoordinator
from autorubric_cli.judges.cache import CallCache
from autorubric_cli.judges.judge import Judge, build_judges
from autorubric_cli.judges.pairs import PairRequest
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.policy.spend import BudgetReached, SpendCap
from autorubric_cli.judges.prompt_caching import shares_prefix
from autorubric_cli.judges.request import VoteRequest
from autorubric_cli.judges.samples import sample_groups, sample_votes
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.transports.direct import close_clients
from autorubric_cli.judges.transports.simulated import simulated_run
from autorubric_cli.judges.transports.workers import WorkerPool

VoteSlot = tuple[int, str, int]  # (criterion index, judge id, sample)
T = TypeVar("T")
R = TypeVar("R", VoteRequest, PairRequest)  # a request with a shared prefix


async def gather_within_budget(awaitables: Iterable[Awaitable[T]]) -> list[T]:
    """`gather_or_cancel`, except that a call refused by the spend cap (`BudgetReached`) lets
    the calls already sent finish (they are paid; the call cache keeps their answers for
    `resume`) before it is raised."""

    async def kept(awaitable: Awaitable[T]) -> T | BudgetReached:
        try:
            return await awaitable
        except BudgetReached as exc:
            return exc

    results = await gather_or_cancel(kept(a) for a in awaitables)
    for result in results:
        if isinstance(result, BudgetReached):
            raise result
    return results  # type: ignore[return-value]


async def judge_votes(judge: Judge, asked: list[tuple[int, VoteRequest]]) -> dict[VoteSlot, Vote]:
    """One judge's votes on one item's criteria, sent as `staged` sends them: samples of one
    criterion whose prompts are identical in one request when the judge asks them together
    (judges/samples.py), except those the call cache holds (served one by one)."""
    groups = request_groups(judge, [request for _, request in asked])
    members = {(g[0].criterion.name, g[0].sample): g for g in groups}

    async def ask(head: VoteRequest) -> list[Vote]:
        group = members[(head.criterion.name, head.sample)]
        return await group_votes(judge, [replace(r, prefix_chars=head.prefix_chars) for r in group])

    _, votes = await staged(judge.spec, [group[0] for group in groups], ask)
    index = {(r.criterion.name, r.sample): i for i, r in asked}
    return {
        (index[(request.criterion.name, request.sample)], judge.id, request.sample): vote
        for group, found in zip(groups, votes, strict=True)
        for request, vote in zip(group, found, strict=True)
    }


async def staged(
    spec: JudgeSpec, requests: list[R], ask: Callable[[R], Awaitable[T]]
) -> tuple[list[R], list[T]]:
    """Calls that share a prefix, asked of one judge: the requests as sent, and the answers.

    When the calls share a cached prefix (`prompt_caching.shares_prefix`), the first call goes
    alone and the others follow once it has answered: a provider's cache entry is usable only
    after the call that wrote it was processed, so calls sent together would all pay full
    price. Otherwise (and below the provider's minimum) the calls carry no shared prefix and go
    together."""
    sent: list[R] = shared_prefix_requests(spec, requests)
    if sent and sent[0].prefix_chars is not None:
        first = await ask(sent[0])
        return sent, [first, *await gather_within_budget(ask(r) for r in sent[1:])]
    return sent, await gather_within_budget(ask(r) for r in sent)


def request_groups(judge: Judge, requests: list[VoteRequest]) -> list[list[VoteRequest]]:
    """The requests in the groups they are sent in, in order: samples asked together in one
    (judges/samples.py) unless the call cache holds them."""
    held = [judge.holds(r) for r in requests]
    groups = [[r] for r, h in zip(requests, held, strict=True) if h]
    groups += sample_groups(judge.spec, [r for r, h in zip(requests, held, strict=True) if not h])
    position = {id(r): i for i, r in enumerate(requests)}
    return sorted(groups, key=lambda group: position[id(group[0])])


async def group_votes(judge: Judge, group: list[VoteRequest]) -> list[Vote]:
    """The votes of one request's samples: one, or several asked together."""
    if len(group) == 1:
        return [await judge.vote(group[0])]
    return await sample_votes(judge, group)


def shared_prefix_requests(spec: JudgeSpec, requests: list[R]) -> list[R]:
    """The requests as sent: with their shared prefix when it is worth caching, else without."""
    if requests and requests[0].prefix_chars is not None:
        system = requests[0].messages[0]["content"]
        prefix = requests[0].messages[1]["content"][: requests[0].prefix_chars]
        if shares_prefix(spec, len(requests), system, prefix):
            return requests
    return [replace(r, prefix_chars=None) for r in requests]


def per_item_builder(
    rubric: Rubric,
    seed: int,
    base_dir: Path | None,
    examples: list[LabelledExample] | None = None,
) -> ItemRequestBuilder | None:
    """The per-item request builder when `llm_calls: per_item` (docs/guides/per-item.md), else
    None."""
    config = rubric.grader
    if config.llm_calls != "per_item":
        return None
    for key in ("system_prompt", "multi_choice_system_prompt"):
        if getattr(config, key) is not None:
            raise InputError(
                f"`{key}` is not used with `llm_calls: per_item` (one prompt grades every "
                "criterion); set `item_system_prompt` instead",
                key=f"grader.{key}",
            )
    return ItemRequestBuilder(rubric, seed, item_examples(rubric, seed, base_dir, examples))


class CriterionGrader:
    """Grades items against a rubric. `rubric.grader` is the resolved configuration.

    `seed` drives option shuffles and few-shot selection (default: the rubric's
    `grader.seed`); `base_dir` resolves the few-shot examples path; `retry` sets backoff timing
    (default: `rubric.grader.retry`); `cache` is the call cache (docs/guides/cache-and-cost.md),
    None for none;
    `batches` routes the judges that batch through provider batch APIs (docs/guides/batches.md),
    None for none; `workers` runs the litellm calls in worker processes
    (judges/transports/workers.py), None: in this process; `budget` is the run's spend cap
    (judges/policy/spend.py), None for none.
    `examples` is the few-shot pool when the caller read it (an experiment directory's labels,
    experiment/few_shot_labels.py), else the file `few_shot.examples` names is read.
    `aclose` (or leaving `async with`) closes the cache and the workers. Judge
    failures become error votes; only `JudgeAuthError` (refused credentials) is raised.
    """

    def __init__(
        self,
        rubric: Rubric,
        *,
        seed: int | None = None,
        base_dir: Path | None = None,
        retry: RetryPolicy | None = None,
        cache: CallCache | None = None,
        batches: BatchCoordinator | None = None,
        workers: WorkerPool | None = None,
        budget: SpendCap | None = None,
        examples: list[LabelledExample] | None = None,
    ) -> None:
        if not rubric.grader.judges:
            raise InputError(
                "no judge configured: add `grader.judges` to the rubric or pass --judge",
                key="grader.judges",
            )
        seed = rubric.grader.seed if seed is None else seed
        self.rubric = rubric
        self.seed = seed
        self.stats = CallStats()
        self.rules = ScoringRules.from_rubric(rubric)
        policy = retry or RetryPolicy.from_config(rubric.grader.retry)
        self.cache = cache
        self.batches = batches
        self.workers = workers
        self.judges = build_judges(
            rubric.grader,
            policy=policy,
            stats=self.stats,
            cache=cache,
            batches=batches,
            workers=workers,
            budget=budget,
        )
        self.per_item = per_item_builder(rubric, seed, base_dir, examples)
        shots = (
            CriterionExamples()
            if self.per_item
            else criterion_examples(rubric, seed, base_dir, examples)
        )
        self.requests = RequestBuilder(rubric, seed, shots)
        self.simulated = simulated_run(rubric.grader.judges)

    def item_rubric(self, item: Item) -> tuple[Rubric, ScoringRules]:
        """The rubric the item is graded with (the file's criteria, then its own) and its
        scoring rules; the file's own when the item has no criteria of its own."""
        if not item.rubric:
            return self.rubric, self.rules
        rubric = self.rubric.for_item(item.rubric)
        return rubric, ScoringRules.from_rubric(rubric)

    def dialects(self) -> dict[str, str]:
        """Each judge's structured-output dialect now (judges/transports/dialect.py)."""
        return {judge.id: judge.dialect.current for judge in self.judges}

    def word_count(self, item: Item) -> int:
        """The words of the submission the length penalty sees (0 with no penalty)."""
        return self.rules.words(submission_word_counts(item.submission))

    async def criterion_votes(
        self,
        item: Item,
        criteria: Sequence[Criterion],
        judges: Sequence[Judge],
        reuse: dict[VoteKey, Vote],
    ) -> list[list[Vote]]:
        """Per criterion, per judge of `judges`, per sample (one call per vote, `llm_calls:
        per_criterion`); a vote found in `reuse` is not asked again. Each judge's calls for the
        item run as `judge_votes` schedules them, every judge at once."""
        votes: dict[VoteSlot, Vote] = {}
        runs = []
        for judge in judges:
            asked = []
            for index, criterion in enumerate(criteria):
                for sample in range(judge.spec.samples):
                    vote = reuse.get((criterion.name, judge.id, sample))
                    if vote is not None:
                        votes[(index, judge.id, sample)] = vote
                    else:
                        request = self.requests.request(item, criterion, judge.id, sample)
                        asked.append((index, request))
            runs.append(judge_votes(judge, asked))
        for found in await gather_within_budget(runs):
            votes.update(found)
        return [
            [votes[(index, j.id, s)] for j in judges for s in range(j.spec.samples)]
            for index in range(len(criteria))
        ]

    async def votes_by_criterion(
        self,
        item: Item,
        criteria: Sequence[Criterion],
        judges: Sequence[Judge],
        reuse: dict[VoteKey, Vote],
    ) -> list[list[Vote]]:
        """Per criterion of `criteria` (the item's, in order), per judge, per sample: a vote of
        `reuse` or a new call's, in the run's `llm_calls` mode."""
        if self.per_item is None:
            return await self.criterion_votes(item, criteria, judges, reuse)
        max_attempts = self.rubric.grader.max_attempts
        return await item_votes_by_criterion(
            judges, self.per_item, item, criteria, reuse, max_attempts
        )

    async def grade(self, item: Item, prior: ItemRecord | None = None) -> ItemRecord:
        """The item's record. Votes of `prior` without an error are reused (`resume
        --retry-errors`); with `grader.cascade`, the cascade decides who is asked."""
        rubric, rules = self.item_rubric(item)
        if self.rubric.grader.cascade is not None:
            record = await grade_cascade(self, item, prior, rubric.criteria, rules)
            return self.withheld(item, record, rubric.criteria)
        started = time.perf_counter()
        reuse = reusable_votes(prior)
        votes_by_criterion = await self.votes_by_criterion(
            item, rubric.criteria, self.judges, reuse
        )
        evaluation = evaluate_votes(votes_by_criterion, rules, self.word_count(item))
        record = item_record(
            item,
            rubric.criteria,
            votes_by_criterion,
            evaluation,
            duration_s=time.perf_counter() - started,
            simulated=self.simulated,
        )
        return self.withheld(item, record, rubric.criteria)

    def withheld(self, item: Item, record: ItemRecord, criteria: Sequence[Criterion]) -> ItemRecord:
        """The record, marked when the item's own few-shot example was withheld from its
        prompts (grading/few_shot.py, leave-one-out)."""
        if self.per_item is not None:
            names = self.per_item.example_names(item)
            held = self.per_item.examples.withholds(item.id, names)
        else:
            assert isinstance(self.requests.examples, CriterionExamples)
            held = self.requests.examples.withholds(item.id, criteria)
        return record.model_copy(update={"few_shot_withheld": True}) if held else record

    async def __aenter__(self) -> CriterionGrader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close litellm's HTTP clients (call before the event loop ends), the worker processes
        and the call cache; stop polling batches (they keep running at the provider,
        docs/guides/batches.md)."""
        if self.batches is not None:
            await self.batches.aclose()
        if self.workers is not None:
            await self.workers.aclose()
        for judge in self.judges:
            await judge.aclose()
        await close_clients()
        if self.cache is not None:
            self.cache.close()
