"""A VM whose machine type is read from another VM (an invoke): not known offline."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

other = gcp.compute.get_instance(name="reference-vm", zone="us-central1-a")
gcp.compute.Instance(
    NAME,
    zone="us-central1-a",
    machine_type=other.machine_type,
    boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
    network_interfaces=[{"network": "default"}],
    labels=TAGS,
)
