"""Azure's vCPU quotas in a region, through azure-mgmt-compute: ``usage.list`` gives each VM
family's quota (``standardNCADSA100v4Family``) and the region's ``lowPriorityCores`` (Spot)
with their limit and current value; ``resource_skus.list`` says which sizes a family holds."""

from __future__ import annotations

from collections.abc import Iterable

from gpufleet.planner.quotas import ANY_MACHINE, AZURE_SPOT_QUOTA, Quota
from gpufleet.runs.azure_access import azure_access, azure_errors


def azure_quotas(subscription: str, regions: Iterable[str]) -> list[Quota]:
    """The family and Spot vCPU quotas of ``subscription`` in ``regions``; CloudError when they
    cannot be read."""
    compute = azure_access(subscription).compute
    found: list[Quota] = []
    for region in sorted(set(regions)):
        scope = f"subscription {subscription} location {region}"
        with azure_errors("Microsoft.Compute/skus/read", scope):
            sizes: dict[str, set[str]] = {}
            for sku in compute.resource_skus.list(filter=f"location eq '{region}'"):
                family = getattr(sku, "family", None)
                if getattr(sku, "resource_type", None) == "virtualMachines" and family:
                    sizes.setdefault(str(family).lower(), set()).add(str(sku.name))
        with azure_errors("Microsoft.Compute/locations/usages/read", scope):
            usages = list(compute.usage.list(region))
        for usage in usages:
            name = str(getattr(usage.name, "value", "") or "")
            if name == AZURE_SPOT_QUOTA:
                market, covers = "spot", frozenset({ANY_MACHINE})
            elif name.lower() in sizes:
                market, covers = "on_demand", frozenset(sizes[name.lower()])
            else:
                continue
            found.append(
                Quota(
                    "azure",
                    region,
                    name,
                    market,
                    "vcpus",
                    covers,
                    float(usage.limit),
                    float(usage.current_value),
                )
            )
    return found
