"""`autorubric cache info|clear|prune`: the call cache shared by all experiments
(docs/guides/cache-and-cost.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.help_style import PlainHelpCommand, PlainHelpGroup
from autorubric_cli.cli.options import CacheDir as CacheDirOpt

cache_app = typer.Typer(
    cls=PlainHelpGroup, no_args_is_help=True, help="The call cache shared by all experiments."
)
FormatOpt = Annotated[
    str, typer.Option("--format", "-f", metavar="FORMAT", help="One of: table, json.")
]


@cache_app.command("info", cls=PlainHelpCommand)
def info(cache_dir: CacheDirOpt = None, format: FormatOpt = "table") -> None:
    """Path, entries, size on disk, and hits and entries by model."""
    from autorubric_cli.cli.cache_body import show_cache_info

    guarded(lambda: show_cache_info(cache_dir, format))


@cache_app.command("clear", cls=PlainHelpCommand)
def clear(cache_dir: CacheDirOpt = None) -> None:
    """Delete every cached call."""

    from autorubric_cli.judges.cache import cache_path
    from autorubric_cli.judges.cache_admin import clear_cache

    def body() -> int:
        path = cache_path(cache_dir)
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

    from autorubric_cli.judges.cache import cache_path
    from autorubric_cli.judges.cache_admin import parse_duration, prune_cache

    def body() -> int:
        seconds = parse_duration(older_than)
        path = cache_path(cache_dir)
        print(f"pruned {prune_cache(path, seconds):,} entries from {path}")
        return 0

    guarded(body)
