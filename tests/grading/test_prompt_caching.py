"""Provider prompt caching: the shared prefix, the first-call-alone rule, marks and accounting.

HTTP tests go through litellm to the loopback fakes, whose caches are emulated in
tests/support/prompt_cache.py (OpenAI: automatic, 128-token steps; Anthropic: breakpoints).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.session import RunOptions, start_run
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.grading.requests import RequestBuilder
from autorubric_cli.judges.prompts import PromptExample
from autorubric_cli.judges.replies import shared_response_format
from autorubric_cli.judges.transports.litellm import load_litellm
from autorubric_cli.report.build import build_report
from tests.support import BINARY, MULTI_CHOICE, TEST_KEY_ENV, make_item, make_rubric
from tests.support.judge_server import JudgeServer
from tests.support.prompt_cache import AnthropicPromptCache, GeminiPromptCache, OpenAIPromptCache
from tests.support.providers.anthropic import AnthropicFake
from tests.support.providers.gemini import GeminiFake

LONG = " ".join(f"w{i}" for i in range(1500))  # 1,500 fake tokens, ~7,000 characters
CRITERIA = [
    BINARY,
    {**BINARY, "name": "complete", "requirement": "Covers every part of the question"},
    MULTI_CHOICE,
]
KINDS = [
    BINARY,
    {**BINARY, "name": "penalty", "requirement": "Makes a false claim", "weight": -5},
    {**BINARY, "name": "set_binary", "elicitation": "response_set"},
    MULTI_CHOICE,
    {**MULTI_CHOICE, "name": "both_mc", "elicitation": "both"},
    {**MULTI_CHOICE, "name": "nominal", "scale_type": "nominal"},
]


@pytest.fixture(autouse=True)
def local_beta_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "true")


# -- the shared prefix (pure) ----------------------------------------------------------------


@pytest.mark.parametrize("thinking", [None, "Let me recall the cell chemistry first."])
@pytest.mark.parametrize("with_examples", [False, True])
def test_prefix_is_byte_identical_across_an_items_criteria(
    with_examples: bool, thinking: str | None
) -> None:
    rubric = Rubric.model_validate(
        {
            "guidelines": "Grade as an engineer.",
            "criteria": KINDS,
            "grader": {"judges": [{"model": "simulated/a", "samples": 2}]},
        }
    )
    example = PromptExample(Submission(output="An example answer."), "MET", "Because.")
    examples = {c.name: [example] for c in rubric.criteria} if with_examples else {}
    builder = RequestBuilder(rubric, seed=3, examples=examples)
    item = Item(
        id="q1",
        index=0,
        line=1,
        submission=Submission(thinking=thinking, output="NMC reaches 270 Wh/kg."),
        query="Compare chemistries.",
        reference_submission="NMC 250-300 Wh/kg.",
    )
    requests = [
        builder.request(item, c, "simulated/a", sample)
        for c in rubric.criteria
        for sample in (0, 1)
    ]
    heads = {
        (r.messages[0]["content"], r.messages[1]["content"][: r.prefix_chars]) for r in requests
    }
    assert len(heads) == 1
    system, prefix = heads.pop()
    assert prefix.endswith("</submission>\n\n")
    assert "NMC reaches 270 Wh/kg." in prefix and (thinking is None) == ("<thinking>" not in prefix)
    assert "<criterion>" not in prefix and "<examples>" not in prefix
    for request in requests:
        suffix = request.messages[1]["content"][request.prefix_chars :]
        assert suffix.startswith("<criterion>\n" + request.criterion.requirement)
        assert ("<examples>" in suffix) == with_examples
        # for a provider whose cache covers the schema, one schema for every criterion
        assert request.response_format(shared=True) == shared_response_format()
    assert len({r.messages[1]["content"] for r in requests if r.sample == 0}) == len(KINDS)


def test_the_system_prompt_override_still_replaces_it_per_kind() -> None:
    rubric = make_rubric(
        [{"model": "simulated/a"}], [BINARY, MULTI_CHOICE], system_prompt="BINARY ONLY"
    )
    builder = RequestBuilder(rubric, seed=0, examples={})
    binary, multi = (builder.request(make_item(), c, "a", 0) for c in rubric.criteria)
    assert binary.messages[0]["content"] == "BINARY ONLY"
    assert multi.messages[0]["content"] != "BINARY ONLY"


# -- over HTTP ---------------------------------------------------------------------------------


@pytest.fixture
def openai_caching() -> Iterator[JudgeServer]:
    with JudgeServer(latency=0.05, prompt_cache=OpenAIPromptCache()) as server:
        yield server


@pytest.fixture
def anthropic_caching() -> Iterator[AnthropicFake]:
    with AnthropicFake(latency=0.05, prompt_cache=AnthropicPromptCache()) as server:
        yield server


def openai_judge(server: JudgeServer, **spec: Any) -> dict[str, Any]:
    return {
        "model": "openai/gpt-4.1-mini",
        "api_base": server.api_base,
        "api_key_env": TEST_KEY_ENV,
        **spec,
    }


def anthropic_judge(server: AnthropicFake, **spec: Any) -> dict[str, Any]:
    return {
        "model": "anthropic/claude-sonnet-4-5",
        "api_base": server.api_base,
        "api_key_env": TEST_KEY_ENV,
        **spec,
    }


async def grade_items(judge: dict[str, Any], items: list[Item]) -> list[Any]:
    grader = CriterionGrader(make_rubric([judge], CRITERIA), seed=0)
    try:
        return list(await asyncio.gather(*(grader.grade(item) for item in items)))
    finally:
        await grader.aclose()


def votes_of(record: Any) -> list[Any]:
    return [v for c in record.criteria for v in c.votes]


def litellm_cost(model: str, usage: dict[str, int]) -> float:
    litellm = load_litellm()
    counted = litellm.Usage(
        prompt_tokens=usage["prompt_tokens"],
        completion_tokens=usage["completion_tokens"],
        prompt_tokens_details={"cached_tokens": usage.get("cached_prompt_tokens", 0)},
        cache_read_input_tokens=usage.get("cached_prompt_tokens", 0),
        cache_creation_input_tokens=usage.get("cache_write_tokens", 0),
    )
    return float(sum(litellm.cost_per_token(model=model, usage_object=counted)))


@pytest.mark.parametrize(("model", "thinking"), [("gpt-4.1-mini", None), ("o4-mini", "low")])
async def test_first_call_of_each_item_goes_alone_and_the_others_read_the_cache(
    openai_caching: JudgeServer, judge_api_key: str, model: str, thinking: str | None
) -> None:
    items = [make_item(f"item-{k}", f"marker{k} {LONG}", k) for k in range(3)]
    judge = openai_judge(openai_caching, model=f"openai/{model}", thinking=thinking)
    if thinking is not None:
        judge["temperature"] = None  # reasoning models take only their default
    records = await grade_items(judge, items)
    for k, record in enumerate(records):
        requests = sorted(
            openai_caching.requests_mentioning(f"marker{k} "), key=lambda r: r.received_at
        )
        assert len(requests) == 3
        first, others = requests[0], requests[1:]
        assert first.answered_at is not None
        assert all(first.answered_at <= r.received_at for r in others)  # event order
        assert first.cached_tokens == 0
        assert all(r.cached_tokens >= 1024 and r.cached_tokens % 128 == 0 for r in others)
        votes = votes_of(record)
        assert sorted(v.usage.get("cached_prompt_tokens", 0) for v in votes) == sorted(
            r.cached_tokens for r in requests
        )
        for vote in votes:
            assert "cache_write_tokens" not in vote.usage  # OpenAI bills no writes
            assert vote.cost == pytest.approx(litellm_cost(model, vote.usage))
        assert record.usage["cached_prompt_tokens"] == sum(r.cached_tokens for r in others)


async def test_anthropic_gets_breakpoints_and_records_writes_then_reads(
    anthropic_caching: AnthropicFake, judge_api_key: str
) -> None:
    [record] = await grade_items(anthropic_judge(anthropic_caching), [make_item(output=LONG)])
    requests = sorted(anthropic_caching.requests, key=lambda r: r.received_at)
    assert len(requests) == 3
    assert all(requests[0].answered_at <= r.received_at for r in requests[1:])
    for request in requests:
        system = request.body["system"]
        assert system[0]["cache_control"] == {"type": "ephemeral"}
        prefix, suffix = request.body["messages"][0]["content"]
        assert prefix["cache_control"] == {"type": "ephemeral"}
        assert prefix["text"].endswith("</submission>\n\n") and "cache_control" not in suffix
        assert suffix["text"].startswith("<criterion>")
    written = requests[0].usage["cache_creation_input_tokens"]
    assert written > 1024 and requests[0].usage["cache_read_input_tokens"] == 0
    assert [r.usage["cache_read_input_tokens"] for r in requests[1:]] == [written, written]
    votes = votes_of(record)
    assert sorted(v.usage.get("cache_write_tokens", 0) for v in votes) == [0, 0, written]
    assert sorted(v.usage.get("cached_prompt_tokens", 0) for v in votes) == [0, written, written]
    for vote in votes:
        assert vote.cost == pytest.approx(litellm_cost("claude-sonnet-4-5", vote.usage))


async def test_one_hour_ttl_is_sent_when_set(
    anthropic_caching: AnthropicFake, judge_api_key: str
) -> None:
    await grade_items(anthropic_judge(anthropic_caching, cache_ttl="1h"), [make_item(output=LONG)])
    mark = {"type": "ephemeral", "ttl": "1h"}
    assert all(r.body["system"][0]["cache_control"] == mark for r in anthropic_caching.requests)


@pytest.mark.parametrize(("output", "caching"), [("A short answer.", "auto"), (LONG, "off")])
async def test_nothing_is_marked_or_staged_below_the_minimum_or_when_off(
    anthropic_caching: AnthropicFake, judge_api_key: str, output: str, caching: str
) -> None:
    judge = anthropic_judge(anthropic_caching, prompt_caching=caching)
    [record] = await grade_items(judge, [make_item(output=output)])
    requests = anthropic_caching.requests
    assert len(requests) == 3 and "cache_control" not in str([r.body for r in requests])
    first_answer = min(r.answered_at or 0.0 for r in requests)
    assert all(r.received_at < first_answer for r in requests)  # sent together
    for vote in votes_of(record):
        assert "cache_write_tokens" not in vote.usage and "cached_prompt_tokens" not in vote.usage


def full_price(model: str, usage: dict[str, int]) -> float:
    return litellm_cost(model, {k: usage[k] for k in ("prompt_tokens", "completion_tokens")})


async def test_each_vote_records_what_the_prompt_cache_saved(
    anthropic_caching: AnthropicFake, judge_api_key: str
) -> None:
    [record] = await grade_items(anthropic_judge(anthropic_caching), [make_item(output=LONG)])
    for vote in votes_of(record):
        expected = full_price("claude-sonnet-4-5", vote.usage) - (vote.cost or 0.0)
        assert vote.prompt_cache_saved == pytest.approx(expected)
    writer = next(v for v in votes_of(record) if "cache_write_tokens" in v.usage)
    assert writer.prompt_cache_saved is not None and writer.prompt_cache_saved < 0  # 1.25x


def test_the_report_sums_what_the_prompt_cache_saved_per_judge(
    tmp_path: Path, openai_caching: JudgeServer, judge_api_key: str
) -> None:
    rubric = tmp_path / "rubric.yaml"
    judge = openai_judge(openai_caching, id="gpt")
    rubric.write_text(yaml.safe_dump({"criteria": CRITERIA, "grader": {"judges": [judge]}}))
    data = tmp_path / "data.jsonl"
    data.write_text(
        "".join(json.dumps({"id": f"q{i}", "submission": f"m{i} {LONG}"}) + "\n" for i in range(2))
    )
    out = tmp_path / "exp"
    start_run(rubric, data, RunOptions(out=out, cache_dir=tmp_path / "calls"))
    report = build_report(open_experiment(out))
    [summary] = report["judges"]
    votes = [
        v
        for line in (out / "items.jsonl").read_text().splitlines()
        for c in json.loads(line)["criteria"]
        for v in c["votes"]
    ]
    saved = [v["prompt_cache_saved"] for v in votes if v["prompt_cache_saved"] is not None]
    assert len(saved) == 4  # two items x the two calls after the first
    assert summary["prompt_cache_saved"] == pytest.approx(sum(saved)) and sum(saved) > 0
    assert summary["usage"]["cached_prompt_tokens"] == sum(
        v["usage"].get("cached_prompt_tokens", 0) for v in votes
    )


def test_gemini_implicit_caching_is_recorded_and_priced(tmp_path: Path, judge_api_key: str) -> None:
    """Gemini 2.5 caches implicitly: nothing is marked, the first call of an item goes alone,
    and the later calls read its prefix (`cachedContentTokenCount`), recorded and priced."""
    with GeminiFake(prompt_cache=GeminiPromptCache()) as fake:
        judge = {
            "model": "gemini/gemini-2.5-flash",
            "api_base": fake.api_base,
            "api_key_env": TEST_KEY_ENV,
        }
        rubric = tmp_path / "rubric.yaml"
        rubric.write_text(yaml.safe_dump({"criteria": CRITERIA, "grader": {"judges": [judge]}}))
        data = tmp_path / "data.jsonl"
        data.write_text(
            "".join(
                json.dumps({"id": f"q{i}", "submission": f"m{i} {LONG}"}) + "\n" for i in (0, 1)
            )
        )
        out = tmp_path / "exp"
        start_run(rubric, data, RunOptions(out=out, cache_dir=tmp_path / "calls"))
        assert all("cache_control" not in json.dumps(s.body) for s in fake.seen)
    votes = [
        v
        for line in (out / "items.jsonl").read_text().splitlines()
        for c in json.loads(line)["criteria"]
        for v in c["votes"]
    ]
    cached = [v for v in votes if v["usage"].get("cached_prompt_tokens")]
    assert len(votes) == 2 * len(CRITERIA)
    assert len(cached) == 2 * (len(CRITERIA) - 1)  # every call after each item's first
    assert all(0 < v["usage"]["cached_prompt_tokens"] < v["usage"]["prompt_tokens"] for v in cached)
    assert all(v["prompt_cache_saved"] > 0 and v["cost"] > 0 for v in cached)
