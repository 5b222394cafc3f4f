"""The rules a conversation submission follows (docs/reference/dataset-files.md,
"Conversations"): each broken rule is one InputError whose key is the path to the value at
fault, `submission[3].tool_calls[0].function.name` (positions count from 0, as in JSON paths).

The loader adds the file and line. A key whose value is null counts as absent, since a
Parquet column of message structs gives every message every key; so does an empty
`tool_calls` list, which some exporters write on every message.
"""

from __future__ import annotations

from typing import Any

from autorubric_cli.core.conversation import MEDIA_PARTS, ROLES, TEXT_PARTS, Message
from autorubric_cli.errors import InputError, unknown_name_message

REASONING_KEYS = ("reasoning", "thinking", "reasoning_content")
PART_TYPES = (*TEXT_PARTS, *MEDIA_PARTS)


class Calls:
    """The tool calls made so far (id -> where) and the ones answered (id -> where)."""

    def __init__(self) -> None:
        self.made: dict[str, str] = {}
        self.answered: dict[str, str] = {}


def parse_conversation(value: Any, key: str = "submission") -> list[Message]:
    """A list of messages, or `{"messages": [...]}`, checked message by message, in order."""
    raw_messages, key = message_list(value, key)
    calls = Calls()
    return [
        parse_message(raw, f"{key}[{position}]", calls) for position, raw in enumerate(raw_messages)
    ]


def message_list(value: Any, key: str) -> tuple[list[Any], str]:
    if isinstance(value, dict):
        extra = sorted(str(k) for k in value if k != "messages")
        if extra:
            raise InputError(
                f"unknown key `{extra[0]}`: a conversation object holds only `messages`",
                key=f"{key}.{extra[0]}",
            )
        value, key = value.get("messages"), f"{key}.messages"
    if not isinstance(value, list):
        raise InputError("a conversation must be a list of messages", key=key)
    if not value:
        raise InputError("a conversation needs at least one message", key=key)
    return value, key


def parse_message(raw: Any, at: str, calls: Calls) -> Message:
    if not isinstance(raw, dict):
        raise InputError("a message must be an object with a `role`", key=at)
    role = message_role(raw.get("role"), at)
    given = {str(k): v for k, v in raw.items() if v is not None and (k, v) != ("tool_calls", [])}
    check_role_keys(role, given, at)
    check_content(role, given, at)
    for name in ("name", *REASONING_KEYS):
        if name in given and not isinstance(given[name], str):
            raise InputError(f"`{name}` must be a string", key=f"{at}.{name}")
    if "tool_calls" in given:
        check_tool_calls(given["tool_calls"], f"{at}.tool_calls", calls)
    if role == "tool":
        check_answer(given.get("tool_call_id"), f"{at}.tool_call_id", calls)
    return Message.model_validate(raw)


def message_role(value: Any, at: str) -> str:
    if value is None:
        raise InputError("missing `role`", key=f"{at}.role")
    if not isinstance(value, str):
        raise InputError(f"`role` must be one of: {', '.join(ROLES)}", key=f"{at}.role")
    if value not in ROLES:
        raise InputError(unknown_name_message("role", value, ROLES), key=f"{at}.role")
    return value


def check_role_keys(role: str, given: dict[str, Any], at: str) -> None:
    """Reasoning and tool calls belong to assistant messages, `tool_call_id` to tool ones."""
    if role != "assistant":
        for name in (*REASONING_KEYS, "tool_calls"):
            if name in given:
                raise InputError(
                    f"a {role} message cannot have `{name}` (only an assistant message can)",
                    key=f"{at}.{name}",
                )
    if role != "tool" and "tool_call_id" in given:
        raise InputError(
            f"a {role} message cannot have `tool_call_id` (only a tool message answers a call)",
            key=f"{at}.tool_call_id",
        )
    reasoning = [name for name in REASONING_KEYS if name in given]
    if len(reasoning) > 1:
        raise InputError(
            f"give one of `{reasoning[0]}` and `{reasoning[1]}`, not both",
            key=f"{at}.{reasoning[1]}",
        )


def check_content(role: str, given: dict[str, Any], at: str) -> None:
    """A string, null or a list of parts. Only an assistant message may go without content,
    and then it says something else: reasoning, tool calls or a refusal."""
    content = given.get("content")
    if content is None:
        if role != "assistant":
            raise InputError(f"a {role} message needs `content`", key=f"{at}.content")
        if not any(k in given for k in (*REASONING_KEYS, "tool_calls", "refusal")):
            raise InputError(
                "an assistant message needs `content`, reasoning or `tool_calls`",
                key=f"{at}.content",
            )
        return
    if isinstance(content, list):
        for position, part in enumerate(content):
            check_part(part, f"{at}.content[{position}]")
        return
    if not isinstance(content, str):
        raise InputError("`content` must be a string, null or a list of parts", key=f"{at}.content")


def check_part(part: Any, at: str) -> None:
    if not isinstance(part, dict):
        raise InputError("a content part must be an object with a `type`", key=at)
    kind = part.get("type")
    if not isinstance(kind, str):
        raise InputError("a content part needs a `type` string", key=f"{at}.type")
    if kind not in PART_TYPES:
        raise InputError(unknown_name_message("part type", kind, PART_TYPES), key=f"{at}.type")
    text_key = TEXT_PARTS.get(kind)
    if text_key is not None and not isinstance(part.get(text_key), str):
        raise InputError(f"a {kind} part needs a `{text_key}` string", key=f"{at}.{text_key}")


def check_tool_calls(value: Any, at: str, calls: Calls) -> None:
    if not isinstance(value, list):
        raise InputError("`tool_calls` must be a list", key=at)
    for position, call in enumerate(value):
        call_at = f"{at}[{position}]"
        if not isinstance(call, dict):
            raise InputError("a tool call must be an object", key=call_at)
        call_id = non_empty_string(call.get("id"), f"{call_at}.id", "a tool call needs an `id`")
        kind = call.get("type", "function")
        if kind != "function":
            raise InputError(
                f"tool call type {kind!r} is not supported (only `function`)",
                key=f"{call_at}.type",
            )
        check_function(call.get("function"), f"{call_at}.function")
        if call_id in calls.made:
            raise InputError(
                f"tool call id {call_id!r} is used twice (first at {calls.made[call_id]})",
                key=f"{call_at}.id",
            )
        calls.made[call_id] = call_at


def check_function(value: Any, at: str) -> None:
    if not isinstance(value, dict):
        raise InputError("a tool call needs a `function` object", key=at)
    non_empty_string(value.get("name"), f"{at}.name", "a function call needs a `name`")
    arguments = value.get("arguments")
    if arguments is not None and not isinstance(arguments, str | dict | list):
        raise InputError("`arguments` must be JSON text (or an object)", key=f"{at}.arguments")


def check_answer(value: Any, at: str, calls: Calls) -> None:
    """A tool message answers one earlier call, once."""
    call_id = non_empty_string(
        value, at, "a tool message needs `tool_call_id`: the id of the call it answers"
    )
    if call_id not in calls.made:
        known = ", ".join(repr(k) for k in calls.made) or "none"
        raise InputError(
            f"tool_call_id {call_id!r} answers no earlier tool call (calls so far: {known})",
            key=at,
        )
    if call_id in calls.answered:
        raise InputError(
            f"tool call {call_id!r} was already answered at {calls.answered[call_id]}", key=at
        )
    calls.answered[call_id] = at.removesuffix(".tool_call_id")


def non_empty_string(value: Any, at: str, missing: str) -> str:
    if value is None:
        raise InputError(missing, key=at)
    if not isinstance(value, str) or not value.strip():
        raise InputError("must be a non-empty string", key=at)
    return value


def require_assistant(messages: list[Message], key: str = "submission") -> None:
    """A `final_turn` criterion grades the last assistant message: there must be one."""
    if not any(m.role == "assistant" for m in messages):
        raise InputError(
            "the conversation has no assistant message, and a criterion with "
            "`scope: final_turn` grades the last one",
            key=key,
        )
