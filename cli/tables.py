"""How gpufleet prints tables: rich, at their natural width, columns sized from their cells.

Shared by the renderers of ``plan``, ``catalog list`` and ``cost``.
"""

from __future__ import annotations

import sys
from typing import IO

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

L, R = "left", "right"


def console(file: IO[str] | None = None) -> Console:
    # Tables print at their natural width, in a terminal too: squeezing ten columns into 80 or 110
    # characters folds names mid-word or collapses columns to nothing, which is worse than a
    # soft-wrapped line. Colour still follows whether stdout is a terminal. Markup is off so text
    # from specs and catalogs prints as written; styling is explicit (Text).
    return Console(file=file or sys.stdout, width=10_000, highlight=False, markup=False)


def bold(text: str) -> Text:
    return Text(text, style="bold")


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
    1,000-workload plan takes to print."""
    for column in grid.columns:
        column.width = max(_cell_width(cell) for cell in (column.header, *column.cells))
    out.print(grid)


def _cell_width(cell: object) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(str(cell))


def money(value: float) -> str:
    return f"{value:,.2f}"
