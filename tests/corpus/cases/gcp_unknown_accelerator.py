"""A VM with guest accelerators of a kind gpufleet does not know: undetermined, unpriced."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

gcp.compute.Instance(
    NAME,
    zone="us-central1-a",
    machine_type="n1-standard-8",
    guest_accelerators=[{"type": "nvidia-future-x", "count": 2}],
    boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    labels=TAGS,
)
