"""The OpenAI-shaped faults on BOTH transports (native and litellm), through the whole judge
layer: the same categories, retries, waits, breaker trips and error votes."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.breaker import JudgeUnavailable
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.replies import response_format
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.transports.direct import close_clients, direct_transport
from tests.support import TEST_KEY_ENV, closed_port, http_judge, make_item, make_rubric
from tests.support.judge_server import Fault, JudgeServer, completion_body, default_answer

FAST = RetryPolicy(base_s=0.01, cap_s=0.05, retry_after_cap_s=5.0)
TRANSPORTS = ["native", "litellm"]
MESSAGES = [{"role": "user", "content": "Is 270 Wh/kg right?"}]


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def grade_once(
    api_base: str, transport: str, judge: dict[str, Any] | None = None, **grader: Any
) -> tuple[ItemRecord, CriterionGrader]:
    spec = {"transport": transport, **(judge or {})}
    rubric = make_rubric([http_judge(api_base, **spec)], **grader)
    engine = CriterionGrader(rubric, seed=7, retry=FAST)
    try:
        return await engine.grade(make_item()), engine
    finally:
        await engine.aclose()


def only_vote(record: ItemRecord):  # type: ignore[no-untyped-def]
    (criterion,) = record.criteria
    (vote,) = criterion.votes
    return vote


# -- a tiny server for what JudgeServer does not script: garbled 200s, dying connections ------

Handler = Callable[[web.Request, int], Awaitable[web.StreamResponse]]


@pytest.fixture
async def odd_server() -> AsyncIterator[Callable[[Handler], Awaitable[str]]]:
    runners: list[web.AppRunner] = []

    async def start(handler: Handler) -> str:
        count = 0

        async def handle(request: web.Request) -> web.StreamResponse:
            nonlocal count
            count += 1
            return await handler(request, count)

        app = web.Application()
        app.router.add_post("/v1/chat/completions", handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        return f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1"  # type: ignore[union-attr]

    yield start
    for runner in runners:
        await runner.cleanup()


async def good_reply(request: web.Request) -> web.Response:
    body = await request.json()
    return web.json_response(completion_body(body["model"], [default_answer(body)], 10, None))


async def garbled_once(request: web.Request, count: int) -> web.StreamResponse:
    if count == 1:
        return web.Response(text="<html>upstream hiccup</html>", content_type="text/html")
    return await good_reply(request)


async def dies_once(request: web.Request, count: int) -> web.StreamResponse:
    if count == 1:
        assert request.transport is not None
        request.transport.close()  # the connection drops before any reply
        await asyncio.sleep(0.05)
    return await good_reply(request)


async def limited_in_ms(request: web.Request, count: int) -> web.StreamResponse:
    headers = {"retry-after-ms": "250"}
    return web.json_response({"error": {"message": "slow down"}}, status=429, headers=headers)


# -- one failed call, classified ---------------------------------------------------------------


async def failure_of(api_base: str, transport: str) -> JudgeFailure:
    spec = JudgeSpec(
        model="openai/probe", api_base=api_base, api_key_env=TEST_KEY_ENV, transport=transport
    )
    caller = direct_transport(spec, 5.0)
    try:
        with pytest.raises(JudgeFailure) as caught:
            await caller.complete(Call(MESSAGES, response_format(None, "forced_choice"), None))  # type: ignore[arg-type]
    finally:
        await caller.aclose()
        await close_clients()
    return caught.value


EXPECTED = {  # (category, retryable, hopeless, retry_after)
    "rate_limit": ("rate_limit", True, False, 1.0),
    "server_error": ("server", True, False, None),
    "bad_request": ("request", False, True, None),
    "not_found": ("request", False, True, None),
    "refused": ("connection", True, True, None),
    "unknown_host": ("connection", True, True, None),
    "garbled": ("server", True, False, None),
    "retry_after_ms": ("rate_limit", True, False, 0.25),
}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
async def test_one_failed_call_is_classified_alike(
    judge_server_factory: Callable[..., JudgeServer],
    odd_server: Callable[[Handler], Awaitable[str]],
    judge_api_key: str,
    transport: str,
    kind: str,
) -> None:
    if kind == "refused":
        api_base = f"http://127.0.0.1:{closed_port()}/v1"
    elif kind == "unknown_host":
        api_base = "http://no-such-host.invalid/v1"
    elif kind == "garbled":
        api_base = await odd_server(lambda r, n: garbled_once(r, 1))
    elif kind == "retry_after_ms":
        api_base = await odd_server(limited_in_ms)
    else:
        api_base = judge_server_factory(fault_rate=1.0, fault_kinds=[kind]).api_base
    failure = await failure_of(api_base, transport)
    got = (failure.category, failure.retryable, failure.hopeless, failure.retry_after)
    assert got == EXPECTED[kind]
    if kind == "refused":
        assert failure.detail == f"connection refused to {api_base}"
    if kind == "unknown_host":
        assert failure.detail == f"unknown host to {api_base}"
    if kind in ("rate_limit", "not_found", "bad_request", "server_error"):
        status = {"rate_limit": 429, "not_found": 404, "bad_request": 400, "server_error": 500}
        assert failure.detail.startswith(f"HTTP {status[kind]}: ")


# -- whole votes -------------------------------------------------------------------------------


async def test_a_clean_call_gives_the_same_vote(
    judge_server: JudgeServer, judge_api_key: str, transport: str
) -> None:
    record, engine = await grade_once(judge_server.api_base, transport)
    vote = only_vote(record)
    assert judge_server.request_count == 1 and vote.error is None and vote.attempts == 1
    assert vote.usage == judge_server.requests[0].usage
    assert engine.stats.calls_started == 1 and engine.stats.in_flight == 0


async def test_retry_after_is_waited_for(
    judge_server: JudgeServer, judge_api_key: str, transport: str
) -> None:
    judge_server.script(Fault("rate_limit", retry_after=1))
    record, engine = await grade_once(judge_server.api_base, transport)
    assert judge_server.request_count == 2 and only_vote(record).attempts == 2
    first, second = judge_server.requests
    assert second.received_at - first.received_at >= 1.0
    assert engine.stats.retries == 1


@pytest.mark.parametrize(
    ("faults", "requests", "error"),
    [
        (["server_error"], 2, None),
        (["malformed"], 2, None),
        (["hang"], 2, None),
        (["bad_request"], 1, "request: HTTP 400"),
        (["server_error"] * 3, 3, "server: HTTP 500"),
        (["rate_limit"] * 3, 3, "rate_limit: HTTP 429"),
    ],
)
async def test_faults_end_in_the_same_vote(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    transport: str,
    faults: list[str],
    requests: int,
    error: str | None,
) -> None:
    server = judge_server_factory(retry_after=0, hang_s=10)
    server.script(*faults)  # type: ignore[arg-type]
    # Only the hang needs a short timeout; elsewhere a short one lets a loaded machine time an
    # attempt out before it reaches the server (seen at load 11: 2 requests for 3 attempts).
    timeout = 1.0 if "hang" in faults else 30.0
    record, _ = await grade_once(server.api_base, transport, max_attempts=3, timeout=timeout)
    vote = only_vote(record)
    assert server.request_count == requests and vote.attempts == requests
    if error is None:
        assert vote.error is None and vote.verdict is not None
    else:
        assert (vote.error or "").startswith(error) and record.status == "error"


@pytest.mark.parametrize("handler", [garbled_once, dies_once])
async def test_a_garbled_body_or_a_dropped_connection_is_retried(
    odd_server: Callable[[Handler], Awaitable[str]],
    judge_api_key: str,
    transport: str,
    handler: Handler,
) -> None:
    api_base = await odd_server(handler)
    record, engine = await grade_once(api_base, transport)
    vote = only_vote(record)
    assert vote.error is None and vote.attempts == 2 and engine.stats.retries == 1


async def test_unauthorized_stops_and_never_shows_the_key(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str, transport: str
) -> None:
    server = judge_server_factory(echo_key=True)
    server.script("unauthorized")
    with pytest.raises(JudgeAuthError) as caught:
        await grade_once(server.api_base, transport, {"id": "gpt-judge"})
    text = "".join(traceback.format_exception(caught.value))
    assert server.request_count == 1
    assert "'gpt-judge'" in str(caught.value) and "401" in str(caught.value)
    assert judge_api_key not in text


@pytest.mark.parametrize("where", ["not_found", "refused"])
async def test_a_broken_judge_trips_the_breaker_alike(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    transport: str,
    where: str,
) -> None:
    server = judge_server_factory(fault_rate=1.0, fault_kinds=["not_found"])
    api_base = server.api_base if where == "not_found" else f"http://127.0.0.1:{closed_port()}/v1"
    judge = {"samples": 10, "max_concurrency": 1, "sample_request": "separate"}
    with pytest.raises(JudgeUnavailable) as caught:
        await grade_once(api_base, transport, judge, breaker={"consecutive_failures": 3})
    expected = "HTTP 404" if where == "not_found" else f"connection refused to {api_base}"
    assert expected in str(caught.value) and "(3 calls in a row)" in str(caught.value)
    if where == "not_found":
        assert server.request_count == 3


@pytest.mark.parametrize(
    "error",
    [
        aiohttp.ClientOSError(104, "Connection reset by peer"),
        aiohttp.ClientOSError(None, "Can not write request body"),
        aiohttp.ServerDisconnectedError(),
    ],
)
async def test_a_broken_connection_is_retryable_on_native(
    judge_api_key: str, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    """Seen when a server dies mid-run: a reset must be retried (as litellm's
    APIConnectionError is), never an immediate error vote that would be recorded."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(aiohttp.ClientSession, "post", broken)
    failure = await failure_of("http://127.0.0.1:9/v1", "native")
    assert (failure.category, failure.retryable, failure.hopeless) == ("connection", True, False)
