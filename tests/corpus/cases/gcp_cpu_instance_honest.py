"""A labelled CPU VM: passes."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

gcp.compute.Instance(
    NAME,
    zone="us-central1-a",
    machine_type="e2-standard-4",
    boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
    network_interfaces=[{"network": "default"}],
    labels=TAGS,
)
