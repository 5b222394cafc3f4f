"""mkdocs hook: the CLI reference is rendered from the Typer app at build time, never copied.

A page holding the marker `<!-- cli-reference -->` gets one section per command (groups
included, depth first): its one-line summary and its `--help` exactly as a terminal 100 columns
wide shows it. So the reference cannot drift from the code: a renamed flag changes the page.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MARKER = "<!-- cli-reference -->"
WIDTH = "100"


def iter_commands(
    command: Any, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command of the app with its path of names, the groups before their subcommands."""
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        if not getattr(sub, "hidden", False):
            yield from iter_commands(sub, (*path, name))


def render_help(path: tuple[str, ...]) -> str:
    """The `--help` text of one command as the console script prints it, without colour."""
    from typer.testing import CliRunner

    from autorubric_cli.cli.app import app

    env = {"COLUMNS": WIDTH, "NO_COLOR": "1", "TERM": "dumb"}
    result = CliRunner().invoke(
        app, [*path, "--help"], env=env, color=False, prog_name="autorubric"
    )
    if result.exit_code != 0:
        raise RuntimeError(f"autorubric {' '.join(path)} --help exited {result.exit_code}")
    lines = [line.rstrip() for line in result.output.splitlines()]
    return "\n".join(lines).strip("\n")


def cli_reference() -> str:
    """The Markdown of the whole reference: a summary table, then one section per command."""
    import typer

    from autorubric_cli.cli.app import app

    root = typer.main.get_command(app)
    commands = list(iter_commands(root))
    table = ["| command | what it does |", "| --- | --- |"]
    sections = []
    for path, command in commands:
        name = " ".join(("autorubric", *path))
        summary = (command.help or "").strip().split("\n")[0]
        anchor = "-".join(("autorubric", *path))
        table.append(f"| [`{name}`](#{anchor}) | {summary} |")
        sections.append(f"## {name} {{#{anchor}}}\n\n```text\n{render_help(path)}\n```\n")
    return "\n".join(table) + "\n\n" + "\n".join(sections)


def on_page_markdown(markdown: str, **_: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, cli_reference())
