"""The pairwise grader (docs/guides/pairwise.md): a comparison in, its record out. It is the
runner's `Work` (experiment/runner.py), so comparisons are scheduled, recorded, resumed, capped
and interrupted exactly as a run's items are.

The judges are the CriterionGrader's (grading/grader.py): the same call loop, call cache,
batches, worker processes, spend cap and accounting; this module only builds the requests and
reads the replies. Each judge is asked every question (the rubric's criteria, then the overall
question) for every sample in every order asked (`pairs.orders_asked`). The calls of one order
share their prefix (the query and both answers in that order): `grading.grader.staged` sends
the first alone when the provider caches prompts, as for a run's criteria.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.pair_outcome import PairRules, question_outcome
from autorubric_cli.core.pair_records import PairQuestion, PairRecord, PairVote
from autorubric_cli.core.pair_truth import question_truths
from autorubric_cli.core.pairs import (
    Order,
    Preference,
    Swap,
    mapped_back,
    orders_asked,
    rubric_preference,
)
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.scoring import submission_word_counts
from autorubric_cli.core.words import plural
from autorubric_cli.grading.grader import CriterionGrader, gather_within_budget
from autorubric_cli.grading.record import bill
from autorubric_cli.judges.judge import Judge
from autorubric_cli.judges.pairs import PairAnswer, PairRequest, parse_pair_reply
from autorubric_cli.judges.parsers import of_text
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.transports.workers import WorkerPool
from autorubric_cli.pairwise.first_writes import FirstWrites
from autorubric_cli.pairwise.plan import Unit
from autorubric_cli.pairwise.requests import Questions

VoteKey = tuple[str, str, int, Order]  # (question, judge, sample, order)
Asked = tuple[str, PairVote]  # (question, vote)
MAX_SUMMARY = 200


def for_pairs(rubric: Rubric) -> Rubric:
    """The rubric without what pairs do not use (few-shot examples, per-item calls)."""
    grader = rubric.grader.model_copy(update={"few_shot": None, "llm_calls": "per_criterion"})
    return rubric.model_copy(update={"grader": grader})


class PairGrader:
    """Turns comparisons into records (experiment/runner.py `Work`)."""

    def __init__(self, rubric: Rubric, *, swap: Swap, seed: int, **engine: Any) -> None:
        self.base = CriterionGrader(for_pairs(rubric), seed=seed, **engine)
        self.rubric = rubric
        self.swap = swap
        self.seed = seed
        self.asking = Questions.of(rubric)
        self.questions = self.asking.questions
        self.overall = self.asking.overall
        self.weights = {j.judge_id: j.weight for j in rubric.grader.judges}
        self.first_writes = FirstWrites()

    @property
    def stats(self) -> CallStats:
        return self.base.stats

    @property
    def workers(self) -> WorkerPool | None:
        return self.base.workers

    def dialects(self) -> dict[str, str]:
        return self.base.dialects()

    async def aclose(self) -> None:
        await self.base.aclose()

    def rules(self, unit: Unit) -> PairRules:
        config = self.rubric.grader
        orders = 2 if self.swap == "both" else 1
        return PairRules(
            unit.a, unit.b, orders, config.sample_aggregation, config.aggregation, self.weights
        )

    async def record_of(self, unit: Unit, prior: PairRecord | None) -> PairRecord:
        started = time.perf_counter()
        reuse = reusable(prior)
        truths = question_truths(self.rubric.criteria, self.overall, unit.first, unit.second)
        runs = [self.judge_votes(judge, unit, truths, reuse) for judge in self.base.judges]
        votes = [vote for found in await gather_within_budget(runs) for vote in found]
        return self.record(unit, votes, time.perf_counter() - started)

    def failed_record(self, unit: Unit, exc: BaseException, duration: float) -> PairRecord:
        return PairRecord(
            **identity(unit),
            status="error",
            error=f"internal: {type(exc).__name__}: {exc}",
            duration_s=duration,
            **compared(unit),
            simulated=self.base.simulated,
        )

    async def judge_votes(
        self,
        judge: Judge,
        unit: Unit,
        truths: Sequence[Preference | None],
        reuse: dict[VoteKey, PairVote],
    ) -> list[Asked]:
        """One judge's votes: each order's calls sent as one staged group."""
        kept: list[Asked] = []
        groups: dict[Order, list[PairRequest]] = {}
        for sample in range(judge.spec.samples):
            for order in orders_asked(self.swap, self.seed, unit.id, judge.id, sample):
                for question, truth in zip(self.questions, truths, strict=True):
                    vote = reuse.get((question.name, judge.id, sample, order))
                    if vote is not None:
                        kept.append((question.name, vote))
                    else:
                        request = self.asking.request(unit, question, sample, order, truth)
                        groups.setdefault(order, []).append(request)
        ask = lambda request: self.vote(judge, unit, request)  # noqa: E731
        sent = [self.first_writes.send(judge, group, ask) for group in groups.values()]
        for requests, votes in await gather_within_budget(sent):
            kept += [(r.question.name, v) for r, v in zip(requests, votes, strict=True)]
        return kept

    async def vote(self, judge: Judge, unit: Unit, request: PairRequest) -> PairVote:
        asked = await judge.ask(request, of_text(parse_pair_reply))
        shown = [unit.a, unit.b] if request.order == "AB" else [unit.b, unit.a]
        answer: PairAnswer | None = asked.value
        self.stats.votes += 1
        fields: dict[str, Any] = {"judge": judge.id, "sample": request.sample}
        fields.update(order=request.order, shown=shown, thinking=asked.reasoning, **asked.billing())
        if asked.failure is not None or answer is None:
            if asked.failure is None:  # a failed request's error vote: counted by Judge.ask
                self.stats.error_votes += 1
            problem = asked.failure.describe() if asked.failure else "error: no answer"
            return PairVote(**fields, error=problem)
        preference = mapped_back(answer.reply, request.order)
        winner = "tie" if preference == "tie" else unit.a if preference == "A" else unit.b
        return PairVote(**fields, reply=answer.reply, preferred=winner, reason=answer.explanation)

    def record(self, unit: Unit, asked: list[Asked], duration: float) -> PairRecord:
        rules = self.rules(unit)
        by_question: dict[str, list[PairVote]] = {q.name: [] for q in self.questions}
        for name, vote in asked:
            by_question[name].append(vote)
        rank = {judge.id: k for k, judge in enumerate(self.base.judges)}
        questions = [
            PairQuestion(
                name=name,
                outcome=question_outcome(own, rules),
                votes=sorted(own, key=lambda v: (rank.get(v.judge, 0), v.sample, v.order)),
            )
            for name, own in by_question.items()
        ]
        votes = [vote for _, vote in asked]
        usage, cost = bill([v for v in votes if not v.cached])
        usage_saved, cost_saved = bill([v for v in votes if v.cached])
        error = error_summary(questions)
        return PairRecord(
            **identity(unit),
            status="error" if error is not None else "ok",
            outcome=self.headline(questions, rules),
            questions=questions,
            **compared(unit),
            usage=usage,
            cost=cost,
            usage_saved=usage_saved,
            cost_saved=cost_saved,
            duration_s=duration,
            error=error,
            simulated=self.base.simulated,
        )

    def headline(self, questions: list[PairQuestion], rules: PairRules) -> str | None:
        """The overall question's outcome when asked; else the rubric preference."""
        if self.overall:
            return questions[-1].outcome
        preferences = [
            None if q.outcome is None else rules.preference(q.outcome) for q in questions
        ]
        weights = [c.weight for c in self.rubric.criteria]
        found = rubric_preference(preferences, weights)
        return None if found is None else rules.winner(found)


def identity(unit: Unit) -> dict[str, Any]:
    """The record's fields that say which comparison it is."""
    return {"id": unit.id, "index": unit.index, "item": unit.item, "a": unit.a, "b": unit.b}


def compared(unit: Unit) -> dict[str, Any]:
    """The record's fields that keep what was compared: words, query, reference, answers."""
    context = unit.context
    return {
        "words": {unit.a: output_words(unit.first), unit.b: output_words(unit.second)},
        "query": context.query,
        "reference_submission": context.reference_submission,
        "answers": {unit.a: given(unit.first.submission), unit.b: given(unit.second.submission)},
    }


def given(submission: Submission) -> Any:
    """A submission as a dataset gives it: a string, `{thinking, output}`, or a conversation."""
    if submission.messages is not None:
        return [m.model_dump(mode="json", exclude_unset=True) for m in submission.messages]
    if submission.thinking is not None:
        return {"thinking": submission.thinking, "output": submission.output}
    return submission.output


def output_words(item: Item) -> int:
    return submission_word_counts(item.submission).get("output", 0)


def reusable(prior: PairRecord | None) -> dict[VoteKey, PairVote]:
    """The votes of an earlier errored record that need no new call: those without an error."""
    if prior is None:
        return {}
    return {
        (q.name, v.judge, v.sample, v.order): v
        for q in prior.questions
        for v in q.votes
        if v.error is None
    }


def error_summary(questions: Sequence[PairQuestion]) -> str | None:
    """`2 of 12 votes failed; first: clarity/gpt#0 BA timeout: ...`, or None."""
    failed = [(q.name, v) for q in questions for v in q.votes if v.error is not None]
    if not failed:
        return None
    total = sum(len(q.votes) for q in questions)
    name, first = failed[0]
    text = f"{len(failed)} of {plural(total, 'vote')} failed; "
    text += f"first: {name}/{first.judge}#{first.sample} "
    text += f"{first.order} {first.error}"
    return text if len(text) <= MAX_SUMMARY else text[: MAX_SUMMARY - 1] + "…"
