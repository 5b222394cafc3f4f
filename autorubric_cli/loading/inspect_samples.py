"""An Inspect AI sample as one of our records (docs/reference/dataset-files.md, "Inspect AI
logs"): `id` is the sample id, with `#<epoch>` when the log ran several epochs; `submission` the
sample's messages in the chat format; `query` its input when that is a string;
`reference_submission` its target (a list of targets, one per line); `metadata` the sample's
metadata plus `task`, `model`, `sample_id` and `epoch` from the log.

Inspect's messages become chat messages: text parts stay parts, reasoning parts become the
assistant's `reasoning`, media parts are kept as markers, a tool call's arguments become JSON
text, a tool error is appended to the tool's result. Large texts that Inspect stored once under
`attachments` are put back in place. Anything malformed is left for the conversation rules to
refuse with its key path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from autorubric_cli.loading.where import Where

MEDIA = ("image", "audio", "video", "document")
EPOCH_MEMBER = re.compile(r"_epoch_(\d+)\.json$")
ATTACHMENT = "attachment://"
ATTACHMENT_DEPTH = 8  # sample > messages > message > content > part > text, with room to spare
SAMPLE_KEYS = ("id", "epoch", "input", "target", "messages", "metadata", "error")


@dataclass(frozen=True)
class LogInfo:
    task: str | None
    model: str | None
    several_epochs: bool

    @classmethod
    def from_eval(cls, spec: Any, epochs_seen: Iterable[int]) -> LogInfo:
        """From the log's `eval` object; `epochs_seen`: the epochs its samples name."""
        spec = spec if isinstance(spec, dict) else {}
        config = spec.get("config") if isinstance(spec.get("config"), dict) else {}
        epochs = config.get("epochs") if isinstance(config, dict) else None
        configured = isinstance(epochs, int) and not isinstance(epochs, bool) and epochs > 1
        return cls(
            task=text_or_none(spec.get("task")),
            model=text_or_none(spec.get("model")),
            several_epochs=configured or any(e != 1 for e in epochs_seen),
        )


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def member_epochs(names: Iterable[str]) -> list[int]:
    """The epochs named by `.eval` sample members (`samples/<id>_epoch_<n>.json`)."""
    return [int(m.group(1)) for n in names if (m := EPOCH_MEMBER.search(n))]


def sample_epochs(samples: list[Any]) -> list[int]:
    return [e for s in samples if isinstance(s, dict) and isinstance(e := s.get("epoch"), int)]


def sample_record(sample: Any, info: LogInfo, where: Where) -> dict[str, Any]:
    if not isinstance(sample, dict):
        raise where.error("an Inspect sample must be a JSON object")
    attachments = sample.get("attachments")
    taken = {k: sample.get(k) for k in SAMPLE_KEYS}
    sample = resolved(taken, attachments if isinstance(attachments, dict) else {})
    sample_id, epoch = sample.get("id"), sample.get("epoch") or 1
    if isinstance(sample_id, bool) or not isinstance(sample_id, str | int):
        raise where.error("the sample has no id (a string or a number)", key="id")
    if isinstance(epoch, bool) or not isinstance(epoch, int):
        raise where.error("the sample's epoch must be a number", key="epoch")
    messages = sample.get("messages")
    metadata = sample.get("metadata") if isinstance(sample.get("metadata"), dict) else {}
    error = sample.get("error")
    extra = {"task": info.task, "model": info.model, "sample_id": sample_id, "epoch": epoch}
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        extra["sample_error"] = error["message"]
    query = sample.get("input")
    return {
        "id": f"{sample_id}#{epoch}" if info.several_epochs else str(sample_id),
        "submission": [chat_message(m) for m in messages] if isinstance(messages, list) else [],
        "query": query if isinstance(query, str) else None,
        "reference_submission": target_text(sample.get("target")),
        "metadata": {**metadata, **extra},
    }


def resolved(value: Any, attachments: dict[str, Any], depth: int = 0) -> Any:
    """`attachment://<hash>` texts replaced by the text Inspect stored under that hash (down to
    the depth of a message's content parts; what is deeper is left as it is)."""
    if isinstance(value, str) and value.startswith(ATTACHMENT):
        found = attachments.get(value[len(ATTACHMENT) :])
        return found if isinstance(found, str) else value
    if depth >= ATTACHMENT_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: resolved(v, attachments, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [resolved(v, attachments, depth + 1) for v in value]
    return value


def target_text(target: Any) -> str | None:
    if isinstance(target, list):
        target = "\n".join(t for t in target if isinstance(t, str))
    return target if isinstance(target, str) and target.strip() else None


def chat_message(message: Any) -> Any:
    """An Inspect chat message in the chat format; a malformed one is returned as it is."""
    if not isinstance(message, dict):
        return message
    role = message.get("role")
    content, reasoning = split_content(message.get("content"), role == "assistant")
    out: dict[str, Any] = {"role": role, "content": content}
    if reasoning is not None:
        out["reasoning"] = reasoning
    calls = message.get("tool_calls")
    if role == "assistant" and calls:
        out["tool_calls"] = [tool_call(c) for c in calls] if isinstance(calls, list) else calls
    if role == "tool":
        out["tool_call_id"] = message.get("tool_call_id")
        out["content"] = with_tool_error(content, message.get("error"))
    return out


def split_content(content: Any, assistant: bool) -> tuple[Any, str | None]:
    """(content parts, the assistant's reasoning or None)."""
    if not isinstance(content, list):
        return content, None
    parts: list[Any] = []
    reasoning: list[str] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "reasoning" and assistant:
            reasoning.append(reasoning_of(part))
        elif kind == "text" or kind in MEDIA or not isinstance(part, dict):
            parts.append(part if kind != "text" else {"type": "text", "text": part.get("text")})
        else:
            parts.append({"type": "text", "text": f"[{kind}]"})
    return parts, ("\n".join(reasoning) if reasoning else None)


def reasoning_of(part: dict[str, Any]) -> str:
    """A reasoning part's text; a redacted one shows its summary, or says it is redacted."""
    if part.get("redacted"):
        summary = part.get("summary")
        return summary if isinstance(summary, str) else "[redacted reasoning]"
    text = part.get("reasoning")
    return text if isinstance(text, str) else ""


def tool_call(call: Any) -> Any:
    if not isinstance(call, dict):
        return call
    arguments = call.get("arguments")
    if not isinstance(arguments, str) and arguments is not None:
        arguments = orjson.dumps(arguments).decode()
    function = {"name": call.get("function"), "arguments": arguments}
    return {"id": call.get("id"), "type": "function", "function": function}


def with_tool_error(content: Any, error: Any) -> Any:
    """A tool's error (`{type, message}`) appended to its result, so a judge sees it."""
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return content
    note = {"type": "text", "text": f"[tool error: {error['message']}]"}
    if isinstance(content, list):
        return [*content, note]
    if isinstance(content, str) and content:
        return [{"type": "text", "text": content}, note]
    return [note]
