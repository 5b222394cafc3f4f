"""What `cache info` and `run/resume --dry-run` print: the cache's figures and the bill."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

from autorubric_cli.cli.console import output_console
from autorubric_cli.core.words import plural
from autorubric_cli.experiment.dry_run import dry_run_resume as estimate_resume
from autorubric_cli.experiment.dry_run import dry_run_start
from autorubric_cli.experiment.options import RunOptions
from autorubric_cli.judges.cache import cache_path
from autorubric_cli.judges.cache_admin import cache_info
from autorubric_cli.report.fit import build_table, print_fitted
from autorubric_cli.report.formats import dollars


def print_json(data: Any) -> None:
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


def show_cache_info(cache_dir: Path | None, fmt: str) -> int:
    """`cache info`: path, entries, size on disk, and hits and entries by model."""
    data = cache_info(cache_path(cache_dir))
    if fmt == "json":
        print_json(data)
        return 0
    print(f"path: {data['path']}{'' if data['exists'] else ' (not created yet)'}")
    print(f"entries: {data['entries']:,}  hits: {data['hits']:,}  size: {data['size_bytes']:,} B")
    for m in data["models"]:
        print(f"  {m['model']}: {m['entries']:,} entries, {m['hits']:,} hits")
    return 0


def render_bill(bill: dict[str, Any], fmt: str) -> int:
    if fmt == "json":
        print_json(bill)
        return 0
    calls = bill["calls"]
    rows = [_bill_cells(r, r["judge"], r["criterion"]) for r in bill["criteria"]]
    rows += [_bill_cells(r, r["id"], "(all)") for r in bill["judges"]]
    figures = ("calls", "cached", "to send", "prompt tok", "compl tok ~", "cost ~")
    title = "Dry run: no judge called, nothing written"
    table = build_table(title, ["judge", "criterion", *figures], rows, names=2, right=figures)
    console = output_console()
    print_fitted(console, table, names=2)
    console.print(
        f"calls {calls['total']:,}: {calls['cached']:,} from the cache, {calls['to_send']:,} to "
        f"send · prompt tokens {bill['prompt_tokens']:,} · completion tokens "
        f"~{bill['completion_tokens_estimate']:,} · cost ~{dollars(bill['cost_estimate'])}"
    )
    if "cascade" in bill:
        console.print(cascade_bill_line(bill["cascade"]), soft_wrap=True)
    return 0


def cascade_bill_line(block: dict[str, Any]) -> str:
    """What a cascade costs: at the given escalation rate, or between its bounds."""
    low, high = (
        dollars(block["cost_estimate_min"]),
        dollars(block["cost_estimate_max"]),
    )
    bounds = f"from ~{low} (nothing escalated) to ~{high} (everything escalated)"
    rate = block["escalation_rate"]
    if rate is None:
        return f"cascade: {bounds}; give --escalation-rate R for one figure"
    then = block["then_all"]
    return (
        f"cascade at escalation rate {rate:g}: ~{dollars(block['cost_estimate'])}, {bounds}; "
        f"the then judges' rows ({', '.join(then['judges'])}) are scaled to escalation rate "
        f"{rate:g}, from {plural(then['calls'], 'call')} for everything"
    )


def _bill_cells(row: dict[str, Any], judge: str, criterion: str) -> list[str]:
    return [
        judge,
        criterion,
        f"{row['calls']:,}",
        f"{row['cached']:,}",
        f"{row['calls'] - row['cached']:,}",
        f"{row['prompt_tokens']:,}",
        f"{row['completion_tokens_estimate']:,}",
        dollars(row["cost_estimate"]),
    ]


def dry_run_run(rubric: Path, dataset: Path, options: RunOptions, fmt: str) -> int:
    return render_bill(dry_run_start(rubric, dataset, options), fmt)


def dry_run_resume(
    directory: Path, retry_errors: bool, cache: bool, cache_dir: Path | None, fmt: str
) -> int:
    bill = estimate_resume(directory, retry_errors=retry_errors, cache=cache, cache_dir=cache_dir)
    return render_bill(bill, fmt)
