"""Choose the cheapest feasible placement for every workload of an environment.

For one workload the optimizer narrows the catalog in stages — GPU type and count, clouds,
regions, managed service, cluster networking for multi-node jobs, the environment's GPU cap,
allowed pricing models, ``max_price_per_hour`` — and prices what is left:

- ``spot`` (only for ``interruptible`` work, where the offer has a spot price, and never for the
  always-on base of serving): expected cost, spot x (1 + overhead x nodes); see
  ``planner.pricing``;
- ``on_demand`` (when the environment allows it);
- ``reserved_1y`` / ``reserved_3y`` (only for ``always_on`` capacity, up to the environment's
  ``max_commitment``).

An ``always_on`` workload runs ``replicas.min`` instances all month (730 h) and bursts to
``replicas.max`` for ``hours_per_month``; the burst is priced separately on the same offer, spot if
interruptible else on-demand, because commitments only pay off for capacity that never stops.
Other inference runs ``replicas.max`` instances; training and batch run ``nodes`` instances, all
in one zone (each offer is one zone). The cheapest total monthly cost wins; ties are broken by
cloud, region, zone, instance type, pricing model and GPU name, so a plan is a function of spec
and catalog. Result types live in ``planner.plan``; which GPUs qualify, in ``planner.gpu_need``.

When the last candidates fall at some stage, that stage's message becomes the reason the workload
could not be placed (``Unplaced.reason``), e.g. "no 8x H100 offer under max_price_per_hour 20
in allowed regions".
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.catalog import Catalog, Offer
from gpufleet.planner.gpu_need import GpuNeed, resolve_gpu_need
from gpufleet.planner.interconnect import supports_multi_node
from gpufleet.planner.plan import Burst, EnvironmentPlan, Placement, Plan, Unplaced
from gpufleet.planner.pricing import resolve_assumptions, sagemaker_markup
from gpufleet.planner.spec import (
    MANAGED_SERVICES,
    EnvironmentLimits,
    GpuByModel,
    Workload,
    WorkloadSpec,
)
from gpufleet.pricing_models import HOURS_PER_MONTH, PRICING_ORDER, TERMS_UP_TO

_SPOT = PRICING_ORDER.index("spot")
_ON_DEMAND = PRICING_ORDER.index("on_demand")


@dataclass(frozen=True)
class Stage:
    """One narrowing step: how many offers it excluded, what they failed, and the reason to give
    when it leaves nothing."""

    label: str
    excluded: int
    what: str
    empty_reason: str


# A priced candidate, ordered exactly like the tie-break rule: monthly cost, cloud, region, zone,
# instance type, pricing model, then GPU name and catalog position (GCP N1 hosts share an
# instance type across GPUs), so two candidates never compare their Offer objects. Plain tuples
# keep evaluating thousands of offers cheap; the winner becomes a Placement.
_Candidate = tuple[float, str, str, str, str, int, str, int, Offer, float, "Burst | None"]


@dataclass(frozen=True)
class Evaluation:
    workload: Workload
    need: GpuNeed
    stages: tuple[Stage, ...]
    candidates: tuple[_Candidate, ...]
    reason: str | None
    instances: int
    hours_per_month: float
    baseline_hours: float  # instance-hours a month that the on-demand baseline pays for

    @property
    def best(self) -> Placement | None:
        return self._placement(min(self.candidates)) if self.candidates else None

    def ranked(self, limit: int) -> list[Placement]:
        """The cheapest candidates, one per cloud/region/instance type/GPU/pricing (cheapest
        zone)."""
        seen: set[tuple[str, str, str, int, str]] = set()
        out: list[Placement] = []
        for candidate in sorted(self.candidates):
            key = (candidate[1], candidate[2], candidate[4], candidate[5], candidate[6])
            if key not in seen:
                seen.add(key)
                out.append(self._placement(candidate))
                if len(out) == limit:
                    break
        return out

    def best_by_pricing(self) -> list[Placement]:
        """The cheapest candidate under each pricing model, cheapest first."""
        best: dict[int, _Candidate] = {}
        for candidate in self.candidates:
            index = candidate[5]
            if index not in best or candidate < best[index]:
                best[index] = candidate
        return [self._placement(c) for c in sorted(best.values())]

    def _placement(self, candidate: _Candidate) -> Placement:
        monthly, _, _, _, instance_type, pricing_index, _, _, offer, hourly, burst = candidate
        w = self.workload
        markup = _markup(w, offer)
        return Placement(
            name=w.name,
            kind=w.kind,
            managed=w.managed,
            offer=offer,
            instance_type=instance_type,
            instances=self.instances,
            pricing=PRICING_ORDER[pricing_index],
            hourly_usd=hourly,
            hours_per_month=self.hours_per_month,
            monthly_usd=monthly,
            baseline_monthly_usd=offer.on_demand_hourly * markup * self.baseline_hours,
            burst=burst,
        )


def workloads_in(spec: WorkloadSpec, environment: str) -> list[Workload]:
    return [w for w in spec.workloads if w.environments is None or environment in w.environments]


@dataclass(frozen=True)
class _Filter:
    """A per-offer condition after the cloud and region choice (managed service, networking,
    GPU cap), with its wording for explanations."""

    label: str
    keep: Callable[[Offer], bool]
    what: str
    empty_reason: str


@dataclass
class _Bucket:
    """Offers of one GPU type and count in one cloud region, with their cheapest prices."""

    offers: list[Offer]
    min_on_demand: float = math.inf
    min_spot: float = math.inf

    def add(self, offer: Offer) -> None:
        self.offers.append(offer)
        self.min_on_demand = min(self.min_on_demand, offer.on_demand_hourly)
        if offer.spot_hourly is not None:
            self.min_spot = min(self.min_spot, offer.spot_hourly)


@dataclass(frozen=True)
class _Criteria:
    """Everything about one workload in one environment that does not depend on the offer."""

    workload: Workload
    environment: str
    limits: EnvironmentLimits
    need: GpuNeed
    instances: int
    burst_instances: int
    base_hours: float
    clouds: tuple[Cloud, ...]
    regions: dict[str, frozenset[str]]
    filters: tuple[_Filter, ...]
    price: Callable[[Offer], list[_Candidate] | None]
    # A cost no offer in a bucket can beat, from the bucket's cheapest prices; None if no
    # pricing model is allowed for it.
    lower_bound: Callable[[_Bucket], float | None]

    def evaluation(
        self, stages: list[Stage], candidates: list[_Candidate], reason: str | None
    ) -> Evaluation:
        w = self.workload
        return Evaluation(
            w,
            self.need,
            tuple(stages),
            tuple(candidates),
            reason,
            self.instances,
            self.base_hours,
            self.instances * self.base_hours + self.burst_instances * w.hours_per_month,
        )


class Planner:
    """Plans a spec against a catalog. Build once, then plan any environment.

    ``plan`` keeps only the cheapest candidate per workload and reads offers from per
    (GPU, cloud, region) buckets; ``evaluate`` walks the same conditions stage by stage, counting
    what each excludes, for ``--explain`` and for the reason a workload cannot be placed.
    """

    def __init__(self, spec: WorkloadSpec, catalog: Catalog) -> None:
        self.spec = spec
        self.catalog = catalog
        self.assumptions = resolve_assumptions(
            spec.defaults.interruption_overhead,
            {
                cloud: discounts.model_dump()
                for cloud, discounts in spec.defaults.commitment_discounts.items()
            },
        )
        self._by_gpu: dict[str, list[Offer]] = defaultdict(list)
        # (GPU, cloud, region) -> GPU count -> bucket
        self._buckets: dict[tuple[str, str, str], dict[int, _Bucket]] = defaultdict(dict)
        for offer in catalog.offers:
            self._by_gpu[offer.gpu_name].append(offer)
            by_count = self._buckets[(offer.gpu_name, offer.cloud, offer.region)]
            by_count.setdefault(offer.gpu_count, _Bucket([])).add(offer)
        self._position = {id(offer): i for i, offer in enumerate(catalog.offers)}
        self._all_regions = {cloud: frozenset(catalog.regions(cloud)) for cloud in CLOUDS}
        # (workload, environment) -> the offer a mirrored environment chose; None when the
        # environment mirrors nothing or cannot use it.
        self._pins: dict[tuple[str, str], Offer | None] = {}

    def plan(self, environments: Iterable[str] | None = None) -> Plan:
        names = list(environments) if environments is not None else list(self.spec.environments)
        as_of = max((o.as_of for o in self.catalog.offers), default="")
        return Plan(
            self.spec.project,
            as_of,
            self.assumptions,
            tuple(self.plan_environment(name) for name in names),
        )

    def plan_environment(self, environment: str) -> EnvironmentPlan:
        limits = self.spec.environments[environment]
        placements: list[Placement] = []
        unplaced: list[Unplaced] = []
        for workload in workloads_in(self.spec, environment):
            best = self.best_placement(workload, environment)
            if best is None:
                reason = self.evaluate(workload, environment).reason or ""
                unplaced.append(Unplaced(workload.name, workload.kind, reason))
            else:
                placements.append(best)
        return EnvironmentPlan(environment, limits, tuple(placements), tuple(unplaced))

    def allowed_regions(self, workload: Workload, cloud: Cloud) -> frozenset[str]:
        if workload.regions is not None and cloud in workload.regions:
            return frozenset(workload.regions[cloud])
        if cloud in self.spec.defaults.regions:
            return frozenset(self.spec.defaults.regions[cloud])
        return self._all_regions[cloud]

    def best_placement(self, workload: Workload, environment: str) -> Placement | None:
        """The cheapest placement, or None when nothing qualifies (``evaluate`` says why).

        Buckets are visited cheapest lower bound first; once a bound exceeds the best cost found,
        no later bucket can win (a bound equal to it still can, on the tie-break), so we stop.
        """
        c = self._criteria(workload, environment)
        bounded: list[tuple[float, int, _Bucket]] = []
        for option in c.need.options:
            for cloud in c.clouds:
                for region in c.regions[cloud]:
                    for count, bucket in self._buckets.get(
                        (option.gpu_name, cloud, region), {}
                    ).items():
                        if count >= option.min_per_node:
                            bound = c.lower_bound(bucket)
                            if bound is not None:
                                bounded.append((bound, len(bounded), bucket))
        bounded.sort()
        filters = [f.keep for f in c.filters]
        best: _Candidate | None = None
        for bound, _, bucket in bounded:
            # The bound multiplies in another order than the cost; the margin keeps float
            # rounding from pruning a bucket that ties with the best (it may win the tie-break).
            if best is not None and bound > best[0] * (1 + 1e-9):
                break
            for offer in bucket.offers:
                if filters and not all(keep(offer) for keep in filters):
                    continue
                for candidate in c.price(offer) or ():
                    if best is None or candidate < best:
                        best = candidate
        if best is None:
            return None
        return c.evaluation([], [best], None).best

    def evaluate(self, workload: Workload, environment: str) -> Evaluation:
        """Every priced candidate for ``workload`` in ``environment``, with the narrowing stages."""
        c = self._criteria(workload, environment)
        need = c.need
        if not need.options:
            return c.evaluation([], [], need.reason)
        stages: list[Stage] = []
        desc = need.description

        def narrow(
            offers: list[Offer], label: str, keep: Callable[[Offer], bool], what: str, why: str
        ) -> list[Offer]:
            kept = [o for o in offers if keep(o)]
            stages.append(Stage(label, len(offers) - len(kept), what, why))
            return kept

        minimum = {o.gpu_name: o.min_per_node for o in need.options}
        offers = [
            o
            for option in need.options
            for o in self._by_gpu.get(option.gpu_name, ())
            if o.gpu_count >= minimum[o.gpu_name]
        ]
        stages.append(Stage("gpu", 0, "GPU type and count", _no_offer_reason(need, workload)))
        cloud_list = ", ".join(c.clouds) or "none"
        offers = narrow(
            offers,
            "clouds",
            lambda o: o.cloud in c.regions,
            f"not on {cloud_list}",
            f"no {desc} offer on {cloud_list}",
        )
        summary = self._region_summary(workload, c.clouds)
        offers = narrow(
            offers,
            "regions",
            lambda o: o.region in c.regions[o.cloud],
            f"outside allowed regions ({summary})",
            f"no {desc} offer in allowed regions ({summary})",
        )
        for f in c.filters:
            offers = narrow(offers, f.label, f.keep, f.what, f.empty_reason)
        candidates: list[_Candidate] = []
        no_pricing = over_cap = 0
        for offer in offers:
            priced = c.price(offer)
            if priced is None:
                no_pricing += 1
            elif not priced:
                over_cap += 1
            else:
                candidates.extend(priced)
        stages.append(
            Stage(
                "pricing",
                no_pricing,
                "no pricing model this environment allows",
                _no_pricing_reason(workload, c.limits, environment),
            )
        )
        cap = workload.max_price_per_hour
        if cap is not None:
            stages.append(
                Stage(
                    "price",
                    over_cap,
                    f"over max_price_per_hour {cap:g}",
                    f"no {desc} offer under max_price_per_hour {cap:g} in allowed regions",
                )
            )
        reason = None
        if not candidates:
            reason = next(
                (s.empty_reason for s in reversed(stages) if s.excluded), stages[0].empty_reason
            )
        return c.evaluation(stages, candidates, reason)

    def _mirrored(self, workload: Workload, environment: str) -> Offer | None:
        """The offer the mirrored environment chose for ``workload``, if this environment
        mirrors one, places the workload there, and can use that instance type itself."""
        key = (workload.name, environment)
        if key not in self._pins:
            self._pins[key] = None
            target = self.spec.environments[environment].mirror
            if target is not None and workload in workloads_in(self.spec, target):
                chosen = self.best_placement(workload, target)
                if chosen is not None:
                    self._pins[key] = chosen.offer
                    if self.best_placement(workload, environment) is None:
                        # Not allowed here (a cap, the GPU list, no spot): plan freely.
                        self._pins[key] = None
        return self._pins[key]

    def _criteria(self, workload: Workload, environment: str) -> _Criteria:
        limits = self.spec.environments[environment]
        need = resolve_gpu_need(workload, limits)
        instances, burst_instances = _instance_counts(workload, limits)
        clouds: list[Cloud] = [
            c for c in CLOUDS if c in (workload.clouds or self.spec.defaults.clouds)
        ]
        if workload.managed is not None:
            clouds = [c for c in clouds if c == MANAGED_SERVICES[workload.managed].cloud]
        filters: list[_Filter] = []
        desc = need.description
        if workload.managed == "sagemaker":
            filters.append(
                _Filter(
                    "managed",
                    lambda o: sagemaker_markup(o.instance_type) is not None,
                    "not a SageMaker training instance type",
                    f"no SageMaker training instance type with {desc} in allowed regions",
                )
            )
        if workload.nodes > 1:
            filters.append(
                _Filter(
                    "network",
                    lambda o: supports_multi_node(o.cloud, o.instance_type),
                    f"no cluster networking for a {workload.nodes}-node job",
                    f"no {desc} offer with cluster networking (EFA, A2/A3, InfiniBand) for a "
                    f"{workload.nodes}-node job in allowed regions",
                )
            )
        if limits.max_gpus_per_workload is not None:
            cap = limits.max_gpus_per_workload
            scale = instances + burst_instances
            smallest = min((o.min_per_node for o in need.options), default=0)
            filters.append(
                _Filter(
                    "cap",
                    lambda o: o.gpu_count * scale <= cap,
                    f"more than {environment}'s max_gpus_per_workload {cap} GPUs in total",
                    f"needs at least {smallest * scale} GPUs, over {environment}'s "
                    f"max_gpus_per_workload {cap}",
                )
            )
        pin = self._mirrored(workload, environment)
        if pin is not None:
            filters.append(
                _Filter(
                    "mirror",
                    lambda o: (o.cloud, o.instance_type) == (pin.cloud, pin.instance_type),
                    f"not {pin.instance_type}, the instance type {limits.mirror} uses",
                    f"no {pin.instance_type} offer allowed here",
                )
            )
        base_hours = HOURS_PER_MONTH if workload.always_on else workload.hours_per_month
        return _Criteria(
            workload=workload,
            environment=environment,
            limits=limits,
            need=need,
            instances=instances,
            burst_instances=burst_instances,
            base_hours=base_hours,
            clouds=tuple(clouds),
            regions={cloud: self.allowed_regions(workload, cloud) for cloud in clouds},
            filters=tuple(filters),
            price=self._pricer(workload, limits, instances, burst_instances, base_hours),
            lower_bound=self._lower_bound(workload, limits, instances, burst_instances, base_hours),
        )

    def _lower_bound(
        self,
        workload: Workload,
        limits: EnvironmentLimits,
        instances: int,
        burst_instances: int,
        base_hours: float,
    ) -> Callable[[_Bucket], float | None]:
        """Mirror of ``_pricer`` on a bucket's cheapest prices. Valid because every factor it
        leaves out only raises a price: SageMaker markups are >= 1 and the cap only removes
        options."""
        a = self.assumptions
        spot_base = workload.interruptible and not workload.always_on
        spot_burst = workload.interruptible and burst_instances > 0
        allow_on_demand = limits.allow_on_demand
        nodes = workload.nodes if workload.kind != "inference" else 1
        commitment = (
            {
                cloud: min(
                    (a.commitment_multiplier(cloud, t) for t in TERMS_UP_TO[limits.max_commitment]),
                    default=math.inf,
                )
                for cloud in CLOUDS
            }
            if workload.always_on
            else dict.fromkeys(CLOUDS, math.inf)
        )
        spot_factor = {cloud: a.spot_multiplier(cloud, nodes) for cloud in CLOUDS}
        base_weight = instances * base_hours
        burst_weight = burst_instances * workload.hours_per_month

        def bound(bucket: _Bucket) -> float | None:
            cloud = bucket.offers[0].cloud
            od = bucket.min_on_demand
            base = min(
                bucket.min_spot * spot_factor[cloud] if spot_base else math.inf,
                od if allow_on_demand else math.inf,
                od * commitment[cloud],
            )
            if base == math.inf:
                return None
            cost = base * base_weight
            if burst_instances:
                burst = min(
                    bucket.min_spot * spot_factor[cloud] if spot_burst else math.inf,
                    od if allow_on_demand else math.inf,
                )
                if burst == math.inf:
                    return None
                cost += burst * burst_weight
            return cost

        return bound

    def _region_summary(self, workload: Workload, clouds: Iterable[Cloud]) -> str:
        parts = []
        for cloud in clouds:
            allowed = self.allowed_regions(workload, cloud)
            if allowed == self._all_regions[cloud]:
                parts.append(f"{cloud}: any")
            else:
                parts.append(f"{cloud}: {', '.join(sorted(allowed))}")
        return "; ".join(parts)

    def _pricer(
        self,
        workload: Workload,
        limits: EnvironmentLimits,
        instances: int,
        burst_instances: int,
        base_hours: float,
    ) -> Callable[[Offer], list[_Candidate] | None]:
        """A function giving, for one offer, a candidate per pricing model its base capacity may
        use (each with the cheapest burst); [] if all are over ``max_price_per_hour``; None if
        the environment allows none."""
        a = self.assumptions
        sagemaker = workload.managed == "sagemaker"
        # Always-on capacity must not be reclaimed: only its burst may run on spot.
        spot_base = workload.interruptible and not workload.always_on
        spot_burst = workload.interruptible and burst_instances > 0
        allow_on_demand = limits.allow_on_demand
        # Inference replicas fail independently (and only inference has a burst): one node each.
        nodes = workload.nodes if workload.kind != "inference" else 1
        spot_factor = {cloud: a.spot_multiplier(cloud, nodes) for cloud in CLOUDS}
        position = self._position
        terms = (
            [
                (
                    PRICING_ORDER.index(term),
                    {cloud: a.commitment_multiplier(cloud, term) for cloud in CLOUDS},
                )
                for term in TERMS_UP_TO[limits.max_commitment]
            ]
            if workload.always_on
            else []
        )
        cap = workload.max_price_per_hour
        burst_hours = workload.hours_per_month

        def price(offer: Offer) -> list[_Candidate] | None:
            markup = (sagemaker_markup(offer.instance_type) or 1.0) if sagemaker else 1.0
            on_demand = offer.on_demand_hourly * markup
            spot = None if offer.spot_hourly is None else offer.spot_hourly * markup
            cloud = offer.cloud
            # (pricing index, expected hourly per instance, list price per instance for the cap)
            base: list[tuple[int, float, float]] = []
            if spot_base and spot is not None:
                base.append((_SPOT, spot * spot_factor[cloud], spot))
            if allow_on_demand:
                base.append((_ON_DEMAND, on_demand, on_demand))
            for index, multiplier in terms:
                committed = on_demand * multiplier[cloud]
                base.append((index, committed, committed))
            burst: list[tuple[int, float, float]] = []
            if burst_instances:
                if spot_burst and spot is not None:
                    burst.append((_SPOT, spot * spot_factor[cloud], spot))
                if allow_on_demand:
                    burst.append((_ON_DEMAND, on_demand, on_demand))
            if not base or (burst_instances and not burst):
                return None
            if cap is not None:
                base = [b for b in base if b[2] <= cap]
                burst = [b for b in burst if b[2] <= cap]
                if not base or (burst_instances and not burst):
                    return []
            best_burst: Burst | None = None
            burst_monthly = 0.0
            if burst_instances:
                index, per_instance, _ = min(burst, key=lambda b: (b[1], b[0]))
                hourly = per_instance * burst_instances
                burst_monthly = hourly * burst_hours
                best_burst = Burst(
                    burst_instances, PRICING_ORDER[index], hourly, burst_hours, burst_monthly
                )
            instance_type = f"ml.{offer.instance_type}" if sagemaker else offer.instance_type
            return [
                (
                    per_instance * instances * base_hours + burst_monthly,
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
            ]

        return price


def _no_offer_reason(need: GpuNeed, workload: Workload) -> str:
    if isinstance(workload.gpu, GpuByModel):
        per_node = ", ".join(f"{o.min_per_node}x {o.gpu_name}" for o in need.options[:4])
        return (
            f"{need.description} needs {per_node} per instance across {workload.nodes} node(s), "
            "and no instance has that many; raise nodes"
        )
    return f"no offer with {need.description} per instance in the catalog"


def _no_pricing_reason(workload: Workload, limits: EnvironmentLimits, env: str) -> str:
    if workload.always_on and not limits.allow_on_demand and limits.max_commitment == "none":
        return (
            f"always-on capacity needs on-demand or a commitment; {env} allows neither "
            "(allow_on_demand: false, max_commitment: none)"
        )
    if not limits.allow_on_demand and not workload.interruptible:
        if workload.always_on:
            return (
                f"{env} does not allow on-demand and the burst replicas are not "
                "interruptible (spot needs interruptible: true)"
            )
        return (
            f"{env} does not allow on-demand and the workload is not interruptible "
            "(spot needs interruptible: true)"
        )
    return f"no offer with a spot price in allowed regions, and {env} does not allow on-demand"


def _markup(workload: Workload, offer: Offer) -> float:
    if workload.managed == "sagemaker":
        return sagemaker_markup(offer.instance_type) or 1.0
    return 1.0


def _instance_counts(workload: Workload, limits: EnvironmentLimits) -> tuple[int, int]:
    """(instances that run the whole period, burst instances above them).

    Inference replicas scale with the environment (``replica_scale``, rounded up so a serving
    workload keeps at least one replica) and are capped by ``max_replicas``; the nodes of a
    tightly coupled job never are, since fewer nodes would be a different job.
    """
    if workload.kind != "inference":
        return workload.nodes, 0
    replicas_min = workload.replicas.min if workload.replicas else 1
    replicas_max = workload.replicas.max if workload.replicas else 1
    cap = limits.max_replicas or replicas_max
    replicas_max = min(cap, max(1, math.ceil(replicas_max * limits.replica_scale - 1e-9)))
    replicas_min = min(replicas_max, math.ceil(replicas_min * limits.replica_scale - 1e-9))
    if workload.always_on:
        return replicas_min, replicas_max - replicas_min
    return replicas_max, 0


def plan_spec(
    spec: WorkloadSpec, catalog: Catalog, environments: Iterable[str] | None = None
) -> Plan:
    return Planner(spec, catalog).plan(environments)
