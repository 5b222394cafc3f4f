"""`autorubric plan`: the paired sample size against statsmodels' NormalIndPower, the design
effect with the one-way ANOVA ICC worked by hand, and its input errors."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from stats_support import clustered_data, invoke, records, rubric
from statsmodels.stats.power import NormalIndPower


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("plan")
    out = tmp / "pilot"
    code, _, err = invoke("run", rubric(tmp), clustered_data(tmp), "--out", out, "--no-cache")
    assert code == 0, err
    return out


def plan(*args: object) -> dict:
    code, stdout, err = invoke("plan", *args, "--format", "json")
    assert code == 0, err
    return json.loads(stdout)


def solve(detect: float, sigma: float, alpha: float = 0.05, power: float = 0.8) -> float:
    return NormalIndPower().solve_power(
        effect_size=detect / sigma, alpha=alpha, power=power, ratio=0
    )


@pytest.mark.parametrize(
    ("detect", "extra", "alpha", "power", "correlation"),
    [(0.05, [], 0.05, 0.8, 0.5), (0.02, ["--correlation", "0.8"], 0.05, 0.8, 0.8),
     (0.1, ["--alpha", "0.01", "--power", "0.9"], 0.01, 0.9, 0.5)],
)  # fmt: skip
def test_items_needed_equal_normal_ind_power(
    pilot: Path, detect: float, extra: list[str], alpha: float, power: float, correlation: float
) -> None:
    result = plan(pilot, "--detect", detect, *extra)
    scores = np.array([r["score"] for r in records(pilot)])
    sigma = scores.std(ddof=1) * math.sqrt(2 * (1 - correlation))
    assert result["sigma_d"] == pytest.approx(sigma)
    assert result["n_items"] == math.ceil(solve(detect, sigma, alpha, power))
    assert result["pilot_items"] == scores.size
    assert (result["design_effect"], result["n_items_clustered"]) == (None, None)
    assert list(result)[:8] == [
        *("detect", "alpha", "power", "sigma_d", "n_items", "design_effect"),
        *("n_items_clustered", "pilot_items"),
    ]


def test_sigma_from_a_compare_file_is_the_paired_differences_std(
    pilot: Path, tmp_path: Path
) -> None:
    new = tmp_path / "new"
    data = clustered_data(tmp_path)
    code, _, err = invoke("run", rubric(tmp_path), data, "--out", new, "--seed", "5")
    assert code == 0, err
    code, stdout, _ = invoke("compare", pilot, new, "--format", "json")
    compare = tmp_path / "compare.json"
    compare.write_text(stdout)
    diffs = np.array(
        [n["score"] - b["score"] for b, n in zip(records(pilot), records(new), strict=True)]
    )
    result = plan(pilot, "--detect", 0.03, "--from-compare", compare)
    assert result["sigma_d"] == pytest.approx(diffs.std(ddof=1))
    assert result["n_items"] == math.ceil(solve(0.03, diffs.std(ddof=1)))


def icc_by_hand(groups: dict[str, list[float]]) -> float:
    clusters = list(groups.values())
    values = [v for c in clusters for v in c]
    n, g = len(values), len(clusters)
    grand = sum(values) / n
    means = [sum(c) / len(c) for c in clusters]
    msb = sum(len(c) * (m - grand) ** 2 for c, m in zip(clusters, means, strict=True)) / (g - 1)
    msw = sum((v - m) ** 2 for c, m in zip(clusters, means, strict=True) for v in c) / (n - g)
    m0 = (n - sum(len(c) ** 2 for c in clusters) / n) / (g - 1)
    return (msb - msw) / (msb + (m0 - 1) * msw)


def test_clusters_multiply_by_the_design_effect(pilot: Path, tmp_path: Path) -> None:
    """Scores rewritten so that documents differ: a positive ICC on unbalanced clusters."""
    pilot = Path(shutil.copytree(pilot, tmp_path / "pilot", ignore=shutil.ignore_patterns(".lock")))
    rows = records(pilot)
    rng = np.random.default_rng(0)
    shift = {f"d{k}": rng.normal(0, 0.2) for k in range(20)}
    lines = []
    for row in rows:
        doc = row.get("metadata", {}).get("doc")
        row["score"] = float(np.clip(0.5 + shift.get(doc, 0.0) + rng.normal(0, 0.1), 0, 1))
        lines.append(json.dumps(row))
    (pilot / "items.jsonl").write_text("\n".join(lines) + "\n")
    result = plan(pilot, "--detect", 0.05, "--cluster", "metadata.doc")
    groups: dict[str, list[float]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(row.get("metadata", {}).get("doc") or f"alone{i}", []).append(
            row["score"]
        )
    icc = icc_by_hand(groups)
    assert icc > 0
    assert result["cluster"]["icc"] == pytest.approx(icc)
    assert result["cluster"]["clusters"] == len(groups)
    effect = 1 + (len(rows) / len(groups) - 1) * icc
    assert result["design_effect"] == pytest.approx(effect)
    scores = np.array([r["score"] for r in rows])
    unrounded = solve(0.05, scores.std(ddof=1))
    assert result["n_items"] == math.ceil(unrounded)
    assert result["n_items_clustered"] == math.ceil(unrounded * effect)
    code, stdout, _ = invoke("plan", pilot, "--detect", "0.05", "--cluster", "metadata.doc")
    assert code == 0 and f"{result['n_items_clustered']:,} paired items" in stdout


@pytest.mark.parametrize(
    ("args", "key"),
    [(["--detect", "0"], "--detect"), (["--detect", "0.1", "--power", "0.01"], "--power"),
     (["--detect", "0.1", "--correlation", "1"], "--correlation"),
     (["--detect", "0.1", "--cluster", "doc"], "--cluster"),
     (["--detect", "0.1", "--from-compare", "missing.json"], "missing.json")],
)  # fmt: skip
def test_bad_input_is_a_one_line_error(pilot: Path, args: list[str], key: str) -> None:
    code, stdout, err = invoke("plan", pilot, *args)
    assert code == 2 and key in err and stdout == ""
    assert len(err.strip().splitlines()) == 1
