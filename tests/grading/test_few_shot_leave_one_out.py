"""Few-shot without leakage: no prompt shows the item it grades as one of its examples, read
from the requests the loopback judge server received; the report counts the items whose own
example was withheld; human labels imported into an experiment serve as examples."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import http_judge
from tests.support.cli import cli
from tests.support.judge_server import JudgeServer

CRITERIA = [
    {"name": "accuracy", "requirement": "States the correct figure"},
    {
        "name": "quality",
        "requirement": "How good is the answer?",
        "options": [{"label": "Poor", "value": 0.0}, {"label": "Good", "value": 1.0}],
    },
]
MARKER = re.compile(r"answer-of-(q\d+)")
EXAMPLES = re.compile(r"<examples>\n.*?\n</examples>", re.DOTALL)


def rows(n: int, labelled: bool = True) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        row: dict[str, Any] = {"id": f"q{i}", "submission": f"answer-of-q{i}: {i * 10} Wh/kg"}
        if labelled:
            row["ground_truth"] = {
                "accuracy": "MET" if i % 2 else "UNMET",
                "quality": ["Poor", "Good"][i % 3 == 0],
            }
        out.append(row)
    return out


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def write_rubric(path: Path, judges: list[dict[str, Any]], **grader: Any) -> Path:
    data = {"criteria": CRITERIA, "grader": {"judges": judges, **grader}}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def graded_and_shown(text: str) -> tuple[set[str], list[str]]:
    """(ids of the submissions graded, ids shown as examples) in one prompt."""
    shown = [m for block in EXAMPLES.findall(text) for m in MARKER.findall(block)]
    graded = set(MARKER.findall(EXAMPLES.sub("", text)))
    return graded, shown


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
def test_no_prompt_shows_its_own_item(
    llm_calls: str, judge_server: JudgeServer, judge_api_key: str, tmp_path: Path
) -> None:
    data = write_jsonl(tmp_path / "data.jsonl", rows(6))
    few_shot = {"examples": "data.jsonl", "n_examples": 3}
    judges = [http_judge(judge_server.api_base)]
    rubric = write_rubric(tmp_path / "r.yaml", judges, few_shot=few_shot, llm_calls=llm_calls)
    done = cli("run", rubric, data, "--out", tmp_path / "exp", "--format", "json")
    assert done.exit_code == 0, done.stderr
    prompts = [r.text() for r in judge_server.requests]
    assert len(prompts) == (12 if llm_calls == "per_criterion" else 6)
    usual: dict[str, Counter[frozenset[str]]] = {}
    for text in prompts:
        graded, shown = graded_and_shown(text)
        assert len(graded) == 1 and len(shown) == 3, (graded, shown)
        assert not graded & set(shown)
        kind = "accuracy" if "States the correct" in text else "quality"
        usual.setdefault(kind, Counter())[frozenset(shown)] += 1
    # the examples most prompts show are the usual ones: each of their items had it withheld
    expected = set().union(*(c.most_common(1)[0][0] for c in usual.values()))
    records = [json.loads(x) for x in (tmp_path / "exp" / "items.jsonl").read_text().splitlines()]
    assert {r["id"] for r in records if r.get("few_shot_withheld")} == expected
    few_shot = json.loads(done.stdout)["few_shot"]
    assert few_shot == {"examples": "data.jsonl", "withheld": len(expected)}


def test_human_labels_serve_as_examples(
    judge_server: JudgeServer, judge_api_key: str, tmp_path: Path
) -> None:
    pilot_data = write_jsonl(tmp_path / "pilot.jsonl", rows(4, labelled=False))
    pilot_rubric = write_rubric(tmp_path / "pilot.yaml", [{"model": "simulated/a"}])
    pilot = tmp_path / "pilot"
    assert cli("run", pilot_rubric, pilot_data, "--out", pilot).exit_code == 0
    labels = [
        {
            "id": f"q{i}",
            "rater": "ana",
            "labels": {"accuracy": "MET" if i < 2 else "UNMET"},
            "notes": {"accuracy": f"note on q{i}"},
            "labelled_at": "2026-11-24T10:00:00Z",
        }
        for i in range(3)
    ]
    imported = cli("label", "import", pilot, write_jsonl(tmp_path / "l.jsonl", labels))
    assert imported.exit_code == 0, imported.stderr
    few_shot = {"examples": str(pilot), "n_examples": 2, "include_reason": True}
    judges = [http_judge(judge_server.api_base)]
    rubric = write_rubric(tmp_path / "r.yaml", judges, few_shot=few_shot)
    data = write_jsonl(tmp_path / "data.jsonl", rows(4, labelled=False))
    done = cli("run", rubric, data, "--out", tmp_path / "exp", "--format", "json")
    assert done.exit_code == 0, done.stderr
    accuracy = [r.text() for r in judge_server.requests if "States the correct" in r.text()]
    assert len(accuracy) == 4
    for text in accuracy:
        graded, shown = graded_and_shown(text)
        assert len(shown) == 2 and not graded & set(shown) and set(shown) <= {"q0", "q1", "q2"}
        block = EXAMPLES.findall(text)[0]
        for item_id in shown:  # the label the rater gave, and the rater's note as the reason
            label = "MET" if item_id in ("q0", "q1") else "UNMET"
            assert re.search(
                rf"answer-of-{item_id}.*?<answer>\n{label}\n</answer>\n<explanation>\n"
                rf"note on {item_id}\n",
                block,
                re.DOTALL,
            )
    assert json.loads(done.stdout)["few_shot"]["withheld"] >= 1


def test_a_directory_that_is_no_experiment_is_refused_before_any_call(
    judge_server: JudgeServer, judge_api_key: str, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    few_shot = {"examples": "empty"}
    rubric = write_rubric(
        tmp_path / "r.yaml", [http_judge(judge_server.api_base)], few_shot=few_shot
    )
    data = write_jsonl(tmp_path / "data.jsonl", rows(2))
    done = cli("run", rubric, data, "--out", tmp_path / "exp")
    assert done.exit_code == 2 and "empty" in done.stderr
    assert judge_server.request_count == 0
