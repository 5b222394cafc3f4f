"""One call per item (docs/guides/per-item.md) end to end, through the CLI against the loopback
server."""

from __future__ import annotations

import json
import math
from pathlib import Path

from tests.support.cli import cli
from tests.support.experiment.cache import MODELS
from tests.support.experiment.per_item import (
    CRITERIA,
    asked_names,
    item_rubric,
    records,
    report,
    scripted_label,
    served_tokens,
    without_call_accounting,
)
from tests.support.experiment.runs import write_dataset
from tests.support.judge_server import JudgeServer, scripted_answer

N = 8
NAMES = [c["name"] for c in CRITERIA]
SAMPLES = 1 + 2  # judge j0 takes 1 sample, j1 takes 2


def run_ok(*args: str | Path) -> None:
    result = cli("run", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr


def priced(model: str, usage: dict[str, int]) -> float:
    from autorubric_cli.judges.transports.litellm import load_litellm

    costs = load_litellm().cost_per_token(model=model, **usage)
    return float(sum(costs))


def test_per_item_records_equal_per_criterion_records_and_calls_are_counted_once(
    tmp_path: Path,
) -> None:
    with JudgeServer(answer=scripted_answer(scripted_label)) as server:
        data = write_dataset(tmp_path / "data.jsonl", N)
        rubric = item_rubric(tmp_path / "r.yaml", server.api_base, separate=True)
        run_ok(rubric, data, "--out", tmp_path / "pc", "--no-cache")
        per_criterion_calls = server.request_count
        server.reset()
        run_ok(rubric, data, "--out", tmp_path / "pi", "--no-cache", "--llm-calls", "per_item")
        requests = server.requests

    assert per_criterion_calls == N * len(NAMES) * SAMPLES
    assert len(requests) == N * SAMPLES
    assert all(asked_names(r) == NAMES for r in requests)

    by_criterion, by_item = records(tmp_path / "pc"), records(tmp_path / "pi")
    assert set(by_item) == set(by_criterion)
    for item_id, record in by_criterion.items():
        assert without_call_accounting(by_item[item_id]) == without_call_accounting(record)

    # The scripted verdicts cover what the test claims: NA both ways, shuffles, disagreement.
    outcomes = {
        (c["name"], c["verdict"], (c["option"] or {}).get("label"))
        for r in by_item.values()
        for c in r["criteria"]
    }
    assert ("correct", "CANNOT_ASSESS", None) in outcomes
    assert ("style", None, "NA - no style to judge") in outcomes
    orders = {
        tuple(v["shuffle_order"]) for r in by_item.values() for v in r["criteria"][2]["votes"]
    }
    assert len(orders) > 3
    assert any(c["agreement"] not in (None, 1.0) for r in by_item.values() for c in r["criteria"])

    # Each call's usage and cost sit once, on the first criterion's vote.
    for record in by_item.values():
        for criterion in record["criteria"][1:]:
            for vote in criterion["votes"]:
                assert (vote["usage"], vote["cost"], vote["billed_with"]) == ({}, 0.0, "correct")
        assert all(v["billed_with"] is None for v in record["criteria"][0]["votes"])
    summary = report(tmp_path / "pi")
    assert summary["usage"] == served_tokens(requests)
    expected_cost = math.fsum(priced(f"openai/{r.model}", r.usage or {}) for r in requests)
    assert expected_cost > 0
    assert math.isclose(summary["cost"], expected_cost, rel_tol=1e-9)
    for j, judge in enumerate(summary["judges"]):
        own = [r for r in requests if r.model == MODELS[j].removeprefix("openai/")]
        assert judge["usage"] == served_tokens(own)
        assert math.isclose(
            judge["cost"],
            math.fsum(priced(MODELS[j], r.usage or {}) for r in own),
            rel_tol=1e-9,
        )
    base = report(tmp_path / "pc")
    # every figure, ci95 included (docs/guides/batches.md)
    assert summary["score"] == base["score"]
    assert summary["criteria"] == base["criteria"]


def test_a_cached_per_item_rerun_sends_nothing_and_saves_each_call_once(tmp_path: Path) -> None:
    with JudgeServer(answer=scripted_answer(scripted_label)) as server:
        data = write_dataset(tmp_path / "data.jsonl", 6)
        rubric = item_rubric(tmp_path / "r.yaml", server.api_base, llm_calls="per_item")
        bill = cli("run", rubric, data, "--dry-run", "--format", "json")
        assert bill.exit_code == 0, bill.stderr
        assert json.loads(bill.stdout)["calls"] == {"total": 18, "cached": 0, "to_send": 18}
        run_ok(rubric, data, "--out", tmp_path / "first")
        first_calls = server.request_count
        run_ok(rubric, data, "--out", tmp_path / "second")
        assert server.request_count == first_calls == 6 * SAMPLES
    first, second = report(tmp_path / "first"), report(tmp_path / "second")
    assert second["usage"] == {"prompt_tokens": 0, "completion_tokens": 0}
    assert second["cost"] == 0.0
    assert second["usage_saved"] == first["usage"]
    assert math.isclose(second["cost_saved"], first["cost"], rel_tol=1e-9)
    for record in records(tmp_path / "second").values():
        assert all(v["cached"] for c in record["criteria"] for v in c["votes"])
