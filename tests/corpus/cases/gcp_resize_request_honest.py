"""Honest: a zonal group of one g2-standard-8 (an L4) and a resize request that adds 2 more for
a day: 3 L4s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    machine_type="g2-standard-8",
    disks=[{"source_image": "projects/debian-cloud/global/images/family/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE", "automatic_restart": False},
    labels=TAGS,
)
group = gcp.compute.InstanceGroupManager(
    NAME,
    zone="us-central1-a",
    base_instance_name="l4",
    target_size=1,
    versions=[{"instance_template": template.self_link_unique}],
)
gcp.compute.ResizeRequest(
    f"{NAME}-request",
    zone="us-central1-a",
    instance_group_manager=group.name,
    resize_by=2,
    requested_run_duration={"seconds": "86400"},
)
