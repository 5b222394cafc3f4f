"""`score.se`, `score.clustered`, `criteria[].clustered` and compare's clustered test on real
runs, against statsmodels' cluster-robust OLS and scipy computed here from items.jsonl."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from stats_support import cluster_bse, clustered_data, group_ids, invoke, records, rubric

import autorubric_cli as ar

KEY = "metadata.doc"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("clusters")
    data = clustered_data(tmp)
    plain = rubric(tmp)
    keyed = rubric(tmp, "keyed.yaml", report={"cluster": KEY})
    out = {}
    for name, path, extra in (
        ("flag", plain, ["--cluster", KEY]),
        ("rubric", keyed, []),
        ("new", plain, ["--seed", "9"]),
    ):
        out[name] = tmp / name
        code, _, err = invoke("run", path, data, "--out", out[name], "--no-cache", *extra)
        assert code == 0, err
    return out


def report_json(directory: Path, *args: str) -> dict:
    code, stdout, err = invoke("report", directory, "--format", "json", *args)
    assert code == 0, err
    return json.loads(stdout)


def doc_keys(rows: list[dict]) -> list[str | None]:
    return [r.get("metadata", {}).get("doc") for r in rows]


def test_score_se_and_clustered_equal_statsmodels(runs: dict[str, Path]) -> None:
    report = json.loads((runs["flag"] / "report.json").read_text())
    rows = records(runs["flag"])
    scores = np.array([r["score"] for r in rows])
    groups = group_ids(doc_keys(rows))
    assert report["score"]["se"] == pytest.approx(stats.sem(scores))
    fit = cluster_bse(scores, groups)
    clustered = report["score"]["clustered"]
    assert clustered["key"] == KEY
    assert clustered["clusters"] == len(set(groups.tolist()))
    assert clustered["se"] == pytest.approx(fit.bse[0], rel=1e-9)
    low, high = fit.params[0] - 1.959964 * fit.bse[0], fit.params[0] + 1.959964 * fit.bse[0]
    assert clustered["ci95"] == pytest.approx([low, high], rel=1e-9)


def criterion_value(record: dict) -> float | None:
    if record["option"] is not None:
        return None if record["option"]["na"] else record["option"]["value"]
    return {"MET": 1.0, "UNMET": 0.0}.get(record["verdict"])


def test_each_criterion_is_clustered_over_the_items_with_a_value(runs: dict[str, Path]) -> None:
    report = json.loads((runs["flag"] / "report.json").read_text())
    rows = records(runs["flag"])
    keys = doc_keys(rows)
    for position, summary in enumerate(report["criteria"]):
        values = [criterion_value(r["criteria"][position]) for r in rows]
        kept = [i for i, v in enumerate(values) if v is not None]
        y = np.array([values[i] for i in kept])
        groups = group_ids([keys[i] for i in kept])
        fit = cluster_bse(y, groups)
        clustered = summary["clustered"]
        assert clustered["clusters"] == len(set(groups.tolist())), summary["name"]
        assert clustered["se"] == pytest.approx(fit.bse[0], rel=1e-9), summary["name"]
        mean = summary["met_rate"] if summary["kind"] == "binary" else summary["mean_value"]
        assert fit.params[0] == pytest.approx(mean)


def test_the_rubric_key_and_the_flag_agree(runs: dict[str, Path]) -> None:
    by_rubric = report_json(runs["rubric"])
    by_flag = report_json(runs["flag"], "--cluster", KEY)
    assert by_rubric["score"]["clustered"] == by_flag["score"]["clustered"]
    assert report_json(runs["new"])["score"]["clustered"] is None
    other = report_json(runs["rubric"], "--cluster", "metadata.model")
    assert other["score"]["clustered"]["key"] == "metadata.model"
    assert other["score"]["clustered"]["clusters"] == 2  # target-v1, target-v2


def test_tables_and_markdown_say_which_interval_and_how_many_clusters(
    runs: dict[str, Path],
) -> None:
    report = json.loads((runs["flag"] / "report.json").read_text())
    clusters = report["score"]["clustered"]["clusters"]
    for fmt in ("table", "markdown"):
        code, stdout, _ = invoke("report", runs["flag"], "--format", fmt, "--cluster", KEY)
        assert code == 0
        text = " ".join(stdout.split())
        assert f"clustered by {KEY}, {clusters} clusters" in text
    code, stdout, _ = invoke("report", runs["new"], "--format", "markdown")
    assert "bootstrap over 48 items" in stdout and "clustered by" not in stdout


def test_compare_clustered_paired_test_equals_statsmodels(runs: dict[str, Path]) -> None:
    code, stdout, err = invoke(
        "compare", runs["flag"], runs["new"], "--format", "json", "--cluster", KEY,
        "--fail-on-regression",
    )  # fmt: skip
    assert code in (0, 1), err
    result = json.loads(stdout)
    base, new = records(runs["flag"]), records(runs["new"])
    diffs = np.array([n["score"] - b["score"] for b, n in zip(base, new, strict=True)])
    diffs[np.abs(diffs) <= 1e-9] = 0.0
    score = result["score"]
    assert score["se_diff"] == pytest.approx(stats.sem(diffs))
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert score["mde80"] == pytest.approx(z * stats.sem(diffs))
    fit = cluster_bse(diffs, group_ids(doc_keys(base)))
    clustered = score["clustered"]
    assert clustered["se"] == pytest.approx(fit.bse[0], rel=1e-9)
    assert clustered["p_value"] == pytest.approx(fit.pvalues[0], rel=1e-8)
    assert clustered["mde80"] == pytest.approx(z * fit.bse[0])
    assert score["below_mde80"] == (abs(score["diff"]) < clustered["mde80"])
    check = result["gate"]["checks"][0]
    assert check["test"] == "clustered" and check["value"] == clustered["p_value"]
    assert check["passed"] == (not (score["diff"] < 0 and clustered["p_value"] < 0.05))


def test_compare_outputs_say_when_the_difference_is_below_mde80(runs: dict[str, Path]) -> None:
    code, stdout, _ = invoke("compare", runs["flag"], runs["new"], "--format", "json")
    score = json.loads(stdout)["score"]
    assert score["clustered"] is None and isinstance(score["below_mde80"], bool)
    quiet = score["p_value"] is None or score["p_value"] >= 0.05  # not significant
    for fmt in ("table", "markdown", "junit"):
        code, stdout, _ = invoke("compare", runs["flag"], runs["new"], "--format", fmt)
        text = " ".join(stdout.split())
        assert ("too few items to tell" in text) == (score["below_mde80"] and quiet), fmt
        assert (f"{score['mde80']:.4f}" in text) == quiet, fmt


def test_a_malformed_cluster_key_is_an_input_error(tmp_path: Path, runs: dict[str, Path]) -> None:
    code, _, err = invoke("report", runs["new"], "--cluster", "doc")
    assert code == 2 and "--cluster" in err and "metadata.KEY" in err
    bad = rubric(tmp_path, report={"cluster": "topic"})
    code, _, err = invoke("check", bad)
    assert code == 2 and "report.cluster" in err
    code, _, err = invoke("run", bad, clustered_data(tmp_path), "--out", tmp_path / "x")
    assert code == 2 and not (tmp_path / "x").exists()


def test_the_python_api_takes_the_cluster_key_as_the_flags_do(runs: dict[str, Path]) -> None:
    experiment = ar.open_experiment(runs["new"])
    assert experiment.report().score.clustered is None
    typed = experiment.report(cluster=KEY).to_dict()
    assert (
        typed["score"]["clustered"]
        == report_json(runs["new"], "--cluster", KEY)["score"]["clustered"]
    )
    assert typed["score"]["clustered"]["key"] == KEY
    code, stdout, err = invoke(
        "compare", runs["flag"], runs["new"], "--format", "json", "--cluster", KEY
    )
    assert code in (0, 1), err
    by_flag = json.loads(stdout)["score"]["clustered"]
    compared = experiment.compare(runs["flag"], cluster=KEY).to_dict()["score"]["clustered"]
    assert compared is not None and compared == by_flag


def test_a_key_no_item_has_is_warned_about_with_a_did_you_mean(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    """A misspelt key used to give the independent interval in silence."""
    misspelt = "metadata.docs"
    wanted = f"no item has {misspelt}: every item is a cluster of its own"
    flag = Path(shutil.copytree(runs["flag"], tmp_path / "flag"))  # `report` rewrites report.json
    report = report_json(flag, "--cluster", misspelt)
    assert any(wanted in w and "did you mean metadata.doc?" in w for w in report["warnings"])
    for fmt in ("table", "markdown"):
        _, stdout, _ = invoke("report", flag, "--format", fmt, "--cluster", misspelt)
        assert wanted in " ".join(stdout.split()), fmt
    _, stdout, _ = invoke("compare", runs["flag"], runs["new"], "-f", "json", "--cluster", misspelt)
    assert any(wanted in w for w in json.loads(stdout)["warnings"])
    _, stdout, _ = invoke(
        "plan", runs["flag"], "--detect", "0.1", "-f", "json", "--cluster", misspelt
    )
    assert any(wanted in w for w in json.loads(stdout)["warnings"])
    data = clustered_data(tmp_path)
    code, stdout, _ = invoke(
        "run",
        rubric(tmp_path),
        data,
        "--out",
        tmp_path / "run",
        "--cluster",
        misspelt,
        "--limit",
        "6",
    )
    assert code == 0 and wanted in " ".join(stdout.split())


def test_a_key_only_some_items_have_is_warned_about(runs: dict[str, Path]) -> None:
    rows = records(runs["flag"])
    have = sum(1 for key in doc_keys(rows) if key is not None)
    assert 0 < have < len(rows)
    wanted = f"only {have} of {len(rows)} items have {KEY}: the other {len(rows) - have} are"
    assert any(wanted in w for w in report_json(runs["rubric"])["warnings"])
    _, stdout, _ = invoke("compare", runs["flag"], runs["new"], "-f", "json", "--cluster", KEY)
    assert any(wanted in w for w in json.loads(stdout)["warnings"])


def test_few_clusters_are_warned_about_with_the_t_interval_of_statsmodels(
    runs: dict[str, Path],
) -> None:
    report = report_json(runs["rubric"])  # report.cluster in the rubric
    clustered = report["score"]["clustered"]
    assert 2 <= clustered["clusters"] < 30
    rows = records(runs["flag"])
    scores = np.array([r["score"] for r in rows])
    groups = group_ids(doc_keys(rows))
    fit = sm.OLS(scores, np.ones(scores.size)).fit(
        cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
    )
    assert clustered["ci95_t"] == pytest.approx(list(fit.conf_int(alpha=0.05)[0]), rel=1e-9)
    low, high = clustered["ci95_t"]
    wanted = (
        f"the clustered figures rest on only {clustered['clusters']} clusters of {KEY} (fewer "
        f"than 30): the normal interval is too narrow; with Student's t on "
        f"{clustered['clusters'] - 1} degrees of freedom, the score's 95% CI is "
        f"[{low:.3f}, {high:.3f}]"
    )
    assert wanted in report["warnings"]
    _, stdout, _ = invoke("compare", runs["flag"], runs["new"], "-f", "json", "--cluster", KEY)
    compared = json.loads(stdout)
    base, new = records(runs["flag"]), records(runs["new"])
    diffs = np.array([n["score"] - b["score"] for b, n in zip(base, new, strict=True)])
    diffs[np.abs(diffs) <= 1e-9] = 0.0
    fit = sm.OLS(diffs, np.ones(diffs.size)).fit(
        cov_type="cluster", cov_kwds={"groups": group_ids(doc_keys(base))}, use_t=True
    )
    paired = compared["score"]["clustered"]
    assert paired["p_value_t"] == pytest.approx(fit.pvalues[0], rel=1e-8)
    assert paired["ci95_t"] == pytest.approx(list(fit.conf_int(alpha=0.05)[0]), rel=1e-9)
    assert any("Student's t" in w and "p = " in w for w in compared["warnings"])
