"""The pure rules of several samples in one request: who asks together, which requests share
one, and how a request's bill is shared by its samples' votes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.rubric import Criterion, CriterionOption
from autorubric_cli.judges.parsers import vote_parser
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.price_table import price_table
from autorubric_cli.judges.request import Choice, Completion, VoteRequest
from autorubric_cli.judges.samples import (
    SHORT,
    asks_together,
    choices_parser,
    sample_groups,
    split_choices,
    split_cost,
    split_usage,
)

BINARY = Criterion(name="b", requirement="r")
SCALE = Criterion(
    name="s",
    requirement="r",
    options=[CriterionOption(label=x, value=v) for x, v in (("lo", 0.0), ("hi", 1.0))],
)


@pytest.mark.parametrize(
    ("model", "extra", "together"),
    [
        ("openai/gpt-4.1-nano", {}, True),
        ("gemini/gemini-2.5-flash", {}, True),
        ("hosted_vllm/qwen3", {}, True),
        ("anthropic/claude-sonnet-4-5", {}, False),
        ("ollama_chat/qwen3", {}, False),
        ("openai/gpt-4.1-nano", {"sample_request": "separate"}, False),
        ("openai/gpt-4.1-nano", {"samples": 1}, False),
    ],
)
def test_who_asks_samples_together(model: str, extra: dict, together: bool) -> None:
    assert asks_together(JudgeSpec(model=model, **{"samples": 3, **extra})) is together


def request(criterion: Criterion, sample: int, text: str) -> VoteRequest:
    return VoteRequest("it", criterion, sample, [{"role": "user", "content": text}])


def test_only_identical_prompts_of_one_criterion_share_a_request() -> None:
    spec = JudgeSpec(model="openai/x", samples=3)
    asked = [
        request(BINARY, 0, "p"),
        request(BINARY, 1, "p"),
        request(SCALE, 0, "order 1"),
        request(SCALE, 1, "order 2"),
        request(SCALE, 2, "order 1"),
        request(BINARY, 2, "p"),
    ]
    groups = sample_groups(spec, asked)
    assert [[(r.criterion.name, r.sample) for r in g] for g in groups] == [
        [("b", 0), ("b", 1), ("b", 2)],
        [("s", 0), ("s", 2)],
        [("s", 1)],
    ]
    alone = sample_groups(spec.model_copy(update={"sample_request": "separate"}), asked)
    assert [len(g) for g in alone] == [1] * 6


USAGE = st.fixed_dictionaries(
    {"prompt_tokens": st.integers(0, 5000), "completion_tokens": st.integers(0, 500)},
    optional={"cached_prompt_tokens": st.integers(0, 100)},
)


@given(USAGE, st.integers(1, 8), st.floats(0.0, 1.0))
def test_shares_add_up_to_the_request(usage: dict[str, int], parts: int, cost: float) -> None:
    shares = split_usage(usage, parts)
    for key in usage:
        assert sum(s.get(key, 0) for s in shares) == usage[key]
    assert all(s.get("prompt_tokens", 0) == 0 for s in shares[1:])  # the prompt once, first
    completions = [s["completion_tokens"] for s in shares]
    assert max(completions) - min(completions) <= 1 and completions == sorted(completions)[::-1]
    costs = split_cost(cost, "openai/gpt-4.1-nano", shares)
    assert sum(c or 0.0 for c in costs) == pytest.approx(cost, abs=1e-12)
    assert split_cost(None, "openai/gpt-4.1-nano", shares) == [None] * parts


def test_a_share_costs_its_tokens_at_the_models_rates() -> None:
    entry = price_table()["gpt-4.1-nano"]
    usage = {"prompt_tokens": 1000, "completion_tokens": 30}
    cost = 1000 * entry["input_cost_per_token"] + 30 * entry["output_cost_per_token"]
    rate_in, rate_out = entry["input_cost_per_token"], entry["output_cost_per_token"]
    first, second, third = split_cost(cost, "openai/gpt-4.1-nano", split_usage(usage, 3))
    assert first == pytest.approx(1000 * rate_in + 10 * rate_out)
    assert second == third == pytest.approx(10 * rate_out)


def test_each_choice_is_read_as_its_samples_answer() -> None:
    spec = JudgeSpec(model="openai/x", samples=3)
    parse = choices_parser(vote_parser(request(BINARY, 0, "p")), [0, 1, 2], spec)
    good = '{"explanation": "ok", "criterion_status": "MET"}'
    reply = Completion(
        content=good,
        usage={"prompt_tokens": 9, "completion_tokens": 6},
        cost=0.0,
        choices=(Choice(good), Choice("not json")),
    )
    found = parse(reply)
    assert list(found.answers) == [0]
    assert set(found.problems) == {1, 2} and found.problems[2].detail == SHORT
    assert found.replies[0].usage == {"prompt_tokens": 9, "completion_tokens": 3}
    parts = split_choices(reply, "openai/x")
    assert [p.content for p in parts] == [good, "not json"]
    with pytest.raises(JudgeFailure):  # no usable choice: the reply is re-asked
        parse(Completion(content="nope", choices=(Choice("nope"), Choice("no"))))


def test_a_choice_cut_off_at_the_token_limit_is_named_so() -> None:
    """Each choice carries its own finish reason: an unusable one cut off at max_tokens is a
    `truncated` problem for its sample only; a usable one beside it is kept."""
    spec = JudgeSpec(model="openai/x", samples=2, max_tokens=50)
    parse = choices_parser(vote_parser(request(BINARY, 0, "p")), [0, 1], spec)
    good = '{"explanation": "ok", "criterion_status": "MET"}'
    cut = Choice('{"explanation": "o', truncated=True)
    found = parse(Completion(content=good, choices=(Choice(good), cut)))
    assert list(found.answers) == [0]
    assert found.problems[1].category is FailureKind.TRUNCATED
    assert "max_tokens (50)" in found.problems[1].detail
    with pytest.raises(JudgeFailure) as raised:  # the first sample's problem: its cut-off
        parse(Completion(content=cut.content, truncated=True, choices=(cut, Choice("no"))))
    assert raised.value.category is FailureKind.TRUNCATED
