"""What the batch transport needs from `batches.jsonl` (docs/guides/batches.md), as an interface.

The file itself is the experiment layer's (`experiment/batches.py`); the judges layer only sees
this protocol, so imports keep pointing down. Every method appends one line and fsyncs it before
returning: `prepared` runs BEFORE the upload, `submitted` as soon as the provider returned the id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class RecordedBatch:
    """One batch as the ledger knows it: `batch_id` None until the provider returned it."""

    local: str
    judge: str
    keys: list[str]
    prepared_at: float
    input_file_id: str | None = None
    batch_id: str | None = None
    status: str = "prepared"
    counts: dict[str, int] = field(default_factory=dict)


class BatchLedger(Protocol):
    def recorded(self) -> list[RecordedBatch]: ...

    def prepared(self, batch: RecordedBatch) -> None: ...

    def uploaded(self, local: str, input_file_id: str) -> None: ...

    def submitted(self, local: str, batch_id: str, found_by: str | None = None) -> None: ...

    def status(self, local: str, status: str, counts: dict[str, int]) -> None: ...

    def abandoned(self, local: str, reason: str) -> None: ...
