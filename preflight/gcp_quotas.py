"""GCP's regional GPU quotas, through google-cloud-compute (``RegionsClient.get``): each
region's quota metrics with their limit and usage; only the GPU metrics
(``planner.quotas.GCP_GPU_METRICS``, and their ``PREEMPTIBLE_`` kin for Spot) are kept."""

from __future__ import annotations

from collections.abc import Iterable

from gpufleet.planner.gcp_machines import ACCELERATOR_TYPES
from gpufleet.planner.quotas import GCP_GPU_METRICS, GCP_SPOT_PREFIX, Quota
from gpufleet.runs.gcp_access import compute_v1, gcp_access, gcp_errors

_ACCELERATOR_OF_METRIC = {metric: ACCELERATOR_TYPES[sku] for sku, metric in GCP_GPU_METRICS.items()}


def gcp_quotas(project: str, regions: Iterable[str]) -> list[Quota]:
    """The GPU quotas of ``project`` in ``regions``; CloudError when they cannot be read."""
    access = gcp_access(project)
    client = access.client(compute_v1.RegionsClient)
    found: list[Quota] = []
    for region in sorted(set(regions)):
        with gcp_errors("compute.regions.get", f"project {project} region {region}"):
            described = client.get(project=project, region=region)
        for quota in described.quotas:
            metric = str(quota.metric)
            spot = metric.startswith(GCP_SPOT_PREFIX)
            accelerator = _ACCELERATOR_OF_METRIC.get(metric.removeprefix(GCP_SPOT_PREFIX))
            if accelerator is None:
                continue
            found.append(
                Quota(
                    "gcp",
                    region,
                    metric,
                    "spot" if spot else "on_demand",
                    "gpus",
                    frozenset({accelerator}),
                    float(quota.limit),
                    float(quota.usage),
                )
            )
    return found
