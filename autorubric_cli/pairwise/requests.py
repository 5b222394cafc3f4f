"""The questions asked of a comparison, and the request for one (question, sample, order): what
the grader sends and the dry run bills, built in one place."""

from __future__ import annotations

from dataclasses import dataclass

from autorubric_cli.core.pairs import OVERALL, Order, Preference, mapped_back
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.judges.pairs import PairRequest, pair_messages, pair_prefix, question_suffix
from autorubric_cli.pairwise.plan import Unit


def questions_of(rubric: Rubric) -> list[Criterion]:
    """The criteria, then the overall question (a criterion named `overall`) when asked."""
    questions = list(rubric.criteria)
    if rubric.pairwise is not None and rubric.pairwise.overall is not None:
        questions.append(Criterion(name=OVERALL, requirement=rubric.pairwise.overall, weight=0))
    return questions


@dataclass(frozen=True)
class Questions:
    guidelines: str | None
    questions: list[Criterion]
    overall: bool

    @classmethod
    def of(cls, rubric: Rubric) -> Questions:
        questions = questions_of(rubric)
        return cls(rubric.guidelines, questions, len(questions) > len(rubric.criteria))

    def request(
        self, unit: Unit, question: Criterion, sample: int, order: Order, truth: Preference | None
    ) -> PairRequest:
        """One call: the comparison shown in `order` (`AB`: system a first), asking `question`;
        `truth` (the pair's side) is shown to the simulated judge in shown positions."""
        shown = [unit.first, unit.second] if order == "AB" else [unit.second, unit.first]
        prefix, first_chars = pair_prefix(unit.context, shown, self.guidelines)
        is_overall = self.overall and question is self.questions[-1]
        messages, prefix_chars = pair_messages(prefix, question_suffix(question, shown, is_overall))
        return PairRequest(
            item_id=unit.item,
            unit=unit.id,
            question=question,
            sample=sample,
            order=order,
            messages=messages,
            prefix_chars=prefix_chars,
            truth=None if truth is None else mapped_back(truth, order),
            first_chars=first_chars,
        )
