"""The reviser's calls (`improve`): one per criterion below the target, all of a round at once.

Each is a judge call like any other (`Judge.ask`: retries, re-asks of an unusable reply, the
call cache, the spend cap). Each answer is checkpointed in the round's `revisions.jsonl` as soon
as it arrives, with what it cost, so a command run again asks only for what is missing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import orjson

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import writing
from autorubric_cli.judges.cache import CallCache, cache_path
from autorubric_cli.judges.judge import Judge, build_judges
from autorubric_cli.judges.parsers import of_text
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.policy.spend import SpendCap
from autorubric_cli.judges.revision import ReviseRequest, Revision, parse_revision
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.transports.direct import close_clients
from autorubric_cli.rubric_review.accuracy import CriterionGrading
from autorubric_cli.rubric_review.reviser import revise_messages

REVISIONS = "revisions.jsonl"


@dataclass(frozen=True)
class Proposal:
    """A reviser's answer for one criterion, as checkpointed."""

    name: str
    revision: Revision | None  # None: every attempt failed
    problem: str | None
    cost: float | None


def read_revisions(path: Path) -> dict[str, Proposal]:
    found = {}
    if path.is_file():
        for raw in path.read_bytes().splitlines():
            if not raw.strip():
                continue
            line = orjson.loads(raw)
            revision = (
                None if line["revision"] is None else Revision.model_validate(line["revision"])
            )
            found[line["name"]] = Proposal(line["name"], revision, line["problem"], line["cost"])
    return found


def append_revision(path: Path, proposal: Proposal) -> None:
    line = {
        "name": proposal.name,
        "revision": None if proposal.revision is None else proposal.revision.model_dump(),
        "problem": proposal.problem,
        "cost": proposal.cost,
    }
    with writing(path), path.open("ab") as handle:
        handle.write(orjson.dumps(line) + b"\n")
        handle.flush()


@dataclass(frozen=True)
class ReviserSettings:
    spec: JudgeSpec
    rubric: Rubric  # its grader's attempts, timeout and retry timing are the reviser's too
    cache: bool
    cache_dir: Path | None
    cap: float | None  # USD the reviser may still spend


async def ask_one(
    judge: Judge,
    criterion: Criterion,
    grading: CriterionGrading,
    rubric: Rubric,
    label: str,
    path: Path,
) -> Proposal:
    request = ReviseRequest(label, criterion, revise_messages(criterion, grading, rubric))
    asked = await judge.ask(request, of_text(partial(parse_revision, criterion=criterion)))
    problem = None if asked.failure is None else asked.failure.describe()
    proposal = Proposal(criterion.name, asked.value, problem, asked.paid.cost)
    append_revision(path, proposal)
    return proposal


async def ask_all(
    settings: ReviserSettings,
    wanted: list[tuple[Criterion, CriterionGrading]],
    round_: int,
    path: Path,
) -> None:
    config = LLMConfig(
        judges=[settings.spec],
        max_attempts=settings.rubric.grader.max_attempts,
        timeout=settings.rubric.grader.timeout,
    )
    cache = CallCache(cache_path(settings.cache_dir)) if settings.cache else None
    budget = None if settings.cap is None else SpendCap(cap=settings.cap)
    policy = RetryPolicy.from_config(settings.rubric.grader.retry)
    [judge] = build_judges(config, policy=policy, stats=CallStats(), cache=cache, budget=budget)
    try:
        await asyncio.gather(
            *(
                ask_one(judge, c, g, settings.rubric, f"revise:{c.name}:{round_}", path)
                for c, g in wanted
            )
        )
    finally:
        await judge.aclose()
        await close_clients()
        if cache is not None:
            cache.close()


def revise(
    settings: ReviserSettings,
    wanted: list[tuple[Criterion, CriterionGrading]],
    round_: int,
    folder: Path,
) -> dict[str, Proposal]:
    """The round's proposals: those checkpointed, and the missing ones asked now."""
    path = folder / REVISIONS
    done = read_revisions(path)
    missing = [(c, g) for c, g in wanted if c.name not in done]
    if missing:
        asyncio.run(ask_all(settings, missing, round_, path))
    return read_revisions(path)


def paid_revisions(root: Path) -> float:
    """What every round's reviser calls paid (their checkpoints' `cost`)."""
    return sum(p.cost or 0.0 for f in root.rglob(REVISIONS) for p in read_revisions(f).values())
