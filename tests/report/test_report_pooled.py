"""Pooled agreement over the (item, criterion) pairs of binary item criteria
(docs/reference/report-json.md, "Tags and item criteria"): judges against each other and against
the ground truth, overall and per criterion tag, checked against scikit-learn, krippendorff and
statsmodels on random experiments, and by hand on a small one."""

from __future__ import annotations

import json
import math
import random
import warnings
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    f1_score,
    precision_score,
    recall_score,
)
from statsmodels.stats import inter_rater

from tests.support.cli import cli
from tests.support.item_experiment import Graded, write_item_experiment

JUDGES = ["a", "b", "c"]
TAGS = ["axis:accuracy", "axis:safety", "theme:dosing"]
SHARED = {"name": "kind", "requirement": "Is kind", "weight": 2}
SCALE = {
    "requirement": "How clear?",
    "options": [{"label": "Poor", "value": 0.0}, {"label": "Good", "value": 1.0}],
}


@dataclass
class Pair:
    """One pair of a binary item criterion: each judge's vote (1, 0, None) and the truth."""

    tags: list[str]
    votes: list[int | None]
    truth: int | None
    ensemble: int | None = None


@dataclass
class Case:
    items: list[Graded] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)


def random_case(seed: int, abstain: float) -> Case:
    """~40 items of 2-5 item criteria each (a multi-choice one now and then: not pooled), and a
    shared binary criterion (not pooled either); judges right 75% of the time."""
    rng = random.Random(seed)
    case = Case()
    for n in range(40):
        criteria: list[dict[str, Any]] = []
        answers: dict[str, list[Any]] = {"kind": [rng.choice(["MET", "UNMET"]) for _ in JUDGES]}
        truth: dict[str, str] = {}
        for i in range(1, rng.randint(2, 5) + 1):
            name = f"i{i}"
            if rng.random() < 0.15:
                criteria.append(SCALE)
                answers[name] = [rng.randrange(2) for _ in JUDGES]
                continue
            tags = rng.sample(TAGS, rng.randint(0, 2))
            criteria.append(
                {"requirement": f"r{n}.{i}", "weight": rng.choice([5, -3]), "tags": tags}
            )
            met = rng.random() < 0.5
            votes: list[int | None] = []
            for _ in JUDGES:
                roll = rng.random()
                votes.append(None if roll < abstain else int(met if roll < 0.75 else not met))
            answers[name] = [
                rng.choice(["CANNOT_ASSESS", None]) if v is None else ("MET" if v else "UNMET")
                for v in votes
            ]
            label = int(met) if rng.random() < 0.8 else None
            if label is not None:
                truth[name] = "MET" if label else "UNMET"
            case.pairs.append(Pair(tags, votes, label))
        case.items.append(Graded(f"q{n}", criteria, answers, ground_truth=truth))
    return case


def experiment(directory: Path, case: Case) -> dict[str, Any]:
    rubric = {
        "criteria": [SHARED],
        "grader": {"judges": [{"model": f"openai/{j}", "id": j} for j in JUDGES], "seed": 3},
    }
    write_item_experiment(directory, rubric, case.items)
    pooled = [  # the ensemble's outcome per pair, read back in the order the pairs were made
        c
        for line in (directory / "items.jsonl").read_text().splitlines()
        for c in json.loads(line)["criteria"][1:]
        if c.get("options") is None
    ]
    for pair, record in zip(case.pairs, pooled, strict=True):
        pair.ensemble = {"MET": 1, "UNMET": 0}.get(record["verdict"])
    result = cli("report", directory, "--format", "json")
    assert result.exit_code == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def close(actual: float | None, expected: float) -> None:
    if math.isnan(expected):
        assert actual is None
    else:
        assert actual == pytest.approx(expected, abs=1e-12)


def check_agreement(block: dict[str, Any], pairs: list[Pair]) -> None:
    data = np.array([[np.nan if v is None else v for v in p.votes] for p in pairs], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alpha = krippendorff.alpha(reliability_data=data.T, level_of_measurement="nominal")
    close(block["krippendorff_alpha"], alpha)
    assert block["n_items"] == int(np.sum((~np.isnan(data)).sum(axis=1) >= 2))
    for (i, a), (j, b) in combinations(enumerate(JUDGES), 2):
        both = ~np.isnan(data[:, i]) & ~np.isnan(data[:, j])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kappa = cohen_kappa_score(data[both, i], data[both, j], labels=[0, 1])
        close(block["pairwise_cohen_kappa"][f"{a}|{b}"], kappa)


def check_truth(block: dict[str, Any], pairs: list[Pair], predictor: int | None) -> None:
    """`predictor`: a judge's position, or None for the ensemble; abstentions left out."""
    kept = [
        (p.truth, p.ensemble if predictor is None else p.votes[predictor])
        for p in pairs
        if p.truth is not None
    ]
    kept = [(t, v) for t, v in kept if v is not None]
    truth, pred = [t for t, _ in kept], [v for _, v in kept]
    assert block["n"] == len(kept)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, figure in (
            ("accuracy", accuracy_score(truth, pred)),
            ("precision", precision_score(truth, pred, zero_division=np.nan)),
            ("recall", recall_score(truth, pred, zero_division=np.nan)),
            ("f1", f1_score(truth, pred, zero_division=np.nan)),
            ("cohen_kappa", cohen_kappa_score(truth, pred, labels=[0, 1])),
        ):
            close(block[key], float(figure))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pooled_figures_match_the_references_overall_and_per_tag(tmp_path: Path, seed: int) -> None:
    case = random_case(seed, abstain=0.15)
    report = experiment(tmp_path / "exp", case)
    assert [c["name"] for c in report["criteria"]] == ["kind"]  # shared criteria only
    pooled, truth = report["agreement"]["pooled"], report["ground_truth"]["pooled"]
    assert pooled["name"] == "item criteria" and pooled["kind"] == "binary"
    assert sorted(pooled["tags"]) == sorted(truth["tags"]) == sorted(TAGS)
    scopes = [(pooled, truth, case.pairs)]
    for tag in TAGS:
        tagged = [p for p in case.pairs if tag in p.tags]
        scopes.append((pooled["tags"][tag], truth["tags"][tag], tagged))
    for agreement, against, pairs in scopes:
        check_agreement(agreement, pairs)
        check_truth(against["ensemble"], pairs, None)
        for position, judge in enumerate(JUDGES):
            check_truth(against["judges"][judge], pairs, position)
    assert truth["ensemble"]["ci95"] == {}  # pairs of one item are not independent


def test_complete_votes_give_statsmodels_fleiss_kappa(tmp_path: Path) -> None:
    case = random_case(7, abstain=0.0)
    pooled = experiment(tmp_path / "exp", case)["agreement"]["pooled"]
    ratings = np.array([p.votes for p in case.pairs])
    table, _ = inter_rater.aggregate_raters(ratings, n_cat=2)
    assert pooled["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(table), abs=1e-12)
    agreeing = np.mean([(sum(r) * (sum(r) - 1) + (3 - sum(r)) * (2 - sum(r))) / 6 for r in ratings])
    assert pooled["percent_agreement"] == pytest.approx(agreeing)


def test_pooled_by_hand(tmp_path: Path) -> None:
    """Two items, three binary item criteria, two judges: pairs (MET, MET), (MET, UNMET),
    (UNMET, UNMET): observed agreement 2/3; expected by Cohen's kappa (2/3·1/3 + 1/3·2/3) =
    4/9, so κ = (2/3 - 4/9) / (5/9) = 0.4."""
    items = [
        Graded(
            "p",
            [{"requirement": "x", "tags": ["t"]}, {"requirement": "y"}],
            {"i1": ["MET", "MET"], "i2": ["MET", "UNMET"]},
            ground_truth={"i1": "MET", "i2": "UNMET"},
        ),
        Graded("q", [{"requirement": "z", "tags": ["t"]}], {"i1": ["UNMET", "UNMET"]}),
    ]
    rubric = {
        "criteria": [],
        "grader": {"judges": [{"model": "openai/a", "id": "a"}, {"model": "openai/b", "id": "b"}]},
    }
    out = write_item_experiment(tmp_path / "exp", rubric, items)
    report = json.loads(cli("report", out, "--format", "json").stdout)
    pooled = report["agreement"]["pooled"]
    assert pooled["percent_agreement"] == pytest.approx(2 / 3)
    assert pooled["pairwise_cohen_kappa"]["a|b"] == pytest.approx(0.4)
    assert pooled["tags"]["t"]["percent_agreement"] == 1.0  # (MET, MET) and (UNMET, UNMET)
    truth = report["ground_truth"]["pooled"]
    assert report["ground_truth"]["criteria"] == []
    # the ensemble: i1 MET (both), i2 a tie between MET and UNMET goes to the worst: UNMET
    assert truth["ensemble"]["n"] == 2 and truth["ensemble"]["accuracy"] == 1.0
    assert truth["judges"]["b"]["accuracy"] == 1.0 and truth["judges"]["a"]["accuracy"] == 0.5
    assert truth["tags"]["t"]["ensemble"]["n"] == 1  # q has no truth label
