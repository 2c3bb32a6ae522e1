"""``gpufleet catalog refresh``: each chosen cloud's offers read again from its APIs, checked,
and written with the offers of the catalog in use it did not read (other clouds, other
regions), all or nothing.

A cloud's reader is found by name (``READERS``), imported only when that cloud is refreshed:
the SDKs stay off every other path. Rows keep their source and the time they were read
(``as_of``, UTC to the second). The new catalog is checked (``refresh_checks``) and parsed back
as any catalog is before it is written, so a file the planner cannot read is never written.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from gpufleet.atomic_write import atomic_write_text
from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.live_prices.price_source import RefreshError, SourceResult
from gpufleet.live_prices.refresh_checks import check_moves, check_offers, offer_key
from gpufleet.planner.catalog import (
    Catalog,
    CatalogError,
    Offer,
    parse_catalog_text,
    write_catalog_csv,
)

# Each cloud's reader: ``module:function`` taking a ``RefreshRequest``.
READERS: dict[Cloud, str] = {
    "aws": "gpufleet.live_prices.aws_prices:read_aws",
    "gcp": "gpufleet.live_prices.gcp_prices:read_gcp",
    "azure": "gpufleet.live_prices.azure_prices:read_azure",
}


@dataclass(frozen=True)
class RefreshRequest:
    cloud: Cloud
    regions: tuple[str, ...]
    now: datetime  # UTC: the as_of of every row read
    base: Catalog  # the catalog in use: machines a cloud's API does not describe come from it
    gcp_project: str | None = None


@dataclass(frozen=True)
class Refreshed:
    catalog: Catalog
    text: str  # its CSV
    results: list[SourceResult]
    notes: list[str]
    moves: list[str]  # accepted


def reader(cloud: Cloud) -> Callable[[RefreshRequest], SourceResult]:
    module, _, name = READERS[cloud].partition(":")
    found: Callable[[RefreshRequest], SourceResult] = getattr(importlib.import_module(module), name)
    return found


def default_regions(base: Catalog, cloud: Cloud) -> tuple[str, ...]:
    return tuple(sorted(base.regions(cloud)))


def refresh_catalog(
    base: Catalog,
    clouds: Sequence[Cloud],
    now: datetime,
    *,
    regions: Mapping[Cloud, Sequence[str]] | None = None,
    gcp_project: str | None = None,
    max_move: float,
    accept_moves: bool,
) -> Refreshed:
    """The catalog with ``clouds`` read again; RefreshError (nothing to write) when a reader
    fails, a row is not sensible, or prices moved past ``max_move`` unaccepted."""
    results: list[SourceResult] = []
    problems: list[str] = []
    read_where: set[tuple[Cloud, str]] = set()
    for cloud in clouds:
        chosen = tuple((regions or {}).get(cloud) or default_regions(base, cloud))
        read_where |= {(cloud, region) for region in chosen}
        request = RefreshRequest(cloud, chosen, now, base, gcp_project)
        try:
            result = reader(cloud)(request)
        except RefreshError as exc:
            problems += exc.problems
            continue
        if not result.offers:
            problems.append(f"{cloud}: no GPU offers read in {', '.join(chosen) or 'no region'}")
        results.append(result)
    if problems:
        raise RefreshError(problems)
    read = [o for r in results for o in r.offers]
    checked = check_offers(read)
    if checked.problems:
        raise RefreshError(checked.problems)
    moves = check_moves(base.offers, checked.offers, read_where, max_move)
    if moves and not accept_moves:
        raise RefreshError(
            [*moves, f"{len(moves)} move(s) past the limit: pass --accept-moves to take them"]
        )
    # What was not read again stays as it was: other clouds, other regions.
    kept = [o for o in base.offers if (o.cloud, o.region) not in read_where]
    offers = sorted([*kept, *checked.offers], key=_order)
    text = write_catalog_csv(offers)
    try:
        catalog = parse_catalog_text(text, "the refreshed catalog")
    except CatalogError as exc:
        raise RefreshError([str(exc)]) from None
    return Refreshed(catalog, text, results, checked.notes, moves)


def _order(offer: Offer) -> tuple[object, ...]:
    return (CLOUDS.index(offer.cloud), *offer_key(offer)[1:])


def write_refreshed(path: Path, refreshed: Refreshed) -> None:
    """Replace ``path`` with the refreshed catalog in one step (OSError naming the path)."""
    atomic_write_text(path, refreshed.text)
