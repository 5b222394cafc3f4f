"""Unpriced models are registered at a zero price after their first reply (judges/pricing.py).

Pins what that relies on in litellm 1.106.2: an unpriced reply carries `response_cost` None,
a registered one 0.0, the request bytes do not change, and we still record `cost: null`.
"""

from __future__ import annotations

import importlib.metadata
import uuid
from typing import Any

import pytest

from autorubric_cli.core.records import ItemRecord
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.pricing import known_unpriced
from autorubric_cli.judges.transports.litellm import load_litellm
from tests.support import http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServer


async def grade(server: JudgeServer, name: str, items: int) -> list[ItemRecord]:
    rubric = make_rubric([http_judge(server.api_base, name, transport="litellm")])
    engine = CriterionGrader(rubric, seed=3, retry=RetryPolicy())
    try:
        return [await engine.grade(make_item(f"i{n}", f"text {n}", n)) for n in range(items)]
    finally:
        await engine.aclose()


def costs(records: list[ItemRecord]) -> list[float | None]:
    return [vote.cost for r in records for c in r.criteria for vote in c.votes]


def without_messages(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "messages"}


async def raw_cost(server: JudgeServer, model: str) -> object:
    litellm = load_litellm()
    response = await litellm.acompletion(
        model=model,
        messages=[{"role": "user", "content": "hi"}],
        api_base=server.api_base,
        api_key="k",
        max_retries=0,
        num_retries=0,
    )
    return response._hidden_params["response_cost"]


def test_litellm_is_the_version_this_behaviour_is_pinned_to() -> None:
    assert importlib.metadata.version("litellm") == "1.106.2"


async def test_an_unpriced_model_is_registered_and_still_records_null_cost(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    name = f"unpriced-{uuid.uuid4().hex[:8]}"
    model = f"openai/{name}"
    assert await raw_cost(judge_server, model) is None  # litellm cannot price it
    assert not known_unpriced(model)
    records = await grade(judge_server, name, 3)
    assert known_unpriced(model)
    assert costs(records) == [None, None, None]
    assert all(r.cost is None for r in records)
    # litellm now prices it at zero, so its lookups hit; we still record null above
    assert await raw_cost(judge_server, model) == 0.0
    graded = [r for r in judge_server.requests if "response_format" in r.body]
    bodies = [without_messages(r.body) for r in graded]
    assert len(bodies) == 3 and bodies[0] == bodies[1] == bodies[2]
    assert bodies[0]["response_format"]["type"] == "json_schema"


async def test_a_priced_model_keeps_litellms_figures_and_is_not_registered(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    litellm = load_litellm()
    records = await grade(judge_server, "gpt-4o-mini", 2)
    assert not known_unpriced("openai/gpt-4o-mini")
    for record in records:
        (criterion,) = record.criteria
        (vote,) = criterion.votes
        prompt, completion = litellm.cost_per_token(
            model="openai/gpt-4o-mini",
            prompt_tokens=vote.usage["prompt_tokens"],
            completion_tokens=vote.usage["completion_tokens"],
        )
        assert vote.cost == pytest.approx(prompt + completion) and vote.cost > 0


async def test_batch_and_dry_run_prices_stay_unknown_for_a_registered_model(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    from autorubric_cli.judges.batch.api import batch_price

    name = f"unpriced-{uuid.uuid4().hex[:8]}"
    await grade(judge_server, name, 1)
    assert known_unpriced(f"openai/{name}")
    assert batch_price(name, "openai") is None
