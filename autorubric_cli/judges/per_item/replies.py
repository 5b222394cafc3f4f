"""The reply of a per-item call (docs/guides/per-item.md): a JSON schema with one entry per
criterion asked, and its parsing into per-criterion answers.

Reply shape: `{"criteria": [{"criterion": "<name>", "explanation": ..., <answer fields>}, ...]}`.
Each entry's answer fields are exactly the per-criterion reply's (`replies.response_format`:
`criterion_status` / `selected_option` and, with response-set elicitation, `selected_options`),
so each entry is validated by the same `parse_answer` as a per-criterion reply.

The `criteria` array holds exactly as many entries as criteria asked (`minItems` = `maxItems`),
so a grammar-constrained decoder cannot repeat entries until it runs out of tokens.

A reply is usable when it is a JSON object with a `criteria` list and at least one asked
criterion has exactly one valid entry. A reply that is not complete JSON (cut off at its token
limit) keeps the complete entries at the head of its `criteria` array (`leading_entries`).
Entries that are missing, repeated or invalid are reported per criterion (`ItemReply.problems`)
and re-asked by the grader; entries naming a criterion that was not asked are ignored. A reply
with no usable entry at all is a retryable `parse` failure, re-asked like an unusable
per-criterion reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from autorubric_cli.core.rubric import Elicitation
from autorubric_cli.judges.per_item.asked import AskedCriterion
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.replies import (
    Answer,
    json_schema_format,
    json_text,
    parse_answer,
    parse_failure,
    response_format,
    strict_object,
)

ITEM_SCHEMA_NAME = "item_verdicts"
MISSING_ENTRY = "the reply has no entry for this criterion"


def entry_schema(name: str, option_count: int | None, elicitation: Elicitation) -> dict[str, Any]:
    """One criterion's entry: its name, then the per-criterion reply's fields."""
    base = response_format(option_count, elicitation)["json_schema"]["schema"]
    return strict_object({"criterion": {"type": "string", "enum": [name]}, **base["properties"]})


def item_response_format(asked: Sequence[AskedCriterion]) -> dict[str, Any]:
    """The `response_format` of a per-item call asking for `asked`, in that order."""
    entries = [entry_schema(a.name, a.option_count, a.elicitation) for a in asked]
    items = entries[0] if len(entries) == 1 else {"anyOf": entries}
    count = len(entries)
    array = {"type": "array", "items": items, "minItems": count, "maxItems": count}
    return json_schema_format(ITEM_SCHEMA_NAME, strict_object({"criteria": array}))


@dataclass(frozen=True)
class ItemReply:
    """The usable answers by criterion name, and why each other asked criterion has none."""

    answers: dict[str, Answer]
    problems: dict[str, str]


CRITERIA_ARRAY = re.compile(r'\{\s*"criteria"\s*:\s*\[')


def leading_entries(text: str) -> list[Any] | None:
    """The complete entries at the head of an unfinished `{"criteria": [...` reply; None when
    it has no such array."""
    start = CRITERIA_ARRAY.search(text)
    if start is None:
        return None
    decoder, position = json.JSONDecoder(), start.end()
    entries: list[Any] = []
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        try:
            entry, position = decoder.raw_decode(text, position)
        except ValueError:
            return entries
        entries.append(entry)


def entries_by_name(content: str | None, names: set[str]) -> dict[str, list[Any]]:
    """The reply's entries for the asked criteria; a parse failure when it has no list."""
    if not content or not content.strip():
        raise parse_failure("the reply was empty")
    text = json_text(content)
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        data = {"criteria": leading_entries(text)}
        if not data["criteria"]:
            raise parse_failure("the reply is not a JSON object") from None
    entries = data.get("criteria") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise parse_failure('the reply has no "criteria" list')
    found: dict[str, list[Any]] = {}
    for entry in entries:
        name = entry.get("criterion") if isinstance(entry, dict) else None
        if isinstance(name, str) and name.strip() in names:
            found.setdefault(name.strip(), []).append(entry)
    return found


def parse_item_reply(content: str | None, asked: Sequence[AskedCriterion]) -> ItemReply:
    """Split a reply into per-criterion answers; raises a retryable `parse` JudgeFailure when
    no asked criterion has a usable entry."""
    found = entries_by_name(content, {a.name for a in asked})
    answers: dict[str, Answer] = {}
    problems: dict[str, str] = {}
    for criterion in asked:
        entries = found.get(criterion.name, [])
        if not entries:
            problems[criterion.name] = MISSING_ENTRY
            continue
        if len(entries) > 1:
            problems[criterion.name] = f"the reply has {len(entries)} entries for this criterion"
            continue
        text = orjson.dumps(entries[0]).decode()
        try:
            answers[criterion.name] = parse_answer(
                text, criterion.option_count, criterion.elicitation
            )
        except JudgeFailure as failure:
            problems[criterion.name] = failure.detail
    if not answers:
        name, problem = next(iter(problems.items()))
        raise parse_failure(problem if len(asked) == 1 else f"no usable entry ({name}: {problem})")
    return ItemReply(answers, problems)
