"""Stack configs for runs, as ``gpufleet generate`` writes them: one workload per cloud
with parts of every kind, and the site settings a run reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

PROJECT = "acme-ml"
ENVIRONMENT = "test"
AWS_REGION = "us-west-2"
GCP_PROJECT = "acme-ml-test"
GCP_REGION = "us-east4"
GCP_ZONE = "us-east4-a"
AZURE_SUBSCRIPTION = "00000000-0000-0000-0000-000000000001"
AZURE_GROUP = "rg-ml-test"
AZURE_REGION = "eastus2"


def part(component: str, instances: int, scaling: str, pricing: str = "spot") -> dict[str, Any]:
    found: dict[str, Any] = {
        "component": component,
        "instances": instances,
        "pricing": pricing,
        "scaling": scaling,
    }
    if scaling in ("on_request", "on_load"):
        found["expectedHours"] = 60.0
    return found


def workload(
    name: str,
    cloud: str,
    parts: list[dict[str, Any]],
    *,
    gpus_per_instance: int = 1,
    kind: str = "batch",
) -> dict[str, Any]:
    region, zone, itype = {
        "aws": (AWS_REGION, "usw2-az1", "g6.12xlarge"),
        "gcp": (GCP_REGION, GCP_ZONE, "a3-highgpu-8g"),
        "azure": (AZURE_REGION, "", "Standard_NC24ads_A100_v4"),
    }[cloud]
    found: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "cloud": cloud,
        "region": region,
        "zone": zone,
        "instanceType": itype,
        "gpu": "H100",
        "gpusPerInstance": gpus_per_instance,
        "provider": f"{cloud}-{region}",
        "parts": parts,
        "monthlyUsd": 100.0,
    }
    if any(p["scaling"] == "schedule" for p in parts):
        found["schedule"] = {"timeZone": "UTC", "runs": [{"startMinute": 120, "minutes": 360}]}
    return found


# Every kind of part: groups that scale on request or on a schedule, a fixed base under a
# burst, reserved capacity, managed services.
WORKLOADS = [
    workload("aws-fleet", "aws", [part("aws:SpotFleet", 4, "on_request")], gpus_per_instance=4),
    workload(
        "aws-serving",
        "aws",
        [
            part("aws:CapacityPool", 2, "fixed", "reserved_1y"),
            part("aws:SpotFleet", 3, "on_request"),
        ],
        kind="inference",
    ),
    workload("aws-cluster", "aws", [part("aws:PlacementCluster", 2, "on_request")]),
    workload("aws-sagemaker", "aws", [part("aws:SageMakerSpotTraining", 1, "on_request")]),
    workload("aws-fixed", "aws", [part("aws:SpotFleet", 2, "fixed")]),
    workload("gcp-group", "gcp", [part("gcp:SpotGroup", 3, "on_request")]),
    workload("gcp-scheduled", "gcp", [part("gcp:SpotGroup", 2, "schedule")]),
    workload("gcp-cluster", "gcp", [part("gcp:CompactCluster", 3, "on_request")]),
    # Serving, so a fleet (a batch job on four VMs would be a multi-node job, all or none).
    workload("azure-set", "azure", [part("azure:SpotScaleSet", 4, "on_request")], kind="inference"),
    workload("azure-scheduled", "azure", [part("azure:SpotScaleSet", 2, "schedule")]),
    workload("azure-ml", "azure", [part("azure:LowPriorityCluster", 2, "on_request")]),
]


def write_stack_config(directory: Path, workloads: list[dict[str, Any]] | None = None) -> Path:
    """``Pulumi.test.yaml`` in ``directory``; its path."""
    listed = WORKLOADS if workloads is None else workloads
    config = {
        "gpufleet:environment": ENVIRONMENT,
        "gpufleet:project": PROJECT,
        "gpufleet:owner": "ml@acme.example",
        "gpufleet:costCenter": "cc-1",
        "gpufleet:catalogAsOf": "2026-11-22",
        "gpufleet:limits": {"allowOnDemand": True, "maxCommitment": "3y"},
        "gpufleet:providers": [
            {"name": f"{cloud}-{region}", "cloud": cloud, "region": region}
            for cloud, region in (("aws", AWS_REGION), ("gcp", GCP_REGION), ("azure", AZURE_REGION))
        ],
        "gpufleet:workloads": listed,
        "site:gcp": {"project": GCP_PROJECT, "sourceImage": "projects/p/global/images/i"},
        "site:azure": {
            "subscriptionId": AZURE_SUBSCRIPTION,
            "regions": {AZURE_REGION: {"resourceGroupName": AZURE_GROUP, "subnetId": "/s"}},
        },
    }
    path = directory / f"Pulumi.{ENVIRONMENT}.yaml"
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=False), encoding="utf-8")
    return path
