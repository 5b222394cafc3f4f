"""A conversation submission (docs/reference/dataset-files.md, "Conversations"): OpenAI
chat-format messages, kept as given, and what is read from them.

The models keep every key a message was given (unknown keys included), so an item holds the
conversation as the file had it. The rules a conversation must follow live in
`conversation_rules`; the functions here only read a conversation that passed them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

import orjson
from pydantic import BaseModel, ConfigDict

Role = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = get_args(Role)
TEXT_PARTS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal"}
"""Part type -> the key holding its text: these parts are kept."""
MEDIA_PARTS = {
    "image_url": "[image]",
    "input_image": "[image]",
    "image": "[image]",
    "input_audio": "[audio]",
    "audio": "[audio]",
    "video": "[video]",
    "video_url": "[video]",
    "file": "[file]",
    "input_file": "[file]",
    "document": "[file]",
}
"""Part type -> the marker shown instead of it: media is never sent to a judge."""


class AsGiven(BaseModel):
    """Unknown keys are kept (an export's `refusal`, `annotations`, `metadata` ...)."""

    model_config = ConfigDict(extra="allow")


class FunctionCall(AsGiven):
    name: str
    arguments: Any = None  # the chat format's JSON text; an object is accepted and shown as JSON


class ToolCall(AsGiven):
    id: str
    type: str = "function"
    function: FunctionCall


class Message(AsGiven):
    role: Role
    content: str | list[dict[str, Any]] | None = None
    reasoning: str | None = None
    thinking: str | None = None
    reasoning_content: str | None = None  # the name some OpenAI-compatible servers use
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None


def as_given(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The conversation as the file gave it (keys never given are left out)."""
    return [m.model_dump(mode="json", exclude_unset=True) for m in messages]


def shown_role(message: Message) -> str:
    """The role a reader sees: `developer` is the newer name of `system`."""
    return "system" if message.role == "developer" else message.role


def part_text(part: dict[str, Any]) -> str:
    """A content part as text: its text, or a marker such as `[image]`."""
    kind = part.get("type")
    if kind in TEXT_PARTS:
        return str(part.get(TEXT_PARTS[kind]) or "")
    return MEDIA_PARTS.get(str(kind), f"[{kind}]")


def message_text(message: Message, markers: bool = True) -> str | None:
    """The text of a message's content (parts joined by a line break); None when it has none.

    `markers`: media parts shown as `[image]` etc. (else left out, as when counting words). An
    assistant message with null content and a `refusal` string shows the refusal."""
    content = message.content
    if isinstance(content, list):
        shown = (part_text(p) for p in content if markers or p.get("type") in TEXT_PARTS)
        return "\n".join(shown)
    if content is None:
        refusal = (message.model_extra or {}).get("refusal")
        return refusal if isinstance(refusal, str) else None
    return content


def reasoning_text(message: Message) -> str | None:
    """An assistant message's thinking: `reasoning`, `thinking` or `reasoning_content` (the
    rules allow one of them)."""
    for text in (message.reasoning, message.thinking, message.reasoning_content):
        if text is not None:
            return text
    return None


def arguments_text(call: ToolCall) -> str:
    """A tool call's arguments as text: JSON text as given, an object as compact JSON."""
    arguments = call.function.arguments
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return orjson.dumps(arguments).decode()


def final_assistant_index(messages: Sequence[Message]) -> int | None:
    """0-based position of the last assistant message; None when there is none."""
    for position in range(len(messages) - 1, -1, -1):
        if messages[position].role == "assistant":
            return position
    return None


def tool_names(messages: Sequence[Message]) -> dict[str, str]:
    """Tool call id -> the function it called, over the whole conversation."""
    return {c.id: c.function.name for m in messages for c in m.tool_calls or ()}


def tool_call_count(messages: Sequence[Message]) -> int:
    return sum(len(m.tool_calls or ()) for m in messages)


def assistant_word_counts(messages: Sequence[Message]) -> dict[str, int]:
    """Words of assistant content (`output`) and assistant reasoning (`thinking`); user,
    system and tool text never count (the length penalty, docs/reference/rubric-file.md)."""
    output = thinking = 0
    for message in messages:
        if message.role != "assistant":
            continue
        output += len((message_text(message, markers=False) or "").split())
        thinking += len((reasoning_text(message) or "").split())
    return {"output": output, "thinking": thinking}
