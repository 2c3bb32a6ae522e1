"""Everything about one workload in one environment that does not depend on the offer.

``Criteria`` gathers what the search (``optimizer``) and the explanation (``explanation``)
both narrow and price offers by: the GPU need, the workload's size, the allowed clouds and
regions, the per-offer filters with their wording — managed service, cluster networking for
multi-node jobs, the environment's GPU cap, the instance type a mirrored environment chose —
and the offer pricer with its bucket lower bound (``offer_pricing``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.capabilities import CAPABILITIES
from gpufleet.planner.catalog import Offer
from gpufleet.planner.gpu_need import GpuNeed, resolve_gpu_need
from gpufleet.planner.interconnect import supports_multi_node
from gpufleet.planner.managed_services import MANAGED_SERVICES
from gpufleet.planner.offer_pricing import (
    Candidate,
    OfferBucket,
    Sizing,
    bucket_lower_bound,
    offer_pricer,
    sizer,
    sizing,
)
from gpufleet.planner.pricing import sagemaker_markup
from gpufleet.planner.rates import RateCard
from gpufleet.planner.spec import EnvironmentLimits, Workload, WorkloadSpec


@dataclass(frozen=True)
class OfferFilter:
    """A per-offer condition after the cloud and region choice, with its wording for
    explanations."""

    label: str
    keep: Callable[[Offer], bool]
    what: str
    empty_reason: str


@dataclass(frozen=True)
class Criteria:
    workload: Workload
    environment: str
    limits: EnvironmentLimits
    need: GpuNeed
    # The workload's size as the spec counts it (one replica or worker an instance), and on
    # an offer, packed (``offer_pricing.sizer``).
    size: Sizing
    size_on: Callable[[Offer], Sizing]
    clouds: tuple[Cloud, ...]
    regions: dict[Cloud, frozenset[str]]
    filters: tuple[OfferFilter, ...]
    rates: RateCard
    price: Callable[[Offer], list[Candidate] | None]
    # A cost no offer in a bucket can beat; None if no pricing model is allowed for it.
    lower_bound: Callable[[OfferBucket], float | None]


def criteria_for(
    workload: Workload,
    environment: str,
    spec: WorkloadSpec,
    *,
    rates: RateCard,
    position: dict[int, int],
    allowed_regions: Callable[[Cloud], frozenset[str]],
    mirrored: Offer | None,
    every_burst: bool = False,
) -> Criteria:
    """``mirrored``: the offer the environment this one mirrors chose, if it applies here;
    ``every_burst``: price each offer with every burst pricing, not only the cheapest."""
    limits = spec.environments[environment]
    need = resolve_gpu_need(workload, limits)
    size = sizing(workload, limits)
    size_on = sizer(workload, size, need.options)
    clouds: list[Cloud] = [c for c in CLOUDS if c in (workload.clouds or spec.defaults.clouds)]
    if workload.managed is not None:
        clouds = [c for c in clouds if c == MANAGED_SERVICES[workload.managed].cloud]
    if workload.runs_on is not None:
        clouds = [c for c in clouds if c == CAPABILITIES[workload.runs_on].cloud]
    return Criteria(
        workload=workload,
        environment=environment,
        limits=limits,
        need=need,
        size=size,
        size_on=size_on,
        clouds=tuple(clouds),
        regions={cloud: allowed_regions(cloud) for cloud in clouds},
        filters=tuple(_filters(workload, environment, limits, need, size, size_on, mirrored)),
        rates=rates,
        price=offer_pricer(workload, limits, rates, size_on, position, every_burst),
        lower_bound=bucket_lower_bound(workload, limits, rates, size_on),
    )


def _filters(
    workload: Workload,
    environment: str,
    limits: EnvironmentLimits,
    need: GpuNeed,
    size: Sizing,
    size_on: Callable[[Offer], Sizing],
    pin: Offer | None,
) -> list[OfferFilter]:
    filters: list[OfferFilter] = []
    desc = need.description
    if workload.managed == "sagemaker":
        filters.append(
            OfferFilter(
                "managed",
                lambda o: sagemaker_markup(o.instance_type) is not None,
                "not a SageMaker training instance type",
                f"no SageMaker training instance type with {desc} in allowed regions",
            )
        )
    if workload.nodes > 1:
        # Workers packed onto one instance need no network between instances.
        filters.append(
            OfferFilter(
                "network",
                lambda o: (
                    size_on(o).instances == 1 or supports_multi_node(o.cloud, o.instance_type)
                ),
                f"no cluster networking for a {workload.nodes}-node job",
                f"no {desc} offer with cluster networking (EFA, A2/A3, InfiniBand) for a "
                f"{workload.nodes}-node job in allowed regions",
            )
        )
    if limits.max_gpus_per_workload is not None:
        cap = limits.max_gpus_per_workload
        scale = size.instances + size.burst_instances
        smallest = min((o.min_per_node for o in need.options), default=0)

        within: dict[tuple[str, int], bool] = {}

        def within_cap(o: Offer) -> bool:
            shape = (o.gpu_name, o.gpu_count)
            found = within.get(shape)
            if found is None:
                on = size_on(o)
                found = within[shape] = o.gpu_count * (on.instances + on.burst_instances) <= cap
            return found

        filters.append(
            OfferFilter(
                "cap",
                within_cap,
                f"more than {environment}'s max_gpus_per_workload {cap} GPUs in total",
                f"needs at least {smallest * scale} GPUs, over {environment}'s "
                f"max_gpus_per_workload {cap}",
            )
        )
    if pin is not None:
        filters.append(
            OfferFilter(
                "mirror",
                lambda o: (o.cloud, o.instance_type) == (pin.cloud, pin.instance_type),
                f"not {pin.instance_type}, the instance type {limits.mirror} uses",
                f"no {pin.instance_type} offer allowed here",
            )
        )
    return filters
