"""`autorubric label DIR` (write the labelling page) and `autorubric label import DIR FILE...`
(docs/guides/labels.md).

Click cannot give a group a positional argument and subcommands at once (`label import ...`
would be read as DIR = "import"), so `label` is a group whose unknown first word goes to the
hidden default command `page`: `label DIR ...` is `label page DIR ...`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.help_style import PlainHelpCommand, PlainHelpGroup


class DefaultToPage(PlainHelpGroup):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["page", *args]
        return super().parse_args(ctx, args)


label_app = typer.Typer(
    cls=DefaultToPage,
    no_args_is_help=True,
    help="Human labels: `label DIR` writes the labelling page; `label import DIR "
    "FILE...` adds raters' exported files to the experiment.",
)


@label_app.command("page", cls=PlainHelpCommand)
def page(
    directory: Annotated[Path, typer.Argument(help="Experiment directory.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here (default DIR/label.html).")
    ] = None,
    criteria: Annotated[
        str | None, typer.Option("--criteria", help="Label only these criteria: a,b.")
    ] = None,
    per_item_raters: Annotated[
        int | None,
        typer.Option("--per-item-raters", help="Items with fewer than N raters come first."),
    ] = None,
    order: Annotated[
        str | None,
        typer.Option(
            "--order",
            help="disagreement | random | dataset (default: disagreement with two or more "
            "judges or samples, else dataset).",
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Put at most N items on the page.")
    ] = None,
) -> None:
    """The default: write the labelling page (`label DIR` is `label page DIR`)."""

    from autorubric_cli.experiment.opened import open_experiment
    from autorubric_cli.labels.page_data import plan_labels
    from autorubric_cli.report.html.label_page import write_label_html

    def body() -> int:
        names = [n.strip() for n in (criteria or "").split(",") if n.strip()]
        plan = plan_labels(
            open_experiment(directory),
            criteria=names,
            order=order,
            per_item_raters=per_item_raters,
        )
        if limit is not None:
            plan.ranked = plan.ranked[:limit]
        print(write_label_html(plan, output))
        return 0

    guarded(body)


@label_app.command("import", cls=PlainHelpCommand)
def import_(
    directory: Annotated[Path, typer.Argument(help="Experiment directory.")],
    files: Annotated[list[Path], typer.Argument(help="Files exported from the labelling page.")],
) -> None:
    """Check every line of every file, then append them to DIR/human_labels.jsonl."""

    from autorubric_cli.labels.importer import import_labels

    def body() -> int:
        result = import_labels(directory, files)
        print(
            f"{result.added} label lines added to {result.path} "
            f"({result.unchanged} already there); raters: {', '.join(result.raters) or '-'}"
        )
        return 0

    guarded(body)
