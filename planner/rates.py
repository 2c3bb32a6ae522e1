"""What one instance-hour costs under each pricing model: the price lookups the planner and the
cost engine share, so a plan and the stack built from it are priced alike.

A rate is a catalog list price per instance-hour, per region:

- ``on_demand``: the catalog's on-demand price (the same in every zone of a region);
- ``spot``: where the capacity runs. AWS prices spot per availability zone (GCP and Azure per
  region, the same in each zone). Capacity pinned to one zone — a placement cluster, a compact
  placement, a single-subnet group, a VM — pays that zone's price, and has none in a zone
  without a spot offer (``SpotScope`` "zone"). Capacity that may run in any zone of the region
  — an Auto Scaling group over several subnets, a SageMaker job — pays something like the mean
  over the zones that offer it ("region");
- ``reserved_1y`` / ``reserved_3y``: on-demand x (1 - the commitment discount,
  ``PricingAssumptions``).

SageMaker (``ml.*``) machines cost their EC2 rate times the family's SageMaker markup. The
planner prices spot as an expected cost, with the interruption overhead as extra hours on top
of the rate (``offer_pricing``); the cost engine bills rates as they are.

``RateCard.rate`` is the cost engine's lookup by machine and region, with its fallbacks: a type
the catalog has but not in that region is priced at its highest catalog rate, marked estimated;
a type the catalog does not have at all has no rate (None), so it is shown as unpriced, never
as $0.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from statistics import fmean
from typing import Literal

from gpufleet.clouds import Cloud, is_cloud
from gpufleet.planner.catalog import Catalog, Offer, load_catalog
from gpufleet.planner.pricing import PricingAssumptions, resolve_assumptions, sagemaker_markup
from gpufleet.pricing_models import Pricing

SAGEMAKER_PREFIX = "ml."

# (cloud, region, instance type in lower case, GPU name, GPUs per instance)
_RegionKey = tuple[str, str, str, str, int]

# Where a spot rate is read: "zone", capacity pinned to one zone pays that zone's price (none
# where the zone has no spot offer); "region", capacity spanning the region's zones pays the
# mean over those that offer it.
SpotScope = Literal["zone", "region"]


@dataclass(frozen=True)
class Rate:
    """One instance-hour's price, and where it comes from."""

    hourly: float
    region: str  # the region whose catalog price this is
    # Why this is not the catalog price for the resource's own region and pricing model;
    # None when it is.
    estimated: str | None = None


def is_sagemaker_type(instance_type: str) -> bool:
    return instance_type.startswith(SAGEMAKER_PREFIX)


def ec2_type(instance_type: str) -> str:
    """The EC2 instance type a SageMaker ``ml.*`` type runs on (others unchanged)."""
    return instance_type.removeprefix(SAGEMAKER_PREFIX)


class RateCard:
    """Rates per instance-hour from a catalog, under one set of pricing assumptions."""

    def __init__(self, catalog: Catalog, assumptions: PricingAssumptions) -> None:
        self.catalog = catalog
        self.assumptions = assumptions
        spots: dict[_RegionKey, list[float]] = defaultdict(list)
        self._region_offer: dict[_RegionKey, Offer] = {}
        self._regions_of: dict[tuple[str, str], list[_RegionKey]] = defaultdict(list)
        # Each zone's own spot price (None: the zone offers the machine, not on spot).
        self._zone_spot: dict[tuple[_RegionKey, str], float | None] = {}
        for offer in catalog.offers:
            key = _key(offer)
            self._zone_spot.setdefault((key, offer.zone), offer.spot_hourly)
            if offer.spot_hourly is not None:
                spots[key].append(offer.spot_hourly)
            if key not in self._region_offer:
                self._region_offer[key] = offer
                self._regions_of[(offer.cloud, key[2])].append(key)
        self._spot: dict[_RegionKey, float] = {key: fmean(v) for key, v in spots.items()}
        self._dearest_zone: dict[_RegionKey, float] = {key: max(v) for key, v in spots.items()}
        self._spot_zones = {key: len(v) for key, v in spots.items()}
        # The planner asks per offer, thousands of times a plan: by identity first (the catalog
        # holds its offers, so ids stay theirs), by key for offers from elsewhere.
        self._offer_spot = {id(o): self._spot.get(_key(o)) for o in catalog.offers}

    # --- by offer: the planner's lookups -----------------------------------------------------

    def spot(self, offer: Offer, scope: SpotScope = "region") -> float | None:
        """The spot rate of ``offer``'s machine, before any SageMaker markup: in its zone
        (``scope`` "zone": the offer's own price) or over its region (the mean over the
        region's zones that offer it); None where there is no spot price."""
        if scope == "zone":
            return offer.spot_hourly
        held = id(offer)
        if held in self._offer_spot:
            return self._offer_spot[held]
        return self._spot.get(_key(offer))

    def spot_zones(self, offer: Offer) -> int:
        """How many zones of ``offer``'s region offer its machine on spot."""
        return self._spot_zones.get(_key(offer), 0)

    def hourly(
        self,
        offer: Offer,
        pricing: Pricing,
        *,
        sagemaker: bool = False,
        scope: SpotScope = "region",
    ) -> float | None:
        """The rate of ``offer``'s machine in its region under ``pricing``; ``sagemaker``: as
        the ``ml.`` type of the same machine; ``scope``: where a spot rate is read. None where
        spot has no price (or SageMaker does not offer the family)."""
        markup = 1.0
        if sagemaker:
            found = sagemaker_markup(offer.instance_type)
            if found is None:
                return None
            markup = found
        if pricing == "spot":
            spot = self.spot(offer, scope)
            return None if spot is None else spot * markup
        on_demand = offer.on_demand_hourly * markup
        if pricing == "on_demand":
            return on_demand
        return on_demand * self.assumptions.commitment_multiplier(offer.cloud, pricing)

    # --- by machine and place: the cost engine's lookup --------------------------------------

    def rate(
        self,
        cloud: Cloud,
        instance_type: str,
        region: str | None,
        pricing: Pricing,
        gpu: tuple[str, int] | None = None,
        zone: str | None = None,
        *,
        one_zone: bool = False,
    ) -> Rate | None:
        """The rate of ``instance_type`` (``ml.*`` for SageMaker; ``gpu``: the GPUs attached to
        a GCP N1 machine) in ``region`` under ``pricing``. Where the region has no price, the
        highest catalog rate for the type, marked estimated; None when the catalog does not
        know the type (or the pairing) at all. ``one_zone``: the capacity runs in one zone,
        ``zone`` (a catalog zone; None when not known), so spot is that zone's price; where
        the zone has none (or is not known), the region's dearest zone's, marked estimated."""
        sagemaker = cloud == "aws" and is_sagemaker_type(instance_type)
        base = ec2_type(instance_type) if sagemaker else instance_type
        keys = [
            k
            for k in self._regions_of.get((cloud, base.lower()), [])
            if gpu is None or (k[3], k[4]) == gpu
        ]
        if not keys:
            return None
        notes: list[str] = []
        if sagemaker and sagemaker_markup(base) is None:
            # The machine is known; SageMaker's price for it is not: the EC2 rate, said so.
            notes.append(f"no SageMaker markup known for {base.split('.', 1)[0]}: EC2 rate")
            sagemaker = False
        local = [k for k in keys if k[1] == region]
        wanted = pricing
        if pricing == "spot" and not any(k in self._spot for k in keys):
            notes.append(f"no spot price for {instance_type} in the catalog: on-demand rate")
            wanted = "on_demand"
        if wanted == "spot" and one_zone and local:
            zonal = self._zonal_spot(local, region, zone)
            if zonal is not None:
                hourly, note = zonal
                if sagemaker:
                    hourly *= sagemaker_markup(base) or 1.0
                notes += [note] if note else []
                return Rate(hourly, local[0][1], "; ".join(notes) or None)
        rated = [
            (price, k[1])
            for k in (local or keys)
            if (price := self.hourly(self._region_offer[k], wanted, sagemaker=sagemaker))
            is not None
        ]
        if local and not rated:
            # In the region, but without a spot price there.
            rated = [
                (price, k[1])
                for k in keys
                if (price := self.hourly(self._region_offer[k], wanted, sagemaker=sagemaker))
                is not None
            ]
            notes.append(f"no {wanted} price in {region}: highest catalog rate ({{region}})")
        elif not local:
            where = f"in {region}" if region else "for an unknown region"
            notes.append(f"no catalog price {where}: highest catalog rate ({{region}})")
        if not rated:
            return None
        hourly, source = max(rated)
        estimated = "; ".join(n.replace("{region}", source) for n in notes) or None
        return Rate(hourly, source, estimated)

    def _zonal_spot(
        self, keys: list[_RegionKey], region: str | None, zone: str | None
    ) -> tuple[float, str | None] | None:
        """The spot price in ``zone`` of the machine ``keys`` name in one region, and why it
        is estimated, if it is; None when no zone of the region offers it on spot."""
        if zone is not None:
            found = [p for k in keys if (p := self._zone_spot.get((k, zone))) is not None]
            if found:
                return max(found), None
        dearest = [self._dearest_zone[k] for k in keys if k in self._dearest_zone]
        if not dearest:
            return None
        if zone is None:
            why = "it runs in one zone, which its settings do not name"
        elif any((k, zone) in self._zone_spot for k in keys):
            why = f"zone {zone} has no spot offer for it"
        else:
            why = f"zone {zone} is not in the catalog"
        return max(dearest), f"{why}: the dearest spot rate of {region}'s zones"


def _key(offer: Offer) -> _RegionKey:
    return (
        offer.cloud,
        offer.region,
        offer.instance_type.lower(),
        offer.gpu_name,
        offer.gpu_count,
    )


def shipped_rate_card(
    commitment_discounts: Mapping[str, Mapping[str, float]] | None = None,
) -> RateCard:
    """Rates from the shipped catalog under the default assumptions, or with these commitment
    discounts (cloud -> term -> fraction; a stack generated from a spec that sets its own)."""
    key = json.dumps(commitment_discounts or {}, sort_keys=True)
    return _rate_card(key)


@cache
def _rate_card(discounts: str) -> RateCard:
    overrides: dict[Cloud, dict[str, float | None]] = {
        cloud: dict(terms) for cloud, terms in json.loads(discounts).items() if is_cloud(cloud)
    }
    return RateCard(load_catalog(), resolve_assumptions(None, overrides))
