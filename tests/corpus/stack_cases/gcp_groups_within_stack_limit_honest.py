"""Honest: three small spot groups whose GPUs, every group at its max size, stay within the
stack limit and the worst-case cap."""

import pulumi_gcp as gcp
from _tags import TAGS

EXPECT: set[str] = set()
POLICY_CONFIG = {
    "gpu-fleet-size": {"maxGpusPerStack": 8},
    "gpu-budget": {"worstCaseMonthlyUsd": 5000},
}

template = gcp.compute.InstanceTemplate(
    "small-template",
    machine_type="g2-standard-4",
    disks=[{"source_image": "projects/debian-cloud/global/images/family/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"provisioning_model": "SPOT", "preemptible": True, "automatic_restart": False},
    labels=TAGS,
)
for i in range(3):
    gcp.compute.RegionInstanceGroupManager(
        f"small-{i}",
        base_instance_name=f"small-{i}",
        region="us-central1",
        versions=[{"instance_template": template.self_link_unique, "name": "primary"}],
        target_size=2,
    )
