"""The loopback judge server itself: deterministic answers, faults, accounting."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from tests.support.judge_server import JudgeServer, JudgeServerProcess, default_answer


def body(text: str, options: int | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": text}]}
    if options is not None:
        schema = {"properties": {"selected_option": {"type": "integer", "maximum": options}}}
        request["response_format"] = {"json_schema": {"schema": schema}}
    return request


async def post(url: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(url + "/chat/completions", json=payload) as response,
    ):
        return response.status, await response.json()


def test_default_answers_are_a_function_of_the_messages() -> None:
    answers = [json.loads(default_answer(body(f"item {i}"))) for i in range(200)]
    again = [json.loads(default_answer(body(f"item {i}"))) for i in range(200)]
    assert answers == again
    statuses = {a["criterion_status"] for a in answers}
    assert statuses == {"MET", "UNMET", "CANNOT_ASSESS"}
    options = {json.loads(default_answer(body(f"q {i}", 3)))["selected_option"] for i in range(60)}
    assert options == {1, 2, 3}


async def test_responses_carry_usage_and_paths(judge_server: JudgeServer) -> None:
    status, reply = await post(judge_server.api_base, body("one two three"))
    assert status == 200
    assert reply["usage"]["prompt_tokens"] == 3
    assert reply["usage"]["total_tokens"] == 3 + reply["usage"]["completion_tokens"]
    status, _ = await post(judge_server.url, body("bare path"))
    assert status == 200
    assert judge_server.request_count == 2
    assert judge_server.requests_mentioning("bare path")[0].messages[0]["content"] == "bare path"


async def test_rate_faults_do_not_depend_on_request_order(
    judge_server_factory: Any,
) -> None:
    options = {"fault_rate": 0.5, "fault_kinds": ["server_error"], "fault_seed": 3}
    first = judge_server_factory(**options)
    second = judge_server_factory(**options)
    texts = [f"request {i}" for i in range(40)]
    forward = [(await post(first.api_base, body(t)))[0] for t in texts]
    backward = [(await post(second.api_base, body(t)))[0] for t in reversed(texts)][::-1]
    assert forward == backward
    assert set(forward) == {200, 500}


async def test_script_is_consumed_in_order_and_tracks_in_flight(
    judge_server_factory: Any,
) -> None:
    server = judge_server_factory(latency=0.05)
    server.script("server_error", "bad_request")
    statuses = [(await post(server.api_base, body(f"s{i}")))[0] for i in range(3)]
    assert statuses == [500, 400, 200]
    await asyncio.gather(*(post(server.api_base, body(f"p{i}")) for i in range(5)))
    assert server.max_in_flight == 5


def test_server_runs_in_a_separate_process() -> None:
    with JudgeServerProcess(latency=0.0) as server:
        status, _ = asyncio.run(post(server.api_base, body("from the parent")))
    assert status == 200
    assert server.request_count == 1 and server.cpu_s > 0


def set_body(text: str, size: int, forced: str | None = None) -> dict[str, Any]:
    """A response-set request; `forced` adds `selected_option` ("multi") or a status."""
    properties: dict[str, Any] = {
        "selected_options": {"type": "array", "items": {"type": "integer", "maximum": size}}
    }
    if forced == "multi":
        properties["selected_option"] = {"type": "integer", "maximum": size}
    if forced == "binary":
        properties["criterion_status"] = {"type": "string"}
    request = body(text)
    request["response_format"] = {"json_schema": {"schema": {"properties": properties}}}
    return request


def test_default_response_sets_are_deterministic_non_empty_subsets() -> None:
    answers = [json.loads(default_answer(set_body(f"set {i}", 3))) for i in range(200)]
    assert answers == [json.loads(default_answer(set_body(f"set {i}", 3))) for i in range(200)]
    subsets = {tuple(a["selected_options"]) for a in answers}
    assert subsets == {(1,), (2,), (3,), (1, 2), (1, 3), (2, 3), (1, 2, 3)}
    assert all(set(a) == {"explanation", "selected_options"} for a in answers)


def test_default_response_sets_hold_the_forced_choice_when_both_are_asked() -> None:
    multi = [json.loads(default_answer(set_body(f"m {i}", 4, "multi"))) for i in range(100)]
    assert {a["selected_option"] for a in multi} == {1, 2, 3, 4}
    assert all(a["selected_option"] in a["selected_options"] for a in multi)
    binary = [json.loads(default_answer(set_body(f"b {i}", 2, "binary"))) for i in range(100)]
    assert {a["criterion_status"] for a in binary} == {"MET", "UNMET", "CANNOT_ASSESS"}
    for answer in binary:
        assert set(answer["selected_options"]) <= {1, 2} and answer["selected_options"]
        position = {"MET": 1, "UNMET": 2}.get(answer["criterion_status"])
        assert position is None or position in answer["selected_options"]


def test_forced_choice_default_answers_are_unchanged() -> None:
    """Pinned to what the server answered before response sets existed."""
    assert default_answer(body("pinned")) == (
        '{"explanation": "verdict by hash 941", "criterion_status": "UNMET"}'
    )
    assert default_answer(body("pinned", 4)) == (
        '{"explanation": "option by hash 941", "selected_option": 3}'
    )
