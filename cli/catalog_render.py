"""How ``catalog refresh`` and ``catalog diff`` print: a table for people, JSON for pipes."""

from __future__ import annotations

import json
from pathlib import Path

import click

from gpufleet.cli import messages, tables
from gpufleet.cli.tables import L, R
from gpufleet.live_prices.catalog_diff import CatalogDiff, PriceMove
from gpufleet.live_prices.refresh import Refreshed
from gpufleet.planner.catalog import Offer


def refreshed(result: Refreshed, output: Path, fmt: str) -> None:
    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "output": str(output),
                    "offers": len(result.catalog.offers),
                    "clouds": [
                        {
                            "cloud": r.cloud,
                            "offers": len(r.offers),
                            "price_rows": r.price_rows,
                            "skipped": r.skipped,
                        }
                        for r in result.results
                    ],
                    "notes": result.notes,
                    "accepted_moves": result.moves,
                },
                indent=2,
            )
        )
        return
    console = tables.console()
    grid = tables.table(("cloud", L), ("offers", R), ("price rows read", R), ("left out", R))
    for r in result.results:
        grid.add_row(r.cloud, f"{len(r.offers):,}", f"{r.price_rows:,}", f"{len(r.skipped):,}")
    tables.print_table(console, grid)
    for r in result.results:
        for line in r.skipped:
            messages.echo(f"left out: {line}", err=True)
    for line in result.notes:
        messages.echo(f"note: {line}", err=True)
    for line in result.moves:
        messages.echo(f"accepted: {line}", err=True)
    console.print(f"wrote {len(result.catalog.offers):,} offers to {output}")


def _offer(o: Offer) -> str:
    return f"{o.cloud} {o.location} {o.instance_type} ({o.gpu_count}x {o.gpu_name})"


def _price(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _change(move: PriceMove, column: str) -> str:
    old, new = getattr(move.old, column), getattr(move.new, column)
    if old == new:
        return _price(new)
    ratio = move.change(column)
    pct = "" if ratio is None else f" ({100 * ratio:+.1f}%)"
    return f"{_price(old)} -> {_price(new)}{pct}"


def diff(found: CatalogDiff, fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(found.as_dict(), indent=2))
        return
    console = tables.console()
    if found.moved:
        grid = tables.table(("offer", L), ("on-demand $/hour", R), ("spot $/hour", R))
        for move in found.moved:
            grid.add_row(
                _offer(move.new),
                _change(move, "on_demand_hourly"),
                _change(move, "spot_hourly"),
            )
        tables.print_table(console, grid)
    for offer in found.added:
        console.print(f"added: {_offer(offer)}")
    for offer in found.removed:
        console.print(f"removed: {_offer(offer)}")
    console.print(
        f"{len(found.moved):,} moved, {len(found.added):,} added, {len(found.removed):,} "
        f"removed, {found.unchanged:,} unchanged"
    )
