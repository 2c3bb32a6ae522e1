"""GCP committed-use discounts of a project, as held commitments.

Read per region with google-cloud-compute's ``RegionCommitmentsClient.list`` (every page; the
SDK's pager): active resource-based commitments, their GPUs by accelerator type, vCPUs and
memory (the API counts memory in MB). A license or spend-based commitment pays for no
reservation and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpufleet.capacity.commitments import HeldCommitment
from gpufleet.planner.gcp_machines import (
    COMMITMENT_MB_PER_GIB,
    TERM_OF_COMMITMENT_PLAN,
    series_of_commitment,
)
from gpufleet.runs.gcp_access import compute_v1, gcp_access, gcp_errors, name_of


def gcp_commitments(project: str, regions: Iterable[str]) -> list[HeldCommitment]:
    """The active committed-use discounts of ``project`` in ``regions``; CloudError when they
    cannot be read."""
    access = gcp_access(project)
    client = access.client(compute_v1.RegionCommitmentsClient)
    found: list[HeldCommitment] = []
    for region in sorted(set(regions)):
        with gcp_errors("compute.commitments.list", f"project {project} region {region}"):
            listed = list(client.list(project=project, region=region))
        found += [held for c in listed if (held := _commitment(c, region)) is not None]
    return found


def _commitment(commitment: Any, region: str) -> HeldCommitment | None:
    term = TERM_OF_COMMITMENT_PLAN.get(str(commitment.plan))
    if str(commitment.status) != "ACTIVE" or term is None:
        return None
    accelerators: dict[str, float] = {}
    vcpus = memory = 0.0
    for resource in commitment.resources:
        kind = str(resource.type_)
        if kind == "ACCELERATOR" and resource.accelerator_type:
            name = name_of(resource.accelerator_type)
            accelerators[name] = accelerators.get(name, 0.0) + float(resource.amount)
        elif kind == "VCPU":
            vcpus += float(resource.amount)
        elif kind == "MEMORY":
            memory += float(resource.amount) / COMMITMENT_MB_PER_GIB
    if not accelerators:
        return None  # pays for no GPU: no GPU reservation to cover
    return HeldCommitment(
        cloud="gcp",
        id=str(commitment.name or commitment.id),
        term=term,
        kind="resources",
        region=region,
        family=series_of_commitment(str(commitment.type_)),
        accelerators=accelerators,
        vcpus=vcpus,
        memory_gib=memory,
        start=commitment.start_timestamp[:10] or None,
        end=commitment.end_timestamp[:10] or None,
        source="gcp committed use discount",
    )
