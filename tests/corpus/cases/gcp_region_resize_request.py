"""A regional group of a2-highgpu-8g held at size 0, and a regional resize request that adds 4
VMs for a day of training: 32 A100s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

template = gcp.compute.RegionInstanceTemplate(
    f"{NAME}-template",
    region="us-central1",
    machine_type="a2-highgpu-8g",
    disks=[{"source_image": "projects/debian-cloud/global/images/family/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE", "automatic_restart": False},
    labels=TAGS,
)
group = gcp.compute.RegionInstanceGroupManager(
    NAME,
    region="us-central1",
    base_instance_name="a100",
    target_size=0,
    distribution_policy_zones=["us-central1-a", "us-central1-b"],
    versions=[{"instance_template": template.self_link, "name": "primary"}],
    update_policy={
        "type": "OPPORTUNISTIC",
        "minimal_action": "REPLACE",
        "instance_redistribution_type": "NONE",
        "max_surge_fixed": 0,
        "max_unavailable_fixed": 2,
    },
)
gcp.compute.RegionResizeRequest(
    f"{NAME}-request",
    region="us-central1",
    instance_group_manager=group.name,
    resize_by=4,
    requested_run_duration={"seconds": "86400"},
    description="one day of fine-tuning",
)
