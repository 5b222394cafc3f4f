"""Experiment directories with per-item criteria, written record by record as the grader writes
them (votes aggregated and scored by `core.evaluate`, each item criterion's definition kept by
`core.item_rubric.with_definitions`), for the report tests: every figure `report` prints comes
from items.jsonl alone, so a directory written this way is read exactly as a run's is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import yaml

from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.item_rubric import with_definitions
from autorubric_cli.core.records import CriterionVerdict, ItemRecord, Vote
from autorubric_cli.core.rubric import Criterion, Rubric
from bench.report_scale import write_manifest

Answer = str | int | None  # MET / UNMET / CANNOT_ASSESS, an option index, or an errored vote


@dataclass
class Graded:
    """One item: its own criteria (rubric-file form: requirement, weight, tags, ...), each
    criterion's answer per judge (shared criteria by name too), its tags and texts."""

    id: str
    criteria: list[dict[str, Any]]
    answers: dict[str, list[Answer]]
    tags: list[str] = field(default_factory=list)
    ground_truth: dict[str, str] = field(default_factory=dict)
    context: list[dict[str, Any]] | None = None
    submission: Any = "an answer"
    metadata: dict[str, Any] = field(default_factory=dict)


def own_criteria(graded: Graded) -> list[Criterion]:
    """The item's criteria, named `i<n>` by position when unnamed."""
    criteria = []
    for position, spec in enumerate(graded.criteria, start=1):
        criteria.append(Criterion.model_validate({"name": f"i{position}", **spec}))
    return criteria


def vote(judge: str, answer: Answer) -> Vote:
    if answer is None:
        return Vote(judge=judge, error="timeout")
    if isinstance(answer, int):
        return Vote(judge=judge, option_index=answer)
    return Vote(judge=judge, verdict=CriterionVerdict(answer))


def graded_record(rubric: Rubric, graded: Graded, index: int, judges: list[str]) -> ItemRecord:
    own = own_criteria(graded)
    rules = ScoringRules.from_rubric(rubric.for_item(own))
    votes = [
        [vote(j, a) for j, a in zip(judges, graded.answers[c.name], strict=True)]
        for c in rules.criteria
    ]
    evaluation = evaluate_votes(votes, rules, 0)
    return ItemRecord(
        id=graded.id,
        index=index,
        status="ok",
        score=evaluation.score.score,
        raw_score=evaluation.score.raw_score,
        criteria=with_definitions(evaluation.criteria, own),
        judge_scores=evaluation.judge_scores,
        cost=0.0,
        ground_truth=graded.ground_truth,
        metadata=graded.metadata,
        submission=graded.submission,
        context=graded.context,
        tags=graded.tags,
    )


def write_item_experiment(
    directory: Path, rubric: dict[str, Any], items: list[Graded], name: str = "items"
) -> Path:
    """The experiment directory (manifest, rubric copy, items.jsonl) of `items`, graded by the
    rubric's judges (`grader.judges`, their ids answer in order)."""
    parsed = Rubric.model_validate(rubric)
    judges = [j.judge_id for j in parsed.grader.judges]
    text = yaml.safe_dump(rubric, sort_keys=False)
    write_manifest(directory, len(items), name, text, parsed.grader)
    lines = [
        orjson.dumps(graded_record(parsed, g, i, judges).model_dump(mode="json")) + b"\n"
        for i, g in enumerate(items)
    ]
    (directory / "items.jsonl").write_bytes(b"".join(lines))
    return directory
