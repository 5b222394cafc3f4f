"""`autorubric plan`: the paired sample size against statsmodels' NormalIndPower, the design
effect with the one-way ANOVA ICC worked by hand, and its input errors."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from stats_support import DEMO_RUBRIC, clustered_data, invoke, records, rubric
from statsmodels.stats.power import NormalIndPower


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("plan")
    out = tmp / "pilot"
    code, _, err = invoke("run", rubric(tmp), clustered_data(tmp), "--out", out, "--no-cache")
    assert code == 0, err
    return out


def judges_of_demo() -> dict:
    return dict(yaml.safe_load(DEMO_RUBRIC.read_text())["grader"])


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


@pytest.mark.parametrize("detect", ["2", "1.5", "inf"])
def test_a_change_outside_the_score_range_is_refused(pilot: Path, detect: str) -> None:
    code, stdout, err = invoke("plan", pilot, "--detect", detect)
    assert code == 2 and stdout == "" and len(err.strip().splitlines()) == 1
    assert "--detect" in err
    if detect != "inf":
        assert "outside (0, 1], the range of this rubric's normalised score" in err


def test_raw_scores_take_a_change_above_1(tmp_path: Path) -> None:
    raw = rubric(tmp_path, "raw.yaml", grader={**judges_of_demo(), "normalize": False})
    out = tmp_path / "raw"
    code, _, err = invoke("run", raw, clustered_data(tmp_path), "--out", out, "--limit", "4")
    assert code == 0, err
    assert plan(out, "--detect", "5")["detect"] == 5


def test_the_plan_says_what_drives_its_answer(pilot: Path) -> None:
    code, stdout, _ = invoke("plan", pilot, "--detect", "0.05")
    text = " ".join(stdout.split())
    assert code == 0 and "sigma_d" not in text
    assert "The standard deviation of the paired differences is assumed to be" in text
    assert "0.5 is the assumed correlation of an item's score between the two runs" in text
    assert "this assumption drives the answer" in text and "--from-compare FILE" in text
    result = plan(pilot, "--detect", "0.05", "--correlation", "0.8")
    assert result["correlation"] == 0.8 and result["sigma_from"] == "correlation 0.8"


def test_counts_at_the_ends_and_a_tiny_pilot_are_warned_about(pilot: Path, tmp_path: Path) -> None:
    huge = plan(pilot, "--detect", "0.0001")
    assert huge["n_items"] > 10_000_000
    assert any("more than 100,000" in w for w in huge["warnings"])
    one = plan(pilot, "--detect", "1")
    assert one["n_items"] == 1 and any(
        "below 20 the normal approximation" in w for w in one["warnings"]
    )
    code, stdout, _ = invoke("plan", pilot, "--detect", "1")
    assert "  1 paired item, items independent" in stdout and "1 paired items" not in stdout
    assert plan(pilot, "--detect", "0.1")["warnings"] == []  # 48 items: no caution
    tiny = tmp_path / "tiny"
    code, _, err = invoke(
        "run", rubric(tmp_path), clustered_data(tmp_path), "--out", tiny, "--limit", "4"
    )
    assert code == 0, err
    warned = plan(tiny, "--detect", "0.1")["warnings"]
    assert any("the pilot has only 4 scored items (fewer than 30)" in w for w in warned)


def test_a_negative_icc_is_explained(pilot: Path, tmp_path: Path) -> None:
    """Scores that alternate inside each document, every document with the same mean: the
    clusters vary less than chance, the ICC is negative and counts as 0."""
    pilot = Path(shutil.copytree(pilot, tmp_path / "pilot", ignore=shutil.ignore_patterns(".lock")))
    rows = records(pilot)
    for i, row in enumerate(rows):
        row["score"] = float(i % 2)
    (pilot / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = plan(pilot, "--detect", "0.1", "--cluster", "metadata.doc")
    assert result["cluster"]["icc"] < 0 and result["design_effect"] == 1.0
    code, stdout, _ = invoke("plan", pilot, "--detect", "0.1", "--cluster", "metadata.doc")
    text = " ".join(stdout.split())
    assert code == 0 and f"ICC {result['cluster']['icc']:.3f} (below 0:" in text
    assert "counted as 0, so clustering adds no items" in text
