"""Six zonal groups of a2-highgpu-4g (4 A100s) that their autoscalers keep at zero and may take
to 2 VMs: each group at most 8 GPUs, within the dev fleet limit (16), an hour of use a day
declared, but together they may hold 48 GPUs, over a stack limit of 32."""

import pulumi_gcp as gcp
from _tags import TAGS

EXPECT = {"gpu-fleet-size"}
POLICY_CONFIG = {"gpu-fleet-size": {"maxGpusPerStack": 32}}

template = gcp.compute.InstanceTemplate(
    "a100-template",
    machine_type="a2-highgpu-4g",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    labels={**TAGS, "expected-minutes": "1800"},
)
for zone in ("a", "b", "c", "f", "d", "e"):
    group = gcp.compute.InstanceGroupManager(
        f"a100-{zone}",
        zone=f"us-central1-{zone}",
        base_instance_name=f"a100-{zone}",
        versions=[{"instance_template": template.self_link_unique}],
    )
    gcp.compute.Autoscaler(
        f"a100-{zone}-autoscaler",
        zone=f"us-central1-{zone}",
        target=group.id,
        autoscaling_policy={"min_replicas": 0, "max_replicas": 2, "cooldown_period": 60},
    )
