"""A conversation as a judge reads it: a line saying how to read it, then one transcript
inside `<submission>`, in order, each turn a `<turn>` tag numbered from 1 with its role
(docs/guides/conversations.md shows one and says why this shape): thinking as `<thinking>`,
each tool call as `<tool_call id=... name=...>` holding its arguments, a tool turn naming the
call it `answers` and its `tool`, the last assistant turn `final="true"`. The transcript
depends on the conversation alone, never on the criterion, so it stays in the item's shared
prefix; what a `final_turn` criterion asks is said in its suffix (`scope_instruction`).
"""

from __future__ import annotations

from collections.abc import Sequence

from autorubric_cli.core.conversation import (
    Message,
    ToolCall,
    arguments_text,
    final_assistant_index,
    message_text,
    reasoning_text,
    shown_role,
    tool_names,
)
from autorubric_cli.judges.tags import block, neutralise, opening_tag

INTRO = (
    "{opening} Each <turn> has its number and "
    "role. In an assistant turn, <thinking> is the model's reasoning and <tool_call> a tool it "
    "called, with the arguments it passed; a tool turn is the result of the call it answers. "
    "{final}"
)
OPENING = "The submission is a conversation of {turns}, in order."
CONTEXT_OPENING = (
    "The conversation below has {turns}, in order. {context} the context that came before the "
    "submission, shown to understand it and not graded; the submission to grade is {graded}."
)
"""The opening with an item's `context` (docs/reference/dataset-files.md)."""


def opening(count: int, context_turns: int) -> str:
    """What the transcript is; with a context, which turns are context and which are graded."""
    turns = f"{count} turn" if count == 1 else f"{count} turns"
    if not context_turns:
        return OPENING.format(turns=turns)
    first = context_turns + 1
    return CONTEXT_OPENING.format(
        turns=turns,
        context="Turn 1 is" if context_turns == 1 else f"Turns 1-{context_turns} are",
        graded=f"turn {count}" if first == count else f"turns {first}-{count}",
    )


def transcript_block(messages: Sequence[Message], context_turns: int = 0) -> str:
    """`context_turns`: how many turns at the head are an item's context (not graded)."""
    names = tool_names(messages)
    final = final_assistant_index(messages)
    turns = [
        turn_block(position + 1, message, names, position == final)
        for position, message in enumerate(messages)
    ]
    count = len(messages)
    intro = INTRO.format(
        opening=opening(count, context_turns),
        final=(
            "It has no assistant turn."
            if final is None
            else f'The final assistant turn is turn {final + 1}, marked final="true".'
        ),
    )
    body = "\n".join(turns)
    return f"{intro}\n<submission>\n<conversation>\n{body}\n</conversation>\n</submission>"


def turn_block(number: int, message: Message, names: dict[str, str], final: bool) -> str:
    attributes: dict[str, str | int] = {"n": number, "role": shown_role(message)}
    if message.name:
        attributes["name"] = message.name
    if message.role == "tool" and message.tool_call_id is not None:
        attributes["answers"] = message.tool_call_id
        attributes["tool"] = names.get(message.tool_call_id, "")
    if final:
        attributes["final"] = "true"
    parts = []
    reasoning = reasoning_text(message)
    if reasoning is not None and reasoning.strip():
        parts.append(block("thinking", reasoning))
    text = message_text(message)
    if text is not None and text.strip():
        parts.append(neutralise(text.strip()))
    parts.extend(tool_call_block(call) for call in message.tool_calls or ())
    body = "".join(f"{part}\n" for part in parts)
    return f"{opening_tag('turn', attributes)}\n{body}</turn>"


def tool_call_block(call: ToolCall) -> str:
    head = opening_tag("tool_call", {"id": call.id, "name": call.function.name})
    arguments = arguments_text(call).strip()
    body = f"{neutralise(arguments)}\n" if arguments else ""
    return f"{head}\n{body}</tool_call>"


def final_turn_number(messages: Sequence[Message] | None) -> int | None:
    """1-based number of the last assistant turn; None for a plain submission or none."""
    if messages is None:
        return None
    final = final_assistant_index(messages)
    return None if final is None else final + 1


def scope_instruction(messages: Sequence[Message] | None, scope: str) -> str | None:
    """What a `final_turn` criterion asks of a conversation; None when the criterion grades
    what the judge is shown anyway (the whole conversation, or a plain submission)."""
    number = final_turn_number(messages)
    if scope != "final_turn" or number is None:
        return None
    return (
        f"This criterion grades only the final assistant turn, turn {number}: apply it to "
        f"that turn alone. The turns before it are context for understanding it, not graded."
    )
