"""An item's `submission` (docs/reference/dataset-files.md): a string, `{thinking, output}`,
or a conversation (a list of chat messages, or `{"messages": [...]}`), checked by the rules of
`core.conversation_rules`.

In a format whose cells are text (CSV, TSV, a Parquet string column), a cell holding a JSON
array of messages (each with a `role`) or a JSON `{"messages": ...}` object is a conversation;
any other text is a plain submission. Text that starts like a conversation but is not valid
JSON is an error rather than a plain submission graded by mistake.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from autorubric_cli.core.conversation_rules import parse_conversation, require_assistant
from autorubric_cli.core.items import Submission
from autorubric_cli.errors import InputError
from autorubric_cli.loading.where import Where

JSON_START = re.compile(r"^\s*[\[{]")


def parse_submission(value: Any, where: Where, final_turn: bool = False) -> Submission:
    """`final_turn`: a criterion grades the last assistant message, so a conversation must
    have one."""
    if isinstance(value, str) and where.text_cells:
        value = conversation_cell(value, where, "submission")
    if isinstance(value, dict) and "messages" in value and where.text_cells:
        messages = value["messages"]
        if isinstance(messages, str):
            value = {**value, "messages": conversation_cell(messages, where, "submission.messages")}
    if isinstance(value, list) or (isinstance(value, dict) and "messages" in value):
        try:
            messages = parse_conversation(value)
            if final_turn:
                require_assistant(messages)
        except InputError as exc:
            raise where.relocated(exc) from None
        return Submission(messages=messages)
    return text_submission(value, where)


def conversation_cell(text: str, where: Where, key: str) -> Any:
    """A text cell's conversation, parsed; other text is returned as it is. A
    `submission.messages` cell is always JSON."""
    always_json = key != "submission"
    if not always_json and not JSON_START.match(text):
        return text
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        if always_json or '"role"' in text or '"messages"' in text:
            raise where.error(
                "the cell looks like a JSON conversation but is not valid JSON", key=key
            ) from None
        return text
    return value if always_json or is_conversation_shape(value) else text


def is_conversation_shape(value: Any) -> bool:
    """A non-empty list of objects that each have a `role`, or an object with `messages`."""
    if isinstance(value, dict):
        return "messages" in value
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, dict) and "role" in m for m in value)
    )


def text_submission(value: Any, where: Where) -> Submission:
    if isinstance(value, str):
        return Submission(output=value)
    if isinstance(value, dict):
        extra = sorted(set(value) - {"thinking", "output"})
        if extra:
            raise where.error(f"unknown key {extra[0]!r}", key=f"submission.{extra[0]}")
        output, thinking = value.get("output"), value.get("thinking")
        if not isinstance(output, str):
            raise where.error("`submission.output` must be a string", key="submission.output")
        if thinking is not None and not isinstance(thinking, str):
            raise where.error("`submission.thinking` must be a string", key="submission.thinking")
        return Submission(output=output, thinking=thinking)
    shown = "null" if value is None else type(value).__name__
    raise where.error(
        f"`submission` is {shown}; it must be a string, {{thinking, output}} or a conversation "
        "(a list of messages)",
        key="submission",
    )
