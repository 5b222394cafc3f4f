"""The OpenAI chat-completions wire format over one shared aiohttp session per judge, no litellm.

For the judges `transports/choice.py` sends here (`hosted_vllm/` models, `openai/` models with
an `api_base`), the request body is the one litellm 1.106.2 sends for our call shape
(`body.wire_body`, with the model name without its prefix;
tests/judges/transports/test_native_wire.py captures both and compares them). aiohttp's
exceptions and the provider's error replies are read here into a `ProviderError` (the status
sent, the provider's message, its retry hint) and classified by the same `classify` as
litellm's; a 200 whose body is not a completion is a retryable `server` failure, as litellm
reports it. The cost is litellm's own price for the reply (`price_table.py`).

The session is created on the first call (it belongs to the running event loop), its
connection pool sized by the judge's `max_concurrency`, and closed by `aclose`.
"""

from __future__ import annotations

import os
from typing import Any

import aiohttp
import orjson

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.errors import InputError, JudgeError
from autorubric_cli.judges.policy.failures import ProviderError, classify, http_error
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.policy.timeouts import call_timeout, timed_out
from autorubric_cli.judges.price_table import native_cost, split_model
from autorubric_cli.judges.request import Call, Completion
from autorubric_cli.judges.transports.body import wire_body
from autorubric_cli.judges.transports.litellm import (
    api_key_for,
    count,
    reply_choices,
    usage_counts,
)
from autorubric_cli.judges.transports.litellm_errors import exception_chain, unreachable

# where litellm reads a key or a base URL the judge does not name (litellm 1.106.2)
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "hosted_vllm": "HOSTED_VLLM_API_KEY"}
DEFAULT_KEY = {"hosted_vllm": "fake-api-key"}
DEFAULT_BASE_ENV = {"hosted_vllm": "HOSTED_VLLM_API_BASE"}
PER_REQUEST_CODES = ("context_length_exceeded", "content_policy_violation", "content_filter")
USER_AGENT = "autorubric"


def api_base_of(spec: JudgeSpec) -> str | None:
    provider, _ = split_model(spec.model)
    base = spec.api_base or os.environ.get(DEFAULT_BASE_ENV.get(provider, ""), "") or None
    return base.rstrip("/") if base else None


def bearer_key(spec: JudgeSpec) -> str | None:
    """The key sent as `Authorization: Bearer`: the judge's variable (InputError when unset),
    else the variable litellm would read, else litellm's placeholder, else none."""
    if spec.api_key_env is not None:
        return api_key_for(spec)
    provider, _ = split_model(spec.model)
    return os.environ.get(DEFAULT_KEY_ENV.get(provider, "")) or DEFAULT_KEY.get(provider)


def completion_of(spec: JudgeSpec, raw: bytes) -> Completion:
    """The completion in a 200 reply; `Failed` (status 200) when the body is not one."""
    try:
        reply = orjson.loads(raw)
        reply["choices"][0]["message"].get("content")  # a completion has a message
        choices = reply_choices(reply["choices"])
        usage = reply.get("usage") or {}
        counts = usage_counts(usage)
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError, ValueError):
        raise Failed(
            ProviderError(200, "the reply is not a chat completion: " + garbled(raw))
        ) from None
    tier = reply.get("service_tier")
    cost = native_cost(spec.model, usage, tier)
    return Completion(
        content=choices[0].content,
        reasoning=choices[0].reasoning,
        choices=choices if len(choices) > 1 else (),
        usage=counts if usage else {},
        cost=cost,
        prompt_cache_saved=prompt_cache_saved(spec.model, usage, tier, cost),
        model=reply.get("model") if isinstance(reply.get("model"), str) else None,
        truncated=choices[0].truncated,
    )


def prompt_cache_saved(
    model: str, usage: dict[str, Any], tier: str | None, cost: float | None
) -> float | None:
    """What the call would have cost with no cached tokens, minus its cost (as the litellm
    transport records it); None when nothing was read from the cache or the model is unpriced."""
    details = usage.get("prompt_tokens_details") or {}
    if cost is None or not count(details.get("cached_tokens")):
        return None
    full = native_cost(model, {**usage, "prompt_tokens_details": {}}, tier)
    return None if full is None else full - cost


def garbled(raw: bytes) -> str:
    return raw[:200].decode("utf-8", "replace")


def status_error(status: int, raw: bytes, headers: Any) -> ProviderError:
    """The failure of a non-200 reply, with the provider's own message when it sent one."""
    message, code = garbled(raw), ""
    try:
        error = orjson.loads(raw).get("error")
    except (orjson.JSONDecodeError, AttributeError):
        error = None
    if isinstance(error, dict):
        message = str(error.get("message") or message)
        code = str(error.get("code") or error.get("type") or "")
    elif isinstance(error, str):
        message = error
    per_request = code in PER_REQUEST_CODES or "maximum context length" in message
    return http_error(status, message, headers, garbled(raw), per_request=per_request)


def aiohttp_error(exc: aiohttp.ClientError | OSError) -> ProviderError:
    """A call with no reply: its connection refused, reset or broken mid-reply (retryable, as
    litellm's APIConnectionError is; an unreachable host is hopeless). A timeout is
    `timeouts.timed_out`."""
    message = f"connection lost: {str(exc) or type(exc).__name__}"
    chain = exception_chain(exc)
    return ProviderError(None, message, kind=FailureKind.CONNECTION, unreachable=unreachable(chain))


class Failed(JudgeError):
    """A call that failed, with what the provider said; never leaves `complete`."""

    def __init__(self, error: ProviderError) -> None:
        self.error = error
        super().__init__(error.message)


class NativeTransport:
    """Calls an OpenAI-compatible endpoint directly; one session per judge."""

    def __init__(self, spec: JudgeSpec, timeout: float) -> None:
        self.spec = spec
        self.deadline = call_timeout(spec, timeout)  # (seconds, the key that set them)
        self.timeout = aiohttp.ClientTimeout(total=self.deadline[0])
        base = api_base_of(spec)
        if base is None:
            raise InputError(
                f"judge {spec.judge_id!r} uses the native transport but has no api_base",
                key="api_base",
            )
        self.url = base + "/chat/completions"
        self.session: aiohttp.ClientSession | None = None

    def _session(self) -> aiohttp.ClientSession:
        if self.session is None or self.session.closed:
            limit = self.spec.max_concurrency
            self.session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=limit, limit_per_host=limit),
                headers={"User-Agent": USER_AGENT, "Content-Type": "application/json"},
            )
        return self.session

    async def complete(self, call: Call) -> Completion:
        key = bearer_key(self.spec)
        _, name = split_model(self.spec.model)
        body, headers = wire_body(self.spec, name, call)
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        try:
            return await self._post(orjson.dumps(body), headers)
        except Failed as failed:
            error = failed.error
        except TimeoutError:  # aiohttp closed the connection: the server may stop generating
            error = timed_out(*self.deadline)
        except (aiohttp.ClientError, OSError) as exc:
            error = aiohttp_error(exc)
        spec = self.spec
        raise classify(  # outside `except`: the provider's text is not chained
            error,
            judge_id=spec.judge_id,
            secret=key,
            key_env=spec.api_key_env,
            api_base=spec.api_base,
        )

    async def _post(self, data: bytes, headers: dict[str, str]) -> Completion:
        session = self._session()
        async with session.post(
            self.url, data=data, headers=headers, timeout=self.timeout
        ) as reply:
            raw = await reply.read()
            if reply.status != 200:
                raise Failed(status_error(reply.status, raw, reply.headers))
        return completion_of(self.spec, raw)

    async def aclose(self) -> None:
        """Close this judge's session (before its event loop ends)."""
        if self.session is not None and not self.session.closed:
            await self.session.close()
        self.session = None
