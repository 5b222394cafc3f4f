"""The conversation model: kept as given, read for text, and counted for the length penalty
(assistant content is output, assistant reasoning thinking; nothing else counts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from autorubric_cli.core.config import LengthPenalty
from autorubric_cli.core.conversation import (
    as_given,
    final_assistant_index,
    message_text,
    tool_call_count,
)
from autorubric_cli.core.items import Item
from autorubric_cli.core.scoring import length_penalty_amount, submission_word_counts
from tests.support.cli import cli
from tests.support.conversations import AGENT_RUN, CONVERSATIONS

LONG = " ".join(["word"] * 500)


def words_of(messages: list[dict[str, Any]]) -> dict[str, int]:
    return submission_word_counts(Item(id="x", submission=messages).submission)


def test_user_system_and_tool_text_never_count() -> None:
    messages = [
        {"role": "system", "content": LONG},
        {"role": "developer", "content": LONG},
        {"role": "user", "content": [{"type": "text", "text": LONG}]},
        {
            "role": "assistant",
            "content": "one two three",
            "reasoning": "four five",
            "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": LONG}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": LONG},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "six seven"}, {"type": "image_url"}],
            "thinking": "eight",
        },
    ]
    # content: "one two three" + "six seven" (the image is no word); reasoning: 2 + 1
    assert words_of(messages) == {"output": 5, "thinking": 3}


def test_a_plain_submission_counts_as_before() -> None:
    item = Item(id="x", submission={"thinking": "a b", "output": "c d e"})
    assert submission_word_counts(item.submission) == {"output": 3, "thinking": 2}


def test_unknown_keys_and_null_keys_are_kept_as_given() -> None:
    messages = [
        {"role": "user", "content": "hi", "metadata": {"source": "web"}, "tool_calls": []},
        {"role": "assistant", "content": "hello", "refusal": None, "annotations": []},
    ]
    assert as_given(Item(id="x", submission=messages).submission.messages or []) == messages
    assert as_given(Item(id="x", submission=AGENT_RUN).submission.messages or []) == AGENT_RUN


def test_readers_of_a_conversation() -> None:
    messages = Item(id="x", submission=AGENT_RUN).submission.messages
    assert messages is not None
    assert final_assistant_index(messages) == len(AGENT_RUN) - 1
    assert tool_call_count(messages) == 3
    assert message_text(messages[4]) is None


@pytest.mark.parametrize(("speaker", "penalised"), [("user", False), ("assistant", True)])
def test_the_length_penalty_of_a_run_sees_only_the_assistant(
    tmp_path: Path, speaker: str, penalised: bool
) -> None:
    """A long user turn costs nothing; the same words from the assistant are penalised."""
    config = {"free_budget": 100, "max_cap": 400, "penalty_at_cap": 0.5, "exponent": 1.0}
    rubric = {
        "criteria": [{"name": "ok", "requirement": "r"}],
        "grader": {"judges": [{"model": "simulated/a"}], "length_penalty": config},
    }
    turns = [
        {"role": "user", "content": LONG if speaker == "user" else "hi"},
        {"role": "assistant", "content": LONG if speaker == "assistant" else "hello"},
    ]
    (tmp_path / "rubric.yaml").write_text(json.dumps(rubric))
    (tmp_path / "data.jsonl").write_text(json.dumps({"id": "a", "submission": turns}) + "\n")
    outcome = cli("run", tmp_path / "rubric.yaml", tmp_path / "data.jsonl", "--out", tmp_path / "e")
    assert outcome.exit_code == 0, outcome.output
    record = orjson.loads((tmp_path / "e" / "items.jsonl").read_bytes().splitlines()[0])
    expected = length_penalty_amount(500, LengthPenalty(**config)) if penalised else 0.0
    assert expected == (0.5 if penalised else 0.0)
    assert record["length_penalty"] == expected
    assert record["word_counts"] == {"output": 500 if penalised else 1, "thinking": 0}


def test_every_support_conversation_is_valid() -> None:
    for item_id, messages in CONVERSATIONS.items():
        assert Item(id=item_id, submission=messages).submission.messages is not None
