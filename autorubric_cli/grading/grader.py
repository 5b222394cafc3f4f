"""CriterionGrader: grades one item with every judge, every criterion and every sample.

Scoring always uses the forced choice. A criterion with `elicitation: both` gets votes with a
forced choice AND an `option_set`, and scores exactly as with `forced_choice`; one with
`elicitation: response_set` gets votes with only an `option_set`, which abstain in scoring (as
CANNOT_ASSESS / NA, so the `cannot_assess` strategy applies to the criterion).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING

from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import ItemRecord, Vote
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.scoring import word_counts
from autorubric_cli.errors import InputError
from autorubric_cli.grading.few_shot import examples_by_criterion
from autorubric_cli.grading.item_examples import item_examples
from autorubric_cli.grading.per_item import ItemRequestBuilder, item_votes_by_criterion
from autorubric_cli.grading.record import item_record
from autorubric_cli.grading.requests import RequestBuilder
from autorubric_cli.grading.reuse import gather_or_cancel, reusable_votes
from autorubric_cli.judges import CallStats, RetryPolicy, build_judges, close_clients
from autorubric_cli.judges.cache import CallCache

if TYPE_CHECKING:
    from autorubric_cli.judges.batch_transport import BatchCoordinator
    from autorubric_cli.judges.workers import WorkerPool


async def reused(vote: Vote) -> Vote:
    return vote


def per_item_builder(rubric: Rubric, seed: int, base_dir: Path | None) -> ItemRequestBuilder | None:
    """The per-item request builder when `llm_calls: per_item` (SPEC §10), else None."""
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
    return ItemRequestBuilder(rubric, seed, item_examples(rubric, seed, base_dir))


class CriterionGrader:
    """Grades items against a rubric. `rubric.grader` is the resolved configuration.

    `seed` drives option shuffles and few-shot selection (default: the rubric's
    `grader.seed`); `base_dir` resolves the few-shot examples path; `retry` sets backoff timing
    (default: `rubric.grader.retry`); `cache` is the call cache (SPEC §9), None for none;
    `batches` routes the judges that batch through provider batch APIs (SPEC §11), None for
    none; `workers` runs the litellm calls in worker processes (judges/workers.py), None: in
    this process. `aclose` (or leaving `async with`) closes the cache and the workers. Judge
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
        )
        self.per_item = per_item_builder(rubric, seed, base_dir)
        self.requests = RequestBuilder(
            rubric, seed, {} if self.per_item else examples_by_criterion(rubric, seed, base_dir)
        )
        self.simulated = any(judge.simulated for judge in self.judges)

    def word_count(self, item: Item) -> int:
        """The words of the submission the length penalty sees (0 with no penalty)."""
        return self.rules.words(word_counts(item.submission.thinking, item.submission.output))

    def pending_votes(self, item: Item, prior: ItemRecord | None) -> list[list[Awaitable[Vote]]]:
        """Per criterion, per judge, per sample: a reused vote or a judge call."""
        reuse = reusable_votes(prior)
        plan = []
        for criterion in self.rubric.criteria:
            row: list[Awaitable[Vote]] = []
            for judge in self.judges:
                for sample in range(judge.spec.samples):
                    vote = reuse.get((criterion.name, judge.id, sample))
                    if vote is not None:
                        row.append(reused(vote))
                    else:
                        request = self.requests.request(item, criterion, judge.id, sample)
                        row.append(judge.vote(request))
            plan.append(row)
        return plan

    async def criterion_votes(self, item: Item, prior: ItemRecord | None) -> list[list[Vote]]:
        """Per criterion, per judge, per sample (one call per vote, `llm_calls: per_criterion`)."""
        plan = self.pending_votes(item, prior)
        flat = await gather_or_cancel(vote for row in plan for vote in row)
        votes_by_criterion: list[list[Vote]] = []
        for row in plan:
            votes_by_criterion.append(flat[: len(row)])
            flat = flat[len(row) :]
        return votes_by_criterion

    async def grade(self, item: Item, prior: ItemRecord | None = None) -> ItemRecord:
        started = time.perf_counter()
        if self.per_item is None:
            votes_by_criterion = await self.criterion_votes(item, prior)
        else:
            votes_by_criterion = await item_votes_by_criterion(
                self.judges,
                self.per_item,
                item,
                reusable_votes(prior),
                self.rubric.grader.max_attempts,
            )
        evaluation = evaluate_votes(votes_by_criterion, self.rules, self.word_count(item))
        return item_record(
            item,
            self.rubric.criteria,
            votes_by_criterion,
            evaluation,
            duration_s=time.perf_counter() - started,
            simulated=self.simulated,
        )

    async def __aenter__(self) -> CriterionGrader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close litellm's HTTP clients (call before the event loop ends), the worker processes
        and the call cache; stop polling batches (they keep running at the provider, SPEC §11)."""
        if self.batches is not None:
            await self.batches.aclose()
        if self.workers is not None:
            await self.workers.aclose()
        await close_clients()
        if self.cache is not None:
            self.cache.close()
