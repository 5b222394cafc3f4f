"""A judge's provider batch API through litellm's files and batches functions
(docs/guides/batches.md).

Which providers: litellm 1.106.2 uploads files and creates batches for `openai` (and any
OpenAI-compatible base through `api_base`), `azure`, `hosted_vllm` and `litellm_proxy` with
one call shape: this module. Anthropic message batches litellm does not submit (its issue
#17265), nor Gemini batch mode: those speak to the provider directly (`batch/native.py`).
Anything else is an InputError before any call. Control calls are retried by our own policy
(litellm's and the openai SDK's retries are off) and classified like chat calls: 401/403 stop
the run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.errors import InputError
from autorubric_cli.judges.batch.base import BatchInfo, Enqueue, ProviderBatches
from autorubric_cli.judges.batch.ledger import RecordedBatch
from autorubric_cli.judges.batch.lines import (
    ENDPOINT,
    BatchPrice,
    Result,
    batch_line,
    parse_results,
)
from autorubric_cli.judges.policy.retry import RetryPolicy, retrying
from autorubric_cli.judges.pricing import known_unpriced
from autorubric_cli.judges.request import Call, Completion
from autorubric_cli.judges.transports.body import wire_body
from autorubric_cli.judges.transports.litellm import api_key_for, load_litellm
from autorubric_cli.judges.transports.litellm_errors import litellm_failure
from autorubric_cli.judges.transports.simulated import is_simulated

LITELLM_BATCH_PROVIDERS = ("openai", "azure", "hosted_vllm", "litellm_proxy")
NATIVE_BATCH_PROVIDERS = ("anthropic", "gemini")  # batch/native.py
BATCH_PROVIDERS = LITELLM_BATCH_PROVIDERS + NATIVE_BATCH_PROVIDERS
CLOCK_SKEW_S = 300.0
FILE_TIMEOUT_S = 600.0  # uploads and downloads of up to 200 MB
LIST_PAGE = 100
T = TypeVar("T")


def batch_provider(spec: JudgeSpec) -> tuple[str, str]:
    """(litellm provider, the provider's model name); InputError when litellm cannot batch it."""
    where = "grader.batch"
    if is_simulated(spec.model):
        raise InputError(
            f"judge {spec.judge_id!r}: provider `simulated` has no batch API; "
            "set `batch: false` for this judge or run without --batch",
            key=where,
        )
    litellm = load_litellm()
    try:
        model, provider, _, _ = litellm.get_llm_provider(spec.model)
    except Exception:
        raise InputError(
            f"judge {spec.judge_id!r}: litellm cannot tell the provider of {spec.model!r}, "
            "so it cannot batch it",
            key=where,
        ) from None
    if provider not in BATCH_PROVIDERS:
        raise InputError(
            f"judge {spec.judge_id!r}: autorubric cannot submit batches to provider `{provider}` "
            f"(it can for {', '.join(BATCH_PROVIDERS)}); set `batch: false` for this judge "
            "or run without --batch",
            key=where,
        )
    if "extra_headers" in spec.params:
        raise InputError(
            f"judge {spec.judge_id!r}: `params.extra_headers` cannot be sent per batch line; "
            "remove it or set `batch: false` for this judge",
            key="grader.judges.params.extra_headers",
        )
    return provider, model


def info_of(batch: Any) -> BatchInfo:
    counts = getattr(batch, "request_counts", None)
    return BatchInfo(
        id=str(batch.id),
        status=str(batch.status),
        output_file_id=getattr(batch, "output_file_id", None),
        error_file_id=getattr(batch, "error_file_id", None),
        metadata=dict(getattr(batch, "metadata", None) or {}),
        created_at=int(getattr(batch, "created_at", 0) or 0),
        counts={} if counts is None else {k: int(v) for k, v in dict(counts).items()},
    )


class LiteLLMBatches(ProviderBatches):
    """One judge's files and batches endpoints, through litellm."""

    def __init__(self, spec: JudgeSpec, timeout: float, policy: RetryPolicy, attempts: int):
        self.spec = spec
        self.provider, self.model = batch_provider(spec)
        self.timeout = spec.timeout or timeout
        self.policy = policy
        self.attempts = attempts
        self._price: BatchPrice | None | bool = False  # False: not looked up yet

    @property
    def secret(self) -> str | None:
        return api_key_for(self.spec)

    def _kwargs(self, timeout: float | None = None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "custom_llm_provider": self.provider,
            "max_retries": 0,
            "timeout": timeout or self.timeout,
        }
        if self.spec.api_base is not None:
            kwargs["api_base"] = self.spec.api_base
        key = self.secret
        if key is not None:
            kwargs["api_key"] = key
        return kwargs

    async def _call(self, call: Callable[[], Awaitable[T]]) -> T:
        """A control call (create, retrieve, list, download) under our retry policy, litellm's
        exceptions read like a chat call's."""

        async def once() -> T:
            failure: Exception | None = None
            try:
                return await call()
            except Exception as exc:
                spec = self.spec
                failure = litellm_failure(
                    exc, judge_id=spec.judge_id, secret=self.secret, key_env=spec.api_key_env
                )
            raise failure  # outside `except`: the provider's text is not chained

        return await retrying(self.policy, self.attempts)(once)

    # -- ProviderBatches (base.py); limits: a margin under 200 MB -------------------------

    async def start(
        self, data: bytes, local: str, metadata: dict[str, str], uploaded: Callable[[str], None]
    ) -> BatchInfo:
        """Upload the input file (its id recorded through `uploaded`), then create the batch."""
        input_file_id = await self.upload(data)
        uploaded(input_file_id)
        return await self.create(input_file_id, metadata)

    async def results(self, info: BatchInfo) -> dict[str, Result]:
        results: dict[str, Result] = {}
        for file_id in (info.error_file_id, info.output_file_id):  # an answer wins
            if file_id:
                content = await self.content(file_id)
                results.update(
                    parse_results(content, self._batch_price(), self.spec.judge_id, None)
                )
        return results

    async def answered(self, result: Result, call: Call) -> Completion:
        """The Completion of a batch answer (parsed already, from the output file)."""
        assert isinstance(result, Completion)
        return result

    async def ask(self, enqueue: Enqueue, key: str, call: Call) -> Completion:
        """Queue one call for a new batch and return its answer."""
        body, _ = wire_body(self.spec, self.model, call)
        return await self.answered(await enqueue(key, batch_line(key, body)), call)

    async def aclose(self) -> None:
        """Nothing to close: litellm's clients are closed with the run's (`close_clients`)."""

    async def upload(self, data: bytes) -> str:
        litellm = load_litellm()
        kwargs = self._kwargs(FILE_TIMEOUT_S)
        created = await self._call(
            lambda: litellm.acreate_file(
                file=("autorubric-batch.jsonl", data), purpose="batch", **kwargs
            )
        )
        return str(created.id)

    async def create(self, input_file_id: str, metadata: dict[str, str]) -> BatchInfo:
        litellm = load_litellm()
        kwargs = self._kwargs()
        batch = await self._call(
            lambda: litellm.acreate_batch(
                completion_window="24h",
                endpoint=ENDPOINT,
                input_file_id=input_file_id,
                metadata=metadata,
                **kwargs,
            )
        )
        return info_of(batch)

    async def retrieve(self, batch_id: str) -> BatchInfo:
        litellm = load_litellm()
        kwargs = self._kwargs()
        return info_of(await self._call(lambda: litellm.aretrieve_batch(batch_id, **kwargs)))

    async def content(self, file_id: str) -> bytes:
        litellm = load_litellm()
        kwargs = self._kwargs(FILE_TIMEOUT_S)
        response = await self._call(lambda: litellm.afile_content(file_id=file_id, **kwargs))
        return bytes(response.content)

    async def find(self, pending: list[RecordedBatch], known: set[str]) -> dict[str, BatchInfo]:
        """Batches whose metadata names one of the `pending` batches' local ids, listed newest
        first back to the oldest one's preparation (less a clock skew)."""
        locals_ = {record.local for record in pending}
        since = min(record.prepared_at for record in pending) - CLOCK_SKEW_S
        litellm = load_litellm()
        kwargs = self._kwargs()
        found: dict[str, BatchInfo] = {}
        after: str | None = None
        while len(found) < len(locals_):
            page = await self._call(
                partial(litellm.alist_batches, after=after, limit=LIST_PAGE, **kwargs)
            )
            infos = [info_of(b) for b in page.data]
            for info in infos:
                local = info.metadata.get("autorubric_local")
                if local in locals_:
                    found[local] = info
            if not infos or not page.has_more or infos[-1].created_at < since:
                break
            after = infos[-1].id
        return found

    def _batch_price(self) -> BatchPrice | None:
        """litellm's batch price for the model; half the list price where it has only that
        (litellm's own rule); None for a model it does not price."""
        if self._price is False:
            self._price = batch_price(self.model, self.provider)
        return self._price  # type: ignore[return-value]


def batch_price(model: str, provider: str) -> BatchPrice | None:
    if known_unpriced(model) or known_unpriced(f"{provider}/{model}"):
        return None  # registered at a zero price by judges/pricing.py: still unpriced
    litellm = load_litellm()
    try:
        info = litellm.get_model_info(model=model, custom_llm_provider=provider)
    except Exception:
        return None
    prompt, completion = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    prompt_batch = info.get("input_cost_per_token_batches")
    completion_batch = info.get("output_cost_per_token_batches")
    if prompt_batch is None and prompt is None:
        return None
    return BatchPrice(
        prompt=float(prompt_batch if prompt_batch is not None else (prompt or 0.0) / 2),
        completion=float(
            completion_batch if completion_batch is not None else (completion or 0.0) / 2
        ),
    )
