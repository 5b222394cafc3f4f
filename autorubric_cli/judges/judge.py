"""One judge: turns a VoteRequest into a Vote, with retries, re-asks, limits and accounting.

An attempt is one call plus the parsing of its reply. Transient failures (by status code) and
unusable replies are retried by tenacity until `max_attempts` attempts (the first included)
are spent; the vote is then an error vote, which abstains. Only `JudgeAuthError` and
`JudgeUnavailable` (the circuit breaker tripped, breaker.py) escape.

Every call goes through the judge's adaptive concurrency limit (adaptive.py) and reports to
its circuit breaker, whatever the transport.

With response-set elicitation the vote also carries `option_set`: the ORIGINAL option indices
of the judge's set (mapped back through the shuffle shown), sorted and unique; for a binary
criterion, indices in the report's binary encoding, 0 = UNMET and 1 = MET. A `response_set`
vote has no verdict / option_index, so it abstains in scoring; a `both` vote scores as usual.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.records import Vote, add_counts
from autorubric_cli.core.shuffle import original_index
from autorubric_cli.judges.cache import CallCache
from autorubric_cli.judges.policy.adaptive import AdaptiveLimit
from autorubric_cli.judges.policy.breaker import CircuitBreaker
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.policy.limits import UNLIMITED, RequestRateLimiter, call_slot
from autorubric_cli.judges.policy.retry import RetryPolicy, is_retryable
from autorubric_cli.judges.policy.spend import SpendCap
from autorubric_cli.judges.prompts import reask_messages
from autorubric_cli.judges.replies import BINARY_SET_ORDER, Answer, parse_answer
from autorubric_cli.judges.request import CallRequest, Completion, Transport, VoteRequest
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.transports.cached import CachedTransport, SingleFlight, cached_completion
from autorubric_cli.judges.transports.direct import direct_transport
from autorubric_cli.judges.transports.litellm import api_key_for
from autorubric_cli.judges.transports.simulated import SimulatedTransport, is_simulated
from autorubric_cli.judges.transports.workers import WorkerPool, WorkerTransport

if TYPE_CHECKING:
    from autorubric_cli.judges.batch.transport import BatchCoordinator

logger = logging.getLogger("autorubric_cli.judges")


@dataclass
class Bill:
    """Usage and cost summed over completions; cost None once any of them is unpriced."""

    usage: dict[str, int] = field(default_factory=dict)
    cost: float | None = None
    priced: bool = True
    calls: int = 0
    prompt_cache_saved: float | None = None

    def add(self, completion: Completion) -> None:
        self.calls += 1
        add_counts(self.usage, completion.usage)
        if completion.prompt_cache_saved is not None:
            self.prompt_cache_saved = (
                self.prompt_cache_saved or 0.0
            ) + completion.prompt_cache_saved
        if completion.cost is None:
            self.priced = False
        if self.priced and completion.cost is not None:
            self.cost = (self.cost or 0.0) + completion.cost
        else:
            self.cost = None


@dataclass
class VoteState:
    """What accumulates over the attempts of one vote: paid calls and cache-served ones apart.

    A vote is `cached` when no attempt was paid; it then carries the original usage and cost.
    Otherwise it carries what was paid only, so a total over votes never counts a call twice.
    """

    messages: list[dict[str, str]]
    attempts: int = 0
    paid: Bill = field(default_factory=Bill)
    saved: Bill = field(default_factory=Bill)

    def add(self, completion: Completion) -> None:
        (self.saved if completion.cached else self.paid).add(completion)

    @property
    def cached(self) -> bool:
        return self.paid.calls == 0 and self.saved.calls > 0

    @property
    def bill(self) -> Bill:
        return self.saved if self.cached else self.paid


class Judge:
    """A configured judge with its own concurrency slots and optional rate limiter."""

    def __init__(
        self,
        spec: JudgeSpec,
        transport: Transport,
        *,
        max_attempts: int,
        policy: RetryPolicy,
        stats: CallStats,
        global_slots: asyncio.Semaphore,
        breaker: CircuitBreaker | None = None,
        adaptive: bool = True,
        budget: SpendCap | None = None,
    ) -> None:
        self.spec = spec
        self.transport = transport
        self.max_attempts = max_attempts
        self.policy = policy
        self.stats = stats
        self.global_slots = global_slots
        self.slots = AdaptiveLimit(spec.max_concurrency, adaptive=adaptive)
        self.limiter = RequestRateLimiter(spec.rpm) if spec.rpm else None
        self.breaker = breaker or CircuitBreaker(spec.judge_id)
        self.budget = budget
        self._show_concurrency()

    @property
    def id(self) -> str:
        return self.spec.judge_id

    @property
    def simulated(self) -> bool:
        return self.transport.simulated

    async def vote(self, request: VoteRequest) -> Vote:
        """The judge's vote; an error vote when every attempt failed."""
        self.breaker.check()
        state = VoteState(messages=list(request.messages))
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self.policy.tenacity_wait,
            retry=retry_if_exception(is_retryable),
            before_sleep=self._count_retry,
            reraise=True,
        )
        answer: Answer
        completion: Completion
        self.breaker.vote_started()
        try:
            try:
                answer, completion = await retrying(self._attempt, request, state)
            except JudgeFailure as failure:
                await self.breaker.vote_failed(failure)
                return self._error_vote(request, state, failure)
            self.breaker.vote_succeeded()
        finally:
            self.breaker.vote_ended()
        self.stats.votes += 1
        return self._answer_vote(request, state, answer, completion)

    async def _attempt(self, request: VoteRequest, state: VoteState) -> tuple[Answer, Completion]:
        self.breaker.check()
        state.attempts += 1
        completion = await self._call(request, state.messages)
        state.add(completion)
        try:
            answer = parse_answer(
                completion.content, request.option_count, request.elicitation, request.asked_fields
            )
        except JudgeFailure as failure:
            state.messages = reask_messages(request.messages, completion.content, failure.detail)
            raise
        if completion.confirm is not None:
            completion.confirm()
        return answer, completion

    async def _call(self, request: CallRequest, messages: list[dict[str, str]]) -> Completion:
        fmt = request.response_format()
        hit = cached_completion(self.transport, messages, fmt, request)
        if hit is not None:
            self.stats.add_saved(hit.usage, hit.cost)
            return hit
        async with call_slot(self.slots, self.global_slots, self.limiter):
            self.breaker.check()  # tripped while this call waited for its slot
            epoch = self.slots.epoch
            reserved = 0.0 if self.budget is None else await self.budget.admit(self.spec, messages)
            self.stats.calls_started += 1
            self.stats.in_flight += 1
            paid: float | None = None
            try:
                completion = await self.transport.complete(messages, fmt, request)
                paid = None if completion.cached else completion.cost
            except JudgeFailure as failure:
                self._call_failed(failure, epoch)
                raise
            except JudgeAuthError as refused:
                # the run stops: calls already waiting for a slot must not go out meanwhile
                self.breaker.trip(str(refused))
                raise
            finally:
                self.stats.in_flight -= 1
                if self.budget is not None:
                    self.budget.settle(self.spec, reserved, paid)
            self.breaker.call_answered()
            self.slots.answered()
            self._show_concurrency()
        if completion.cached:
            self.stats.add_saved(completion.usage, completion.cost)
        else:
            self.stats.add_usage(completion.usage, completion.cost)
        return completion

    def _call_failed(self, failure: JudgeFailure, epoch: int) -> None:
        if failure.category.slows_down:
            self.slots.overloaded(epoch)
            self._show_concurrency()
        self.breaker.call_failed(failure)

    def _show_concurrency(self) -> None:
        self.stats.concurrency[self.id] = (self.slots.current, self.slots.maximum)

    def _count_retry(self, state: RetryCallState) -> None:
        self.stats.retries += 1
        outcome = state.outcome
        failure = outcome.exception() if outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        logger.debug(
            "judge %s: attempt %d failed (%s); retrying in %.2fs",
            self.id,
            state.attempt_number,
            failure,
            wait,
        )

    def _error_vote(self, request: VoteRequest, state: VoteState, failure: JudgeFailure) -> Vote:
        self.stats.votes += 1
        self.stats.error_votes += 1
        logger.info(
            "judge %s: %s/%s sample %d failed after %d attempt(s): %s",
            self.id,
            request.item_id,
            request.criterion.name,
            request.sample,
            state.attempts,
            failure.describe(),
        )
        return Vote(
            judge=self.id,
            sample=request.sample,
            shuffle_order=request.shuffle_order,
            error=failure.describe(),
            usage=state.bill.usage,
            cost=state.bill.cost,
            cached=state.cached,
            attempts=state.attempts,
            prompt_cache_saved=state.bill.prompt_cache_saved,
        )

    def _answer_vote(
        self, request: VoteRequest, state: VoteState, answer: Answer, completion: Completion
    ) -> Vote:
        option_index = None
        if request.shuffle_order is not None and answer.shown_position is not None:
            option_index = original_index(request.shuffle_order, answer.shown_position)
        return Vote(
            judge=self.id,
            sample=request.sample,
            verdict=answer.verdict,
            option_index=option_index,
            shuffle_order=request.shuffle_order,
            reason=answer.explanation,
            usage=state.bill.usage,
            cost=state.bill.cost,
            cached=state.cached,
            thinking=completion.reasoning,
            attempts=state.attempts,
            prompt_cache_saved=state.bill.prompt_cache_saved,
            option_set=original_set(request.shuffle_order, answer.shown_set),
        )


def original_set(
    shuffle_order: list[int] | None, shown_set: tuple[int, ...] | None
) -> list[int] | None:
    """A response set's 1-based shown positions as original indices, sorted and unique.

    Binary criteria (no shuffle order) use the fixed order 1. MET, 2. UNMET, which maps to the
    binary encoding 0 = UNMET, 1 = MET.
    """
    if shown_set is None:
        return None
    order = BINARY_SET_ORDER if shuffle_order is None else shuffle_order
    return sorted({original_index(order, position) for position in shown_set})


def transport_for(spec: JudgeSpec, timeout: float, workers: WorkerPool | None) -> Transport:
    """Simulated judges answer here; real ones through their direct transport, in the worker
    processes when the run has them (workers.py), else in this process."""
    if is_simulated(spec.model):
        return SimulatedTransport(spec)
    direct = direct_transport(spec, timeout)
    if workers is not None:
        return WorkerTransport(spec, workers, direct)
    return direct


def cached(
    transport: Transport, spec: JudgeSpec, cache: CallCache | None, flights: SingleFlight
) -> Transport:
    """Real judges go through the call cache; simulated ones never do (docs: cache-and-cost)."""
    if cache is None or transport.simulated:
        return transport
    return CachedTransport(transport, spec, cache, flights)


def build_judges(
    config: LLMConfig,
    *,
    policy: RetryPolicy,
    stats: CallStats,
    cache: CallCache | None = None,
    batches: BatchCoordinator | None = None,
    workers: WorkerPool | None = None,
    budget: SpendCap | None = None,
) -> list[Judge]:
    """Judges for a grader; a missing key variable or a bad param is an InputError now, and so
    is a judge to batch whose provider litellm cannot batch (docs/guides/batches.md)."""
    global_slots = asyncio.Semaphore(config.concurrency)
    flights = SingleFlight()
    judges = []
    for spec in config.judges:
        transport = transport_for(spec, config.timeout, workers)
        limits, slots, unlimited = spec, global_slots, False
        if batches is not None:
            transport, unlimited = batches.wrap(spec, transport, config, policy, stats)
            if unlimited:  # batched calls wait on batches, never on concurrency slots
                limits = spec.model_copy(update={"max_concurrency": UNLIMITED, "rpm": None})
                slots = asyncio.Semaphore(UNLIMITED)
        transport = cached(transport, spec, cache, flights)
        if not transport.simulated:
            api_key_for(spec)
        judges.append(
            Judge(
                limits,
                transport,
                max_attempts=config.max_attempts,
                policy=policy,
                stats=stats,
                global_slots=slots,
                breaker=CircuitBreaker(spec.judge_id, config.breaker),
                adaptive=config.adaptive_concurrency and not unlimited,
                budget=budget,
            )
        )
    return judges
