"""How gpufleet prints tables: rich, at their natural width, columns sized from their cells.

Shared by the renderers of ``plan``, ``catalog list`` and ``cost``.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpufleet.terminal_text import escape_controls

L, R = "left", "right"


class SafeConsole(Console):
    """A console that shows control characters in the text it is given as escapes (``\\x1b``):
    resource, workload and stack names come from users' programs and files, and an escape
    sequence in one must not move the cursor, clear the screen or retitle the terminal. Its own
    styling is unaffected. ``Text`` built by hand must escape its parts (``escape_controls``)."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(escape_controls(text), **kwargs)


def console(file: IO[str] | None = None, **options: Any) -> Console:
    """The console every renderer prints through (``SafeConsole``).

    Tables print at their natural width, in a terminal too: squeezing ten columns into 80 or
    110 characters folds names mid-word or collapses columns to nothing, which is worse than a
    soft-wrapped line. Colour still follows whether stdout is a terminal. Markup is off so text
    from specs and catalogs prints as written, and so do emoji codes (a type token
    ``acme:x:Comp`` is not ``acme❌Comp``); styling is explicit (Text)."""
    settings: dict[str, Any] = {
        "width": 10_000,
        "highlight": False,
        "markup": False,
        "emoji": False,
    }
    if no_color():
        # Rich drops colours for NO_COLOR but keeps bold and underline: none at all.
        settings["color_system"] = None
    return SafeConsole(file=file or sys.stdout, **(settings | options))


def no_color() -> bool:
    """Whether the user asked for no colour or styling (https://no-color.org: NO_COLOR set
    and not empty)."""
    return bool(os.environ.get("NO_COLOR"))


def styled(text: str, style: str) -> Text:
    """``text`` in ``style``, its control characters escaped: the console escapes strings, but
    prints a ``Text`` as it is."""
    return Text(escape_controls(text), style=style)


def bold(text: str) -> Text:
    return styled(text, "bold")


def joined(*parts: str | Text) -> Text:
    """One line of styled parts (``styled``, ``bold``) and plain strings, the strings escaped
    (``Text + str`` would take them as they are)."""
    line = Text()
    for part in parts:
        line.append(part if isinstance(part, Text) else escape_controls(part))
    return line


def table(*columns: tuple[str, str]) -> Table:
    """A table of (header, justify) columns; money and counts go right-aligned (``R``)."""
    grid = Table()
    for header, justify in columns:
        grid.add_column(header, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    return grid


def print_table(out: Console, grid: Table) -> None:
    """Print a table made by ``table`` with its column widths given, not measured.

    Every cell is a no-wrap string or Text, so a column is as wide as its widest cell; rich would
    find the same widths by rendering each cell to measure it, a fifth of the time a
    1,000-workload plan takes to print. Without colour (a file or a pipe) the lines are drawn
    here, as rich draws them: rich takes about a millisecond a row, minutes for the 80,000 rows
    of 2,000 workloads in 40 environments."""
    for column in grid.columns:
        column.width = max(_cell_width(cell) for cell in (column.header, *column.cells))
    if out.color_system is not None or not out.encoding.lower().startswith("utf"):
        out.print(grid)  # styles to draw, or rich's ASCII box for a non-UTF-8 stream
        return
    widths = [column.width or 0 for column in grid.columns]
    if sum(widths) + 3 * len(widths) + 1 > out.width:
        out.print(grid)  # rich crops at the console width; keep its output exactly
        return
    out.file.write(_plain_rows(grid, widths))


def _plain_rows(grid: Table, widths: list[int]) -> str:
    """The table as rich prints it without colour, in its default box (``HEAVY_HEAD``)."""

    def rule(left: str, line: str, cross: str, right: str) -> str:
        return left + cross.join(line * (w + 2) for w in widths) + right + "\n"

    def row(edge: str, cells: list[object]) -> str:
        parts = []
        for cell, width, column in zip(cells, widths, grid.columns, strict=True):
            text = _cell_text(cell)
            pad = " " * (width - _cell_width(cell))
            parts.append(f" {pad}{text} " if column.justify == "right" else f" {text}{pad} ")
        return edge + edge.join(parts) + edge + "\n"

    lines = [rule("┏", "━", "┳", "┓"), row("┃", [c.header for c in grid.columns])]
    lines.append(rule("┡", "━", "╇", "┩"))
    columns = [list(column.cells) for column in grid.columns]
    for index, meta in enumerate(grid.rows):
        lines.append(row("│", [cells[index] for cells in columns]))
        if meta.end_section and index < len(grid.rows) - 1:
            lines.append(rule("├", "─", "┼", "┤"))
    lines.append(rule("└", "─", "┴", "┘"))
    return "".join(lines)


def _cell_text(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else escape_controls(str(cell))


def _cell_width(cell: object) -> int:
    # As printed: a string's control characters are shown as escapes (``SafeConsole``).
    return cell.cell_len if isinstance(cell, Text) else cell_len(escape_controls(str(cell)))


def money(value: float) -> str:
    return f"{value:,.2f}"
