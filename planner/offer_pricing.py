"""What one offer costs a workload, under each pricing model it may use.

A workload's size (``Sizing``): inference runs ``replicas.max`` instances, or for ``always_on``
serving ``replicas.min`` all month (730 h) plus a burst to ``replicas.max``; training and batch
run ``nodes`` instances. What is not an always-on base runs for the workload's hours
(``planner.hours``: its schedule's, or ``hours_per_month``).
Inference replicas scale with the environment (``replica_scale``, rounded up so serving keeps
one replica) and are capped by ``max_replicas``; the nodes of a tightly coupled job never are.
On an offer, replicas and batch workers pack several to an instance where its GPUs hold them
(``sizer``, with ``planner.packing``): the counts above become instances, rounded up.

An offer is priced (``offer_pricer``) at its rates (``planner.rates``, shared with the cost
engine: SageMaker markups, commitment discounts, and spot where the component that would build
it runs — the offer's own zone for capacity pinned to one zone, the mean over the region's
zones that offer it for capacity spanning them: ``spot_scope``) as a candidate per pricing
model its base capacity may use, each with the cheapest burst:

- ``spot`` (only for ``interruptible`` work, where the offer has a spot price, and never for
  the always-on base of serving): expected cost, spot x (1 + overhead x nodes), ``pricing``;
- ``on_demand`` (when the environment allows it);
- ``reserved_1y`` / ``reserved_3y`` (only for ``always_on`` capacity, up to the environment's
  ``max_commitment``); the burst is spot if interruptible, else on-demand, because commitments
  only pay off for capacity that never stops.

``bucket_lower_bound`` prices a bucket of offers (one GPU type and count in one region) at its
cheapest prices: a cost no offer in it can beat, which lets the search skip whole buckets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import get_args

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.capabilities import CAPABILITIES, capacity_need, component_for
from gpufleet.planner.catalog import Offer
from gpufleet.planner.gpu_need import GpuOption
from gpufleet.planner.gpu_sharing import SharedGpu
from gpufleet.planner.hours import has_base, hours_model, idle_hours, variable_hours
from gpufleet.planner.packing import replicas_per_instance
from gpufleet.planner.plan import Burst, Placement
from gpufleet.planner.pricing import PricingAssumptions
from gpufleet.planner.rates import RateCard, SpotScope
from gpufleet.planner.spec import EnvironmentLimits, Workload
from gpufleet.pricing_models import (
    HOURS_PER_MONTH,
    PRICING_ORDER,
    TERMS_UP_TO,
    Pricing,
    is_commitment,
)

_SPOT = PRICING_ORDER.index("spot")
_ON_DEMAND = PRICING_ORDER.index("on_demand")

# A priced candidate, ordered exactly like the tie-break rule: monthly cost, cloud, region, zone,
# instance type, pricing model, then GPU name and catalog position (GCP N1 hosts share an
# instance type across GPUs), so two candidates never compare their Offer objects. Plain tuples
# keep evaluating thousands of offers cheap; the winner becomes a Placement (``to_placement``).
Candidate = tuple[float, str, str, str, str, int, str, int, Offer, float, "Burst | None"]


@dataclass(frozen=True)
class Sizing:
    instances: int  # run for base_hours
    burst_instances: int  # above them, for burst_hours
    base_hours: float
    burst_hours: float
    # Whether the instances are an always-on base (730 h; commitments may pay for them).
    always_on_base: bool
    # Runs a month, and hours the instances idle after them, billed at their list rate (an
    # Azure ML cluster's idle time-out before it scales down: ``hours.idle_hours``).
    runs: int = 0
    idle_hours: float = 0.0
    # Replicas (serving) or workers (batch) each instance runs (``planner.packing``); the
    # instance counts above are of instances, the spec's counts divided by it, rounded up.
    replicas_per_instance: int = 1
    # How they share a GPU, when more run on an instance than it has GPUs.
    shared: SharedGpu | None = None

    def packed(self, per_instance: int, shared: SharedGpu | None = None) -> Sizing:
        """The same replicas or workers, ``per_instance`` to an instance (sharing GPUs as
        ``shared`` says): the base's and the whole's instances rounded up, the burst what the
        whole needs beyond the base."""
        if per_instance == self.replicas_per_instance and shared == self.shared:
            return self
        units = self.instances * self.replicas_per_instance
        total = (self.instances + self.burst_instances) * self.replicas_per_instance
        base = math.ceil(units / per_instance)
        return replace(
            self,
            instances=base,
            burst_instances=math.ceil(total / per_instance) - base,
            replicas_per_instance=per_instance,
            shared=shared,
        )

    @property
    def baseline_hours(self) -> float:
        """Instance-hours a month that the on-demand baseline pays for."""
        return (
            self.instances * (self.base_hours + self.idle_within(self.base_hours))
            + self.burst_instances * self.burst_hours
        )

    def idle_within(self, billed_hours: float) -> float:
        """Its idle hours that fit in the month beside ``billed_hours`` of work (an instance
        bills the month at most)."""
        return min(self.idle_hours, max(HOURS_PER_MONTH - billed_hours, 0.0))


def sizing(workload: Workload, limits: EnvironmentLimits) -> Sizing:
    hours = variable_hours(workload)
    if workload.kind != "inference":
        runs, idle = idle_hours(workload)
        return Sizing(workload.nodes, 0, hours, hours, False, runs, idle)
    replicas_min = workload.replicas.min if workload.replicas else 1
    replicas_max = workload.replicas.max if workload.replicas else 1
    cap = limits.max_replicas or replicas_max
    replicas_max = min(cap, max(1, math.ceil(replicas_max * limits.replica_scale - 1e-9)))
    replicas_min = min(replicas_max, math.ceil(replicas_min * limits.replica_scale - 1e-9))
    if has_base(workload) and replicas_min > 0:
        return Sizing(replicas_min, replicas_max - replicas_min, HOURS_PER_MONTH, hours, True)
    return Sizing(replicas_max, 0, hours, hours, False)


def sizer(
    workload: Workload, size: Sizing, options: Iterable[GpuOption]
) -> Callable[[Offer], Sizing]:
    """The workload's size on one offer: its replicas or workers packed onto the offer's
    instances (``planner.packing``), each with the GPUs its GPU option asks of one."""
    by_gpu = {o.gpu_name: o for o in options}
    units = size.instances + size.burst_instances
    cache: dict[tuple[str, int], Sizing] = {}

    def on(offer: Offer) -> Sizing:
        key = (offer.gpu_name, offer.gpu_count)
        found = cache.get(key)
        if found is None:
            option = by_gpu.get(offer.gpu_name)
            shared = option.shared if option is not None else None
            per_instance = replicas_per_instance(
                workload,
                units,
                option.min_per_node if option is not None else 0,
                offer.gpu_count,
                shared.replicas if shared is not None else 1,
            )
            # GPUs are shared only when more replicas run on an instance than it has GPUs.
            sharing = shared if shared is not None and per_instance > offer.gpu_count else None
            found = cache[key] = size.packed(per_instance, sharing)
        return found

    return on


@dataclass
class OfferBucket:
    """Offers of one GPU type and count in one cloud region, with their cheapest prices."""

    offers: list[Offer]
    min_on_demand: float = math.inf
    min_spot: float = math.inf
    # What a workload's size on the bucket's offers depends on: GPU type, count and cloud.
    shape: tuple[str, int, Cloud] = ("", 0, "aws")

    def add(self, offer: Offer, rates: RateCard) -> None:
        """Add ``offer``: its spot rate in either scope (its zone's, its region's mean) is at
        least the bucket's cheapest, whichever a workload pays."""
        if not self.offers:
            self.shape = (offer.gpu_name, offer.gpu_count, offer.cloud)
        self.offers.append(offer)
        self.min_on_demand = min(self.min_on_demand, offer.on_demand_hourly)
        for scope in get_args(SpotScope):
            spot = rates.spot(offer, scope)
            if spot is not None:
                self.min_spot = min(self.min_spot, spot)


def _spot_factors(
    workload: Workload, assumptions: PricingAssumptions, nodes: int, hours: float
) -> dict[Cloud, float]:
    """What spot capacity is expected to cost per hour of work, per cloud: its rate times the
    interruption overhead (work lost and run again), for work of ``hours`` a month. An
    instance bills at most the month, however much work is lost: capacity planned all month
    (and scheduled capacity, which runs its windows and no longer) has no overhead to bill."""
    if workload.schedule is not None or hours <= 0:
        return dict.fromkeys(CLOUDS, 1.0)
    most = HOURS_PER_MONTH / hours
    return {
        cloud: max(1.0, min(assumptions.spot_multiplier(cloud, nodes), most)) for cloud in CLOUDS
    }


def _nodes_failing_together(workload: Workload, size: Sizing) -> int:
    # Inference replicas fail independently (and only inference has a burst): one node each.
    # A job's instances run together (its packed workers: one loss interrupts them all).
    return size.instances if workload.kind != "inference" else 1


class _SpotFactors:
    """``_spot_factors`` of a workload's base and burst, per size (packing changes a job's
    instance count, so the nodes failing together)."""

    def __init__(self, workload: Workload, assumptions: PricingAssumptions) -> None:
        self._workload, self._assumptions = workload, assumptions
        self._cache: dict[tuple[int, float], dict[Cloud, float]] = {}

    def __call__(self, size: Sizing, hours: float) -> dict[Cloud, float]:
        nodes = _nodes_failing_together(self._workload, size)
        key = (nodes, hours)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = _spot_factors(
                self._workload, self._assumptions, nodes, hours
            )
        return found


def spot_scope(workload: Workload, cloud: Cloud, instances: int, burst: bool = False) -> SpotScope:
    """Where spot capacity of ``workload`` on ``cloud`` is priced: in its zone when the
    component that would build it (its base of ``instances``, or its ``burst``: a fleet) runs
    in one zone, else over the region's zones. A placement no component builds on spot is
    held to its zone: the stricter of the two."""
    base = capacity_need(workload.kind, workload.managed, instances, "spot")
    need = "fleet" if burst else base
    try:
        found = component_for(cloud, need, "spot", None if burst else workload.runs_on)
    except LookupError:
        return "zone"
    return found.spot_scope


def offer_pricer(
    workload: Workload,
    limits: EnvironmentLimits,
    rates: RateCard,
    size_on: Callable[[Offer], Sizing],
    position: dict[int, int],
    every_burst: bool = False,
) -> Callable[[Offer], list[Candidate] | None]:
    """A function giving, for one offer, a candidate per pricing model its base capacity may
    use (each with the cheapest burst; with ``every_burst``, one per burst pricing too, for a
    search that may have to pass over the cheapest: quotas); [] if all are over
    ``max_price_per_hour``; None if the environment allows none. ``size_on`` is the
    workload's size on an offer (``sizer``); ``position`` is each offer's place in the
    catalog, by id."""
    sagemaker = workload.managed == "sagemaker"
    allow_on_demand = limits.allow_on_demand
    factors = _SpotFactors(workload, rates.assumptions)
    terms: list[tuple[int, Pricing]] = [
        (PRICING_ORDER.index(term), term) for term in TERMS_UP_TO[limits.max_commitment]
    ]
    cap = workload.max_price_per_hour
    chosen = CAPABILITIES[workload.runs_on] if workload.runs_on is not None else None
    scopes: dict[tuple[Cloud, int, bool], SpotScope] = {}

    def scope(cloud: Cloud, instances: int, burst: bool) -> SpotScope:
        key = (cloud, instances > 1, burst)
        found = scopes.get(key)
        if found is None:
            found = scopes[key] = spot_scope(workload, cloud, instances, burst)
        return found

    def price(offer: Offer) -> list[Candidate] | None:
        on_demand = rates.hourly(offer, "on_demand", sagemaker=sagemaker)
        if on_demand is None:
            return None
        size = size_on(offer)
        instances, burst_instances = size.instances, size.burst_instances
        base_hours, burst_hours = size.base_hours, size.burst_hours
        # Always-on capacity must not be reclaimed: only its burst may run on spot.
        spot_base = workload.interruptible and not size.always_on_base
        spot_burst = workload.interruptible and burst_instances > 0
        # Per pricing index: what an instance's idle hours after its runs cost a month.
        idle: dict[int, float] = {}
        cloud = offer.cloud
        spot = rates.hourly(
            offer, "spot", sagemaker=sagemaker, scope=scope(cloud, instances, False)
        )
        # (pricing index, expected hourly per instance, list price per instance for the cap)
        base: list[tuple[int, float, float]] = []
        if spot_base and spot is not None:
            spot_factor = factors(size, base_hours)[cloud]
            base.append((_SPOT, spot * spot_factor, spot))
            idle[_SPOT] = spot * size.idle_within(base_hours * spot_factor)
        if allow_on_demand:
            base.append((_ON_DEMAND, on_demand, on_demand))
            idle[_ON_DEMAND] = on_demand * size.idle_within(base_hours)
        if size.always_on_base:
            for index, term in terms:
                committed = rates.hourly(offer, term, sagemaker=sagemaker)
                if committed is not None:
                    base.append((index, committed, committed))
        burst: list[tuple[int, float, float]] = []
        if burst_instances:
            burst_spot = rates.hourly(
                offer, "spot", sagemaker=sagemaker, scope=scope(cloud, instances, True)
            )
            if spot_burst and burst_spot is not None:
                burst.append((_SPOT, burst_spot * factors(size, burst_hours)[cloud], burst_spot))
            if allow_on_demand:
                burst.append((_ON_DEMAND, on_demand, on_demand))
        if chosen is not None:
            # The workload's own component builds only its pricing models (its burst is a
            # fleet's).
            base = [b for b in base if PRICING_ORDER[b[0]] in chosen.pricings]
        if not base or (burst_instances and not burst):
            return None
        if cap is not None:
            base = [b for b in base if b[2] <= cap]
            burst = [b for b in burst if b[2] <= cap]
            if not base or (burst_instances and not burst):
                return []
        bursts: list[tuple[float, Burst | None]] = [(0.0, None)]
        if burst_instances:
            ranked = sorted(burst, key=lambda b: (b[1], b[0]))
            bursts = []
            for index, per_instance, _ in ranked if every_burst else ranked[:1]:
                hourly = per_instance * burst_instances
                monthly = hourly * burst_hours
                if any(monthly == m for m, _ in bursts):
                    # Two candidates of one offer and base must differ in cost: past the
                    # catalog position, a tuple would compare the Offer and Burst objects.
                    continue
                bursts.append(
                    (
                        monthly,
                        Burst(burst_instances, PRICING_ORDER[index], hourly, burst_hours, monthly),
                    )
                )
        instance_type = f"ml.{offer.instance_type}" if sagemaker else offer.instance_type
        return [
            (
                (per_instance * base_hours + idle.get(index, 0.0)) * instances + burst_monthly,
                cloud,
                offer.region,
                offer.zone,
                instance_type,
                index,
                offer.gpu_name,
                position[id(offer)],
                offer,
                per_instance * instances,
                best_burst,
            )
            for index, per_instance, _ in base
            for burst_monthly, best_burst in bursts
        ]

    return price


# What multiplies a bucket's cheapest spot and on-demand rates for base and burst, and their
# instance-hours (``bucket_lower_bound``).
_Coefficients = tuple[float, float, float, float, float, float]


def bucket_lower_bound(
    workload: Workload,
    limits: EnvironmentLimits,
    rates: RateCard,
    size_on: Callable[[Offer], Sizing],
) -> Callable[[OfferBucket], float | None]:
    """Mirror of ``offer_pricer`` on a bucket's cheapest prices; None if no pricing model is
    allowed for it. Valid because every factor it leaves out only raises a price: SageMaker
    markups are >= 1 and the cap only removes options. A bucket's offers share a GPU type and
    count, so the workload's size (its packing) on them."""
    a = rates.assumptions
    allow_on_demand = limits.allow_on_demand
    factors = _SpotFactors(workload, a)
    commitment = {
        cloud: min(
            (a.commitment_multiplier(cloud, t) for t in TERMS_UP_TO[limits.max_commitment]),
            default=math.inf,
        )
        for cloud in CLOUDS
    }

    # Per GPU type, count and cloud, what multiplies the bucket's cheapest spot and on-demand
    # rates (inf where that pricing is not allowed), and the instance-hours of base and burst:
    # a bound is then a few products, for the ~80 buckets each workload's search sorts.
    coefficients: dict[tuple[str, int, Cloud], _Coefficients] = {}

    def coefficients_for(first: Offer) -> _Coefficients:
        size = size_on(first)
        cloud = first.cloud
        spot_base = workload.interruptible and not size.always_on_base
        spot_burst = workload.interruptible and size.burst_instances > 0
        on_demand = 1.0 if allow_on_demand else math.inf
        return (
            factors(size, size.base_hours)[cloud] if spot_base else math.inf,
            min(on_demand, commitment[cloud] if size.always_on_base else math.inf),
            size.instances * size.base_hours,
            factors(size, size.burst_hours)[cloud] if spot_burst else math.inf,
            on_demand,
            size.burst_instances * size.burst_hours if size.burst_instances else 0.0,
        )

    def bound(bucket: OfferBucket) -> float | None:
        found = coefficients.get(bucket.shape)
        if found is None:
            found = coefficients[bucket.shape] = coefficients_for(bucket.offers[0])
        spot_base, od_base, base_hours, spot_burst, od_burst, burst_hours = found
        spot, od = bucket.min_spot, bucket.min_on_demand
        base = min(spot * spot_base, od * od_base)
        if base == math.inf:
            return None
        if not burst_hours:
            return base * base_hours
        burst = min(spot * spot_burst, od * od_burst)
        if burst == math.inf:
            return None
        return base * base_hours + burst * burst_hours

    return bound


def to_placement(
    workload: Workload,
    candidate: Candidate,
    size_on: Callable[[Offer], Sizing],
    rates: RateCard,
) -> Placement:
    monthly, _, _, _, instance_type, pricing_index, _, _, offer, hourly, burst = candidate
    size = size_on(offer)
    nodes = _nodes_failing_together(workload, size)
    factor = _spot_factors(workload, rates.assumptions, nodes, size.base_hours)[offer.cloud]
    pricing = PRICING_ORDER[pricing_index]
    if burst is not None:
        burst_factor = _spot_factors(workload, rates.assumptions, nodes, burst.hours_per_month)
        burst = replace(
            burst,
            billed_hours=burst.hours_per_month
            * (burst_factor[offer.cloud] if burst.pricing == "spot" else 1.0),
        )
    on_demand = rates.hourly(offer, "on_demand", sagemaker=workload.managed == "sagemaker")
    assert on_demand is not None, "offer_pricer prices only offers with an on-demand rate"
    scope: SpotScope | None = None
    if pricing == "spot":
        scope = spot_scope(workload, offer.cloud, size.instances)
    elif burst is not None and burst.pricing == "spot":
        scope = spot_scope(workload, offer.cloud, size.instances, burst=True)
    billed = size.base_hours * (factor if pricing == "spot" else 1.0)
    saving = 0.0
    if is_commitment(pricing):
        committed = rates.hourly(offer, pricing, sagemaker=workload.managed == "sagemaker")
        if committed is not None:
            saving = max(on_demand - committed, 0.0) * size.instances * size.base_hours
    return Placement(
        name=workload.name,
        kind=workload.kind,
        managed=workload.managed,
        runs_on=workload.runs_on,
        offer=offer,
        instance_type=instance_type,
        instances=size.instances,
        replicas_per_instance=size.replicas_per_instance,
        shared=size.shared,
        pricing=pricing,
        hourly_usd=hourly,
        hours_per_month=size.base_hours,
        billed_hours=billed,
        runs=size.runs,
        idle_hours=size.idle_within(billed),
        monthly_usd=monthly,
        baseline_monthly_usd=on_demand * size.baseline_hours,
        commitment_saving_usd=saving,
        burst=burst,
        hours_model=hours_model(workload),
        schedule=workload.schedule.weekly() if workload.schedule is not None else None,
        spot_scope=scope,
        spot_zones=0 if scope is None else 1 if scope == "zone" else rates.spot_zones(offer),
    )
