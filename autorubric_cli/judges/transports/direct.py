"""The transport that calls a judge's provider from the current process: native or litellm."""

from __future__ import annotations

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.request import Transport
from autorubric_cli.judges.transports.choice import transport_of
from autorubric_cli.judges.transports.litellm import LiteLLMTransport
from autorubric_cli.judges.transports.litellm import close_clients as close_litellm_clients
from autorubric_cli.judges.transports.native import NativeTransport


def direct_transport(spec: JudgeSpec, timeout: float) -> Transport:
    """`NativeTransport` where `transport_of` says native, else `LiteLLMTransport`."""
    if transport_of(spec)[0] == "native":
        return NativeTransport(spec, timeout)
    return LiteLLMTransport(spec, timeout)


def needs_litellm(specs: list[JudgeSpec]) -> bool:
    return any(transport_of(spec)[0] == "litellm" for spec in specs)


async def close_clients() -> None:
    """Close litellm's clients of this event loop (before it ends); each transport closes its
    own sessions (`aclose`)."""
    await close_litellm_clients()
