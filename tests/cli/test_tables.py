"""Tables for people: column widths computed from the cells, exactly as rich would measure them."""

from __future__ import annotations

import io


def test_tables_print_with_given_widths_exactly_as_rich_measures_them() -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from gpufleet.cli.tables import L, R, print_table
    from gpufleet.cli.tables import table as make_table

    def table() -> Table:
        t = make_table(("workload", L), ("GPUs", L), ("$/month", R))
        t.add_row("a-longer-workload-name", "1x8 H100", "1.00")
        # East Asian characters take two cells each: the widest cell is wider than its len().
        t.add_row("训练-大型语言模型-第二阶段", Text("not placed", style="red"), "123,456.78")
        t.add_section()
        t.add_row("total", "", "")
        return t

    given, measured = io.StringIO(), io.StringIO()
    print_table(Console(file=given, width=10_000), table())
    Console(file=measured, width=10_000).print(table())
    assert given.getvalue() == measured.getvalue()
    assert "训练-大型语言模型-第二阶段 │" in given.getvalue()


def test_text_with_emoji_codes_prints_as_written() -> None:
    # A type token such as acme:x:Comp is a name, not the :x: emoji.
    from gpufleet.cli.tables import L, console, print_table, table

    out = io.StringIO()
    grid = table(("type", L))
    grid.add_row("acme:x:Comp :smile:")
    shown = console(out)
    shown.print("acme:warning:Thing")
    print_table(shown, grid)
    assert "acme:x:Comp :smile:" in out.getvalue()
    assert "acme:warning:Thing" in out.getvalue()
