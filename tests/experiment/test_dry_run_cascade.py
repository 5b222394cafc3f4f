"""`run --dry-run` of a cascade: the first stage plus the escalated share of the then stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support.cli import cli

JUDGES = [
    {"model": "openai/gpt-4.1-mini", "id": "cheap", "samples": 3, "api_key_env": "DRY_KEY"},
    {"model": "anthropic/claude-sonnet-4-5", "id": "strong", "api_key_env": "DRY_KEY"},
]
CRITERIA = [{"name": "a", "requirement": "x"}, {"name": "b", "requirement": "y"}]
CASCADE = {"first": ["cheap"], "then": ["strong"], "escalate_below": 0.9}


def bill(tmp_path: Path, *flags: str, cascade: bool = True, judges: list | None = None) -> dict:
    grader: dict = {"judges": judges or JUDGES}
    if cascade:
        grader["cascade"] = CASCADE
    rubric = tmp_path / "r.yaml"
    rubric.write_text(yaml.safe_dump({"criteria": CRITERIA, "grader": grader}))
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"submission": f"answer {i}"}) + "\n" for i in range(8)))
    result = cli("run", rubric, data, "--dry-run", "-f", "json", *flags, env={"DRY_KEY": "k"})
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_bounds_and_a_given_rate(tmp_path: Path) -> None:
    alone = {j["id"]: bill(tmp_path, cascade=False, judges=[j]) for j in JUDGES}
    first, then = alone["cheap"]["cost_estimate"], alone["strong"]["cost_estimate"]
    assert first > 0 and then > 0
    both = bill(tmp_path)
    assert both["cascade"]["cost_estimate_min"] == pytest.approx(first)
    assert both["cascade"]["cost_estimate_max"] == pytest.approx(first + then)
    assert both["cascade"]["cost_estimate"] is None
    assert both["cost_estimate"] == pytest.approx(first + then)  # the upper bound
    rated = bill(tmp_path, "--escalation-rate", "0.25")
    assert rated["cost_estimate"] == pytest.approx(first + 0.25 * then)
    calls = alone["cheap"]["calls"]["total"] + 0.25 * alone["strong"]["calls"]["total"]
    assert rated["calls"]["total"] == round(calls)


def test_the_rate_needs_a_cascade_and_a_dry_run(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(yaml.safe_dump({"criteria": CRITERIA, "grader": {"judges": JUDGES}}))
    data = tmp_path / "d.jsonl"
    data.write_text('{"submission": "x"}\n')
    env = {"DRY_KEY": "k"}
    no_cascade = cli("run", rubric, data, "--dry-run", "--escalation-rate", "0.2", env=env)
    assert no_cascade.exit_code == 2 and "grader.cascade" in no_cascade.stderr
    not_dry = cli("run", rubric, data, "--escalation-rate", "0.2", "--out", tmp_path / "e", env=env)
    assert not_dry.exit_code == 2 and "--dry-run" in not_dry.stderr
    assert not (tmp_path / "e").exists()
    out_of_range = cli("run", rubric, data, "--dry-run", "--escalation-rate", "1.5", env=env)
    assert out_of_range.exit_code == 2
