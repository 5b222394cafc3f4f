"""Answers: a deterministic function of the request content, or a scripted one.

The default answer hashes the messages, so a resumed run gets the same answers whatever the
request order. Binary, multi-choice, response-set (`selected_options`) and per-item
(docs/guides/per-item.md) schemas are all answered.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from tests.support.shared_reply import asked_properties

Answerer = Callable[[dict[str, Any]], str]
OPTION_LINE = re.compile(r"^(\d+)\. ", re.MULTILINE)


def content_hash(*parts: Any) -> int:
    data = json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


def reply_schema(body: dict[str, Any]) -> dict[str, Any]:
    """The schema a request asks for: `response_format.json_schema.schema` (the json_schema
    dialect), `response_format.schema` (json_object, as llama.cpp's servers take it); empty
    when it sends none (the prompt dialect)."""
    asked = body.get("response_format") or {}
    return (asked.get("json_schema") or {}).get("schema") or asked.get("schema") or {}


def schema_properties(body: dict[str, Any]) -> dict[str, Any]:
    """The reply properties asked for; a shared-schema (or schema-less) call's as its prompt
    names them."""
    return asked_properties(body, reply_schema(body).get("properties") or {})


def largest(schema: dict[str, Any]) -> int | None:
    """The largest integer a schema admits: its `maximum`, else the largest of its `enum`."""
    if isinstance(schema.get("maximum"), int):
        return int(schema["maximum"])
    numbers = [v for v in schema.get("enum") or () if isinstance(v, int)]
    return max(numbers) if numbers else None


def option_count(body: dict[str, Any]) -> int | None:
    """Options of a multi-choice request: the schema's largest position, else the numbered
    lines."""
    selected = schema_properties(body).get("selected_option")
    if selected is None:
        return None
    count = largest(selected)
    if count is not None:
        return count
    last = str(body["messages"][-1].get("content", ""))
    return len(OPTION_LINE.findall(last)) or 2


def set_size(body: dict[str, Any]) -> int | None:
    """Options a response set chooses from (`selected_options`): the items' largest, else
    `maxItems`, else 2; None when the schema asks for no set."""
    wanted = schema_properties(body).get("selected_options")
    if wanted is None:
        return None
    for size in (largest(wanted.get("items") or {}), wanted.get("maxItems")):
        if isinstance(size, int) and size > 0:
            return size
    return 2


def hash_subset(h: int, size: int, keep: int | None = None) -> list[int]:
    """A non-empty subset of 1..size from a hash, always holding `keep` when given."""
    mask = 1 + (h >> 16) % (2**size - 1)
    chosen = {p for p in range(1, size + 1) if mask >> (p - 1) & 1}
    if keep is not None:
        chosen.add(keep)
    return sorted(chosen)


def default_answer(body: dict[str, Any]) -> str:
    """A deterministic answer from the messages: MET 45%, UNMET 45%, CANNOT_ASSESS 10%.

    A response-set schema (`selected_options`) gets a non-empty subset by hash, beside the
    forced choice when the schema asks for one too (the set then holds that choice; a binary
    set, numbered 1. MET, 2. UNMET, holds the status unless it is CANNOT_ASSESS). A per-item
    request (docs/guides/per-item.md) gets one entry per criterion, each hashed from (messages,
    name).
    """
    if "preference" in schema_properties(body):  # a pairwise question (docs/guides/pairwise.md)
        return pair_answer(body)
    entries = item_entries(body)
    if entries is not None:
        return json.dumps(
            {
                "criteria": [
                    {"criterion": name, **hashed_answer(sub, content_hash(body["messages"], name))}
                    for name, sub in entries
                ]
            }
        )
    return json.dumps(hashed_answer(body, choice_hash(body)))


def choice_hash(body: dict[str, Any]) -> int:
    """The hash of a request's messages; a choice after the first (`n`) hashes its index too,
    so that a request's choices differ as independent samples do."""
    choice = body.get("choice", 0)
    messages = body.get("messages")
    return content_hash(messages, choice) if choice else content_hash(messages)


PREFERENCES = ("A", "B", "tie")


def pair_answer(body: dict[str, Any]) -> str:
    """A pairwise reply by hash of the messages: A, B or tie, each about a third."""
    choice = PREFERENCES[content_hash(body.get("messages")) % 3]
    return json.dumps({"explanation": f"prefers {choice} by hash", "preference": choice})


def first_shown(body: dict[str, Any]) -> str:
    """A judge with total position bias: it always prefers the response shown first."""
    return json.dumps({"explanation": "the first one", "preference": "A"})


def hashed_answer(body: dict[str, Any], h: int) -> dict[str, Any]:
    n = option_count(body)
    size = set_size(body)
    if size is not None:
        return response_set_answer(body, h, n, size)
    if n is not None:
        return {"explanation": f"option by hash {h % 997}", "selected_option": 1 + h % n}
    return {"explanation": f"verdict by hash {h % 997}", "criterion_status": status(h)}


# -- per-item requests (docs/guides/per-item.md)
# ------------------------------------------------------------

ITEM_SECTION = re.compile(
    r"^Criterion \d+ of \d+, named .*?\n<criterion>\n(.*?)\n</criterion>"
    r"(?:\n<options>\n(.*?)\n</options>)?",
    re.DOTALL | re.MULTILINE,
)
CRITERION_BLOCK = re.compile(r"<criterion>\n(.*?)\n</criterion>", re.DOTALL)
OPTIONS_BLOCK = re.compile(r"<options>\n(.*?)\n</options>", re.DOTALL)


def item_entries(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
    """A per-item request's (criterion name, sub-body with that entry's schema), in order;
    None for a per-criterion request."""
    wanted = schema_properties(body).get("criteria")
    if wanted is None:
        return None
    items = wanted.get("items") or {}
    schemas = items.get("anyOf") or [items]
    return [
        (
            schema["properties"]["criterion"]["enum"][0],
            {**body, "response_format": {"json_schema": {"schema": schema}}},
        )
        for schema in schemas
    ]


def first_user_text(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    return str(users[0].get("content", "")) if users else ""


def shown_options(block: str | None) -> list[str] | None:
    if block is None:
        return None
    return [line.split(". ", 1)[1] for line in block.split("\n") if OPTION_LINE.match(line)]


def asked_criteria(body: dict[str, Any]) -> list[tuple[str, str, list[str] | None]]:
    """(name or "", requirement, shown option labels or None) of every criterion asked."""
    text = first_user_text(body)
    entries = item_entries(body)
    if entries is None:
        requirement = CRITERION_BLOCK.findall(text)
        options = OPTIONS_BLOCK.findall(text)
        return [
            (
                "",
                requirement[-1] if requirement else "",
                shown_options(options[-1] if options else None),
            )
        ]
    sections = ITEM_SECTION.findall(text)
    return [
        (name, requirement, shown_options(block or None))
        for (name, _), (requirement, block) in zip(entries, sections, strict=True)
    ]


LabelFor = Callable[[str, str, str], "str | None"]


def scripted_fields(
    body: dict[str, Any], label: str, shown: list[str] | None, explanation: str
) -> dict[str, Any]:
    """The reply fields for a scripted label (a status or an option label, as shown)."""
    answer: dict[str, Any] = {"explanation": explanation}
    properties = schema_properties(body)
    if shown is None:
        positions = {"MET": [1], "UNMET": [2]}.get(label, [1, 2])
        if "criterion_status" in properties or "selected_options" not in properties:
            answer["criterion_status"] = label
    else:
        positions = [shown.index(label) + 1]
        if "selected_option" in properties or "selected_options" not in properties:
            answer["selected_option"] = positions[0]
    if "selected_options" in properties:
        answer["selected_options"] = positions
    return answer


def scripted_answer(label_for: LabelFor) -> Answerer:
    """Answers both per-criterion and per-item requests with the same per-criterion labels:
    `label_for(model, prompt text, requirement)` gives a status or an option label (None: the
    default hashed answer). The explanation depends only on (requirement, label), so records
    of both modes are identical."""

    def answer(body: dict[str, Any]) -> str:
        text = first_user_text(body)
        entries = item_entries(body) or [("", body)]
        replies = []
        for (name, sub), (_, requirement, shown) in zip(entries, asked_criteria(body), strict=True):
            label = label_for(str(body.get("model")), text, requirement)
            if label is None:
                fields = hashed_answer(sub, content_hash(body["messages"], name))
            else:
                fields = scripted_fields(sub, label, shown, f"scripted {label} for {requirement}")
            replies.append({"criterion": name, **fields} if name else fields)
        if item_entries(body) is None:
            return json.dumps(replies[0])
        return json.dumps({"criteria": replies})

    return answer


def scripted_verdicts(
    verdicts: Mapping[tuple[str, str], str], fallback: Answerer | None = None
) -> Answerer:
    """An answerer that scripts verdicts per item and criterion: a binary request whose messages
    hold both `token` (e.g. an item's marker in its submission) and `requirement` gets
    `verdicts[(token, requirement)]` (MET, UNMET or CANNOT_ASSESS); every other request is
    answered by `fallback` (default: `default_answer`). Assign it to `server.answer` between runs.
    """
    otherwise = fallback or default_answer

    def answer(body: dict[str, Any]) -> str:
        if "criterion_status" in schema_properties(body) and set_size(body) is None:
            text = "\n".join(str(m.get("content", "")) for m in body.get("messages") or [])
            for (token, requirement), verdict in verdicts.items():
                if token in text and requirement in text:
                    return json.dumps({"explanation": "scripted", "criterion_status": verdict})
        return otherwise(body)

    return answer


def status(h: int) -> str:
    bucket = h % 20
    return "MET" if bucket < 9 else "UNMET" if bucket < 18 else "CANNOT_ASSESS"


def response_set_answer(body: dict[str, Any], h: int, n: int | None, size: int) -> dict[str, Any]:
    answer: dict[str, Any] = {"explanation": f"set by hash {h % 997}"}
    keep = None
    if n is not None:
        keep = answer["selected_option"] = 1 + h % n
    elif "criterion_status" in schema_properties(body):
        answer["criterion_status"] = status(h)
        keep = {"MET": 1, "UNMET": 2}.get(answer["criterion_status"])
    answer["selected_options"] = hash_subset(h, size, keep)
    return answer


def out_of_range_answer(body: dict[str, Any], content: str) -> str:
    """`selected_option` 99; for a response-set schema, the usual answer with the set [99]."""
    if set_size(body) is None:
        return json.dumps({"explanation": "too far", "selected_option": 99})
    answer = json.loads(content)
    answer["selected_options"] = [99]
    return json.dumps(answer)
