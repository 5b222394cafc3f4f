"""Which judges batch, through which provider batch API, with which limits and timing."""

from __future__ import annotations

import os
from dataclasses import dataclass

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.judges.batch.anthropic import AnthropicBatches
from autorubric_cli.judges.batch.api import LiteLLMBatches, batch_provider
from autorubric_cli.judges.batch.base import ProviderBatches
from autorubric_cli.judges.batch.gemini import GeminiBatches
from autorubric_cli.judges.policy.retry import RetryPolicy


@dataclass(frozen=True)
class BatchSettings:
    """Batch limits and timing. The limits are each provider's (`limits` of its API: requests
    and bytes per batch) unless set lower; `AUTORUBRIC_BATCH_*` environment variables set them
    (tests use short delays and small batches)."""

    max_requests: int | None = None
    max_bytes: int | None = None
    send_delay_s: float = 5.0  # collect for this long after the first queued call
    poll_s: float = 15.0
    close_grace_s: float = 10.0  # on stop, let an upload/create in progress get its id recorded

    @classmethod
    def from_env(cls) -> BatchSettings:
        def number(name: str, default: float) -> float:
            raw = os.environ.get(f"AUTORUBRIC_BATCH_{name}")
            return float(raw) if raw else default

        base = cls()
        requests, size = number("MAX_REQUESTS", 0), number("MAX_BYTES", 0)
        return cls(
            max_requests=int(requests) if requests else None,
            max_bytes=int(size) if size else None,
            send_delay_s=number("SEND_DELAY_S", base.send_delay_s),
            poll_s=number("POLL_S", base.poll_s),
        )


def provider_api(spec: JudgeSpec, config: LLMConfig, policy: RetryPolicy) -> ProviderBatches:
    """The judge's batch API: litellm's for OpenAI-compatible providers, ours for the rest."""
    provider, model = batch_provider(spec)
    native = {"anthropic": AnthropicBatches, "gemini": GeminiBatches}.get(provider)
    if native is None:
        return LiteLLMBatches(spec, config.timeout, policy, config.max_attempts)
    return native(spec, model, config.timeout, policy, config.max_attempts)


def batch_enabled(config: LLMConfig, spec: JudgeSpec) -> bool:
    """A judge's own `batch` wins over the grader's."""
    return config.batch if spec.batch is None else spec.batch
