"""mkdocs hook: the CLI reference is rendered from the Typer app at build time, never copied.

A page holding the marker `<!-- cli-reference -->` gets a summary table of every command, then
one section per command (groups included, depth first): its help text, its usage line, and
tables of its arguments and options as the program's own parser describes them (the same
records `--help` prints). A renamed flag or a changed help text changes the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

MARKER = "<!-- cli-reference -->"
CODE_SPAN = re.compile(r"(`[^`]*`)")


def iter_commands(command: Any, context: Any) -> Iterator[tuple[Any, Any]]:
    """Every visible command with its parse context, the groups before their subcommands."""
    yield command, context
    for name, sub in getattr(command, "commands", {}).items():
        if not getattr(sub, "hidden", False):
            child = sub.make_context(name, [], parent=context, resilient_parsing=True)
            yield from iter_commands(sub, child)


def cell(text: str) -> str:
    """Help text as a Markdown table cell: `<` and `|` escaped outside code spans (inside
    them the table extension leaves a pipe alone, and an escape would show)."""
    parts = CODE_SPAN.split(" ".join(text.split()))
    for index in range(0, len(parts), 2):
        parts[index] = parts[index].replace("<", "&lt;").replace("|", "\\|")
    return "".join(parts)


def params_tables(command: Any, context: Any) -> str:
    arguments = ["| argument | description |", "| --- | --- |"]
    options = ["| option | description |", "| --- | --- |"]
    for param in command.params:
        if getattr(param, "hidden", False):
            continue
        if param.param_type_name == "argument":
            need = " (required)" if param.required else " (optional)"
            arguments.append(f"| `{param.name.upper()}` | {cell(param.help or '')}{need} |")
        else:
            record = param.get_help_record(context)
            if record is not None:
                options.append(f"| `{record[0]}` | {cell(record[1])} |")
    tables = [arguments] if len(arguments) > 2 else []
    tables += [options] if len(options) > 2 else []
    return "\n\n".join("\n".join(table) for table in tables)


def command_section(command: Any, context: Any) -> str:
    path = context.command_path
    anchor = path.replace(" ", "-")
    usage = command.get_usage(context).strip()
    body = (command.help or "").strip()
    return (
        f"## {path} {{#{anchor}}}\n\n{body}\n\n```text\n{usage}\n```\n\n"
        f"{params_tables(command, context)}\n"
    )


def cli_reference() -> str:
    """The Markdown of the whole reference: a summary table, then one section per command."""
    import typer

    from autorubric_cli.cli.app import app

    root = typer.main.get_command(app)
    top = root.make_context("autorubric", [], resilient_parsing=True)
    table = ["| command | what it does |", "| --- | --- |"]
    sections = []
    for command, context in iter_commands(root, top):
        path = context.command_path
        summary = cell((command.help or "").strip().split("\n")[0])
        table.append(f"| [`{path}`](#{path.replace(' ', '-')}) | {summary} |")
        sections.append(command_section(command, context))
    return "\n".join(table) + "\n\n" + "\n".join(sections)


def on_page_markdown(markdown: str, **_: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, cli_reference())
