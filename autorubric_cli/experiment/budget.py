"""The spend cap of a run (`--max-cost`, `grader.max_cost`; docs/reference/exit-codes.md), on the
experiment's side.

The cap is on what the experiment has paid, over every session: `resume` starts from the sum of
the `cost` of every line of items.jsonl (superseded error lines included: they were paid) and
continues under the cap it is given. Calls served by the call cache are not paid in this
experiment (docs/guides/cache-and-cost.md) and count nothing. The call path keeps the cap
(judges/policy/spend.py); when it refuses a call the run stops scheduling, lets the items in flight
finish, keeps every finished item, marks the manifest `failed` with the reason and exits 2
(`BudgetStop`).
"""

from __future__ import annotations

from pathlib import Path

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.words import plural
from autorubric_cli.experiment.store import open_records, record_head
from autorubric_cli.judges.policy.spend import SpendCap, check_priced


def paid_so_far(items: Path) -> float:
    """The experiment's paid cost: every complete line's `cost` (0 when nothing is recorded)."""
    if not items.exists():
        return 0.0
    total = 0.0
    with open_records(items) as handle:
        for raw in handle:
            record = record_head(raw)
            cost = None if record is None else record.get("cost")
            if isinstance(cost, int | float):
                total += float(cost)
    return total


def spend_cap(config: LLMConfig, items: Path) -> SpendCap | None:
    """The session's cap, None without `max_cost`; an unpriced judge is an InputError."""
    if config.max_cost is None:
        return None
    check_priced(config)
    return SpendCap(cap=config.max_cost, spent=paid_so_far(items))


def budget_message(cap: float, items_recorded: int) -> str:
    return (
        f"budget of ${cap:,.2f} reached after {plural(items_recorded, 'item')}; "
        "resume with a higher --max-cost"
    )
