"""`autorubric cache info|clear|prune` and the rendering of `run/resume --dry-run` (SPEC §9)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.help_style import PlainHelpCommand, PlainHelpGroup

if TYPE_CHECKING:
    from autorubric_cli.experiment.session import RunOptions

cache_app = typer.Typer(
    cls=PlainHelpGroup, no_args_is_help=True, help="The call cache shared by all experiments."
)
CacheDirOpt = Annotated[
    Path | None,
    typer.Option("--cache-dir", help="Call cache directory (default: $AUTORUBRIC_CACHE_DIR)."),
]
FormatOpt = Annotated[
    str, typer.Option("--format", "-f", metavar="FORMAT", help="One of: table, json.")
]


def _print_json(data: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


def _path(cache_dir: Path | None) -> Path:
    from autorubric_cli.judges.cache import cache_path

    return cache_path(cache_dir)


@cache_app.command("info", cls=PlainHelpCommand)
def info(cache_dir: CacheDirOpt = None, format: FormatOpt = "table") -> None:
    """Path, entries, size on disk, and hits and entries by model."""

    def body() -> int:
        from autorubric_cli.judges.cache_admin import cache_info

        data = cache_info(_path(cache_dir))
        if format == "json":
            _print_json(data)
            return 0
        print(f"path: {data['path']}{'' if data['exists'] else ' (not created yet)'}")
        print(
            f"entries: {data['entries']:,}  hits: {data['hits']:,}  size: {data['size_bytes']:,} B"
        )
        for m in data["models"]:
            print(f"  {m['model']}: {m['entries']:,} entries, {m['hits']:,} hits")
        return 0

    guarded(body)


@cache_app.command("clear", cls=PlainHelpCommand)
def clear(cache_dir: CacheDirOpt = None) -> None:
    """Delete every cached call."""

    def body() -> int:
        from autorubric_cli.judges.cache_admin import clear_cache

        path = _path(cache_dir)
        print(f"cleared {path} ({clear_cache(path):,} B freed)")
        return 0

    guarded(body)


@cache_app.command("prune", cls=PlainHelpCommand)
def prune(
    older_than: Annotated[
        str, typer.Option("--older-than", help="Drop entries unused for this long: 30d, 12h.")
    ] = "30d",
    cache_dir: CacheDirOpt = None,
) -> None:
    """Delete cached calls not stored or served for a while."""

    def body() -> int:
        from autorubric_cli.judges.cache_admin import parse_duration, prune_cache

        seconds = parse_duration(older_than)
        path = _path(cache_dir)
        print(f"pruned {prune_cache(path, seconds):,} entries from {path}")
        return 0

    guarded(body)


def render_bill(bill: dict[str, Any], fmt: str) -> int:
    if fmt == "json":
        _print_json(bill)
        return 0
    from rich.table import Table

    from autorubric_cli.cli.console import output_console
    from autorubric_cli.report.render_table import fmt_cost, name_column

    calls = bill["calls"]
    table = Table(title="Dry run: no judge called, nothing written")
    name_column(table, "judge", [r["judge"] for r in bill["criteria"]])
    name_column(table, "criterion", [r["criterion"] for r in bill["criteria"]])
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
        table.add_row(*_bill_cells(row, row["judge"], row["criterion"], fmt_cost))
    for row in bill["judges"]:
        table.add_row(*_bill_cells(row, row["id"], "(all)", fmt_cost))
    console = output_console()
    console.print(table)
    console.print(
        f"calls {calls['total']:,}: {calls['cached']:,} from the cache, {calls['to_send']:,} to "
        f"send · prompt tokens {bill['prompt_tokens']:,} · completion tokens "
        f"~{bill['completion_tokens_estimate']:,} · cost ~{fmt_cost(bill['cost_estimate'])}"
    )
    return 0


def _bill_cells(row: dict[str, Any], judge: str, criterion: str, fmt_cost: Any) -> list[str]:
    return [
        judge,
        criterion,
        f"{row['calls']:,}",
        f"{row['cached']:,}",
        f"{row['calls'] - row['cached']:,}",
        f"{row['prompt_tokens']:,}",
        f"{row['completion_tokens_estimate']:,}",
        fmt_cost(row["cost_estimate"]),
    ]


def dry_run_run(rubric: Path, dataset: Path, options: RunOptions, fmt: str) -> int:
    from autorubric_cli.experiment.dry_run import dry_run_start

    return render_bill(dry_run_start(rubric, dataset, options), fmt)


def dry_run_resume(
    directory: Path, retry_errors: bool, no_cache: bool, cache_dir: Path | None, fmt: str
) -> int:
    from autorubric_cli.experiment.dry_run import dry_run_resume as bill_of_resume

    bill = bill_of_resume(
        directory, retry_errors=retry_errors, no_cache=no_cache, cache_dir=cache_dir
    )
    return render_bill(bill, fmt)
