"""Calibrates bench/cascade.py's cascade with the `autorubric` library (1.6.1), offline.

Run by the interpreter of a throwaway venv that has the library (it is not a project
dependency); it imports nothing from this project. It reads the two stored runs as one JSON
file (written by bench/cascade.py), builds the library's own records of them, and calls its
`calibrate_escalation(per_criterion=True)`. Prints one JSON line: the point
`EscalationCurve.best()` picks (its global threshold and per-criterion thresholds, in the
library's confidence units), its escalation rate and metric, and the wall seconds.

How our records become the library's (docs of `autorubric.escalation`):
- the first stage (one judge, N samples of a binary verdict) is the library's decision model:
  one vote per criterion, the outcome our aggregation chose, with `probabilities` the shares of
  the samples that chose MET and UNMET; the library's confidence is then
  `clamp((2p - 1), 0, 1)` for the chosen verdict's share p, so its threshold t escalates the
  pairs our threshold (t + 1) / 2 escalates;
- the `then` stage is its LLM judge: one vote per criterion, the recorded outcome;
- the ground truth is the dataset's; the library's metric is its default,
  `criterion_accuracy` against it (it fits thresholds to ground truth, not to the strong
  judge, and selects by accuracy with the fewest escalations, not by cost).

    /tmp/arlib/bin/python bench/library_cascade_driver.py RUNS.json
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import datetime
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

from autorubric import CriterionVerdict  # noqa: E402
from autorubric.dataset import DataItem, RubricDataset  # noqa: E402
from autorubric.escalation import calibrate_escalation  # noqa: E402
from autorubric.eval import EvalResult, EvalTimingStats, ItemResult  # noqa: E402
from autorubric.rubric import Rubric  # noqa: E402
from autorubric.types import (  # noqa: E402
    EnsembleCriterionReport,
    EnsembleEvaluationReport,
    JudgeVote,
)

VERDICT = {"MET": CriterionVerdict.MET, "UNMET": CriterionVerdict.UNMET}


def first_vote(samples: list[str], outcome: str) -> JudgeVote:
    """The decision model's vote: our first-stage outcome, with the samples' shares."""
    share = {v: samples.count(v) / len(samples) for v in ("MET", "UNMET")}
    confidence = min(1.0, max(0.0, 2 * share[outcome] - 1))
    return JudgeVote(
        judge_id="cheap",
        verdict=VERDICT[outcome],
        reason=None,
        probabilities=share,
        confidence=confidence,
    )


def item_result(
    index: int, item: DataItem, rubric: Rubric, votes: list[JudgeVote], cost: float
) -> ItemResult:
    reports = [
        EnsembleCriterionReport(
            criterion=criterion, final_verdict=vote.verdict, final_reason="", votes=[vote]
        )
        for criterion, vote in zip(rubric.rubric, votes, strict=True)
    ]
    met = sum(v.verdict == CriterionVerdict.MET for v in votes) / len(votes)
    report = EnsembleEvaluationReport(
        score=met,
        raw_score=met,
        report=reports,
        judge_scores={votes[0].judge_id: met},
        completion_cost=cost or None,
    )
    return ItemResult(item_idx=index, item=item, report=report, duration_seconds=0.0)


def eval_result(results: list[ItemResult]) -> EvalResult:
    now = datetime.now()
    return EvalResult(
        item_results=results,
        total_items=len(results),
        successful_items=len(results),
        failed_items=0,
        total_token_usage=None,
        total_completion_cost=sum(r.report.completion_cost or 0.0 for r in results),
        timing_stats=EvalTimingStats.from_durations([0.0] * len(results), 0.0),
        started_at=now,
        completed_at=now,
    )


def calibrate(runs: dict[str, Any]) -> dict[str, Any]:
    names = runs["criteria"]
    rubric = Rubric.from_dict([{"name": n, "requirement": n, "weight": 1.0} for n in names])
    items, firsts, thens = [], [], []
    for index, row in enumerate(runs["items"]):
        truth = [VERDICT[row["truth"][n]] for n in names]
        item = DataItem(submission=row["id"], description=row["id"], ground_truth=truth)
        items.append(item)
        votes = [first_vote(row["samples"][n], row["first"][n]) for n in names]
        firsts.append(item_result(index, item, rubric, votes, row["first_cost"]))
        strong = [
            JudgeVote(judge_id="strong", verdict=VERDICT[row["then"][n]], reason="") for n in names
        ]
        thens.append(item_result(index, item, rubric, strong, row["then_cost"]))
    dataset = RubricDataset(prompt="bench", rubric=rubric, items=items)
    started = time.perf_counter()
    curve = calibrate_escalation(
        dataset, eval_result(firsts), eval_result(thens), per_criterion=True
    )
    best = curve.best()
    return {
        "threshold": best.threshold,
        "per_criterion": best.per_criterion,
        "escalation_rate": best.escalation_rate,
        "metric": best.metric,
        "wall_s": time.perf_counter() - started,
    }


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        print(json.dumps(calibrate(json.load(handle))))
