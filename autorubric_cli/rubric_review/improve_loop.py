"""The rounds of `improve` and its held-out comparison (the steps are in rubric_review/improve.py).

A round grades the train part with every candidate at once: criteria are graded independently
(one call per criterion), so each candidate's train accuracy is its own, and the unchanged
criteria's calls are the earlier rounds' (served by the call cache for real judges). With
`llm_calls: per_item` a criterion's call carries the others' wording too; the loop still keeps
a candidate only on its own criterion's accuracy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.judges.revision import Revision
from autorubric_cli.judges.transports.simulated import is_simulated
from autorubric_cli.rubric_review.accuracy import CriterionGrading, paired
from autorubric_cli.rubric_review.improve import (
    DIFF,
    IMPROVED,
    ImproveRequest,
    Split,
    engine_for,
    measured,
    start,
    write_result,
)
from autorubric_cli.rubric_review.improve_models import (
    Attempt,
    Figures,
    HeldOut,
    ImproveResult,
    Part,
)
from autorubric_cli.rubric_review.meta import write_yaml
from autorubric_cli.rubric_review.results import errored_items, stage_cost
from autorubric_cli.rubric_review.revise_calls import (
    Proposal,
    ReviserSettings,
    paid_revisions,
    revise,
)
from autorubric_cli.rubric_review.reviser import reviser_spec
from autorubric_cli.rubric_review.stages import Engine
from autorubric_cli.rubric_review.wording import (
    RubricData,
    check_same_shape,
    revised,
    rubric_data,
    wording_diff,
)


@dataclass
class Loop:
    """The state of the rounds: the wording kept so far and how it did on the train part."""

    request: ImproveRequest
    engine: Engine
    split: Split
    root: Path
    original: RubricData
    current: RubricData = field(init=False)
    train: dict[str, CriterionGrading] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)
    rounds: int = 0
    simulated: bool = False

    def __post_init__(self) -> None:
        self.current = self.original

    @property
    def names(self) -> list[str]:
        return [c["name"] for c in self.original["criteria"]]

    def grade_train(
        self, data: RubricData, folder: Path, names: list[str]
    ) -> dict[str, CriterionGrading]:
        rubric_path = folder / "rubric.yaml"
        folder.mkdir(parents=True, exist_ok=True)
        write_yaml(rubric_path, data)
        experiment = self.engine.run(rubric_path, self.split.train, folder / "train")
        self.simulated = self.simulated or experiment.manifest.simulated
        return measured(experiment, self.split.labels, names)

    def below_target(self) -> list[str]:
        return [
            n
            for n in self.names
            if (a := self.train[n].accuracy) is not None and a < self.request.target
        ]

    def new_wording(self, proposals: dict[str, Revision | None]) -> dict[str, Revision]:
        """The proposals that change something (a reviser may answer the wording it was given)."""
        out = {}
        for name, revision in proposals.items():
            if revision is None:
                continue
            if revised(self.current, {name: revision}) != self.current:
                out[name] = revision
        return out

    def round(self, number: int, settings: ReviserSettings) -> bool:
        """One round; False when nothing was left to try."""
        below = self.below_target()
        if not below:
            return False
        folder = self.root / "rounds" / str(number)
        folder.mkdir(parents=True, exist_ok=True)
        parsed = check_same_shape(self.original, self.current)
        wanted = [(parsed.criterion(n), self.train[n]) for n in below]
        proposals = revise(settings, wanted, number, folder)
        candidates = self.new_wording({n: proposals[n].revision for n in below})
        if candidates:
            candidate = revised(self.current, candidates)
            check_same_shape(self.original, candidate)
            tried = self.grade_train(candidate, folder, list(candidates))
        for name in below:
            self.attempts.append(
                self.attempt(number, name, proposals[name], candidates, tried if candidates else {})
            )
        self.rounds = number
        return bool(candidates)

    def attempt(
        self,
        number: int,
        name: str,
        proposal: Proposal,
        candidates: dict[str, Revision],
        tried: dict[str, CriterionGrading],
    ) -> Attempt:
        before = self.train[name].accuracy
        revision = candidates.get(name)
        after = None if revision is None else tried[name].accuracy
        kept = revision is not None and after is not None and before is not None and after > before
        if kept and revision is not None:
            self.current = revised(self.current, {name: revision})
            self.train[name] = tried[name]
        why = proposal.problem or (proposal.revision.explanation if proposal.revision else None)
        if proposal.revision is not None and revision is None:
            why = "the reviser proposed the wording it was given"
        return Attempt(
            round=number,
            criterion=name,
            before=before,
            candidate=after,
            kept=kept,
            requirement=None if proposal.revision is None else proposal.revision.requirement,
            explanation=why,
        )


def held_out(loop: Loop, final_path: Path) -> tuple[list[HeldOut], list[OpenedExperiment]]:
    """Both rubrics on the test part, compared criterion by criterion; and their
    experiments."""
    original_path = loop.root / "rounds" / "0" / "rubric.yaml"
    runs = [
        loop.engine.run(path, loop.split.test, loop.root / "test" / name)
        for name, path in (("original", original_path), ("final", final_path))
    ]
    first, second = (measured(r, loop.split.labels, loop.names) for r in runs)
    final = check_same_shape(loop.original, loop.current)
    out = []
    for criterion, before in zip(
        final.criteria, check_same_shape(loop.original, loop.original).criteria, strict=True
    ):
        figures = paired(first[criterion.name], second[criterion.name])
        out.append(
            HeldOut(
                name=criterion.name,
                kind=criterion.kind,
                changed=criterion != before,
                n=figures.n,
                original=Figures(accuracy=figures.original, kappa=figures.kappa_original),
                final=Figures(accuracy=figures.final, kappa=figures.kappa_final),
                only_original_right=figures.only_original_right,
                only_final_right=figures.only_final_right,
                p_value=figures.p_value,
                requirement=criterion.requirement,
            )
        )
    return out, runs


def run_improve(request: ImproveRequest) -> ImproveResult:
    rubric, root, split = start(request)
    engine = engine_for(request, root)
    loop = Loop(request, engine, split, root, rubric_data(request.rubric))
    spec = reviser_spec(request.reviser, rubric, request.judges)
    loop.train = loop.grade_train(loop.original, root / "rounds" / "0", loop.names)
    for number in range(1, request.rounds + 1):
        cap = engine.cap(root / "rounds" / str(number))
        settings = ReviserSettings(spec, rubric, request.cache, request.cache_dir, cap)
        if not loop.round(number, settings):
            break
    check_same_shape(loop.original, loop.current)
    write_yaml(root / IMPROVED, loop.current)
    (root / DIFF).write_text(
        wording_diff(loop.original, loop.current, request.rubric.name), "utf-8"
    )
    criteria, tested = held_out(loop, root / IMPROVED)
    result = ImproveResult(
        rubric=str(request.rubric),
        data=str(request.data),
        improved=str(root / IMPROVED),
        diff=str(root / DIFF),
        labels="ground_truth"
        if request.labels is None
        else f"ground_truth+human_labels:{request.labels}",
        simulated=loop.simulated or is_simulated(spec.model),
        target=request.target,
        reviser=spec.judge_id,
        rounds=loop.rounds,
        train=Part(path=str(split.train), items=split.assignment.count(0)),
        test=Part(path=str(split.test), items=split.assignment.count(1)),
        attempts=loop.attempts,
        criteria=criteria,
        errored_items=sum(errored_items(r) for r in tested),
        cost=stage_cost(*(p.parent for p in root.rglob("items.jsonl"))) + paid_revisions(root),
        directory=str(root),
    )
    write_result(root, result.to_json())
    return result
