"""How the fakes read a per-criterion call that uses the shared reply schema, or none at all.

A per-criterion call to a provider whose prompt cache covers the schema sends one schema
admitting every criterion kind (`replies.shared_response_format`); a call in the `prompt`
dialect sends no schema. Either way the prompt's last line names the fields to fill ("Fill
criterion_status and selected_options; ..."), and a multi-choice prompt numbers its options. A
fake answers like a model that reads them: `asked_properties` turns the shared schema (or no
schema) into the properties this call asks for, bounded by the options shown, the shape the
fakes' answerers already understand.
"""

from __future__ import annotations

import re
from typing import Any

FILL_LINE = re.compile(r"Fill ([a-z_]+(?: and [a-z_]+)*); set the other fields to null\.")
OPTIONS_BLOCK = re.compile(r"<options>\n(.*?)\n</options>", re.DOTALL)
SHARED_FIELDS = ("criterion_status", "selected_option", "selected_options")


def admits_null(schema: dict[str, Any]) -> bool:
    """An `anyOf` alternative, a `type` list or an `enum` admits null."""
    alternatives = schema.get("anyOf") or ()
    return (
        any(a.get("type") == "null" for a in alternatives)
        or "null" in (schema.get("type") or ())
        or None in (schema.get("enum") or ())
    )


def is_shared(properties: dict[str, Any]) -> bool:
    """The shared schema (every reply field present, each admitting null), or no schema."""
    return not properties or all(admits_null(properties.get(f) or {}) for f in SHARED_FIELDS)


def prompt_text(body: dict[str, Any]) -> str:
    """Every message's text (litellm sends the system prompt as a user message to some
    models, so the prompt is found by its content, not its place)."""
    texts = []
    for message in body.get("messages") or []:
        content = message.get("content", "")
        if isinstance(content, list):  # content blocks (cache marks): the text parts
            content = "".join(str(part.get("text", "")) for part in content)
        texts.append(str(content))
    return "\n".join(texts)


NUMBERED = re.compile(r"^\d+\. ", re.MULTILINE)


def shown_option_count(text: str) -> int | None:
    """Options shown: the numbered lines of the last options block (a description is an
    indented line under its option)."""
    found = OPTIONS_BLOCK.findall(text)
    return len(NUMBERED.findall(found[-1])) if found else None


def asked_properties(body: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    """The properties a shared-schema call asks for (others: as they are)."""
    if not is_shared(properties):
        return properties
    text = prompt_text(body)
    fill = FILL_LINE.findall(text)
    fields = fill[-1].split(" and ") if fill else ["criterion_status"]
    count = shown_option_count(text)
    asked: dict[str, Any] = {}
    for name in fields:
        if name == "criterion_status":
            asked[name] = {"type": "string", "enum": ["MET", "UNMET", "CANNOT_ASSESS"]}
        elif name == "selected_option":
            asked[name] = {"type": "integer", "minimum": 1, "maximum": count or 2}
        elif name == "selected_options":
            size = count or 2
            asked[name] = {"type": "array", "items": {"type": "integer", "maximum": size}}
    return asked
