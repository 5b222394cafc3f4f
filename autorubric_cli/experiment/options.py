"""`run`'s options, shared by the pre-flight checks and the session.

No imports beyond the standard library: the CLI builds them before it loads anything else.
They are applied to the rubric's configuration once, by experiment/flags.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

GRACE_S = 5.0


@dataclass(frozen=True)
class SessionFlags:
    """The value flags of `run` and `resume` that change how calls are made, never results
    (core/settings.py): --concurrency, --timeout, --max-attempts, --max-cost. `resume`
    applies them over the recorded settings and records them, so a later `resume` keeps them."""

    concurrency: int | None = None
    timeout: float | None = None
    max_attempts: int | None = None
    max_cost: float | None = None


@dataclass
class RunOptions:
    judges: list[str] = field(default_factory=list)
    name: str | None = None
    out: Path | None = None
    seed: int | None = None
    concurrency: int | None = None
    limit: int | None = None
    no_shuffle: bool = False
    grace_s: float = GRACE_S
    fields: list[str] = field(default_factory=list)  # --field TARGET=PATH
    cache: bool = True  # False: --no-cache, neither read nor write the call cache
    cache_dir: Path | None = None
    # --llm-calls per_criterion|per_item (docs/guides/per-item.md)
    llm_calls: str | None = None
    # --shard K/N (docs/guides/shards.md)
    shard: str | None = None
    # run --batch (docs/guides/batches.md)
    batch: bool = False
    # --max-cost USD (docs/reference/exit-codes.md)
    max_cost: float | None = None
    escalation_rate: float | None = None  # run --dry-run of a cascade (dry_run_cascade.py)
    fail_under: float | None = None  # --fail-under X: a gate check on score.mean
    replace: bool = False  # --replace: empty an existing experiment directory first
    timeout: float | None = None  # --timeout S: every call's limit
    max_attempts: int | None = None  # --max-attempts N

    @property
    def values(self) -> SessionFlags:
        return SessionFlags(self.concurrency, self.timeout, self.max_attempts, self.max_cost)
