"""What the batch transport asks of every provider's batch API, as one abstract base class.

`LiteLLMBatches` (api.py: OpenAI-compatible providers, through litellm's files and batches
functions) and `NativeBatches` (native.py: Anthropic Message Batches, Gemini batch mode, over
httpx) implement it; the batch transport (transport.py) knows nothing else about them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from autorubric_cli.judges.batch.ledger import RecordedBatch
from autorubric_cli.judges.batch.lines import Result
from autorubric_cli.judges.request import Call, Completion


@dataclass(frozen=True)
class BatchInfo:
    id: str
    status: str
    output_file_id: str | None = None
    error_file_id: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    created_at: int = 0
    counts: dict[str, int] = field(default_factory=dict)


Enqueue = Callable[[str, bytes], Awaitable[Result]]
"""Queues one request line under its key; resolves to the batch's answer to it."""


class ProviderBatches(ABC):
    """One judge's batch API at its provider."""

    inline: bool = False  # requests travel in the create call (True) or an uploaded file
    found_by: str = "metadata"  # how an orphan batch is recognised (the ledger records it)
    limits: tuple[int, int] = (50_000, 190 * 1024 * 1024)  # requests, bytes per batch
    poll_s: float = 15.0  # the coordinator's polling interval

    @abstractmethod
    async def start(
        self, data: bytes, local: str, metadata: dict[str, str], uploaded: Callable[[str], None]
    ) -> BatchInfo:
        """Create a batch of `data` (one JSON request per line); an uploaded file's id is
        recorded through `uploaded` before the create call."""

    @abstractmethod
    async def retrieve(self, batch_id: str) -> BatchInfo: ...

    @abstractmethod
    async def results(self, info: BatchInfo) -> dict[str, Result]:
        """An ended batch's answers by request key."""

    @abstractmethod
    async def find(self, pending: list[RecordedBatch], known: set[str]) -> dict[str, BatchInfo]:
        """The provider's batches for `pending` batches recorded without an id, by local id."""

    @abstractmethod
    async def answered(self, result: Result, call: Call) -> Completion:
        """The Completion of a batch's answer to one call."""

    @abstractmethod
    async def ask(self, enqueue: Enqueue, key: str, call: Call) -> Completion:
        """Queue one call (`enqueue`) for a new batch and return its answer."""

    @abstractmethod
    async def aclose(self) -> None: ...
