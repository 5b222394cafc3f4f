"""Several samples in one request, per provider wire format: OpenAI and an OpenAI-compatible
server ask `n`, Gemini `candidateCount` (litellm's mapping of `n`), Azure `n`; Anthropic,
Bedrock and Ollama send one request a sample. A reply with fewer choices than asked is followed
by a request for the missing samples. The votes hold the choices the fake gave, and the
request's bill: the prompt once, on the first sample asked, the completion over the choices.

Each case is a real `autorubric run` in this process against the provider's loopback fake."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.judges.transports.litellm import load_litellm
from tests.judges.test_provider_conformance import ITEMS, Case, records, run, write_inputs
from tests.support.providers.base import FakeProvider
from tests.support.providers.gemini import as_messages
from tests.support.providers.judges import OPENAI_ROWS, PROVIDERS, Provider
from tests.support.providers.wire import tokens

ROWS = [*PROVIDERS, *OPENAI_ROWS]
SAMPLES = 3


@pytest.fixture(scope="module")
def sample_fakes() -> Iterator[dict[str, FakeProvider]]:
    started: dict[str, FakeProvider] = {}
    try:
        for provider in ROWS:
            started[provider.name] = provider.fake().start()
        yield started
    finally:
        for fake in started.values():
            fake.stop()


def choices_asked(body: dict[str, Any]) -> int:
    """How many choices a request asks for, in its provider's own words."""
    config = body.get("generationConfig") or {}
    asked = body.get("n") or config.get("candidateCount") or config.get("candidate_count")
    return int(asked or 1)


def billed_cost(model: str, prompt: int, completion: int) -> float:
    litellm = load_litellm()
    costs = litellm.cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=completion)
    return float(sum(costs))


CASES = [(p, False) for p in ROWS] + [(p, True) for p in ROWS if p.several_choices]


@pytest.mark.parametrize(
    ("provider", "short"),
    CASES,
    ids=[f"{p.name}-{'short_reply' if short else 'together'}" for p, short in CASES],
)
def test_samples_in_one_request(
    provider: Provider,
    short: bool,
    sample_fakes: dict[str, FakeProvider],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = sample_fakes[provider.name]
    fake.reset()
    fake.choice_limit = 1 if short else None  # a server that returns one choice, whatever n
    rubric, data = write_inputs(tmp_path, provider, fake, Case(samples=SAMPLES))
    result = run(tmp_path, rubric, data, monkeypatch)
    assert result.exit_code == 0, result.output
    sent = [r.body for r in fake.requests]
    if not provider.several_choices:
        assert [choices_asked(b) for b in sent] == [1] * ITEMS * SAMPLES
    elif short:  # each reply holds one choice: the missing samples are asked again, fewer
        assert sorted(choices_asked(b) for b in sent) == sorted([3, 2, 1] * ITEMS)
    else:
        assert [choices_asked(b) for b in sent] == [SAMPLES] * ITEMS
    lines = records(tmp_path / "exp")
    votes = [v for r in lines for c in r["criteria"] for v in c["votes"]]
    assert len(votes) == ITEMS * SAMPLES and all(v["error"] is None for v in votes)
    given = sorted(json.loads(text)["criterion_status"] for text in fake.replies)
    assert given == sorted(v["verdict"] for v in votes)  # every choice is one sample's vote
    together = provider.several_choices and not short
    for vote in votes:
        first = vote["sample"] == 0 or not together
        assert (vote["usage"].get("prompt_tokens", 0) > 0) == first, vote
        assert vote["usage"]["completion_tokens"] > 0 and vote["cached"] is False
        expected = (1 + vote["sample"]) if provider.several_choices and short else 1
        assert vote["attempts"] == expected
    check_bill(provider, lines, fake)


def prompt_billed(provider: Provider, body: dict[str, Any]) -> int | None:
    """The prompt tokens the fake billed a request (word counts), where its messages read as
    OpenAI's (Gemini's `contents` too); None for the other wire formats."""
    if provider.name == "gemini":
        messages = as_messages(body)
    elif provider.name in ("openai", "openai_compatible", "azure"):
        messages = body["messages"]
    else:
        return None
    return tokens(*(str(m.get("content", "")) for m in messages))


def check_bill(provider: Provider, lines: list[dict[str, Any]], fake: FakeProvider) -> None:
    """Per item, the votes' prompt tokens are what the provider billed its requests (the
    prompt once a request), and their costs add up to litellm's price of the tokens."""
    for record in lines:
        votes = [v for c in record["criteria"] for v in c["votes"]]
        mine = [r.body for r in fake.requests if f"({record['id'][2:]})" in json.dumps(r.body)]
        billed = [prompt_billed(provider, body) for body in mine]
        if all(b is not None for b in billed):
            expected = sum(b or 0 for b in billed)
            assert sum(v["usage"].get("prompt_tokens", 0) for v in votes) == expected
        if not provider.priced:
            assert all(v["cost"] is None for v in votes)
            continue
        prompt, completion = record["usage"]["prompt_tokens"], record["usage"]["completion_tokens"]
        total = sum(v["cost"] for v in votes)
        assert total == pytest.approx(billed_cost(provider.model, prompt, completion), rel=1e-9)
