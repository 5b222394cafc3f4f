"""Malformed conversations (docs/reference/dataset-files.md, "Conversations"): each broken rule
is one InputError naming the file, the line and the key path to the value at fault; `check`
refuses them as `run` does, before any judge call and with no experiment written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.rubric_loader import parse_rubric
from tests.support.cli import cli

RUBRIC = "criteria:\n  - name: polite\n    requirement: The assistant is polite.\n"
FINAL_TURN_RUBRIC = RUBRIC + "    scope: final_turn\n"
USER = {"role": "user", "content": "hi"}
ANSWER = {"role": "assistant", "content": "hello"}


def call(call_id: str = "c1", name: str = "lookup", arguments: Any = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def calling(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def result(call_id: Any = "c1") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


# (id, submission, key path, words the message must hold)
BAD: list[tuple[str, Any, str, str]] = [
    ("empty-list", [], "submission", "at least one message"),
    ("empty-messages", {"messages": []}, "submission.messages", "at least one message"),
    ("messages-not-list", {"messages": "hi"}, "submission.messages", "list of messages"),
    ("object-extra-key", {"messages": [USER], "tools": []}, "submission.tools", "only"),
    ("message-not-object", [USER, "hello"], "submission[1]", "object"),
    ("role-missing", [{"content": "hi"}], "submission[0].role", "missing `role`"),
    ("role-unknown", [USER, {"role": "bot", "content": "x"}], "submission[1].role", "bot"),
    ("role-misspelt", [{"role": "asistant", "content": "x"}], "submission[0].role", "assistant"),
    ("role-not-string", [{"role": 3, "content": "x"}], "submission[0].role", "one of"),
    ("user-content-missing", [{"role": "user"}], "submission[0].content", "needs `content`"),
    (
        "tool-content-null",
        [calling(call()), {"role": "tool", "tool_call_id": "c1", "content": None}],
        "submission[1].content",
        "needs `content`",
    ),
    ("content-number", [{"role": "user", "content": 7}], "submission[0].content", "string"),
    (
        "part-not-object",
        [{"role": "user", "content": [{"type": "text", "text": "a"}, "b"]}],
        "submission[0].content[1]",
        "object",
    ),
    (
        "part-type-missing",
        [{"role": "user", "content": [{"text": "a"}]}],
        "submission[0].content[0].type",
        "type",
    ),
    (
        "part-type-unknown",
        [{"role": "user", "content": [{"type": "hologram"}]}],
        "submission[0].content[0].type",
        "hologram",
    ),
    (
        "text-part-without-text",
        [{"role": "user", "content": [{"type": "text", "value": "a"}]}],
        "submission[0].content[0].text",
        "`text`",
    ),
    (
        "assistant-says-nothing",
        [USER, {"role": "assistant", "content": None}],
        "submission[1].content",
        "reasoning",
    ),
    (
        "reasoning-on-user",
        [{"role": "user", "content": "x", "reasoning": "r"}],
        "submission[0].reasoning",
        "assistant",
    ),
    (
        "tool-calls-on-user",
        [{"role": "user", "content": "x", "tool_calls": [call()]}],
        "submission[0].tool_calls",
        "assistant",
    ),
    (
        "tool-call-id-on-assistant",
        [USER, {**ANSWER, "tool_call_id": "c1"}],
        "submission[1].tool_call_id",
        "tool message",
    ),
    (
        "reasoning-and-thinking",
        [USER, {**ANSWER, "reasoning": "a", "thinking": "b"}],
        "submission[1].thinking",
        "not both",
    ),
    (
        "reasoning-not-string",
        [USER, {**ANSWER, "reasoning": 5}],
        "submission[1].reasoning",
        "string",
    ),
    ("name-not-string", [{**USER, "name": ["x"]}], "submission[0].name", "string"),
    (
        "tool-calls-not-list",
        [USER, {"role": "assistant", "tool_calls": call()}],
        "submission[1].tool_calls",
        "list",
    ),
    (
        "tool-call-not-object",
        [USER, {"role": "assistant", "tool_calls": ["lookup"]}],
        "submission[1].tool_calls[0]",
        "object",
    ),
    (
        "tool-call-id-missing",
        [USER, calling({"type": "function", "function": {"name": "f"}})],
        "submission[1].tool_calls[0].id",
        "`id`",
    ),
    (
        "tool-call-type-unknown",
        [USER, calling({**call(), "type": "custom"})],
        "submission[1].tool_calls[0].type",
        "custom",
    ),
    (
        "function-missing",
        [USER, calling({"id": "c1", "type": "function"})],
        "submission[1].tool_calls[0].function",
        "`function`",
    ),
    (
        "function-name-missing",
        [USER, calling({"id": "c1", "function": {"arguments": "{}"}})],
        "submission[1].tool_calls[0].function.name",
        "`name`",
    ),
    (
        "function-name-empty",
        [USER, calling(call(name=" "))],
        "submission[1].tool_calls[0].function.name",
        "non-empty",
    ),
    (
        "arguments-number",
        [USER, calling(call(arguments=3))],
        "submission[1].tool_calls[0].function.arguments",
        "JSON",
    ),
    (
        "tool-call-id-twice",
        [USER, calling(call()), result(), calling(call())],
        "submission[3].tool_calls[0].id",
        "submission[1].tool_calls[0]",
    ),
    (
        "tool-result-without-id",
        [USER, calling(call()), {"role": "tool", "content": "ok"}],
        "submission[2].tool_call_id",
        "tool_call_id",
    ),
    ("tool-result-answers-nothing", [USER, result("c9")], "submission[1].tool_call_id", "c9"),
    (
        "tool-result-answers-later-call",
        [USER, result("c1"), calling(call())],
        "submission[1].tool_call_id",
        "no earlier tool call",
    ),
    (
        "tool-result-answers-twice",
        [USER, calling(call()), result(), result()],
        "submission[3].tool_call_id",
        "already answered at submission[2]",
    ),
    (
        "thinking-beside-messages",
        {"messages": [USER], "thinking": "t"},
        "submission.thinking",
        "only",
    ),
]


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return parse_rubric(RUBRIC, "rubric.yaml")


def write(path: Path, submission: Any) -> Path:
    good = {"id": "ok", "submission": [USER, ANSWER]}
    path.write_text(json.dumps(good) + "\n" + json.dumps({"submission": submission}) + "\n")
    return path


def error_of(path: Path, rubric: Rubric) -> InputError:
    with pytest.raises(InputError) as info:
        list(iter_items(path, rubric))
    return info.value


@pytest.mark.parametrize(
    ("submission", "key", "words"), [pytest.param(s, k, w, id=i) for i, s, k, w in BAD]
)
def test_a_malformed_message_is_refused_with_its_key_path(
    tmp_path: Path, rubric: Rubric, submission: Any, key: str, words: str
) -> None:
    path = write(tmp_path / "data.jsonl", submission)
    error = error_of(path, rubric)
    assert (error.path, error.line, error.key) == (str(path), 2, key)
    assert words in error.message
    assert error.one_line().startswith(f"{path}:2: {key}: ")


def test_the_cases_are_distinct() -> None:
    assert len({json.dumps(s) for _, s, _, _ in BAD}) == len(BAD)


def test_final_turn_needs_an_assistant_message(tmp_path: Path, rubric: Rubric) -> None:
    path = write(tmp_path / "data.jsonl", [{"role": "system", "content": "s"}, USER])
    assert list(iter_items(path, rubric))[1].submission.messages is not None
    error = error_of(path, parse_rubric(FINAL_TURN_RUBRIC, "rubric.yaml"))
    assert (error.line, error.key) == (2, "submission")
    assert "final_turn" in error.message


def test_a_csv_cell_that_looks_like_a_conversation_must_be_json(
    tmp_path: Path, rubric: Rubric
) -> None:
    path = tmp_path / "data.csv"
    path.write_text('id,submission\na,plain text\nb,"[{""role"": ""user"", ""content"": ""hi""]"\n')
    error = error_of(path, rubric)
    assert (error.line, error.key) == (3, "submission")
    assert "not valid JSON" in error.message


def test_a_conversation_built_in_code_follows_the_same_rules() -> None:
    with pytest.raises(InputError) as info:
        Item(id="a", submission=[USER, result("c9")])
    assert info.value.key == "submission[1].tool_call_id"


@pytest.mark.parametrize("command", ["check", "run"])
def test_check_and_run_refuse_it_alike(tmp_path: Path, command: str) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC + "grader:\n  judges: [{model: simulated/a}]\n")
    data = write(tmp_path / "data.jsonl", [USER, calling(call()), result(), result()])
    out = tmp_path / "exp"
    args = [command, rubric, data] + (["--out", out] if command == "run" else [])
    outcome = cli(*args)
    assert outcome.exit_code == 2
    expected = f"{data}:2: submission[3].tool_call_id: tool call 'c1' was already answered"
    assert expected in outcome.stderr
    assert not out.exists()
