"""The comparison model on hand-built experiments: degenerate cases, warnings, ca-mode, order."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from statsmodels.stats.contingency_tables import SquareTable

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.experiment.manifest import InputFile, Manifest, save_manifest, utc_now
from autorubric_cli.report.compare import compare_experiments, exit_code
from autorubric_cli.report.compare_options import CompareOptions

RUBRIC = """
criteria:
  - {name: ok, requirement: "Is right"}
  - name: tone
    requirement: "Register?"
    scale_type: nominal
    options:
      - {label: Formal, value: 1.0}
      - {label: Casual, value: 1.0}
      - {label: Rude, value: 0.0}
      - {label: Unsure, na: true}
"""
TONES = ["Formal", "Casual", "Rude", "Unsure"]


def outcome(name: str, value: str) -> dict[str, Any]:
    if name == "ok":
        return {"name": "ok", "verdict": value, "option": None, "votes": []}
    index = TONES.index(value)
    option = {
        "index": index,
        "label": value,
        "value": None if index == 3 else 1.0,
        "na": index == 3,
    }
    return {"name": name, "verdict": None, "option": option, "votes": []}


def write_experiment(
    directory: Path,
    items: list[tuple[str, float | None, str, str]],
    *,
    rubric: str = RUBRIC,
    seed: int = 1,
    judges: tuple[str, ...] = ("a",),
    aggregation: str = "majority",
    errored: set[str] = frozenset(),  # type: ignore[assignment]
    shuffle: int | None = None,
) -> Path:
    """items: (id, score, ok verdict, tone label); ids in dataset order."""
    directory.mkdir(parents=True)
    (directory / "rubric.yaml").write_text(rubric)
    config = LLMConfig(
        judges=[JudgeSpec(model=f"openai/{j}", id=j) for j in judges],
        seed=seed,
        aggregation=aggregation,  # type: ignore[arg-type]
    )
    now = utc_now()
    manifest = Manifest(
        autorubric_version="test",
        name=directory.name,
        command=["test"],
        created=now,
        updated=now,
        status="completed",
        seed=seed,
        config=config.model_dump(mode="json"),
        rubric=InputFile(path="rubric.yaml", sha256=str(hash(rubric))),
        dataset=InputFile(path="data.jsonl", sha256="d"),
        items_total=len(items),
    )
    save_manifest(directory, manifest)
    lines = []
    names = ["ok", "tone"] if "tone" in rubric else ["ok"]
    for index, (item_id, score, ok, tone) in enumerate(items):
        values = {"ok": ok, "tone": tone}
        record = {
            "id": item_id,
            "index": index,
            "status": "error" if item_id in errored else "ok",
            "score": score,
            "criteria": [outcome(n, values[n]) for n in names],
            "judge_scores": {j: score for j in judges},
        }
        lines.append(orjson.dumps(record) + b"\n")
    if shuffle is not None:
        random.Random(shuffle).shuffle(lines)
    (directory / "items.jsonl").write_bytes(b"".join(lines))
    return directory


def random_items(rng: random.Random, n: int) -> list[tuple[str, float | None, str, str]]:
    return [
        (
            f"q{i}",
            rng.choice([0.0, 0.25, 0.5, 1.0]),
            rng.choice(["MET", "UNMET"]),
            rng.choice(TONES),
        )
        for i in range(n)
    ]


def drift(items: list, rng: random.Random, share: float) -> list:
    out = []
    for item_id, score, ok, tone in items:
        if rng.random() < share:
            score = rng.choice([0.0, 0.25, 0.5, 1.0])
            ok = rng.choice(["MET", "UNMET"])
            tone = rng.choice(TONES)
        out.append((item_id, score, ok, tone))
    return out


def test_identical_runs_give_null_p_values_with_reasons(tmp_path: Path) -> None:
    items = random_items(random.Random(0), 40)
    base = write_experiment(tmp_path / "base", items)
    new = write_experiment(tmp_path / "new", items)
    result = compare_experiments(base, new, CompareOptions(fail_on_regression=True))
    score = result["score"]
    assert score["diff"] == 0.0 and score["ci95"] == [0.0, 0.0]
    assert score["p_value"] is None and score["p_value_sign"] is None
    assert score["undefined"]["p_value"] == "all differences are zero"
    assert (score["improved"], score["regressed"], score["unchanged"]) == (0, 0, 40)
    for criterion in result["criteria"]:
        assert criterion["p_value"] is None and criterion["p_adjusted"] is None
        assert criterion["undefined"]["p_value"] == "no discordant pairs"
    assert result["moved"] == [] and result["warnings"] == []
    assert result["gate"]["passed"] is True and exit_code(result) == 0


def test_no_paired_items_gives_nulls_and_names_the_unpaired(tmp_path: Path) -> None:
    base = write_experiment(tmp_path / "base", random_items(random.Random(1), 6))
    other = [(f"x{i}", 0.5, "MET", "Formal") for i in range(3)]
    new = write_experiment(tmp_path / "new", other)
    result = compare_experiments(base, new, CompareOptions(max_drop=0.1))
    assert result["items"]["paired"] == 0
    assert (result["items"]["only_base"], result["items"]["only_new"]) == (6, 3)
    score = result["score"]
    assert score["diff"] is None and score["ci95"] is None and score["p_value"] is None
    assert score["undefined"] == {
        "base_mean": "no paired items",
        "new_mean": "no paired items",
        "diff": "no paired items",
        "ci95": "no paired items",
        "p_value": "no paired items",
        "p_value_sign": "no paired items",
    }
    assert any("only in BASE: q0, q1, q2, q3, q4, … (1 more)" in w for w in result["warnings"])
    assert any("only in NEW: x0, x1, x2" in w for w in result["warnings"])
    assert all(c["n"] == 0 and c["p_value"] is None for c in result["criteria"])
    assert result["gate"]["checks"][0]["value"] is None and exit_code(result) == 1


def test_one_side_all_cannot_assess_follows_ca_mode(tmp_path: Path) -> None:
    items = random_items(random.Random(2), 30)
    base = write_experiment(tmp_path / "base", items)
    abstaining = [(i, s, "CANNOT_ASSESS", t) for i, s, _, t in items]
    new = write_experiment(tmp_path / "new", abstaining)
    result = compare_experiments(base, new, CompareOptions())
    ok = result["criteria"][0]
    assert ok["n"] == 0 and ok["p_value"] is None and ok["base"] is None
    assert ok["undefined"]["p_value"].startswith("no paired item is assessed on both sides")
    as_unmet = compare_experiments(base, new, CompareOptions(ca_mode="as_unmet"))["criteria"][0]
    met = sum(1 for _, _, v, _ in items if v == "MET")
    assert as_unmet["n"] == 30 and as_unmet["new"] == 0.0 and as_unmet["base"] == met / 30
    assert as_unmet["transitions"] == {"MET->UNMET": met, "UNMET->MET": 0}
    assert as_unmet["p_value"] == pytest.approx(2 * 0.5**met)


def test_criterion_and_judge_on_one_side_only_and_setting_warnings(tmp_path: Path) -> None:
    items = random_items(random.Random(3), 20)
    base = write_experiment(tmp_path / "base", items)
    only_ok = '\ncriteria:\n  - {name: ok, requirement: "Is right"}\n'
    new = write_experiment(
        tmp_path / "new", items, rubric=only_ok, seed=9, judges=("a", "b"), aggregation="any"
    )
    result = compare_experiments(base, new, CompareOptions())
    tone = next(c for c in result["criteria"] if c["name"] == "tone")
    assert tone["only"] == "base" and tone["p_value"] is None and tone["n"] == 0
    assert tone["undefined"]["p_value"] == "the criterion is only in BASE"
    judge_b = next(j for j in result["judges"] if j["id"] == "b")
    assert judge_b["only"] == "new" and judge_b["diff"] is None and judge_b["new_mean"] is not None
    text = "\n".join(result["warnings"])
    for expected in (
        "the rubrics differ",
        "criterion 'tone' is only in BASE",
        "the judges differ",
        "the seeds differ: BASE 1 vs NEW 9",
        "grader.aggregation differs: BASE 'majority' vs NEW 'any'",
    ):
        assert expected in text


def test_errored_items_are_excluded_named_and_exit_3(tmp_path: Path) -> None:
    items = random_items(random.Random(4), 12)
    base = write_experiment(tmp_path / "base", items)
    new = write_experiment(tmp_path / "new", drift(items, random.Random(5), 0.5), errored={"q3"})
    result = compare_experiments(base, new, CompareOptions())
    assert result["items"]["paired"] == 11
    assert result["items"]["excluded"] == 1 and result["items"]["excluded_errored"] == 1
    assert any("excluded" in w and "q3" in w for w in result["warnings"])
    assert exit_code(result) == 3


def test_nominal_criterion_uses_stuart_maxwell_on_the_paired_table(tmp_path: Path) -> None:
    rng = random.Random(6)
    items = random_items(rng, 300)
    new_items = drift(items, rng, 0.4)
    base = write_experiment(tmp_path / "base", items)
    new = write_experiment(tmp_path / "new", new_items)
    tone = compare_experiments(base, new, CompareOptions(ca_mode="as_category"))["criteria"][1]
    table = np.zeros((4, 4), dtype=int)  # Formal, Casual, Rude, NA (its own class)
    for (_, _, _, b), (_, _, _, n) in zip(items, new_items, strict=True):
        table[TONES.index(b), TONES.index(n)] += 1
    expected = SquareTable(table, shift_zeros=False).homogeneity().pvalue
    assert tone["test"] == "stuart_maxwell" and tone["base"] is None and tone["n"] == 300
    assert tone["p_value"] == pytest.approx(expected, abs=1e-9)
    assert tone["distribution"]["base"] == dict(
        zip(["Formal", "Casual", "Rude", "NA"], table.sum(axis=1).tolist(), strict=True)
    )


def test_comparison_does_not_depend_on_line_order(tmp_path: Path) -> None:
    rng = random.Random(7)
    items = random_items(rng, 150)
    new_items = drift(items, rng, 0.3)
    base = write_experiment(tmp_path / "base", items)
    new = write_experiment(tmp_path / "new", new_items)
    reference = compare_experiments(base, new, CompareOptions())
    base2 = write_experiment(tmp_path / "base2", items, shuffle=1)
    new2 = write_experiment(tmp_path / "new2", new_items, shuffle=2)
    shuffled = compare_experiments(base2, new2, CompareOptions())
    for key in ("items", "score", "criteria", "judges", "moved", "warnings"):
        assert shuffled[key] == reference[key]
    assert (
        reference["score"]["ci95"][0] < reference["score"]["diff"] < reference["score"]["ci95"][1]
    )


def test_reading_the_sides_in_two_processes_gives_the_same_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from autorubric_cli.report import compare_read

    rng = random.Random(8)
    items = random_items(rng, 60)
    base = write_experiment(tmp_path / "base", items)
    new = write_experiment(tmp_path / "new", drift(items, rng, 0.3), errored={"q5"})
    serial = compare_experiments(base, new, CompareOptions())
    monkeypatch.setattr(compare_read, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(compare_read.os, "cpu_count", lambda: 2)
    assert compare_experiments(base, new, CompareOptions()) == serial
