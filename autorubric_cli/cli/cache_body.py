"""What `cache info` and `run/resume --dry-run` print: the cache's figures and the bill."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from rich.table import Table

from autorubric_cli import experiment, judges, report
from autorubric_cli.cli.console import output_console

if TYPE_CHECKING:
    from autorubric_cli.experiment.options import RunOptions


def print_json(data: Any) -> None:
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


def show_cache_info(cache_dir: Path | None, fmt: str) -> int:
    """`cache info`: path, entries, size on disk, and hits and entries by model."""
    data = judges.cache_info(judges.cache_path(cache_dir))
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
    table = Table(title="Dry run: no judge called, nothing written")
    report.name_column(table, "judge", [r["judge"] for r in bill["criteria"]])
    report.name_column(table, "criterion", [r["criterion"] for r in bill["criteria"]])
    for column in (
        "calls",
        "cached",
        "to send",
        "prompt tok",
        "compl tok ~",
        "cost ~",
    ):
        table.add_column(column, justify="right")
    for row in bill["criteria"]:
        table.add_row(*_bill_cells(row, row["judge"], row["criterion"]))
    for row in bill["judges"]:
        table.add_row(*_bill_cells(row, row["id"], "(all)"))
    console = output_console()
    console.print(table)
    console.print(
        f"calls {calls['total']:,}: {calls['cached']:,} from the cache, {calls['to_send']:,} to "
        f"send · prompt tokens {bill['prompt_tokens']:,} · completion tokens "
        f"~{bill['completion_tokens_estimate']:,} · cost ~{report.dollars(bill['cost_estimate'])}"
    )
    return 0


def _bill_cells(row: dict[str, Any], judge: str, criterion: str) -> list[str]:
    return [
        judge,
        criterion,
        f"{row['calls']:,}",
        f"{row['cached']:,}",
        f"{row['calls'] - row['cached']:,}",
        f"{row['prompt_tokens']:,}",
        f"{row['completion_tokens_estimate']:,}",
        report.dollars(row["cost_estimate"]),
    ]


def dry_run_run(rubric: Path, dataset: Path, options: RunOptions, fmt: str) -> int:
    return render_bill(experiment.dry_run_start(rubric, dataset, options), fmt)


def dry_run_resume(
    directory: Path, retry_errors: bool, no_cache: bool, cache_dir: Path | None, fmt: str
) -> int:
    bill = experiment.dry_run_resume(
        directory, retry_errors=retry_errors, no_cache=no_cache, cache_dir=cache_dir
    )
    return render_bill(bill, fmt)
