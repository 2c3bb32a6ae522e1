"""a3-highgpu-8g carries its 8 H100 whatever guest_accelerators say: a count of 0 does not take
them away (the provider drops it). 3 of them: 24 GPUs."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    machine_type="a3-highgpu-8g",
    guest_accelerators=[{"type": "nvidia-h100-80gb", "count": 0}],
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    labels=TAGS,
)
gcp.compute.InstanceGroupManager(
    NAME,
    zone="us-central1-a",
    base_instance_name="gpu",
    target_size=3,
    versions=[{"instance_template": template.self_link_unique}],
)
