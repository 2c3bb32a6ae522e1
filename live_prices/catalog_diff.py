"""What moved between two catalogs: offers added and removed, and prices that changed, keyed
by offer (cloud, region, zone, instance type, GPUs)."""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.live_prices.refresh_checks import OfferKey, offer_key
from gpufleet.planner.catalog import Catalog, Offer


@dataclass(frozen=True)
class PriceMove:
    old: Offer
    new: Offer

    @property
    def columns(self) -> list[str]:
        return [
            c
            for c in ("on_demand_hourly", "spot_hourly")
            if getattr(self.old, c) != getattr(self.new, c)
        ]

    def change(self, column: str) -> float | None:
        """The relative change of ``column`` (0.1: up 10%); None where either side has none."""
        a, b = getattr(self.old, column), getattr(self.new, column)
        return None if a is None or b is None else b / a - 1.0


@dataclass(frozen=True)
class CatalogDiff:
    added: list[Offer]
    removed: list[Offer]
    moved: list[PriceMove]
    unchanged: int

    def as_dict(self) -> dict[str, object]:
        return {
            "added": [o.as_dict() for o in self.added],
            "removed": [o.as_dict() for o in self.removed],
            "moved": [
                {
                    "old": m.old.as_dict(),
                    "new": m.new.as_dict(),
                    "changes": {
                        c: None if (r := m.change(c)) is None else round(r, 6) for c in m.columns
                    },
                }
                for m in self.moved
            ],
            "unchanged": self.unchanged,
        }


def diff_catalogs(old: Catalog, new: Catalog) -> CatalogDiff:
    before: dict[OfferKey, Offer] = {offer_key(o): o for o in old.offers}
    after: dict[OfferKey, Offer] = {offer_key(o): o for o in new.offers}
    moved: list[PriceMove] = []
    unchanged = 0
    for key in sorted(before.keys() & after.keys()):
        move = PriceMove(before[key], after[key])
        if move.columns:
            moved.append(move)
        else:
            unchanged += 1
    return CatalogDiff(
        [after[k] for k in sorted(after.keys() - before.keys())],
        [before[k] for k in sorted(before.keys() - after.keys())],
        moved,
        unchanged,
    )
