"""What a stack's plan asks of the account's quotas: each part at its most instances, in the
quota unit of its cloud (``planner.quotas``), summed per machine family, region and market.

Managed services count against their own quotas (SageMaker's per-job instance quotas, Azure
Machine Learning's workspace quotas), not the compute quotas read here: their parts are left
out, said so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gpufleet.clouds import Cloud
from gpufleet.planner.capabilities import CAPABILITIES
from gpufleet.planner.catalog import Catalog
from gpufleet.planner.quotas import Market, demand, machine_covers, market_of
from gpufleet.stacks.stack_config import WorkloadPlacement


@dataclass
class QuotaNeed:
    cloud: Cloud
    region: str
    covered: str | None  # the machine as a quota's covers names it
    instance_type: str
    market: Market
    amount: float = 0.0
    instances: int = 0
    workloads: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Needs:
    needs: list[QuotaNeed]
    skipped: list[str]  # parts a managed service's own quotas hold, not read here
    unsized: list[str]  # parts whose size in quota units is not known: unchecked


def stack_needs(workloads: Iterable[WorkloadPlacement], catalog: Catalog) -> Needs:
    found: dict[tuple[Cloud, str, str, Market], QuotaNeed] = {}
    skipped: list[str] = []
    unsized: list[str] = []
    for w in workloads:
        for part in w.parts:
            capability = CAPABILITIES.get(part.component)
            if capability is not None and capability.managed is not None:
                skipped.append(
                    f"{w.name}: {part.component} counts against {capability.managed}'s own "
                    "quotas, not read here"
                )
                continue
            shape = catalog.shape(w.cloud, w.instance_type)
            vcpus = shape.vcpus if shape is not None else None
            if w.cloud != "gcp" and vcpus is None:
                unsized.append(
                    f"{w.name}: {w.instance_type} is not in the catalog in use: its vCPUs are "
                    "not known (GPUFLEET_CATALOG: the catalog the stack was generated from)"
                )
                continue
            market = market_of(part.pricing)
            key = (w.cloud, w.region, w.instance_type, market)
            need = found.setdefault(
                key,
                QuotaNeed(
                    w.cloud,
                    w.region,
                    machine_covers(w.cloud, w.instance_type, w.gpu),
                    w.instance_type,
                    market,
                ),
            )
            need.amount += demand(w.cloud, vcpus or 0.0, w.gpus_per_instance, part.instances)
            need.instances += part.instances
            if w.name not in need.workloads:
                need.workloads.append(w.name)
    return Needs(
        sorted(found.values(), key=lambda n: (n.cloud, n.region, n.instance_type, n.market)),
        skipped,
        unsized,
    )
