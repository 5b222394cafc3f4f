"""A conversation dataset (support chats, an agent run with several tool calls, a reasoning
model's turns) graded end to end on every judge wire format of the conformance matrix, per
criterion and per item: each prompt a fake received holds every turn, in order, numbered with
its role; a `final_turn` criterion's prompt names the final assistant turn; media is never sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.support.cli import cli
from tests.support.conversations import CONVERSATIONS, jsonl_text, message_texts
from tests.support.judge_server import JudgeServer
from tests.support.providers.base import FakeProvider
from tests.support.providers.judges import KEY_ENV, PROVIDERS

WIRES = ["openai", *(p.name for p in PROVIDERS)]
WHOLE = {"name": "helpful", "requirement": "The assistant resolves the user's request."}
FINAL = {
    "name": "closing",
    "requirement": "The reply is polite.",
    "scope": "final_turn",
    "options": [{"label": "No", "value": 0}, {"label": "Yes", "value": 1}],
}
TURN = re.compile(r'<turn n="(\d+)" role="(\w+)"')


class Wire:
    """One running fake and the judge that points at it; `prompts` are the user messages it
    received, in arrival order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.prompts: list[str] = []
        if name == "openai":
            self.server: JudgeServer | FakeProvider = JudgeServer().start()
            self.judge: dict[str, Any] = {
                "model": "openai/gpt-4.1-mini",
                "api_base": self.server.api_base,
                "api_key_env": KEY_ENV,
            }
            return
        provider = next(p for p in PROVIDERS if p.name == name)
        fake = provider.fake().start()
        self.server = fake
        self.judge = json.loads(provider.judge_yaml(fake.api_base, thinking=False, samples=1))
        original = fake.answer

        def noting(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> str:
            self.prompts.append(next(m["content"] for m in messages if m["role"] == "user"))
            return original(messages, schema)

        fake.answer = noting  # type: ignore[method-assign]

    def received(self) -> list[str]:
        if isinstance(self.server, JudgeServer):
            return [
                next(m["content"] for m in r.messages if m["role"] == "user")
                for r in self.server.requests
            ]
        return list(self.prompts)


@pytest.fixture(scope="module")
def wires() -> Iterator[dict[str, Wire]]:
    started: dict[str, Wire] = {}
    try:
        for name in WIRES:
            started[name] = Wire(name)
        yield started
    finally:
        for wire in started.values():
            wire.server.stop()


def conversation_of(prompt: str) -> str:
    """Which conversation a prompt shows: the one whose first text it holds."""
    found = [k for k, messages in CONVERSATIONS.items() if message_texts(messages)[0] in prompt]
    assert len(found) == 1, prompt[:300]
    return found[0]


def assistant_words(messages: list[dict[str, Any]]) -> dict[str, int]:
    """Counted here from the raw messages: assistant content and assistant reasoning only."""
    output = thinking = 0
    for message in messages:
        if message["role"] == "assistant":
            output += len((message.get("content") or "").split())
            thinking += len((message.get("reasoning") or message.get("thinking") or "").split())
    return {"output": output, "thinking": thinking}


def assert_every_turn_in_order(prompt: str, messages: list[dict[str, Any]]) -> None:
    turns = TURN.findall(prompt)
    assert [int(n) for n, _ in turns] == list(range(1, len(messages) + 1))
    expected_roles = ["system" if m["role"] == "developer" else m["role"] for m in messages]
    assert [role for _, role in turns] == expected_roles
    position = 0
    for text in message_texts(messages):
        found = prompt.find(text, position)
        assert found >= 0, f"{text!r} missing or out of order"
        position = found + len(text)
    names = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()}
    for number, message in enumerate(messages, start=1):
        if message["role"] == "tool":
            call_id = message["tool_call_id"]
            head = f'<turn n="{number}" role="tool" answers="{call_id}" tool="{names[call_id]}">'
            assert head in prompt
    assert "[image]" in prompt or "image_url" not in json.dumps(messages)
    assert "base64" not in prompt


def final_turn(messages: list[dict[str, Any]]) -> int:
    return max(n for n, m in enumerate(messages, start=1) if m["role"] == "assistant")


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
@pytest.mark.parametrize("wire_name", WIRES)
def test_a_conversation_dataset_is_graded_on_every_wire_format(
    wire_name: str,
    llm_calls: str,
    wires: dict[str, Wire],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wire = wires[wire_name]
    wire.server.reset()
    wire.prompts.clear()
    rubric = {
        "criteria": [WHOLE, FINAL],
        "grader": {
            "judges": [wire.judge],
            "cache": False,
            "workers": 0,
            "concurrency": 2,
            "llm_calls": llm_calls,
        },
    }
    (tmp_path / "rubric.yaml").write_text(json.dumps(rubric))
    (tmp_path / "data.jsonl").write_text(jsonl_text())
    monkeypatch.setenv(KEY_ENV, "sk-test-provider-0123456789")

    outcome = cli(
        "run", tmp_path / "rubric.yaml", tmp_path / "data.jsonl", "--out", tmp_path / "exp"
    )

    assert outcome.exit_code == 0, outcome.output
    prompts = wire.received()
    assert len(prompts) == len(CONVERSATIONS) * (1 if llm_calls == "per_item" else 2)
    shown: dict[str, int] = {}
    for prompt in prompts:
        item_id = conversation_of(prompt)
        shown[item_id] = shown.get(item_id, 0) + 1
        messages = CONVERSATIONS[item_id]
        assert_every_turn_in_order(prompt, messages)
        number = final_turn(messages)
        assert f'<turn n="{number}" role="assistant" final="true">' in prompt
        note = f"grades only the final assistant turn, turn {number}:"
        grades_final = "<options>" in prompt  # only the final_turn criterion has options
        assert (note in prompt) == grades_final
        assert prompt.count(note) == (1 if grades_final else 0)
    assert sorted(shown) == sorted(CONVERSATIONS)
    records = [
        orjson.loads(x) for x in (tmp_path / "exp" / "items.jsonl").read_bytes().split(b"\n") if x
    ]
    assert sorted(r["id"] for r in records) == sorted(CONVERSATIONS)
    for record in records:
        assert record["status"] == "ok"
        assert all(v["error"] is None for c in record["criteria"] for v in c["votes"])
        assert record["word_counts"] == assistant_words(CONVERSATIONS[record["id"]])
