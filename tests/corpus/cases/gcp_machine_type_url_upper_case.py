"""A VM whose machine type is a URL in upper case: A2-MEGAGPU-16G, 16 A100s in one machine."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-instance-size"}

gcp.compute.Instance(
    NAME,
    zone="us-central1-a",
    machine_type="projects/acme-ml-dev/zones/us-central1-a/machineTypes/A2-MEGAGPU-16G",
    boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
    network_interfaces=[{"network": "default"}],
    labels=TAGS,
)
