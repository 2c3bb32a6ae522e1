"""A VM from an instance template that overrides the machine type with a2-megagpu-16g: 16 A100s
in one machine.
"""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-instance-size"}

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    machine_type="g2-standard-4",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    labels=TAGS,
)
gcp.compute.InstanceFromTemplate(
    NAME,
    zone="us-central1-a",
    source_instance_template=template.self_link_unique,
    machine_type="a2-megagpu-16g",
    labels=TAGS,
)
