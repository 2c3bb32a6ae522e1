"""Honest: an L4 VM that carries no labels of its own, on an explicit provider whose
default_labels hold the cost labels."""

import pulumi
import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

labelled = gcp.Provider(
    f"{NAME}-provider", project="acme-ml-dev", region="us-central1", default_labels=TAGS
)
gcp.compute.Instance(
    NAME,
    zone="us-central1-a",
    machine_type="g2-standard-4",
    boot_disk={"initialize_params": {"image": "debian-cloud/debian-12", "size": 100}},
    network_interfaces=[{"network": "default", "subnetwork": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE", "automatic_restart": True},
    opts=pulumi.ResourceOptions(provider=labelled),
)
