"""The pairwise report (docs/reference/report-json.md, "Pairwise report"), built from items.jsonl
alone: the fold's tallies (pairwise/fold.py) turned into the typed model, the gate evaluated on
its JSON form as `report`'s gate is.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from autorubric_cli.core.config import GateCheck
from autorubric_cli.core.gate import evaluate_gate, gate_exit_code
from autorubric_cli.core.json_model import to_json_dict
from autorubric_cli.core.pair_records import PairRecord
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.store import ReadIssues
from autorubric_cli.metrics.figures import Undefined
from autorubric_cli.metrics.pairwise import (
    first_position_p_value,
    leaderboard,
    length_controlled,
    win_rate,
)
from autorubric_cli.pairwise.fold import (
    HEADLINE,
    RUBRIC,
    JudgeTally,
    PairTally,
    PairwiseFold,
    newest_records,
)
from autorubric_cli.pairwise.models import (
    Counts,
    JudgeBias,
    LengthControlled,
    PairSummary,
    PairwiseReport,
    PairwiseSection,
    Rating,
    SystemSummary,
    WinRateBlock,
)
from autorubric_cli.pairwise.opened import OpenedPairwise
from autorubric_cli.pairwise.plan import gate_checks
from autorubric_cli.pairwise.requests import questions_of
from autorubric_cli.report.models import GateResult

TOO_FEW_SYSTEMS = "a leaderboard needs three or more systems"


def fold_experiment(opened: OpenedPairwise, issues: ReadIssues) -> PairwiseFold:
    rubric = opened.rubric
    names = [s.name for s in opened.setup.systems]
    questions = [q.name for q in questions_of(rubric)]
    pairs = list(itertools.combinations(names, 2))
    fold = PairwiseFold(
        pairs={pair: PairTally() for pair in pairs},
        questions=questions,
        weights={c.name: c.weight for c in rubric.criteria},
        judges={j.judge_id: JudgeTally() for j in rubric.grader.judges},
        n_pairs=len(pairs),
    )

    def fits(record: PairRecord) -> bool:
        """Its pair is one of these systems', and it asked these questions (a comparison whose
        grading raised asked none: an error)."""
        names = [q.name for q in record.questions]
        asked = names == questions or (record.status == "error" and not names)
        return (record.a, record.b) in fold.pairs and asked

    for record in newest_records(opened.directory, issues, fits):
        fold.add(record)
    return fold


def tally_block(tally: PairTally, key: str, seed: int) -> WinRateBlock:
    """A tally key's outcomes in dataset order, as wins, ties, losses and the win rate."""
    outcomes = np.array([value for _, value in sorted(tally.outcomes.get(key, []))])
    found = win_rate(outcomes, seed)
    undefined = {}
    if isinstance(found.win_rate, Undefined):
        undefined["win_rate"] = found.win_rate.reason
    if isinstance(found.ci95, Undefined):
        undefined["ci95"] = found.ci95.reason
    return WinRateBlock(
        n=int(outcomes.size),
        wins=found.wins,
        ties=found.ties,
        losses=found.losses,
        win_rate=None if isinstance(found.win_rate, Undefined) else found.win_rate,
        ci95=None if isinstance(found.ci95, Undefined) else list(found.ci95),
        undefined=undefined or None,
    )


def length_block(tally: PairTally) -> LengthControlled:
    rows = sorted(tally.lengths)
    outcomes = np.array([r[1] for r in rows])
    diffs = np.array([r[2] for r in rows])
    found = length_controlled(outcomes, diffs)
    if isinstance(found, Undefined):
        return LengthControlled(win_rate=None, reason=found.reason)
    return LengthControlled(win_rate=found)


def pair_summary(
    pair: tuple[str, str], tally: PairTally, questions: Sequence[str], overall: bool, seed: int
) -> PairSummary:
    headline = tally_block(tally, HEADLINE, seed)
    criteria = [q for q in questions if not (overall and q == questions[-1])]
    return PairSummary(
        a=pair[0],
        b=pair[1],
        decided_by="overall" if overall else "rubric",
        n=headline.n,
        wins=headline.wins,
        ties=headline.ties,
        losses=headline.losses,
        win_rate=headline.win_rate,
        ci95=headline.ci95,
        length_controlled=length_block(tally),
        overall=tally_block(tally, questions[-1], seed) if overall else None,
        rubric=tally_block(tally, RUBRIC, seed),
        criteria={name: tally_block(tally, name, seed) for name in criteria},
    )


def ratings(
    names: list[str], fold: PairwiseFold, seed: int
) -> tuple[dict[str, Rating] | None, str | None]:
    """The leaderboard from every pair's headline outcomes, and a note (why it is missing, or
    what its intervals left out)."""
    if len(names) < 3:
        return None, TOO_FEW_SYSTEMS
    rows = [
        (names.index(a), names.index(b), value, place)
        for (a, b), tally in fold.pairs.items()
        for place, value in tally.outcomes.get(HEADLINE, [])
    ]
    if not rows:
        return None, "no comparison has an outcome"
    columns = np.array(rows, dtype=np.float64).T
    places = np.unique(columns[3])
    items = np.searchsorted(places, columns[3]).astype(np.int64)
    first, second = columns[0].astype(np.int64), columns[1].astype(np.int64)
    found = leaderboard(len(names), (first, second, columns[2], items), seed)
    elo = found.elo
    if isinstance(elo, Undefined):
        return None, elo.reason
    order = sorted(range(len(names)), key=lambda i: -elo[i])
    board = {}
    for rank, i in enumerate(order, start=1):
        ci = found.ci95[i]
        board[names[i]] = Rating(
            rank=rank, elo=elo[i], ci95=None if isinstance(ci, Undefined) else list(ci)
        )
    note = next((c.reason for c in found.ci95 if isinstance(c, Undefined)), None)
    if note is None and found.unfitted_resamples:
        note = f"{found.unfitted_resamples} resamples with no finite rating were left out"
    return board, note


def judge_bias(judge_id: str, tally: JudgeTally) -> JudgeBias:
    p_value = first_position_p_value(tally.first, tally.decided)
    return JudgeBias(
        id=judge_id,
        replies=tally.replies,
        errors=tally.errors,
        order_pairs=tally.order_pairs,
        order_consistency=tally.consistent / tally.order_pairs if tally.order_pairs else None,
        decided=tally.decided,
        first_position_rate=tally.first / tally.decided if tally.decided else None,
        first_position_p_value=None if isinstance(p_value, Undefined) else p_value,
        usage=tally.paid.usage,
        cost=tally.paid.total_cost,
    )


def build_pairwise_report(
    opened: OpenedPairwise, extra_checks: Sequence[GateCheck] = ()
) -> PairwiseReport:
    """The report of a pairwise experiment, from its records alone."""
    issues = ReadIssues()
    fold = fold_experiment(opened, issues)
    manifest, setup, seed = opened.manifest, opened.setup, opened.manifest.seed
    names = [s.name for s in setup.systems]
    questions = fold.questions
    overall = len(questions) > len(opened.rubric.criteria)
    board, note = ratings(names, fold, seed)
    report = PairwiseReport(
        experiment=manifest.name,
        status=manifest.status,
        simulated=manifest.simulated,
        swap=setup.swap,
        systems=[
            SystemSummary(
                name=s.name, kind=s.kind, path=s.path, items=len(fold.items.get(s.name, ()))
            )
            for s in setup.systems
        ],
        questions=questions,
        comparisons=Counts(
            total=manifest.items_total,
            completed=fold.completed,
            errored=fold.errored,
            pending=max(manifest.items_total - fold.completed, 0),
        ),
        pairwise=PairwiseSection(
            pairs=[pair_summary(p, t, questions, overall, seed) for p, t in fold.pairs.items()],
            leaderboard=board,
        ),
        leaderboard_note=note,
        judges=[judge_bias(j, t) for j, t in fold.judges.items()],
        usage=fold.paid.usage,
        cost=fold.paid.total_cost,
        usage_saved=fold.cached.usage,
        cost_saved=fold.cached.total_cost,
        gate=None,
        warnings=issues.warnings(opened.directory / ITEMS),
    )
    return with_gate(report, [*gate_checks(opened.rubric, setup), *extra_checks])


def gate_view(report: PairwiseReport) -> dict[str, object]:
    """The report's JSON, with `items` standing for the comparisons (what the gate's rules read
    to tell a broken run from a failed check)."""
    data = to_json_dict(report)
    data["items"] = data["comparisons"]
    return data


def with_gate(report: PairwiseReport, checks: Sequence[GateCheck]) -> PairwiseReport:
    gate = evaluate_gate(gate_view(report), checks)
    if gate is None:
        return report
    return report.model_copy(update={"gate": GateResult.model_validate(gate)})


def pairwise_exit_code(report: PairwiseReport) -> int:
    """As `run`'s (docs/reference/exit-codes.md): 1 the gate failed on a value, else 3 when
    comparisons errored, else 0."""
    return gate_exit_code(gate_view(report))
