"""One judge: the one call loop every judge call goes through.

`Judge.ask(request, parse)` owns everything between "ask this" and "here is the answer or why
there is none": the attempts and the retry decisions (`policy.retry.retrying`, the one tenacity
loop), re-asks of unusable replies (`parse` raised a `parse` failure: the bad reply goes back in
the conversation), the accounting (live `CallStats`, the `Asked` bill), the adaptive
concurrency limit (adaptive.py), the rate limiter and spend cap, and the circuit breaker's
hooks (breaker.py). Callers supply only a request and a parser: `vote` (one criterion),
`grading.per_item` (several criteria of one item) alike. Only `JudgeAuthError` and
`JudgeUnavailable` (the breaker tripped) escape; every other failure ends in `Asked.failure`.

One attempt is one `Judge._send(call, attempt)`: the cache lookup, the slot, the transport call
and its accounting. Instrumentation of attempts (spans, timings) wraps that method only.

What an attempt sends beyond the request (`Judge._call`): the reply schema (the call's own, or
the shared one where the provider's prompt cache covers it: `prompt_caching.shares_schema`), the
judge's structured-output dialect (`transports/dialect.py`: a server's refusal of it switches the
judge to the next one and the call is sent again; with none left the run stops), and how many
unusable replies came before (a re-ask raises the temperature a step). A reply cut off at its
token limit is a `truncated` failure naming `max_tokens`, re-asked as such.

With response-set elicitation the vote also carries `option_set`: the ORIGINAL option indices
of the judge's set (mapped back through the shuffle shown), sorted and unique; for a binary
criterion, indices in the report's binary encoding, 0 = UNMET and 1 = MET. A `response_set`
vote has no verdict / option_index, so it abstains in scoring; a `both` vote scores as usual.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TypeVar

from tenacity import RetryCallState

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.records import Vote
from autorubric_cli.errors import AutorubricError
from autorubric_cli.judges import tracing
from autorubric_cli.judges.asked import Asked
from autorubric_cli.judges.batch.transport import BatchCoordinator
from autorubric_cli.judges.cache import CallCache
from autorubric_cli.judges.parsers import Parser, answer_fields, vote_parser
from autorubric_cli.judges.policy.adaptive import AdaptiveLimit
from autorubric_cli.judges.policy.breaker import CircuitBreaker
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure, cut_off
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.policy.limits import UNLIMITED, RequestRateLimiter, call_slot
from autorubric_cli.judges.policy.providers import attempt_temperature
from autorubric_cli.judges.policy.retry import RetryPolicy, retrying
from autorubric_cli.judges.policy.spend import SpendCap
from autorubric_cli.judges.prompt_caching import shares_schema
from autorubric_cli.judges.prompts import reask_messages
from autorubric_cli.judges.replies import Answer
from autorubric_cli.judges.request import Call, CallRequest, Completion, Transport, VoteRequest
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.transports.cached import CachedTransport, SingleFlight
from autorubric_cli.judges.transports.dialect import DialectChoice
from autorubric_cli.judges.transports.direct import direct_transport
from autorubric_cli.judges.transports.litellm import api_key_for
from autorubric_cli.judges.transports.simulated import SimulatedTransport, is_simulated
from autorubric_cli.judges.transports.workers import WorkerPool, WorkerTransport

logger = logging.getLogger("autorubric_cli.judges")
T = TypeVar("T")


class DialectChanged(AutorubricError):
    """The judge's dialect changed while a call waited for its slot: it is built again (caught
    in `Judge.ask`; never leaves it)."""


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
        cache: CachedTransport | None = None,
    ) -> None:
        self.spec = spec
        self.transport = transport
        self.cache = cache  # the call cache in `transport`, read before taking a slot
        self.max_attempts = max_attempts
        self.policy = policy
        self.stats = stats
        self.global_slots = global_slots
        self.slots = AdaptiveLimit(spec.max_concurrency, adaptive=adaptive)
        self.sending = 0  # this judge's calls at its transport now (queueing.py reads it)
        self.limiter = RequestRateLimiter(spec.rpm) if spec.rpm else None
        self.breaker = breaker or CircuitBreaker(spec.judge_id)
        self.budget = budget
        self.dialect = DialectChoice.for_judge(spec)
        self.shared_schema = shares_schema(spec)
        self._show_concurrency()

    @property
    def id(self) -> str:
        return self.spec.judge_id

    async def aclose(self) -> None:
        """Close the judge's transport (its sessions) before the event loop ends."""
        await self.transport.aclose()

    async def ask(
        self,
        request: CallRequest,
        parse: Parser[T],
        *,
        attempts: int | None = None,
        follow_up: bool = False,
        reasks: int = 0,
    ) -> Asked[T]:
        """Ask until `parse` accepts a reply or `attempts` attempts (default `max_attempts`)
        are spent. The whole is one vote for the circuit breaker; `follow_up`: a new request
        for what an earlier one left unanswered, counted as a retry; `reasks`: the unusable
        replies its question had before (a follow-up for samples whose choices were unusable
        starts that many temperature steps hotter)."""
        self.breaker.check()
        if follow_up:
            self.stats.retries += 1
        asked: Asked[T] = Asked(messages=list(request.messages), reasks=reasks)
        limit = self.max_attempts if attempts is None else attempts
        loop = retrying(self.policy, limit, self._count_retry)
        self.breaker.vote_started()
        try:
            try:
                await loop(self._attempt, request, parse, asked)
            except JudgeFailure as failure:
                asked.failure = failure
                self.breaker.check()  # tripped meanwhile: the vote goes with its item, uncounted
                self.stats.error_votes += request.votes  # now, as the breaker counts it
                # raises JudgeUnavailable on a trip
                await self.breaker.vote_failed(failure, request.votes)
            else:
                self.breaker.vote_succeeded()
        finally:
            self.breaker.vote_ended()
        return asked

    async def vote(self, request: VoteRequest) -> Vote:
        """The judge's vote on one criterion; an error vote when every attempt failed."""
        return self.vote_of(request, await self.ask(request, vote_parser(request)))

    def vote_of(
        self, request: VoteRequest, asked: Asked[Answer], *, error_counted: bool | None = None
    ) -> Vote:
        """The (counted) vote of what asking came to: the answer, else an error vote
        (`error_counted`: `ask` counted it already; by default, when its request failed)."""
        if asked.failure is not None or asked.value is None:
            vote = self._error_vote(request, asked)
            if error_counted is None:
                error_counted = asked.failure is not None
            return self.counted(vote, error_counted=error_counted)
        return self.counted(self._answer_vote(request, asked, asked.value))

    def holds(self, request: VoteRequest) -> bool:
        """Whether the call cache would answer this request's first attempt."""
        call = self._call(request, Asked(messages=list(request.messages)))
        return self.cache is not None and self.cache.holds(call)

    def counted(self, vote: Vote, *, error_counted: bool = False) -> Vote:
        """`vote`, counted in the live stats; an error vote once (`error_counted`: already,
        when its request failed: `ask` counts those as the breaker does)."""
        self.stats.votes += 1
        if vote.error is not None and not error_counted:
            self.stats.error_votes += 1
        return vote

    async def _attempt(self, request: CallRequest, parse: Parser[T], asked: Asked[T]) -> None:
        self.breaker.check()
        asked.attempts += 1
        with tracing.call_span(self.spec, request, asked.messages, asked.attempts) as span:
            call, completion = await self._sent(request, asked)
            span.record(completion)
        asked.add(completion)
        truncated = cut_off(self.spec.max_tokens) if completion.truncated else None
        try:
            asked.value = parse(completion)
        except JudgeFailure as failure:
            unusable = truncated or failure  # a cut-off reply is unusable because it was cut
            asked.reasks += 1
            asked.messages = reask_messages(request.messages, completion.content, unusable)
            raise unusable from None
        asked.completion, asked.cut_off, asked.call = completion, truncated, call
        if call.reasks:
            asked.temperature = attempt_temperature(self.spec, call.reasks)
        if completion.confirm is not None:
            completion.confirm()

    def _call(self, request: CallRequest, asked: Asked[T]) -> Call:
        """The attempt's call: its messages, schema, the judge's dialect now, its re-asks."""
        schema = request.response_format(self.shared_schema)
        return Call(asked.messages, schema, request, self.dialect.current, asked.reasks)

    async def _sent(self, request: CallRequest, asked: Asked[T]) -> tuple[Call, Completion]:
        """The attempt's call and its completion. A refused reply format moves the judge to its
        next dialect and the call is sent again in it; with none left the run stops."""
        while True:
            call = self._call(request, asked)
            try:
                return call, await self._send(call, asked.attempts)
            except DialectChanged:
                continue  # built again in the new dialect, the call cache read first
            except JudgeFailure as failure:
                if failure.category is not FailureKind.FORMAT:
                    raise
                if not self.dialect.refused(call.dialect, failure):
                    self.breaker.trip(self.dialect.refusal_message(failure))
                    self.breaker.check()

    async def _send(self, call: Call, attempt: int) -> Completion:
        """One attempt (`attempt`: 1-based): the call cache, else a slot and the transport."""
        hit = None if self.cache is None else self.cache.lookup(call)
        if hit is not None:
            self.stats.add_saved(hit.usage, hit.cost)
            return hit
        async with call_slot(self.slots, self.global_slots, self.limiter):
            self.breaker.check()  # tripped while this call waited for its slot
            if call.dialect != self.dialect.current:  # switched while this call waited
                raise DialectChanged
            epoch = self.slots.epoch
            reserved = 0.0
            if self.budget is not None:
                reserved = await self.budget.admit(self.spec, call.messages)
            self.stats.calls_started += 1
            self.stats.in_flight += 1
            self.sending += 1
            paid: float | None = None
            sent = time.monotonic()
            try:
                completion = await self.transport.complete(call)
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
                self.sending -= 1
                if self.budget is not None:
                    self.budget.settle(self.spec, reserved, paid)
            self.breaker.call_answered()
            latency = None if completion.cached else time.monotonic() - sent  # not another's wait
            self.slots.answered(latency, self.sending + 1)
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

    def _error_vote(self, request: VoteRequest, asked: Asked[Answer]) -> Vote:
        problem = asked.failure.describe() if asked.failure else "error: no answer"
        logger.info(
            "judge %s: %s/%s sample %d failed after %d attempt(s): %s",
            self.id,
            request.item_id,
            request.criterion.name,
            request.sample,
            asked.attempts,
            problem,
        )
        return Vote(
            judge=self.id,
            sample=request.sample,
            shuffle_order=request.shuffle_order,
            error=problem,
            **asked.billing(),
        )

    def _answer_vote(self, request: VoteRequest, asked: Asked[Answer], answer: Answer) -> Vote:
        return Vote(
            judge=self.id,
            sample=request.sample,
            shuffle_order=request.shuffle_order,
            thinking=asked.reasoning,
            **answer_fields(request.shuffle_order, answer),
            **asked.billing(),
            ignored_fields=list(answer.ignored) or None,
            temperature=asked.temperature,
        )


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
        # simulated judges answer here; real ones through their direct transport, in the worker
        # processes when the run has them (workers.py), else in this process
        if is_simulated(spec.model):
            transport: Transport = SimulatedTransport(spec)
        else:
            transport = direct_transport(spec, config.timeout)
            if workers is not None:
                transport = WorkerTransport(spec, workers, transport)
        limits, slots, unlimited = spec, global_slots, False
        if batches is not None:
            transport, unlimited = batches.wrap(spec, transport, config, policy, stats)
            if unlimited:  # batched calls wait on batches, never on concurrency slots
                limits = spec.model_copy(update={"max_concurrency": UNLIMITED, "rpm": None})
                slots = asyncio.Semaphore(UNLIMITED)
        wrapper = None  # real judges go through the call cache, simulated ones never do
        if not is_simulated(spec.model):
            api_key_for(spec)
            wrapper = None if cache is None else CachedTransport(transport, spec, cache, flights)
        judges.append(
            Judge(
                limits,
                wrapper or transport,
                max_attempts=config.max_attempts,
                policy=policy,
                stats=stats,
                global_slots=slots,
                breaker=CircuitBreaker(spec.judge_id, config.breaker),
                adaptive=config.adaptive_concurrency and not unlimited,
                budget=budget,
                cache=wrapper,
            )
        )
    return judges
