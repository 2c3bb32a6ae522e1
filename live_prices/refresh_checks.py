"""What a refreshed catalog must be before it replaces the one in use.

Every offer: a GPU the vocabulary knows, at least one GPU, positive and finite numbers, spot at
most on-demand (a cloud echoing its on-demand price as spot has no spot market there: the spot
price is dropped, as the snapshot's cleaning does, and said). Against the catalog it replaces:
no price of an offer both have moving by more than ``max_move`` times either way, and no region
read again losing all its offers, more than half of them, or more than half of its spot prices
(a partial answer looks like that), unless the user accepts the moves (``--accept-moves``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from gpufleet.clouds import Cloud
from gpufleet.planner.catalog import Offer
from gpufleet.planner.gpus import GPUS

# A list price that moves past this factor in one refresh is more likely a fault than a price.
DEFAULT_MAX_MOVE = 2.0

OfferKey = tuple[str, str, str, str, str, int]


def offer_key(offer: Offer) -> OfferKey:
    return (
        offer.cloud,
        offer.region,
        offer.zone,
        offer.instance_type,
        offer.gpu_name,
        offer.gpu_count,
    )


@dataclass(frozen=True)
class Checked:
    offers: list[Offer]
    problems: list[str]  # each blocks the refresh
    moves: list[str]  # blocks unless accepted
    notes: list[str]  # said, never blocking


def _bad_number(value: float | None) -> bool:
    return value is not None and not (math.isfinite(value) and value > 0)


def check_offers(offers: Iterable[Offer]) -> Checked:
    """Offers as a catalog may hold them; a spot price at or above on-demand dropped."""
    kept: list[Offer] = []
    problems: list[str] = []
    notes: list[str] = []
    seen: set[OfferKey] = set()
    for offer in offers:
        where = f"{offer.cloud} {offer.location} {offer.instance_type}"
        if offer.gpu_name not in GPUS:
            problems.append(f"{where}: GPU {offer.gpu_name!r} is not one gpufleet knows")
            continue
        numbers = {
            "gpu_count": float(offer.gpu_count),
            "gpu_memory_gib": offer.gpu_memory_gib,
            "vcpus": offer.vcpus,
            "memory_gib": offer.memory_gib,
            "on_demand_hourly": offer.on_demand_hourly,
            "spot_hourly": offer.spot_hourly,
        }
        bad = [name for name, value in numbers.items() if _bad_number(value)]
        if bad:
            shown = ", ".join(f"{name} {numbers[name]!r}" for name in bad)
            problems.append(f"{where}: not a positive, finite number: {shown}")
            continue
        key = offer_key(offer)
        if key in seen:
            problems.append(f"{where}: read twice")
            continue
        seen.add(key)
        if offer.spot_hourly is not None and offer.spot_hourly >= offer.on_demand_hourly:
            notes.append(
                f"{where}: spot {offer.spot_hourly:g} is not below on-demand "
                f"{offer.on_demand_hourly:g}: no spot price kept"
            )
            offer = replace(offer, spot_hourly=None)
        kept.append(offer)
    return Checked(kept, problems, [], notes)


def check_moves(
    old: Iterable[Offer],
    new: Iterable[Offer],
    read: Iterable[tuple[Cloud, str]],
    max_move: float,
) -> list[str]:
    """Prices in the (cloud, region) pairs ``read`` again that moved past ``max_move`` times,
    and those regions that had offers and have none now."""
    refreshed = set(read)
    before = {offer_key(o): o for o in old if (o.cloud, o.region) in refreshed}
    after = {offer_key(o): o for o in new}
    moves: list[str] = []
    for key, now in after.items():
        was = before.get(key)
        if was is None:
            continue
        for column in ("on_demand_hourly", "spot_hourly"):
            a, b = getattr(was, column), getattr(now, column)
            if a is not None and b is not None and max(a / b, b / a) > max_move:
                moves.append(
                    f"{now.cloud} {now.location} {now.instance_type}: {column} {a:g} -> {b:g} "
                    f"(more than {max_move:g}x)"
                )
    # A partial answer looks like offers or spot prices gone: a region losing more than half of
    # either, or all its offers, is a move to accept.
    had = Counter((o.cloud, o.region) for o in before.values())
    kept = Counter((o.cloud, o.region) for k, o in before.items() if k in after)
    had_spot = Counter((o.cloud, o.region) for o in before.values() if o.spot_hourly is not None)
    kept_spot = Counter(
        (o.cloud, o.region)
        for k, o in before.items()
        if o.spot_hourly is not None and k in after and after[k].spot_hourly is not None
    )
    for (cloud, region), count in sorted(had.items()):
        if not kept[(cloud, region)] and not any(
            (o.cloud, o.region) == (cloud, region) for o in after.values()
        ):
            moves.append(f"{cloud} {region}: {count} offers before, none read now")
        elif kept[(cloud, region)] * 2 < count:
            moves.append(
                f"{cloud} {region}: {count - kept[(cloud, region)]} of its {count} offers gone"
            )
        spot = had_spot[(cloud, region)]
        if spot and kept_spot[(cloud, region)] * 2 < spot:
            moves.append(
                f"{cloud} {region}: {spot - kept_spot[(cloud, region)]} of its {spot} spot "
                "prices gone"
            )
    return moves
