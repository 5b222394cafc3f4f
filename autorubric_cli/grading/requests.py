"""Builds the VoteRequest for one (item, criterion, judge, sample): shuffle, prompt, truth.

The criterion's `elicitation` picks the prompt variant (`judges.prompts`); it never changes the
shuffle, which depends on (seed, item, judge, criterion, sample) alone, so `both` and
`forced_choice` show a judge the same option order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.core.shuffle import identity_order, shuffle_order
from autorubric_cli.grading.few_shot import CriterionExamples
from autorubric_cli.judges.prompts import (
    PREFIX_SEPARATOR,
    criterion_suffix,
    shared_prefix,
    system_prompt,
)
from autorubric_cli.judges.request import VoteRequest
from autorubric_cli.judges.transcript import scope_instruction


def shown_order(
    config: LLMConfig, seed: int, item: Item, judge_id: str, criterion: Criterion, sample: int
) -> list[int] | None:
    """The option order shown (docs/guides/rubrics.md); None for a binary criterion."""
    if criterion.options is None:
        return None
    n = len(criterion.options)
    if not config.shuffle_options:
        return identity_order(n)
    return shuffle_order(seed, item.id, judge_id, criterion.name, sample, n)


def chat(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


@dataclass(frozen=True)
class RequestBuilder:
    """`rubric`: the file's (its guidelines and grader settings); the criterion comes with each
    request, so an item's own criteria are built like the file's. `examples`: each criterion's
    few-shot examples (a mapping by name gives them as they are)."""

    rubric: Rubric
    seed: int
    examples: CriterionExamples

    def __post_init__(self) -> None:
        if isinstance(self.examples, Mapping):  # examples given by name, as they are
            object.__setattr__(self, "examples", CriterionExamples(chosen=self.examples))

    def parts(
        self, item: Item, criterion: Criterion, order: list[int] | None
    ) -> tuple[str, str, str]:
        """(system prompt, shared prefix, criterion suffix) of the call's messages."""
        config = self.rubric.grader
        multi_choice = criterion.options is not None
        override = config.multi_choice_system_prompt if multi_choice else config.system_prompt
        shown = None if order is None else [criterion.option_list()[i] for i in order]
        submission = item.judged()
        prefix = shared_prefix(
            submission=submission,
            guidelines=self.rubric.guidelines,
            query=item.query,
            reference_submission=item.reference_submission,
        )
        suffix = criterion_suffix(
            requirement=criterion.requirement,
            shown_options=shown,
            examples=self.examples.of(criterion, item.id),
            elicitation=criterion.elicitation,
            scope_note=scope_instruction(submission.messages, criterion.scope),
            names_criteria=config.affected_criteria,
        )
        return system_prompt(multi_choice, override), prefix, suffix

    def request(self, item: Item, criterion: Criterion, judge_id: str, sample: int) -> VoteRequest:
        order = shown_order(self.rubric.grader, self.seed, item, judge_id, criterion, sample)
        system, prefix, suffix = self.parts(item, criterion, order)
        return VoteRequest(
            item_id=item.id,
            criterion=criterion,
            sample=sample,
            messages=chat(system, prefix + PREFIX_SEPARATOR + suffix),
            prefix_chars=len(prefix) + len(PREFIX_SEPARATOR),
            shuffle_order=order,
            truth=item.ground_truth.get(criterion.name),
            names_criteria=self.rubric.grader.affected_criteria,
        )
