"""Terminal tables whose names and numbers are never cut (docs/reference/cli-behaviour.md).

Name columns (criteria, judges, models; up to 32 characters) and columns of figures are at least
as wide as their longest cell; headers and other columns wrap between words. A table whose
cells do not fit the console's width so is printed with collapsed padding, and if that is still
too wide, as one block per row (`header: value` lines): every cell whole either way.
"""

from __future__ import annotations

from rich import box
from rich.cells import cell_len
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Column, Table
from rich.text import Text

from autorubric_cli.report.render_table import name_column


def _text(cell: object) -> Text:
    """A cell as the table shows it (a string cell is Rich markup)."""
    return Text.from_markup(cell) if isinstance(cell, str) else Text(str(cell))


FOLD_WIDTH = 12  # free text folds a longer word (a `->` transition) rather than widen its column


def _narrowest(column: Column) -> int:
    """A column's narrowest width: its min_width, and no word of a cell or header cut (free
    text, which folds, counts its words up to FOLD_WIDTH)."""
    texts = [_text(column.header).plain, *(_text(c).plain for c in column.cells)]
    longest = max((cell_len(w) for text in texts for w in text.split()), default=0)
    if column.overflow == "fold":
        longest = min(longest, FOLD_WIDTH)
    return max(column.min_width or 0, longest)


def fits(console: Console, table: Table) -> bool:
    """Whether every column gets its narrowest width within the console's width."""
    _, right, _, left = table.padding
    total = 0
    for index, column in enumerate(table.columns):
        # collapsed padding: a cell's left padding overlaps its neighbour's right padding
        pad = right + (left if index == 0 or not table.collapse_padding else 0)
        total += _narrowest(column) + pad
    borders = len(table.columns) + 1 if table.box is not None else 0
    if table.box is not None and not table.show_edge:
        borders -= 2
    return total + borders <= console.width


def stacked(table: Table, names: int) -> RenderableType:
    """The table as one block per row: its names on one line, then `header value` pairs that
    wrap as wholes."""
    columns = table.columns
    cells = [[_text(c) for c in column.cells] for column in columns]
    blocks: list[RenderableType] = []
    if table.title:
        blocks.append(Text(str(table.title), style="italic"))
    for row in range(table.row_count):
        title = Text(" · ").join(values[row] for values in cells[:names]) or Text(f"#{row + 1}")
        free: list[Text] = []
        whole: list[Text] = []
        for column, values in zip(columns[names:], cells[names:], strict=True):
            folds = column.overflow == "fold"  # free text: a line of its own, wrapped
            pair = Text.assemble((f"{column.header} ", "dim"), values[row], no_wrap=not folds)
            (free if folds else whole).append(pair)
        lines: list[RenderableType] = [Columns(whole, padding=(0, 2)), *free]
        blocks.extend([Text.assemble(("• ", "dim"), title), Padding(Group(*lines), (0, 0, 0, 2))])
    if table.caption:
        blocks.append(Text(str(table.caption), style="dim"))
    return Group(*blocks)


def print_fitted(console: Console, table: Table, names: int = 1) -> None:
    """Print `table` so that no name or number is cut: as it is, tighter, or one row a block
    (`names`: how many leading columns name the row)."""
    if fits(console, table):
        console.print(table)
        return
    table.collapse_padding, table.box = True, box.SIMPLE_HEAD
    table.show_edge = False
    if fits(console, table):
        console.print(table)
        return
    console.print(stacked(table, names))


def build_table(
    title: str,
    headers: list[str],
    rows: list[list[str]],
    *,
    names: int = 1,
    free: tuple[str, ...] = (),
    right: tuple[str, ...] = (),
) -> Table:
    """A table whose first `names` columns hold names; the `free` columns are text that wraps
    between words; every other column is as wide as its longest cell (`right`: right-aligned)."""
    table = Table(title=title)
    for index, header in enumerate(headers):
        cells = [row[index] for row in rows]
        if index < names:
            name_column(table, header, cells)
        elif header in free:
            table.add_column(header, overflow="fold")
        else:
            width = max((_text(c).cell_len for c in cells), default=1)
            table.add_column(
                header, justify="right" if header in right else "left", min_width=width
            )
    for row in rows:
        table.add_row(*row)
    return table
