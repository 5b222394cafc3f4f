"""Reply schemas a grammar-constrained decoder can enforce as they stand (judges/replies.py,
judges/per_item/replies.py): no type unions anywhere; a call's own schema has only the fields it
asks for, each required and non-null, positions as an enum of the shown ones, sets and per-item
arrays bounded; the shared schema goes only to providers whose prompt cache covers the schema
(judges/prompt_caching.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.per_item.asked import AskedCriterion
from autorubric_cli.judges.per_item.replies import item_response_format
from autorubric_cli.judges.prompt_caching import shares_schema
from autorubric_cli.judges.replies import (
    criterion_response_format,
    response_format,
    shared_response_format,
)
from tests.support import http_judge, make_item, make_rubric
from tests.support.experiment.criteria import CORRECT, style, tone
from tests.support.judge_server import JudgeServer

ELICITATIONS = ("forced_choice", "response_set", "both")


def subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    """Every schema object nested in `schema` (properties, items, anyOf alternatives)."""
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from subschemas(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from subschemas(value)


def no_type_unions(schema: dict[str, Any]) -> None:
    for sub in subschemas(schema):
        assert not isinstance(sub.get("type"), list), sub  # llama.cpp ignores a type union


@pytest.mark.parametrize("elicitation", ELICITATIONS)
@pytest.mark.parametrize("options", [None, 2, 5])
def test_a_calls_own_schema_asks_only_for_its_fields_required_and_non_null(
    options: int | None, elicitation: str
) -> None:
    schema = response_format(options, elicitation)["json_schema"]["schema"]  # type: ignore[arg-type]
    no_type_unions(schema)
    assert all(sub.get("type") != "null" and "anyOf" not in sub for sub in subschemas(schema))
    assert schema["required"] == list(schema["properties"])
    properties = schema["properties"]
    shown = list(range(1, (options or 2) + 1))
    if elicitation != "response_set":
        choice = "criterion_status" if options is None else "selected_option"
        assert set(properties) == {"explanation", choice} | (
            {"selected_options"} if elicitation == "both" else set()
        )
    if options is not None and elicitation != "response_set":
        assert properties["selected_option"] == {"type": "integer", "enum": shown}
    if elicitation != "forced_choice":
        wanted = properties["selected_options"]
        assert wanted["items"] == {"type": "integer", "enum": shown}
        assert (wanted["minItems"], wanted["maxItems"]) == (1, len(shown))


def test_the_shared_schema_makes_unasked_fields_nullable_by_any_of() -> None:
    schema = shared_response_format()["json_schema"]["schema"]
    no_type_unions(schema)
    for name in ("criterion_status", "selected_option", "selected_options"):
        alternatives = schema["properties"][name]["anyOf"]
        assert {"type": "null"} in alternatives and len(alternatives) == 2
    assert schema["required"] == list(schema["properties"])


def asked(name: str, options: int | None, elicitation: str = "forced_choice") -> AskedCriterion:
    option_list = (
        None if options is None else [{"label": f"o{i}", "value": i / 4} for i in range(options)]
    )
    criterion = Criterion.model_validate(
        {"name": name, "requirement": "r", "options": option_list, "elicitation": elicitation}
    )
    order = None if options is None else list(range(options))
    return AskedCriterion(criterion=criterion, shuffle_order=order)


@pytest.mark.parametrize("count", [1, 3])
def test_a_per_item_reply_holds_exactly_one_entry_per_criterion_asked(count: int) -> None:
    criteria = [asked("a", None), asked("b", 4, "both"), asked("c", 3)][:count]
    schema = item_response_format(criteria)["json_schema"]["schema"]
    no_type_unions(schema)
    array = schema["properties"]["criteria"]
    assert (array["minItems"], array["maxItems"]) == (count, count)
    entries = array["items"]["anyOf"] if count > 1 else [array["items"]]
    assert [e["properties"]["criterion"]["enum"] for e in entries] == [[c.name] for c in criteria]
    for entry in entries:
        assert all(sub.get("type") != "null" for sub in subschemas(entry))
        assert entry["required"] == list(entry["properties"])


@pytest.mark.parametrize(
    ("judge", "shared"),
    [
        ({"model": "openai/gpt-4.1-mini"}, True),  # OpenAI counts the schema in its cached prefix
        ({"model": "gpt-4o-mini"}, True),
        ({"model": "openai/gpt-4.1-mini", "api_base": "http://gateway:4000/v1"}, True),
        ({"model": "azure/my-gpt-4o", "api_base": "https://r.openai.azure.com"}, True),
        ({"model": "anthropic/claude-sonnet-4-5"}, True),  # a changed schema invalidates
        ({"model": "gemini/gemini-2.5-flash"}, True),
        ({"model": "openai/gpt-4.1-mini", "prompt_caching": "off"}, False),
        ({"model": "openai/smollm2", "api_base": "http://127.0.0.1:8080/v1"}, False),
        ({"model": "hosted_vllm/Qwen/Qwen3-8B", "api_base": "http://127.0.0.1:8000/v1"}, False),
        ({"model": "ollama_chat/qwen3", "api_base": "http://127.0.0.1:11434"}, False),
        ({"model": "groq/llama-3.3-70b-versatile"}, False),
        ({"model": "bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0"}, False),
    ],
)
def test_only_providers_whose_prompt_cache_covers_the_schema_share_one(
    judge: dict[str, Any], shared: bool
) -> None:
    spec = JudgeSpec.model_validate(judge)
    assert shares_schema(spec) is shared
    sent = criterion_response_format(4, "forced_choice", shares_schema(spec))
    assert (sent == shared_response_format()) is shared
    assert (sent == response_format(4)) is not shared


@pytest.mark.parametrize(("model", "shared"), [("gpt-4.1-mini", True), ("local", False)])
async def test_on_the_wire_an_items_calls_share_the_schema_only_where_it_is_cached(
    judge_server: JudgeServer, judge_api_key: str, model: str, shared: bool
) -> None:
    criteria = [CORRECT, style(), {**tone(), "elicitation": "both"}]
    judge = http_judge(judge_server.api_base, model, transport="native")
    engine = CriterionGrader(make_rubric([judge], criteria), seed=3)
    try:
        record = await engine.grade(make_item())
    finally:
        await engine.aclose()
    assert all(v.error is None for c in record.criteria for v in c.votes)
    sent = [json.dumps(r.body["response_format"]) for r in judge_server.requests]
    assert len(sent) == len(criteria)
    if shared:  # byte-identical: the schema never breaks OpenAI's cached prefix
        assert set(sent) == {json.dumps(shared_response_format())}
    else:
        assert len(set(sent)) == len(criteria) and json.dumps(shared_response_format()) not in sent
