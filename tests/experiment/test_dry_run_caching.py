"""`--dry-run` with provider prompt caching: one write and N-1 reads per item and judge."""

from __future__ import annotations

import pytest

from autorubric_cli.experiment.dry_run import estimate_bill
from autorubric_cli.experiment.runner import items_in_flight
from autorubric_cli.judges.transports.litellm import load_litellm
from tests.support import BINARY, MULTI_CHOICE, make_item, make_rubric

LONG = " ".join(f"word{i}" for i in range(1500))
CRITERIA = [BINARY, {**BINARY, "name": "second", "requirement": "Is complete"}, MULTI_CHOICE]


def bill(model: str, caching: str, output: str = LONG) -> dict:
    judge = {"model": model, "prompt_caching": caching, "api_key_env": None}
    rubric = make_rubric([judge], CRITERIA)
    return estimate_bill(
        rubric, [make_item(output=output)], seed=0, base_dir=None, cache=None
    ).to_json()


def priced(model: str, prompt: int, completion: int, read: int = 0, written: int = 0) -> float:
    litellm = load_litellm()
    usage = litellm.Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        prompt_tokens_details={"cached_tokens": read},
        cache_read_input_tokens=read,
        cache_creation_input_tokens=written,
    )
    return float(sum(litellm.cost_per_token(model=model, usage_object=usage)))


def test_anthropic_is_billed_one_write_and_two_reads() -> None:
    [line] = bill("anthropic/claude-sonnet-4-5", "auto")["judges"]
    written = line["cache_write_tokens"]
    assert written > 1024 and line["cached_prompt_tokens"] == 2 * written
    per_criterion = bill("anthropic/claude-sonnet-4-5", "auto")["criteria"]
    assert [c["cache_write_tokens"] for c in per_criterion] == [written, 0, 0]
    assert [c["cached_prompt_tokens"] for c in per_criterion] == [0, written, written]
    expected = sum(
        priced(
            "claude-sonnet-4-5",
            c["prompt_tokens"],
            c["completion_tokens_estimate"],
            c["cached_prompt_tokens"],
            c["cache_write_tokens"],
        )
        for c in per_criterion
    )
    assert line["cost_estimate"] == pytest.approx(expected)
    off = bill("anthropic/claude-sonnet-4-5", "off")["judges"][0]
    assert off["cached_prompt_tokens"] == off["cache_write_tokens"] == 0
    assert off["prompt_tokens"] == line["prompt_tokens"] and off["cost_estimate"] > expected


def test_openai_reads_in_128_token_steps_and_writes_nothing() -> None:
    [line] = bill("openai/gpt-4.1-mini", "auto")["judges"]
    assert line["cache_write_tokens"] == 0
    read = line["cached_prompt_tokens"] // 2
    assert read >= 1024 and read % 128 == 0


def test_nothing_is_estimated_below_the_minimum() -> None:
    [line] = bill("anthropic/claude-sonnet-4-5", "auto", output="A short answer.")["judges"]
    assert line["cached_prompt_tokens"] == line["cache_write_tokens"] == 0


def test_staged_items_keep_twice_as_many_items_in_flight() -> None:
    assert items_in_flight(64, 8) == 16
    assert items_in_flight(64, 8, staged=True) == 32
