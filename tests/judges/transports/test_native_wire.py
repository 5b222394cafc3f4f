"""The native transport sends what litellm sends (judges/transports/native.py), captured on the
wire by one loopback server from both transports, and reads replies as litellm reads them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.policy.providers import Dialect
from autorubric_cli.judges.replies import response_format
from autorubric_cli.judges.request import Call, Completion
from autorubric_cli.judges.transports.litellm import LiteLLMTransport, close_clients
from autorubric_cli.judges.transports.native import NativeTransport
from autorubric_cli.judges.transports.worker_wire import Asking
from tests.support import TEST_KEY_ENV

MESSAGES = [
    {"role": "system", "content": "You grade answers."},
    {"role": "user", "content": "Is 270 Wh/kg right? «ünïcode» ✓"},
]
REPLY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "served-name",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": '{"explanation": "ok", "criterion_status": "MET"}',
                "reasoning_content": "weighed it",
            },
            "finish_reason": "stop",
        }
    ],
    "usage": {
        "prompt_tokens": 1200,
        "completion_tokens": 300,
        "total_tokens": 1500,
        "prompt_tokens_details": {"cached_tokens": 1024},
        "completion_tokens_details": {"reasoning_tokens": 200},
    },
}


class Capture:
    def __init__(self) -> None:
        self.seen: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.reply: dict[str, Any] = REPLY

    async def handle(self, request: web.Request) -> web.Response:
        self.seen.append((dict(request.headers), json.loads(await request.read())))
        return web.json_response(self.reply)


@pytest.fixture
async def capture() -> AsyncIterator[tuple[Capture, str]]:
    recorder = Capture()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", recorder.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield recorder, f"http://127.0.0.1:{port}/v1"
    await runner.cleanup()


async def both(
    spec: JudgeSpec, recorder: Capture, dialect: Dialect = "json_schema", reasks: int = 0
) -> list[tuple[Completion, dict, dict]]:
    """The completion, headers and body of one call through litellm, then one natively."""
    asking = Asking(tuple(range(spec.samples)))
    fmt = response_format(None, "forced_choice")
    call = Call(MESSAGES, fmt, asking, dialect, reasks)  # type: ignore[arg-type]
    out = []
    for transport in (LiteLLMTransport(spec, 5.0), NativeTransport(spec, 5.0)):
        completion = await transport.complete(call)
        headers, body = recorder.seen[-1]
        out.append((completion, headers, body))
        await transport.aclose()
    await close_clients()
    return out


SPECS: list[dict[str, Any]] = [
    {},
    {"temperature": None},
    {"temperature": 0.7, "max_tokens": 512},
    {"thinking": "low"},
    {"thinking": "high", "max_tokens": 64},
    {"params": {"seed": 3, "top_p": 0.5, "stop": ["\n\n"], "frequency_penalty": 0.2}},
    {"samples": 3},  # the call asks for its three samples' choices: `n`
    {"params": {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}}},
    {"params": {"presence_penalty": 0.1, "logprobs": True, "top_logprobs": 2}},
    {"params": {"extra_body": {"guided_decoding_backend": "xgrammar"}, "seed": 1}},
    {"params": {"extra_headers": {"X-Tenant": "eval"}}},
]


@pytest.mark.parametrize("prefix", ["openai/", "hosted_vllm/"])
@pytest.mark.parametrize("fields", SPECS)
async def test_the_native_body_equals_litellms(
    capture: tuple[Capture, str], judge_api_key: str, prefix: str, fields: dict[str, Any]
) -> None:
    recorder, api_base = capture
    spec = JudgeSpec(
        model=f"{prefix}my-local-model", api_base=api_base, api_key_env=TEST_KEY_ENV, **fields
    )
    (via_litellm, litellm_headers, litellm_body), (native, headers, body) = await both(
        spec, recorder
    )
    assert body == litellm_body
    assert list(body) == list(litellm_body)  # the same keys in the same order
    assert body.get("n") == (spec.samples if spec.samples > 1 else None)
    assert body["model"] == "my-local-model"
    assert headers["Authorization"] == litellm_headers["Authorization"]
    assert headers["Authorization"] == f"Bearer {judge_api_key}"
    if "extra_headers" in spec.params:
        assert headers["X-Tenant"] == litellm_headers["x-tenant"] == "eval"
    assert native.content == via_litellm.content
    assert native.reasoning == via_litellm.reasoning == "weighed it"
    assert native.usage == via_litellm.usage
    assert native.usage == {
        "prompt_tokens": 1200,
        "completion_tokens": 300,
        "cached_prompt_tokens": 1024,
    }
    assert native.cost == via_litellm.cost  # both None: litellm cannot price this name


async def test_a_priced_model_costs_what_litellm_says_to_the_last_bit(
    capture: tuple[Capture, str], judge_api_key: str
) -> None:
    recorder, api_base = capture
    spec = JudgeSpec(model="openai/gpt-4o-mini", api_base=api_base, api_key_env=TEST_KEY_ENV)
    (via_litellm, _, _), (native, _, _) = await both(spec, recorder)
    assert via_litellm.cost is not None and via_litellm.cost > 0
    assert native.cost == via_litellm.cost  # cached and reasoning tokens included


async def test_without_a_key_variable_both_send_litellms_default_key(
    capture: tuple[Capture, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, api_base = capture
    monkeypatch.delenv("HOSTED_VLLM_API_KEY", raising=False)
    spec = JudgeSpec(model="hosted_vllm/m", api_base=api_base)
    (_, litellm_headers, _), (_, headers, _) = await both(spec, recorder)
    assert headers["Authorization"] == litellm_headers["Authorization"]


@pytest.mark.parametrize("prefix", ["openai/", "hosted_vllm/"])
@pytest.mark.parametrize(
    ("dialect", "reasks"), [("json_object", 0), ("prompt", 0), ("json_schema", 2)]
)
async def test_each_dialect_and_a_reask_send_what_litellm_sends(
    capture: tuple[Capture, str], judge_api_key: str, prefix: str, dialect: Dialect, reasks: int
) -> None:
    """json_object carries the schema as llama.cpp's servers take it, prompt none at all; a
    re-ask raises the temperature: both transports put exactly that on the wire."""
    recorder, api_base = capture
    spec = JudgeSpec(model=f"{prefix}m", api_base=api_base, api_key_env=TEST_KEY_ENV)
    (_, _, litellm_body), (native, _, body) = await both(spec, recorder, dialect, reasks)
    assert body == litellm_body and list(body) == list(litellm_body)
    schema = response_format(None, "forced_choice")["json_schema"]["schema"]
    expected = {
        "json_schema": response_format(None, "forced_choice"),
        "json_object": {"type": "json_object", "schema": schema},
    }.get(dialect)
    assert body.get("response_format") == expected
    assert body["temperature"] == (0.6 if reasks == 2 else 0.0)
    assert native.truncated is False


async def test_both_read_a_reply_cut_off_at_max_tokens(
    capture: tuple[Capture, str], judge_api_key: str
) -> None:
    recorder, api_base = capture
    choice = {**REPLY["choices"][0], "finish_reason": "length"}
    choice["message"] = {"role": "assistant", "content": '{"explanation": "the sub'}
    recorder.reply = {**REPLY, "choices": [choice]}
    spec = JudgeSpec(model="openai/m", api_base=api_base, api_key_env=TEST_KEY_ENV, max_tokens=8)
    (via_litellm, _, _), (native, _, _) = await both(spec, recorder)
    assert via_litellm.truncated is native.truncated is True
    assert native.content == via_litellm.content == '{"explanation": "the sub'
