"""`improve` against the loopback judge server: a judge that errs on vague wording, a reviser
that rewords (and tries to change more); the invariants (input untouched; names, order,
weights and options kept), the reviser's prompt (options, false MET and false UNMET apart, the
judges' reasons), the held-out figures against scikit-learn and statsmodels, and a second run
that re-pays nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar

from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.rubric_review.accuracy import CriterionGrading, Graded, paired
from tests.support import http_judge
from tests.support.cli import cli
from tests.support.judge_server import JudgeServer
from tests.support.shared_reply import prompt_text

CRITERIA = [
    {"name": "window", "requirement": "States the 30-day refund window", "weight": 10},
    {"name": "policy", "requirement": "Explains the refund policy appropriately", "weight": 6},
    {
        "name": "tone",
        "requirement": "Which tone does the reply take?",
        "weight": 4,
        "options": [
            {"label": "Curt", "value": 0.0, "description": "short"},
            {"label": "Warm", "value": 1.0, "description": "a good reply"},
        ],
    },
]
VAGUE = re.compile(r"\b(appropriately|good)\b\s*")
CRITERION = re.compile(r"<criterion>\n(.*?)\n</criterion>", re.DOTALL)
LABELS = re.compile(r"\[(\w+):(\w+)\]")


def labels_of(i: int) -> dict[str, str]:
    return {
        "window": "MET" if i % 2 else "UNMET",
        "policy": "MET" if i % 5 < 3 else "UNMET",
        "tone": "Warm" if i % 4 < 2 else "Curt",
    }


def judge_answer(body: dict[str, Any], reviser_prompts: list[str]) -> str:
    """The judge reads the label planted in the submission and gives it, except on a vaguely
    worded criterion, where it errs on two items in three; the reviser drops the vague words
    and tries to rename and reweigh the criterion too."""
    text = prompt_text(body)
    if body["response_format"]["json_schema"]["name"] == "criterion_revision":
        reviser_prompts.append(text)
        requirement = CRITERION.findall(text)[0]
        descriptions = [
            {"label": label, "description": VAGUE.sub("", desc).strip()}
            for label, desc in re.findall(r"^- (\w+) \(value [\d.]+\)\n  (.*)$", text, re.M)
        ]
        return json.dumps(
            {
                "explanation": "dropped the vague word",
                "requirement": VAGUE.sub("", requirement).strip(),
                "option_descriptions": descriptions,
                "name": "renamed",
                "weight": 99,
            }
        )
    requirement = CRITERION.findall(text)[-1]
    planted = dict(LABELS.findall(text))
    number = int(re.findall(r"ticket (\d+)", text)[0])
    name = next(c["name"] for c in CRITERIA if c["requirement"].split()[0] in requirement)
    wrong = (
        VAGUE.search(text.split("</criterion>")[-2] + text.split("<options>")[-1]) and number % 3
    )
    label = planted[name]
    if name == "tone":
        options = re.findall(r"^(\d+)\. (\w+)$", text.split("<options>")[-1], re.M)
        wanted = {"Warm": "Curt", "Curt": "Warm"}[label] if wrong else label
        chosen = next(int(p) for p, shown in options if shown == wanted)
        return json.dumps({"explanation": f"tone is {wanted}", "selected_option": chosen})
    status = {"MET": "UNMET", "UNMET": "MET"}[label] if wrong else label
    return json.dumps(
        {"explanation": f"judge says {status} for ticket {number}", "criterion_status": status}
    )


@pytest.fixture
def setup(judge_server_factory: Any, judge_api_key: str, tmp_path: Path) -> dict[str, Any]:
    prompts: list[str] = []
    server = judge_server_factory(answer=lambda body: judge_answer(body, prompts))
    rubric = tmp_path / "rubric.yaml"
    grader = {"judges": [http_judge(server.api_base, "judge")], "max_attempts": 2}
    rubric.write_text(yaml.safe_dump({"criteria": CRITERIA, "grader": grader}, sort_keys=False))
    data = tmp_path / "tickets.jsonl"
    rows = []
    for i in range(30):
        planted = " ".join(f"[{k}:{v}]" for k, v in labels_of(i).items())
        rows.append(
            {"id": f"t{i}", "submission": f"ticket {i} {planted}", "ground_truth": labels_of(i)}
        )
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {
        "server": server,
        "prompts": prompts,
        "rubric": rubric,
        "data": data,
        "out": tmp_path / "imp",
    }


def run(setup: dict[str, Any], *more: str) -> Any:
    done = cli(
        "improve",
        setup["rubric"],
        setup["data"],
        "--out",
        setup["out"],
        "--no-cache",
        "-f",
        "json",
        *more,
    )
    assert done.exit_code == 0, done.stderr
    return json.loads(done.stdout)


def records(path: Path) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}


def outcome(entry: dict[str, Any]) -> str:
    return entry["option"]["label"] if entry["option"] else entry["verdict"]


def test_improve_rewords_only_the_vague_criteria_and_keeps_the_rest(setup: dict[str, Any]) -> None:
    before = setup["rubric"].read_bytes()
    result = run(setup)
    assert setup["rubric"].read_bytes() == before  # the input is never written
    improved = load_rubric(Path(result["improved"]))
    original = load_rubric(setup["rubric"])
    shape = [
        (c.name, c.weight, [(o.label, o.value) for o in c.options or []]) for c in improved.criteria
    ]
    assert shape == [
        (c.name, c.weight, [(o.label, o.value) for o in c.options or []]) for c in original.criteria
    ]
    assert improved.criterion("policy").requirement == "Explains the refund policy"
    assert improved.criterion("window").requirement == CRITERIA[0]["requirement"]
    assert [o.description for o in improved.criterion("tone").option_list()] == ["short", "a reply"]
    held = {c["name"]: c for c in result["criteria"]}
    assert [held[n]["changed"] for n in ("window", "policy", "tone")] == [False, True, True]
    assert held["policy"]["final"]["accuracy"] == 1.0 > held["policy"]["original"]["accuracy"]
    assert held["window"]["original"] == held["window"]["final"]
    diff = Path(result["diff"]).read_text()
    assert "-  requirement: Explains the refund policy appropriately" in diff
    changed = [line for line in diff.splitlines()[2:] if line[:1] in "+-"]
    assert "+  requirement: Explains the refund policy" in changed
    assert not [line for line in changed if "window" in line]


def test_the_reviser_sees_options_and_errors_by_kind(setup: dict[str, Any]) -> None:
    run(setup)
    policy = next(p for p in setup["prompts"] if "refund policy appropriately" in p)
    assert re.search(
        r"Graded MET although labelled otherwise \(false MET\): \d+, \d+ shown", policy
    )
    assert re.search(r"Graded UNMET although labelled otherwise \(false UNMET\): \d+", policy)
    assert "<answer>\nlabelled UNMET, graded MET\n</answer>" in policy
    assert re.search(r"<explanation>\njudge says MET for ticket \d+\n</explanation>", policy)
    tone = next(p for p in setup["prompts"] if "Which tone" in p)
    assert "- Curt (value 0)\n  short\n- Warm (value 1)\n  a good reply" in tone
    assert "Graded another option than the label" in tone


def test_held_out_figures_match_sklearn_and_statsmodels(setup: dict[str, Any]) -> None:
    result = run(setup)
    out = setup["out"]
    first = records(out / "test" / "original" / "items.jsonl")
    second = records(out / "test" / "final" / "items.jsonl")
    for held in result["criteria"]:
        name = held["name"]
        ids = sorted(first)
        truth = [labels_of(int(i[1:]))[name] for i in ids]
        a = [outcome(next(c for c in first[i]["criteria"] if c["name"] == name)) for i in ids]
        b = [outcome(next(c for c in second[i]["criteria"] if c["name"] == name)) for i in ids]
        assert held["n"] == len(ids) == 9
        assert held["original"]["accuracy"] == pytest.approx(
            np.mean([x == t for x, t in zip(a, truth, strict=True)])
        )
        assert held["final"]["accuracy"] == pytest.approx(
            np.mean([x == t for x, t in zip(b, truth, strict=True)])
        )
        for key, got in (("original", a), ("final", b)):
            expected = cohen_kappa_score(truth, got)
            assert (
                held[key]["kappa"] == pytest.approx(expected)
                if np.isfinite(expected)
                else held[key]["kappa"] is None
            )
        right_a = [x == t for x, t in zip(a, truth, strict=True)]
        right_b = [x == t for x, t in zip(b, truth, strict=True)]
        table = [
            [
                sum(p and q for p, q in zip(right_a, right_b, strict=True)),
                sum(p and not q for p, q in zip(right_a, right_b, strict=True)),
            ],
            [
                sum(q and not p for p, q in zip(right_a, right_b, strict=True)),
                sum(not p and not q for p, q in zip(right_a, right_b, strict=True)),
            ],
        ]
        if table[0][1] + table[1][0]:
            assert held["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue)
        else:
            assert held["p_value"] is None


def test_a_second_run_re_pays_nothing(setup: dict[str, Any]) -> None:
    server: JudgeServer = setup["server"]
    first = run(setup)
    asked = server.request_count
    final = setup["out"] / "test" / "final"
    lines = (final / "items.jsonl").read_text().splitlines()
    (final / "items.jsonl").write_text("\n".join(lines[:2]) + "\n")  # as if stopped there
    manifest = json.loads((final / "manifest.json").read_text())
    (final / "manifest.json").write_text(json.dumps({**manifest, "status": "interrupted"}))
    again = run(setup)
    assert server.request_count - asked == (len(lines) - 2) * 3  # the missing items only
    assert again["criteria"] == first["criteria"] and again["attempts"] == first["attempts"]


def test_dry_run_and_too_few_labels(setup: dict[str, Any], tmp_path: Path) -> None:
    done = cli(
        "improve", setup["rubric"], setup["data"], "--out", setup["out"], "--dry-run", "-f", "json"
    )
    assert done.exit_code == 0, done.stderr
    bill = json.loads(done.stdout)
    assert bill["stages"]["train"]["calls"]["total"] == 21 * 3
    assert bill["stages"]["test"]["calls"]["total"] == 9 * 3
    assert bill["at_most_more"] == {"train_gradings": 3, "test_gradings": 1, "reviser_calls": 9}
    assert not setup["out"].exists() and setup["server"].request_count == 0
    bare = tmp_path / "bare.jsonl"
    bare.write_text(
        "".join(json.dumps({"id": f"b{i}", "submission": "x"}) + "\n" for i in range(9))
    )
    refused = cli("improve", setup["rubric"], bare, "--out", tmp_path / "o")
    assert refused.exit_code == 2 and "only 0 items carry labels" in refused.stderr


def test_the_paired_figures_on_random_data() -> None:
    rng = np.random.default_rng(5)
    for _ in range(30):
        n = int(rng.integers(5, 60))
        truth = rng.choice(["MET", "UNMET", "CANNOT_ASSESS"], n, p=[0.5, 0.4, 0.1])
        a = np.where(rng.random(n) < 0.7, truth, rng.choice(["MET", "UNMET"], n))
        b = np.where(rng.random(n) < 0.8, truth, rng.choice(["MET", "UNMET"], n))
        first = CriterionGrading(
            "c",
            [Graded(str(i), t, x, [], "") for i, (t, x) in enumerate(zip(truth, a, strict=True))],
        )
        second = CriterionGrading(
            "c",
            [Graded(str(i), t, x, [], "") for i, (t, x) in enumerate(zip(truth, b, strict=True))],
        )
        figures = paired(first, second)
        ra, rb = a == truth, b == truth
        table = [
            [int(np.sum(ra & rb)), int(np.sum(ra & ~rb))],
            [int(np.sum(~ra & rb)), int(np.sum(~ra & ~rb))],
        ]
        if table[0][1] + table[1][0]:
            assert figures.p_value == pytest.approx(mcnemar(table, exact=True).pvalue)
        assert figures.kappa_original == pytest.approx(cohen_kappa_score(truth, a))
        assert figures.original == pytest.approx(ra.mean()) and figures.final == pytest.approx(
            rb.mean()
        )


def test_human_labels_are_the_labels_where_the_data_has_none(tmp_path: Path) -> None:
    judges = [{"model": "simulated/j", "params": {"accuracy": 1.0, "vague_accuracy": 0.3}}]
    criteria = [CRITERIA[0], CRITERIA[1]]
    rubric = tmp_path / "r.yaml"
    rubric.write_text(yaml.safe_dump({"criteria": criteria, "grader": {"judges": judges}}))
    data = tmp_path / "d.jsonl"
    rows = [{"id": f"t{i}", "submission": f"ticket {i}"} for i in range(12)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pilot = tmp_path / "pilot"
    assert cli("run", rubric, data, "--out", pilot).exit_code == 0
    lines = [
        {
            "id": f"t{i}",
            "rater": "ana",
            "labels": {"window": "MET", "policy": "UNMET"},
            "labelled_at": "2026-11-24T10:00:00Z",
        }
        for i in range(10)
    ]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert cli("label", "import", pilot, labels).exit_code == 0
    done = cli(
        "improve",
        rubric,
        data,
        "--labels",
        pilot,
        "--reviser",
        "simulated/reviser",
        "--out",
        tmp_path / "imp",
        "-f",
        "json",
    )
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["labels"] == f"ground_truth+human_labels:{pilot}"
    assert (result["train"]["items"], result["test"]["items"]) == (7, 3)  # 10 labelled items
    assert result["simulated"] is True and result["reviser"] == "simulated/reviser"
