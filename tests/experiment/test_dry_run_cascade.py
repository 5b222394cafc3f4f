"""`run --dry-run` of a cascade: the first stage plus the escalated share of the then stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from autorubric_cli.judges.price_table import price_table
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


SUMMED = ("calls", "cached", "prompt_tokens", "completion_tokens_estimate", "cost_estimate")


@pytest.mark.parametrize("flags", [(), ("--escalation-rate", "0.3")])
def test_the_lines_add_up_to_the_totals(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """Each judge's line is the sum of its criterion lines, and the totals the sum of the
    judges' lines: with a rate, the `then` judges' lines are scaled to it (they billed every
    escalation while the total did not)."""
    rated = bill(tmp_path, *flags)
    for judge in rated["judges"]:
        lines = [c for c in rated["criteria"] if c["judge"] == judge["id"]]
        for key in SUMMED:
            assert judge[key] == pytest.approx(sum(c[key] for c in lines)), (judge["id"], key)
    totals = {
        "calls": rated["calls"]["total"],
        "cached": rated["calls"]["cached"],
        **{key: rated[key] for key in SUMMED[2:]},
    }
    for key, total in totals.items():
        assert total == pytest.approx(sum(j[key] for j in rated["judges"])), key
    assert rated["calls"]["to_send"] == rated["calls"]["total"] - rated["calls"]["cached"]
    strong = next(j for j in rated["judges"] if j["id"] == "strong")
    full = rated["cascade"]["then_all"]
    assert strong["calls"] == (round(0.3 * 8) * 2 if flags else full["calls"])
    table = cli("run", tmp_path / "r.yaml", tmp_path / "d.jsonl", "--dry-run", *flags,
                env={"DRY_KEY": "k"}).stdout  # fmt: skip
    rows = {
        tuple(cell.strip() for cell in line.strip("│").split("│")[:2]): line.split("│")[3]
        for line in table.splitlines()
        if line.startswith("│")
    }
    per_judge = sum(int(rows[(j["id"], "(all)")].replace(",", "")) for j in rated["judges"])
    assert f"calls {per_judge:,}:" in table
    if flags:
        assert "rows (strong) are scaled to escalation rate 0.3" in " ".join(table.split())


def test_samples_in_one_request_bill_the_prompt_once(tmp_path: Path) -> None:
    """The cheap judge's three samples of a criterion are one request (`n`): one prompt, three
    replies; asked separately, three prompts and the same replies."""
    cheap = JUDGES[0]
    one = bill(tmp_path, cascade=False, judges=[cheap])
    separate = bill(tmp_path, cascade=False, judges=[{**cheap, "sample_request": "separate"}])
    assert one["calls"]["to_send"] * 3 == separate["calls"]["to_send"] == 8 * 2 * 3
    assert one["prompt_tokens"] * 3 == separate["prompt_tokens"]
    assert one["completion_tokens_estimate"] == separate["completion_tokens_estimate"]
    saved = separate["cost_estimate"] - one["cost_estimate"]
    prompt_price = price_table()["gpt-4.1-mini"]["input_cost_per_token"]
    assert saved == pytest.approx((separate["prompt_tokens"] - one["prompt_tokens"]) * prompt_price)
