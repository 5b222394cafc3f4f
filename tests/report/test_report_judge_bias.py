"""`judge_bias` on real runs of simulated judges with known biases, against scipy computed here
from the votes in items.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats
from stats_support import DEMO_RUBRIC, clustered_data, invoke, judges, records, rubric

from tests.support.browser import headless_chromium

FLAG = 0.001


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("bias")
    grader = judges(
        **{
            "target-v1": {"accuracy": 0.7, "position_bias": 0.6, "seed": 1},
            "fair": {"accuracy": 0.7, "position_bias": 0.0, "seed": 2},
        }
    )
    grader["judges"][1]["samples"] = 3
    path = rubric(tmp, grader=grader)
    out = tmp / "run"
    code, _, err = invoke("run", path, clustered_data(tmp), "--out", out, "--no-cache")
    assert code == 0, err
    return out


def shown_positions(rows: list[dict], judge: str, position: int) -> list[int]:
    chosen = []
    for row in rows:
        for vote in row["criteria"][position]["votes"]:
            if (
                vote["judge"] == judge
                and vote["error"] is None
                and vote["option_index"] is not None
            ):
                chosen.append(vote["shuffle_order"].index(vote["option_index"]))
    return chosen


def test_position_counts_and_chi_square_equal_scipy(run: Path) -> None:
    report = json.loads((run / "report.json").read_text())
    rows = records(run)
    names = [c["name"] for c in report["criteria"]]
    for judge, bias in report["judge_bias"].items():
        position = bias["position"]
        total_chi2, total_dof, first, votes, expected = 0.0, 0, 0, 0, 0.0
        for block in position["criteria"]:
            chosen = shown_positions(rows, judge, names.index(block["name"]))
            k = len(block["counts"])
            counts = np.bincount(chosen, minlength=k)
            assert block["counts"] == counts.tolist()
            reference = stats.chisquare(counts)
            assert block["chi2"] == pytest.approx(reference.statistic)
            assert block["p_value"] == pytest.approx(reference.pvalue)
            total_chi2 += reference.statistic
            total_dof += k - 1
            first += counts[0]
            votes += counts.sum()
            expected += counts.sum() / k
        pooled = position["pooled"]
        # an unbiased judge's share of each shown position, pooled: a position k counts only
        # for the criteria with more than k options (the demo mixes 3, 4 and 5)
        width = max(len(b["counts"]) for b in position["criteria"])
        unbiased = [
            sum(
                sum(b["counts"]) / len(b["counts"])
                for b in position["criteria"]
                if len(b["counts"]) > k
            )
            / votes
            for k in range(width)
        ]
        assert pooled["expected"] == pytest.approx(unbiased)
        assert pooled["expected"][-1] < pooled["expected"][0]  # position 5 exists in one criterion
        for block in position["criteria"]:
            assert block["expected"] == pytest.approx(
                [1 / len(block["counts"])] * len(block["counts"])
            )
        assert pooled["p_value"] == pytest.approx(stats.chi2.sf(total_chi2, total_dof))
        assert pooled["dof"] == total_dof and pooled["votes"] == votes
        assert pooled["first_rate"] == pytest.approx(first / votes)
        assert pooled["first_expected"] == pytest.approx(expected / votes)
        assert position["flagged"] == (pooled["p_value"] < FLAG)
    assert report["judge_bias"]["target-v1"]["position"]["flagged"]  # position_bias 0.6
    assert not report["judge_bias"]["fair"]["position"]["flagged"]


def test_order_consistency_counts_sample_pairs_shown_in_different_orders(run: Path) -> None:
    report = json.loads((run / "report.json").read_text())
    rows = records(run)
    pairs = same = 0
    for row in rows:
        for criterion in row["criteria"]:
            votes = [
                v for v in criterion["votes"]
                if v["judge"] == "fair" and v["error"] is None and v["shuffle_order"]
            ]  # fmt: skip
            for i, a in enumerate(votes):
                for b in votes[i + 1 :]:
                    if a["shuffle_order"] != b["shuffle_order"]:
                        pairs += 1
                        same += a["option_index"] == b["option_index"]
    consistency = report["judge_bias"]["fair"]["order_consistency"]
    assert consistency == {"pairs": pairs, "consistent": same, "rate": same / pairs}
    assert report["judge_bias"]["target-v1"]["order_consistency"] is None  # one sample


def test_length_is_spearman_of_judge_scores_and_output_words(run: Path) -> None:
    report = json.loads((run / "report.json").read_text())
    rows = records(run)
    words = np.array([r["word_counts"]["output"] for r in rows], dtype=float)
    for judge, bias in report["judge_bias"].items():
        scores = np.array([r["judge_scores"][judge] for r in rows], dtype=float)
        reference = stats.spearmanr(scores, words)
        assert bias["length"]["rho"] == pytest.approx(reference.statistic)
        assert bias["length"]["p_value"] == pytest.approx(reference.pvalue)
        assert bias["length"]["n"] == len(rows)
        beyond = stats.spearmanr(scores - truth_scores(rows), words)
        assert bias["length"]["beyond_truth"]["rho"] == pytest.approx(beyond.statistic)
        assert bias["length"]["beyond_truth"]["p_value"] == pytest.approx(beyond.pvalue)


def truth_scores(rows: list[dict]) -> np.ndarray:
    """Each item's score from its ground-truth labels: clamp(Σ w·v / Σ positive w, 0, 1),
    abstentions skipped (the demo rubric: normalized, no length penalty)."""
    criteria = {c["name"]: c for c in yaml.safe_load(DEMO_RUBRIC.read_text())["criteria"]}
    out = []
    for row in rows:
        weighted = []
        for name, label in row["ground_truth"].items():
            criterion = criteria[name]
            weight = criterion.get("weight", 10)
            if "options" in criterion:
                option = next(o for o in criterion["options"] if o["label"] == label)
                value = None if option.get("na") else option["value"]
            else:
                value = {"MET": 1.0, "UNMET": 0.0}.get(label)
            if value is not None:
                weighted.append((weight, value))
        positive = sum(w for w, _ in weighted if w > 0)
        out.append(min(max(sum(w * v for w, v in weighted) / positive, 0.0), 1.0))
    return np.array(out)


def test_self_preference_is_a_difference_in_differences(run: Path) -> None:
    report = json.loads((run / "report.json").read_text())
    rows = records(run)
    own = np.array([r["judge_scores"]["target-v1"] for r in rows])
    other = np.array([r["judge_scores"]["fair"] for r in rows])
    mask = np.array([r["metadata"].get("model") == "target-v1" for r in rows])
    by_hand = (own - other)[mask].mean() - (own - other)[~mask].mean()
    block = report["judge_bias"]["target-v1"]["self_preference"]
    assert block["model"] == "target-v1"
    assert block["difference"] == pytest.approx(by_hand)
    assert (block["n_own"], block["n_other"]) == (int(mask.sum()), int((~mask).sum()))
    low, high = block["ci95"]
    assert low < block["difference"] < high
    assert report["judge_bias"]["fair"]["self_preference"] is None  # no item by "fair"


def test_every_format_has_the_bias_section(run: Path) -> None:
    for fmt in ("table", "markdown"):
        code, stdout, _ = invoke("report", run, "--format", fmt)
        assert code == 0 and "Judge bias" in stdout and "FLAGGED" in stdout
    code, stdout, _ = invoke("report", run, "--format", "html", "-o", run.parent / "r.html")
    page = (run.parent / "r.html").read_text()
    assert 'id="judge-bias"' in page and "position:target-v1" in page


def test_the_position_chart_marks_what_an_unbiased_judge_would_choose(run: Path) -> None:
    """Pooled over criteria of 3 to 5 options, an unbiased judge chooses positions 4 and 5
    less often; without the expected share on the chart it looks biased against them."""
    report = json.loads((run / "report.json").read_text())
    page = run.parent / "bias.html"
    code, _, err = invoke("report", run, "--format", "html", "-o", page)
    assert code == 0, err
    with headless_chromium() as browser:
        view = browser.new_page(viewport={"width": 1400, "height": 900})
        view.goto(page.as_uri())
        view.wait_for_selector("body[data-plots-ready]", timeout=30_000)
        figure = view.locator('figure[data-plot="position:fair"]')
        caption = " ".join(figure.locator("figcaption").inner_text().split())
        marks = view.evaluate(EXPECTED_MARKS)
        note = " ".join(view.inner_text("#judge-bias .note").split())
        view.close()
    assert "the tick on each bar: the share an unbiased judge gives that position" in caption
    drawn = sorted(marks)
    wanted = sorted(b["position"]["pooled"]["expected"] for b in report["judge_bias"].values())
    assert len(drawn) == len(wanted) == 2  # one chart per judge, each with its ticks
    for ticks, expected in zip(drawn, wanted, strict=True):
        assert ticks == pytest.approx(expected)
    assert "beyond labels: Spearman's ρ of (the judge's item score − the labels' score)" in note


EXPECTED_MARKS = """() => {
  const found = [];
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    const data = m.data_source && m.data_source.data;
    if (data && data.expected && m.glyph && m.glyph.type === "Rect") found.push([...data.expected]);
  }
  return found;
}"""
