"""Honest: four labelled groups of 2 x g2-standard-24 (2 L4s each): 16 GPUs every group at its
max size, exactly the stack limit of 16, and within the worst-case cap."""

import pulumi_gcp as gcp
from _tags import TAGS

EXPECT: set[str] = set()
POLICY_CONFIG = {
    "gpu-fleet-size": {"maxGpusPerStack": 16},
    "gpu-budget": {"worstCaseMonthlyUsd": 12000},
}

template = gcp.compute.InstanceTemplate(
    "l4x2-template",
    machine_type="g2-standard-24",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"provisioning_model": "SPOT", "preemptible": True, "automatic_restart": False},
    labels=TAGS,
)
for zone in ("a", "b", "c", "f"):
    gcp.compute.InstanceGroupManager(
        f"l4x2-{zone}",
        zone=f"us-central1-{zone}",
        base_instance_name=f"l4x2-{zone}",
        target_size=2,
        versions=[{"instance_template": template.self_link_unique}],
    )
