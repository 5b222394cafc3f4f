"""The Anthropic and Gemini batch APIs against their loopback fakes: how an orphan batch (its
id never recorded) is recognised, and how results map to replies (docs/guides/batches.md)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import orjson
import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.batch.anthropic import AnthropicBatches
from autorubric_cli.judges.batch.capture import RawReply, batch_cost
from autorubric_cli.judges.batch.gemini import GeminiBatches
from autorubric_cli.judges.batch.ledger import RecordedBatch
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.transports.litellm import load_litellm
from tests.support.anthropic_batches import AnthropicBatchServer
from tests.support.gemini_batches import GeminiBatchServer

KEY_ENV = "AUTORUBRIC_NATIVE_TEST_KEY"
POLICY = RetryPolicy(base_s=0.01, cap_s=0.02)


@pytest.fixture
def anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[AnthropicBatchServer]:
    monkeypatch.setenv(KEY_ENV, "sk-ant-test-0123456789")
    with AnthropicBatchServer(batch_delay=0.05) as server:
        yield server


def claude(server: AnthropicBatchServer) -> AnthropicBatches:
    spec = JudgeSpec(
        model="anthropic/claude-sonnet-4-5", api_base=server.api_base, api_key_env=KEY_ENV
    )
    api = AnthropicBatches(spec, "claude-sonnet-4-5", 5.0, POLICY, 2)
    api.poll_s = 0.02
    return api


def requests(keys: list[str]) -> bytes:
    """Message Batch requests (JSON array) the fake can answer."""
    params = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "Is it correct?"}],
    }
    return orjson.dumps(
        [{"custom_id": k, "params": {**params, "metadata": {"user_id": k}}} for k in keys]
    )


def record(local: str, keys: list[str], prepared_at: float) -> RecordedBatch:
    return RecordedBatch(local=local, judge="claude", keys=keys, prepared_at=prepared_at)


async def test_a_lone_look_alike_is_adopted_without_waiting_for_it(
    anthropic: AnthropicBatchServer,
) -> None:
    api = claude(anthropic)
    anthropic.batch_delay = 60.0
    now = time.time()
    created = await api.create(requests(["c1", "c2", "c3"]), "L")
    found = await api.find([record("L", ["c1", "c2", "c3"], now)], known=set())
    none = await api.find([record("M", ["d1", "d2"], now)], known=set())  # no batch of 2
    known = await api.find([record("L", ["c1", "c2", "c3"], now)], known={created.id})
    await api.aclose()
    assert found == {"L": created} and none == {} and known == {}
    assert anthropic.control_calls["results"] == 0  # not waited for


async def test_look_alikes_are_told_apart_by_their_results(
    anthropic: AnthropicBatchServer,
) -> None:
    """Two of our batches of the same size, and someone else's, created in the same seconds:
    each orphan gets the batch whose results answer exactly its requests."""
    api = claude(anthropic)
    now = time.time()
    ours = {"L1": ["a1", "a2"], "L2": ["b1", "b2"]}
    ids = {}
    await api.create(requests(["f1", "f2"]), "foreign")
    for local, keys in ours.items():
        ids[local] = (await api.create(requests(keys), local)).id
    pending = [record(local, keys, now) for local, keys in ours.items()]
    found = await api.find(pending, known=set())
    await api.aclose()
    assert {local: info.id for local, info in found.items()} == ids


async def test_results_become_the_replies_the_messages_api_would_give(
    anthropic: AnthropicBatchServer,
) -> None:
    api = claude(anthropic)
    anthropic.fault_rate, anthropic.expire_batches = 1.0, 1  # every answer an error; expiry
    info = await api.create(requests(["e1", "e2", "e3"]), "L")
    while info.status == "in_progress":
        info = await api.retrieve(info.id)
    results = await api.results(info)
    await api.aclose()
    assert info.status == "completed" and set(results) == {"e1", "e2", "e3"}
    errored = [results["e1"], results["e2"]]  # the first half was processed, and failed
    assert all(isinstance(r, RawReply) and r.status in (500, 529) for r in errored)
    expired = results["e3"]
    assert isinstance(expired, JudgeFailure) and expired.retryable
    assert "ended expired" in str(expired)


async def test_gemini_orphans_are_found_by_display_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "gemini-test-key")
    with GeminiBatchServer(batch_delay=60.0) as server:
        spec = JudgeSpec(
            model="gemini/gemini-2.5-flash", api_base=server.api_base, api_key_env=KEY_ENV
        )
        api = GeminiBatches(spec, "gemini-2.5-flash", 5.0, POLICY, 2)
        line = b'{"request": {"contents": [{"role": "user", "parts": [{"text": "x"}]}]}, '
        batch = b"[" + line + b'"metadata": {"key": "k1"}}]'
        now = time.time()
        mine = await api.create(batch, "L1")
        await api.create(batch, "L2")  # another batch: another display name
        found = await api.find([record("L1", ["k1"], now), record("L3", ["k1"], now)], set())
        await api.aclose()
    assert found == {"L1": mine} and mine.status == "in_progress"


@pytest.mark.parametrize(
    ("provider", "model", "expected"),
    [
        # litellm's *_batches prices: Sonnet 4.5 $1.50 / $7.50, Gemini 2.5 Flash $0.15 / $1.25
        ("anthropic", "anthropic/claude-sonnet-4-5", 1000 * 1.5e-6 + 200 * 7.5e-6),
        ("gemini", "gemini/gemini-2.5-flash", 1000 * 1.5e-7 + 200 * 1.25e-6),
        ("anthropic", "anthropic/claude-not-a-model-xyz", None),  # unpriced: null, never 0
    ],
)
def test_batch_cost_is_litellms_batch_price(
    provider: str, model: str, expected: float | None
) -> None:
    litellm = load_litellm()
    usage = litellm.Usage(prompt_tokens=1000, completion_tokens=200, total_tokens=1200)
    response = litellm.ModelResponse(usage=usage)
    cost = batch_cost(provider)(litellm, response, model)
    assert cost == (None if expected is None else pytest.approx(expected, rel=1e-12))
