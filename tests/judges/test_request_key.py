"""The call key covers what can change the answer and nothing else
(docs/guides/cache-and-cost.md)."""

from __future__ import annotations

from types import SimpleNamespace

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.policy.providers import Dialect
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.request_key import request_key

MESSAGES = [{"role": "user", "content": "Grade this."}]
FORMAT = {"type": "json_schema", "json_schema": {"name": "x", "schema": {}}}


def key(
    spec: JudgeSpec,
    messages=MESSAGES,
    fmt=FORMAT,
    sample: int = 0,
    dialect: Dialect = "json_schema",
    reasks: int = 0,
) -> str:
    request = SimpleNamespace(sample=sample)
    return request_key(spec, Call(messages, fmt, request, dialect, reasks))  # type: ignore[arg-type]


def test_key_ignores_key_env_timeout_concurrency_and_id() -> None:
    base = JudgeSpec(model="openai/m")
    other = JudgeSpec(
        model="openai/m", id="x", api_key_env="OTHER", timeout=5, max_concurrency=2, rpm=10
    )
    assert key(base) == key(other)


def test_key_changes_with_everything_that_can_change_the_answer() -> None:
    base = JudgeSpec(model="openai/m")
    changed = [
        key(JudgeSpec(model="openai/n")),
        key(JudgeSpec(model="openai/m", api_base="http://127.0.0.1:1/v1")),
        key(JudgeSpec(model="openai/m", temperature=0.5)),
        key(JudgeSpec(model="openai/m", max_tokens=100)),
        key(JudgeSpec(model="openai/m", thinking="low")),
        key(JudgeSpec(model="openai/m", params={"top_p": 0.5})),
        key(base, messages=[{"role": "user", "content": "Grade that."}]),
        key(base, fmt={"type": "json_object"}),
        key(base, sample=1),
        key(base, dialect="json_object"),
        key(base, dialect="prompt"),
        key(base, reasks=1),  # a re-ask's raised temperature
        key(base, reasks=2),
    ]
    assert key(base) not in changed
    assert len(set(changed)) == len(changed)


def test_a_reask_at_the_same_temperature_keeps_the_key() -> None:
    """Where nothing raises the temperature (a step of 0, a provider that takes only its
    default), the temperature part of a re-ask's key is the first attempt's."""
    still = JudgeSpec(model="openai/m", reask_temperature_step=0)
    assert key(still, reasks=3) == key(still)
    fixed = JudgeSpec(model="anthropic/claude-sonnet-4-5", thinking=2048)
    assert key(fixed, reasks=1) == key(fixed)


def test_key_is_independent_of_dict_order() -> None:
    spec = JudgeSpec(model="openai/m")
    fmt_a = {"a": 1, "b": {"c": 2, "d": 3}}
    fmt_b = {"b": {"d": 3, "c": 2}, "a": 1}
    assert key(spec, fmt=fmt_a) == key(spec, fmt=fmt_b)
