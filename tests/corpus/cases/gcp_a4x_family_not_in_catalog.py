"""a4x-highgpu-4g (GB200), a GPU family the catalog does not price yet: 5 of them must not pass as
CPU machines."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    machine_type="a4x-highgpu-4g",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    labels=TAGS,
)
gcp.compute.InstanceGroupManager(
    NAME,
    zone="us-central1-a",
    base_instance_name="gpu",
    target_size=5,
    versions=[{"instance_template": template.self_link_unique}],
)
