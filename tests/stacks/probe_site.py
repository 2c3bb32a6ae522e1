"""The site settings the registry-wide tests build a probe workload with: one home, so a
component that needs a new kind of ``site:`` setting is given it in one place."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.catalog import Offer
from gpufleet.stacks.stack_config import (
    AwsRegion,
    AwsSite,
    AwsSubnet,
    AzureRegion,
    AzureSite,
    GcpRegion,
    GcpSite,
    Site,
)


def probe_site(offer: Offer, clouds: Collection[Cloud] = CLOUDS, **strict: Any) -> Site:
    """Site settings for the offer's region on ``clouds`` (the others unset: a build that
    reads them fails); ``strict``: per cloud (``aws``, ``gcp``, ``azure`` for its region,
    ``azure_site`` for the subscription), the settings that tighten a secure default."""
    region = offer.region
    aws = AwsSite(
        regions={
            region: AwsRegion(
                vpc_id="vpc-0123456789abcdef0",
                # The offer's zone (a placement cluster's), and another: a spot fleet spans
                # zones.
                subnets=[
                    AwsSubnet(id="subnet-0123456789abcdef0", zone_id=offer.zone, zone=f"{region}a"),
                    AwsSubnet(
                        id="subnet-0123456789abcdef1",
                        zone_id=f"{offer.zone}-other",
                        zone=f"{region}b",
                    ),
                ],
            )
        },
        **strict.get("aws", {}),
    )
    gcp = GcpSite(
        project="probe-project",
        source_image="projects/debian-cloud/global/images/family/debian-12",
        regions={region: GcpRegion(network="net", subnetwork="subnet", **strict.get("gcp", {}))},
    )
    azure = AzureSite(
        ssh_public_key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGpufleetexamplekey probe",
        regions={
            region: AzureRegion(
                resource_group_name="rg", subnet_id="/subnets/gpu", **strict.get("azure", {})
            )
        },
        **strict.get("azure_site", {}),
    )
    return Site(
        aws_site=aws if "aws" in clouds else None,
        gcp_site=gcp if "gcp" in clouds else None,
        azure_site=azure if "azure" in clouds else None,
    )
