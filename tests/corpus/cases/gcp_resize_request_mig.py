"""A group of a3-highgpu-8g at size 0, and a resize request that adds 3 VMs to it: 24 GPUs."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    machine_type="a3-highgpu-8g",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE", "automatic_restart": False},
    labels=TAGS,
)
group = gcp.compute.InstanceGroupManager(
    NAME,
    zone="us-central1-a",
    base_instance_name="train",
    target_size=0,
    versions=[{"instance_template": template.self_link_unique}],
)
gcp.compute.ResizeRequest(
    f"{NAME}-request",
    zone="us-central1-a",
    instance_group_manager=group.name,
    resize_by=3,
    requested_run_duration={"seconds": "86400"},
)
