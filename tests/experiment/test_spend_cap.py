"""The spend cap (`--max-cost`, `grader.max_cost`; docs/reference/exit-codes.md): its rule, and runs
stopped by it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.errors import BudgetStop, InputError
from autorubric_cli.experiment.budget import budget_message
from autorubric_cli.experiment.session import RunOptions, resume_run, start_run
from autorubric_cli.judges.policy.spend import BudgetReached, SpendCap, check_priced
from tests.support import TEST_KEY_ENV
from tests.support.judge_server import JudgeServer

PRICED = JudgeSpec(model="openai/gpt-4.1-mini", id="gpt")
MESSAGES = [{"role": "user", "content": "x" * 400}]


def test_a_call_landing_exactly_on_the_cap_is_admitted_and_one_past_it_is_not() -> None:
    async def check() -> None:
        cap = SpendCap(cap=1.0, spent=0.4, largest={"gpt": 0.6})
        assert await cap.admit(PRICED, MESSAGES) == 0.6  # 0.4 + 0.6 == 1.0: admitted
        cap.settle(PRICED, 0.6, 0.6)
        assert cap.spent == pytest.approx(1.0) and cap.reserved == pytest.approx(0.0)
        tight = SpendCap(cap=1.0, spent=0.41, largest={"gpt": 0.6})
        with pytest.raises(BudgetReached, match=r"budget of \$1.00 reached"):
            await tight.admit(PRICED, MESSAGES)

    asyncio.run(check())


def test_a_call_waits_for_calls_in_flight_before_it_is_refused() -> None:
    async def check() -> list[str]:
        cap = SpendCap(cap=1.0, largest={"gpt": 0.4})
        events: list[str] = []
        first = await cap.admit(PRICED, MESSAGES)
        second = await cap.admit(PRICED, MESSAGES)  # 0.8 reserved

        async def third() -> None:
            try:
                await cap.admit(PRICED, MESSAGES)
                events.append("third admitted")
            except BudgetReached:
                events.append("third refused")

        waiting = asyncio.create_task(third())
        await asyncio.sleep(0)
        events.append("first ends cheap")
        cap.settle(PRICED, first, 0.1)  # 0.1 paid + 0.4 in flight + 0.4 fits
        await waiting
        cap.settle(PRICED, second, 0.4)
        return events

    assert asyncio.run(check()) == ["first ends cheap", "third admitted"]


def test_a_call_that_cannot_fit_even_alone_is_refused_at_once() -> None:
    async def check() -> None:
        cap = SpendCap(cap=1.0, spent=0.3, largest={"gpt": 0.3})
        await cap.admit(PRICED, MESSAGES)  # 0.3 in flight
        cap.largest["gpt"] = 0.75
        with pytest.raises(BudgetReached):  # 0.3 + 0.75 > 1.0 whatever the call in flight costs
            await cap.admit(PRICED, MESSAGES)
        assert cap.reserved == pytest.approx(0.3)

    asyncio.run(check())


def test_an_unpriced_judge_makes_a_cap_an_input_error_naming_it() -> None:
    config = LLMConfig(
        judges=[PRICED, JudgeSpec(model="openai/loopback-x", id="local")], max_cost=5.0
    )
    with pytest.raises(InputError, match="judge 'local' .*no price") as caught:
        check_priced(config)
    assert caught.value.key == "grader.max_cost"
    check_priced(LLMConfig(judges=[JudgeSpec(model="simulated/a")], max_cost=1.0))  # free
    check_priced(config.model_copy(update={"max_cost": None}))  # no cap, no check


def test_the_message_is_one_line_with_the_cap_and_items() -> None:
    assert budget_message(5.0, 1234) == (
        "budget of $5.00 reached after 1,234 items; resume with a higher --max-cost"
    )


# -- a run stopped by the cap, then resumed ----------------------------------------------------


def write_inputs(tmp_path: Path, server: JudgeServer, items: int = 12) -> tuple[Path, Path]:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(
        f"""criteria:
  - {{name: a, requirement: "States the figure"}}
  - {{name: b, requirement: "Names the unit"}}
grader:
  judges:
    - {{model: openai/gpt-4.1-mini, id: gpt, api_base: "{server.api_base}",
        api_key_env: {TEST_KEY_ENV}, max_concurrency: 4}}
  concurrency: 4
  workers: 0
"""
    )
    data = tmp_path / "data.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": f"q{i}", "submission": f"Answer {i}: " + "words " * 50}) + "\n"
            for i in range(items)
        )
    )
    return rubric, data


def ids_of(directory: Path) -> list[str]:
    return [json.loads(line)["id"] for line in (directory / "items.jsonl").read_text().splitlines()]


def paid(directory: Path) -> float:
    lines = (directory / "items.jsonl").read_text().splitlines()
    return sum(json.loads(line)["cost"] or 0.0 for line in lines)


def test_a_run_stops_at_the_cap_and_resume_with_a_higher_cap_finishes_it(
    tmp_path: Path, judge_server: JudgeServer, judge_api_key: str
) -> None:
    rubric, data = write_inputs(tmp_path, judge_server)
    calls = tmp_path / "calls"
    uncapped = tmp_path / "uncapped"
    start_run(rubric, data, RunOptions(out=uncapped, cache_dir=tmp_path / "other"))
    full_cost, full_calls = paid(uncapped), judge_server.request_count
    judge_server.reset()
    out = tmp_path / "capped"
    cap = full_cost / 3
    with pytest.raises(BudgetStop) as stopped:
        start_run(rubric, data, RunOptions(out=out, cache_dir=calls, max_cost=cap))
    kept = ids_of(out)
    assert 0 < len(kept) < 12
    assert str(stopped.value) == budget_message(cap, len(kept))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and manifest["reason"] == str(stopped.value)
    largest_call = full_cost / full_calls * 2  # calls here differ in cost by a few tokens
    assert cap - largest_call <= paid(out) <= cap
    resume_run(out, retry_errors=False, concurrency=None, cache_dir=calls, max_cost=full_cost * 2)
    ids = ids_of(out)
    assert sorted(ids) == sorted(f"q{i}" for i in range(12)) and len(ids) == len(set(ids))
    assert judge_server.request_count == full_calls  # nothing paid twice (the call cache)
    assert json.loads((out / "manifest.json").read_text())["status"] == "completed"


def test_calls_served_by_the_call_cache_cost_nothing_against_the_cap(
    tmp_path: Path, judge_server: JudgeServer, judge_api_key: str
) -> None:
    rubric, data = write_inputs(tmp_path, judge_server, items=4)
    calls = tmp_path / "calls"
    start_run(rubric, data, RunOptions(out=tmp_path / "first", cache_dir=calls))
    sent = judge_server.request_count
    start_run(rubric, data, RunOptions(out=tmp_path / "again", cache_dir=calls, max_cost=0.0))
    assert judge_server.request_count == sent  # every call served by the cache, none refused
    assert len(ids_of(tmp_path / "again")) == 4 and paid(tmp_path / "again") == 0.0


def test_the_cli_exits_2_with_one_line_and_check_refuses_an_unpriced_judge(
    tmp_path: Path, judge_server: JudgeServer, judge_api_key: str
) -> None:
    rubric, data = write_inputs(tmp_path, judge_server, items=3)
    command = [sys.executable, "-m", "autorubric_cli", "run", str(rubric), str(data)]
    out = ["--out", str(tmp_path / "exp"), "--cache-dir", str(tmp_path / "c")]
    done = subprocess.run(
        [*command, *out, "--max-cost", "0.0000001"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "autorubric: error: budget of $0.00 reached after 0 items; resume with a higher --max-cost"
    )
    unpriced = tmp_path / "unpriced.yaml"
    unpriced.write_text(
        rubric.read_text().replace("openai/gpt-4.1-mini", "openai/loopback") + "  max_cost: 1\n"
    )
    check = [sys.executable, "-m", "autorubric_cli", "check", str(unpriced)]
    refused = subprocess.run(check, capture_output=True, text=True)
    assert refused.returncode == 2
    assert "judge 'gpt' (model openai/loopback) has no price" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
