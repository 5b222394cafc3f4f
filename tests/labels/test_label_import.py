"""`label import` validation, newest-wins, ground truth from several raters, order, page cap."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from label_support import cli, graded_demo, read_jsonl

from autorubric_cli.core.records import CriterionRecord, ItemRecord, Vote
from autorubric_cli.experiment.human_labels import LABELS, read_labels
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.labels.order import rank_items, vote_entropy
from autorubric_cli.labels.overlay import build_overlay, majority_label
from autorubric_cli.labels.page_data import plan_labels
from autorubric_cli.report.html.items import decode_payload
from autorubric_cli.report.html.label_page import render_label_html


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return graded_demo(tmp_path_factory.mktemp("import"))


@pytest.fixture
def experiment(graded: Path, tmp_path: Path) -> Path:
    """A private copy: imports write into it."""
    import shutil

    copy = tmp_path / "exp"
    shutil.copytree(graded, copy)
    return copy


def line(**changes: Any) -> dict[str, Any]:
    base = {
        "id": "q001",
        "rater": "ana",
        "labels": {"energy_density": "MET", "clarity": "Good"},
        "response_sets": {"satisfaction": ["Satisfied", "Very satisfied"]},
        "notes": {"clarity": "tidy"},
        "labelled_at": "2026-11-24T10:00:00Z",
    }
    return base | changes


def write(path: Path, *rows: Any) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


BAD = [
    (line(id="nope"), "id", "unknown item id 'nope'"),
    (line(labels={"energy": "MET"}), "labels.energy", "unknown criterion 'energy'"),
    (line(labels={"clarity": "Superb"}), "labels.clarity", "label 'Superb' is not valid"),
    (line(response_sets={"satisfaction": ["Fine"]}), "response_sets.satisfaction", "not valid"),
    (line(response_sets={"satisfaction": []}), "response_sets.satisfaction", "non-empty list"),
    (line(notes={"clarity": 3}), "notes.clarity", "a note must be a string"),
    (line(rater=""), "rater", "non-empty string"),
    (line(labelled_at="yesterday"), "labelled_at", "ISO 8601"),
    (line(labelled_at="2026-11-24T10:00:00"), "labelled_at", "with a zone"),
    (line(extra=1), "extra", "unknown key"),
    (line(labels={}, response_sets={}), "labels", "no label for any criterion"),
    ("[1, 2]", None, "each line must be a JSON object"),
    ("{not json", None, "invalid JSON"),
]


@pytest.mark.parametrize(("bad", "key", "message"), BAD)
def test_a_bad_line_names_file_line_and_key_and_nothing_is_written(
    experiment: Path, tmp_path: Path, bad: Any, key: str | None, message: str
) -> None:
    good = write(tmp_path / "good.jsonl", line(id="q002"))
    path = write(tmp_path / "bad.jsonl", line(), bad)
    result = cli("label", "import", experiment, good, path)
    assert result.exit_code == 2
    where = f"{path}:2: " + (f"{key}: " if key else "")
    assert where in result.output and message in result.output, result.output
    assert not (experiment / LABELS).exists()


def test_labels_are_stored_in_the_rubrics_spelling_and_newest_wins(
    experiment: Path, tmp_path: Path
) -> None:
    newer = write(
        tmp_path / "newer.jsonl",
        line(labels={"clarity": "excellent"}, labelled_at="2026-11-25T10:00:00Z"),
    )
    older = write(tmp_path / "older.jsonl", line(labels={"clarity": "poor"}))
    assert cli("label", "import", experiment, newer).exit_code == 0
    assert cli("label", "import", experiment, older).exit_code == 0  # imported later, but older
    stored = read_jsonl(experiment / LABELS)
    assert [s["labels"]["clarity"] for s in stored] == ["Excellent", "Poor"]  # append-only
    table = read_labels(experiment)
    assert table[("ana", "q001")].labels == {"clarity": "Excellent"}


def test_ground_truth_majority_ties_and_a_named_rater(experiment: Path, tmp_path: Path) -> None:
    rows = [
        line(rater="ana", labels={"clarity": "Good"}),
        line(rater="bo", labels={"clarity": "Fair"}),
        line(rater="cy", labels={"clarity": "Good"}),
        line(id="q002", rater="ana", labels={"clarity": "Good"}),
        line(id="q002", rater="bo", labels={"clarity": "Fair"}),
    ]
    assert cli("label", "import", experiment, write(tmp_path / "f.jsonl", *rows)).exit_code == 0
    table = read_labels(experiment)
    majority = build_overlay(table)
    assert majority.truth("q001") == {"clarity": "Good"}
    assert majority.truth("q002") == {}  # a tie: no ground truth
    assert build_overlay(table, "rater:bo").truth("q002") == {"clarity": "Fair"}
    ratings = majority.human_ratings["q001"]
    assert ratings["clarity"] == ["Good", "Fair", "Good"]
    assert ratings["satisfaction"] == [["Satisfied", "Very satisfied"]] * 3
    result = cli("report", experiment, "--format", "json", "--ground-truth", "rater:zed")
    assert result.exit_code == 2 and "--ground-truth" in result.output
    assert majority_label(["a", "b", "b"]) == "b" and majority_label([]) is None


def vote(judge: str, outcome: Any, error: str | None = None) -> Vote:
    if isinstance(outcome, int):
        return Vote(judge=judge, option_index=outcome, error=error)
    return Vote(judge=judge, verdict=outcome, error=error)


def record(item_id: str, index: int, outcomes: list[Any]) -> ItemRecord:
    votes = [vote(f"j{i}", o) for i, o in enumerate(outcomes)]
    return ItemRecord(
        id=item_id, index=index, status="ok", criteria=[CriterionRecord(name="c", votes=votes)]
    )


def test_the_disagreement_order_is_the_entropy_of_pooled_votes() -> None:
    even = record("even", 0, ["MET", "MET", "UNMET", "UNMET"])
    agreed = record("agreed", 1, ["MET", "MET", "MET", "MET"])
    three = record("three", 2, [0, 1, 2, 2])
    assert vote_entropy(even.criteria[0]) == pytest.approx(1.0)
    assert vote_entropy(agreed.criteria[0]) == 0.0
    assert vote_entropy(three.criteria[0]) == pytest.approx(
        -(2 * 0.25 * math.log2(0.25) + 0.5 * math.log2(0.5))
    )
    errored = CriterionRecord(name="c", votes=[vote("a", "MET"), vote("b", None, error="timeout")])
    assert vote_entropy(errored) == 0.0  # errored votes are left out
    ranked = rank_items([even, agreed, three], ["c"], "disagreement")
    assert [r.id for r in ranked] == ["three", "even", "agreed"]
    assert "1.50 bits" in ranked[0].why
    first = rank_items(
        [even, agreed, three], ["c"], "disagreement", raters={"three": 2}, per_item_raters=2
    )
    assert [r.id for r in first] == ["even", "agreed", "three"]  # fewer raters first
    assert [r.id for r in rank_items([three, even, agreed], ["c"], "dataset")] == [
        "even",
        "agreed",
        "three",
    ]
    shuffled = [r.id for r in rank_items([even, agreed, three], ["c"], "random", seed=5)]
    assert shuffled == [r.id for r in rank_items([three, agreed, even], ["c"], "random", seed=5)]


def test_the_page_keeps_the_first_items_of_the_order_when_capped(graded: Path) -> None:
    plan = plan_labels(open_experiment(graded), criteria=["clarity", "tone"])
    assert plan.order == "disagreement" and [c.name for c in plan.criteria] == ["clarity", "tone"]
    html = render_label_html(plan, cap=7)
    payload = html.split('id="label-data">')[1].split("</script>")[0]
    rows = decode_payload(payload)
    assert [r["id"] for r in rows] == [r.id for r in plan.ranked[:7]]
    assert 'id="cap-note"' in html
    entropies = [r.entropy for r in plan.ranked]
    assert entropies == sorted(entropies, reverse=True)
    small = render_label_html(plan, budget=2_000)
    kept = [
        r["id"] for r in decode_payload(small.split('id="label-data">')[1].split("</script>")[0])
    ]
    assert 0 < len(kept) < len(plan.ranked) and kept == [r.id for r in plan.ranked[: len(kept)]]
    assert "so it stays under 10 MB" in small


def test_label_flags_are_checked(graded: Path) -> None:
    result = cli("label", graded, "--criteria", "nope")
    assert result.exit_code == 2 and "--criteria: unknown criterion 'nope'" in result.output
    result = cli("label", graded, "--order", "best")
    assert result.exit_code == 2 and "--order" in result.output
    page = graded.parent / "three.html"
    result = cli("label", graded, "--limit", "3", "--order", "dataset", "-o", page)
    assert result.exit_code == 0 and result.output.strip() == str(page)
    rows = decode_payload(page.read_text().split('id="label-data">')[1].split("</script>")[0])
    assert [r["id"] for r in rows] == ["q001", "q002", "q003"]


def test_a_torn_last_line_is_left_out_and_the_next_import_starts_a_new_line(
    experiment: Path, tmp_path: Path
) -> None:
    assert cli("label", "import", experiment, write(tmp_path / "a.jsonl", line())).exit_code == 0
    stored = experiment / LABELS
    with stored.open("ab") as handle:
        handle.write(b'{"id": "q002", "rater": "bo", "lab')  # a crash mid-write
    assert set(read_labels(experiment)) == {("ana", "q001")}
    again = write(tmp_path / "b.jsonl", line(id="q003", rater="cy"))
    assert cli("label", "import", experiment, again).exit_code == 0
    assert set(read_labels(experiment)) == {("ana", "q001"), ("cy", "q003")}
    text = stored.read_text().splitlines()
    stored.write_text("\n".join([text[0], "{damaged", *text[1:]]) + "\n")
    result = cli("report", experiment, "--format", "json")
    assert result.exit_code == 2 and f"{stored}:2: damaged line" in result.output
