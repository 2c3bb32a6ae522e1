"""Three VMs from an instance template of a3-highgpu-8g: each within limits, each priced."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    machine_type="a3-highgpu-8g",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"provisioning_model": "SPOT", "preemptible": True, "automatic_restart": False},
    labels=TAGS,
)
for index in range(3):
    gcp.compute.InstanceFromTemplate(
        f"{NAME}-{index}",
        zone="us-central1-a",
        source_instance_template=template.self_link_unique,
        labels=TAGS,
    )
