"""`review` against the loopback judge server: every check of the meta-rubric asked once, its
reply parsed with the criteria it names mapped to the rubric's; the sample's flags; the quality
gate's exit codes; resume; dry run; the formats."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.rubric_review.meta import known_names, shipped_meta_rubric
from tests.support import http_judge
from tests.support.cli import cli
from tests.support.judge_server import JudgeServer
from tests.support.shared_reply import prompt_text

META = yaml.safe_load(shipped_meta_rubric())
CHECKS = {" ".join(c["requirement"].split()): c for c in META["criteria"]}
CRITERION = re.compile(r"<criterion>\n(.*?)\n</criterion>", re.DOTALL)
CRITERIA = [
    {"name": "always", "requirement": "Greets the customer"},
    {"name": "split", "requirement": "Explains the refund policy appropriately"},
    {"name": "fine", "requirement": "States the 30-day refund window"},
]
FAILED = {"vague_terms": ["Always", "`split`", "no_such_criterion"], "specific": ["split"]}


def scripted(body: dict[str, Any]) -> str:
    """Meta checks: positive ones MET and penalties UNMET, except the two in FAILED; the
    sample: `always` MET everywhere, `split` answered oppositely by the two judges, `fine` by
    item alike for both."""
    text = prompt_text(body)
    requirement = CRITERION.findall(text)[-1]
    check = CHECKS.get(" ".join(requirement.split()))
    if check is not None:
        failed = check["name"] in FAILED
        met = (check["weight"] >= 0) != failed
        reply = {"criterion_status": "MET" if met else "UNMET"}
        reply["affected_criteria"] = FAILED.get(check["name"], [])
        return json.dumps({"explanation": f"checked {check['name']}", **reply})
    number = int(re.findall(r"ticket (\d+)", text)[0])
    if "Greets" in requirement:
        status = "MET"
    elif "appropriately" in requirement:
        status = "MET" if (number % 2 == 0) == (body["model"] == "ja") else "UNMET"
    else:
        status = "MET" if number % 3 else "UNMET"
    return json.dumps({"explanation": "sample", "criterion_status": status})


@pytest.fixture
def server(judge_server_factory: Any, judge_api_key: str) -> JudgeServer:
    server: JudgeServer = judge_server_factory(answer=scripted)
    return server


def write_inputs(tmp_path: Path, server: JudgeServer) -> tuple[Path, Path]:
    judges = [http_judge(server.api_base, "ja"), http_judge(server.api_base, "jb")]
    rubric = tmp_path / "rubric.yaml"
    data = {"name": "support", "criteria": CRITERIA, "grader": {"judges": judges}}
    rubric.write_text(yaml.safe_dump(data, sort_keys=False))
    dataset = tmp_path / "tickets.jsonl"
    rows = [{"id": f"t{i}", "submission": f"ticket {i}: hello"} for i in range(12)]
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rubric, dataset


def expected_quality() -> float:
    checks = [c for c in META["criteria"] if not c["name"].startswith("task_")]
    positive = sum(c["weight"] for c in checks if c["weight"] > 0)
    lost = sum(abs(c["weight"]) for c in checks if c["name"] in FAILED)
    return (positive - lost) / positive


def test_checks_are_asked_parsed_and_mapped(server: JudgeServer, tmp_path: Path) -> None:
    rubric, dataset = write_inputs(tmp_path, server)
    out = tmp_path / "rv"
    done = cli("review", rubric, dataset, "--out", out, "--sample", "10", "--format", "json")
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    meta = [r for r in server.requests if "The submission is a grading rubric" in r.text()]
    assert len(meta) == 27 * 2  # every standalone check, once per judge
    for request in meta:
        schema = request.body["response_format"]["json_schema"]["schema"]
        assert "affected_criteria" in schema["required"]
        assert "Fill criterion_status and affected_criteria;" in request.text()
        assert "1. always (weight 10)" in request.text()
    checks = {c["name"]: c for c in result["checks"]}
    assert len(checks) == 27
    assert checks["vague_terms"]["affected"] == ["always", "split"]  # in the rubric's order
    assert checks["vague_terms"]["unknown_affected"] == 2  # one per judge
    assert (checks["vague_terms"]["verdict"], checks["vague_terms"]["passed"]) == ("MET", False)
    assert (checks["specific"]["verdict"], checks["specific"]["passed"]) == ("UNMET", False)
    assert checks["distinct"]["passed"] and checks["distinct"]["affected"] == []
    assert result["quality"] == pytest.approx(expected_quality())
    assert result["unknown_affected"] == 2
    criteria = {c["name"]: c for c in result["criteria"]}
    assert criteria["always"]["flags"] == ["does_not_discriminate"]
    assert criteria["always"]["met_rate"] == 1.0
    # the two judges always disagree: alpha below 0.4 (and their tie is one outcome throughout)
    assert "judges_disagree" in criteria["split"]["flags"] and criteria["split"]["alpha"] < 0.4
    assert criteria["fine"]["flags"] == [] and criteria["fine"]["alpha"] == pytest.approx(1.0)
    assert criteria["split"]["named_by"] == ["specific", "vague_terms"]
    assert result["sample"]["items"] == 10 and set(result["sample"]["judges"]) == {
        "openai/ja",
        "openai/jb",
    }
    assert json.loads((out / "review.json").read_text()) == result


def test_the_gate_and_a_second_run_that_pays_nothing(server: JudgeServer, tmp_path: Path) -> None:
    rubric, _ = write_inputs(tmp_path, server)
    out = tmp_path / "rv"
    first = cli("review", rubric, "--out", out, "--no-cache", "--min-quality", "0.99")
    assert first.exit_code == 1, first.stderr
    assert "--min-quality 0.99: FAILED" in first.stdout
    asked = server.request_count
    assert asked == 27 * 2
    passed = cli("review", rubric, "--out", out, "--no-cache", "--min-quality", "0.5")
    assert passed.exit_code == 0 and "--min-quality 0.5: PASSED" in passed.stdout
    assert server.request_count == asked  # every stage was finished: nothing asked again
    again = cli("review", rubric, "--out", out, "--task", "Answer refund tickets")
    assert again.exit_code == 2 and "task differs" in again.stderr


def test_a_task_adds_its_checks_and_is_the_query(server: JudgeServer, tmp_path: Path) -> None:
    rubric, _ = write_inputs(tmp_path, server)
    (tmp_path / "task.txt").write_text("Answer a customer's refund ticket.")
    args = ("review", rubric, "--out", tmp_path / "rv", "--task-file", tmp_path / "task.txt")
    done = cli(*args, "-f", "json")
    assert done.exit_code == 0, done.stderr
    assert len(json.loads(done.stdout)["checks"]) == 36
    asked = [r for r in server.requests if "task_coverage" not in r.text()]
    assert all("<query>\nAnswer a customer's refund ticket.\n</query>" in r.text() for r in asked)


def test_an_unanswered_check_exits_3(
    judge_server_factory: Any, judge_api_key: str, tmp_path: Path
) -> None:
    def garbled_for_one(body: dict[str, Any]) -> str:
        if "Every criterion's name says what it checks" in prompt_text(body):
            return "not json"
        return scripted(body)

    server = judge_server_factory(answer=garbled_for_one)
    rubric, _ = write_inputs(tmp_path, server)
    meta = yaml.safe_load(shipped_meta_rubric())
    meta["grader"] = {"max_attempts": 2}
    (tmp_path / "meta.yaml").write_text(yaml.safe_dump(meta))
    done = cli(
        "review", rubric, "--out", tmp_path / "rv", "--meta", tmp_path / "meta.yaml", "-f", "json"
    )
    assert done.exit_code == 3, done.stderr
    result = json.loads(done.stdout)
    assert result["errored_checks"] == 1
    assert [c["verdict"] for c in result["checks"] if c["name"] == "informative_names"] == [None]


def test_dry_run_prices_every_stage_and_writes_nothing(server: JudgeServer, tmp_path: Path) -> None:
    rubric, dataset = write_inputs(tmp_path, server)
    out = tmp_path / "rv"
    done = cli("review", rubric, dataset, "--out", out, "--dry-run", "--sample", "5", "-f", "json")
    assert done.exit_code == 0, done.stderr
    bill = json.loads(done.stdout)
    assert bill["stages"]["meta"]["calls"]["total"] == 27 * 2
    assert bill["stages"]["sample"]["calls"]["total"] == 5 * 3 * 2
    assert bill["calls"]["total"] == 27 * 2 + 30
    assert not out.exists() and server.request_count == 0


def test_check_review_finds_duplicates_long_requirements_and_no_penalty(tmp_path: Path) -> None:
    words = " ".join(["word"] * 61)
    criteria = [
        {"name": "a", "requirement": "States the 30-day refund window."},
        {"name": "b", "requirement": "states the 30 day refund window"},
        {"name": "c", "requirement": "States the 30-day refund window in full"},
        {"name": "d", "requirement": f"Covers {words}"},
    ]
    rubric = tmp_path / "r.yaml"
    rubric.write_text(
        yaml.safe_dump({"criteria": criteria, "grader": {"judges": [{"model": "simulated/a"}]}})
    )
    found = cli("check", rubric, "--review")
    assert found.exit_code == 1, found.stderr
    for text in (
        "duplicate",
        "a, b",
        "near_duplicate",
        "a, c",
        "too_long",
        "62 words",
        "no_penalty",
    ):
        assert text in found.stdout
    criteria[1:] = [{"name": "e", "requirement": "Blames the customer", "weight": -5}]
    rubric.write_text(
        yaml.safe_dump({"criteria": criteria, "grader": {"judges": [{"model": "simulated/a"}]}})
    )
    clean = cli("check", rubric, "--review")
    assert clean.exit_code == 0 and "no duplicate" in clean.stdout


def test_names_are_mapped_case_and_quotes_aside() -> None:
    rubric = Rubric.model_validate(
        {
            "criteria": [
                {"name": "Refund-window", "requirement": "r"},
                {"name": "tone", "requirement": "t"},
            ]
        }
    )
    assert known_names(["TONE", "'refund window'", "tone", "nope", "c9"], rubric) == (
        ["Refund-window", "tone"],
        2,
    )


def test_the_meta_rubric_covers_the_checks_users_know() -> None:
    names = {c["name"] for c in META["criteria"]}
    standalone = [n for n in names if not n.startswith("task_")]
    assert len(standalone) >= 26 and len(names) >= 34
    for known in (
        "single_property",
        "vague_terms",
        "circular",
        "distinct",
        "concise",
        "hedged",
        "boilerplate",
        "has_penalties",
        "falsifiable",
        "clear_boundaries",
        "rewards_length",
        "adjective_levels",
        "counting",
        "proportional_weights",
        "task_coverage",
        "task_discriminates",
    ):
        assert known in names
