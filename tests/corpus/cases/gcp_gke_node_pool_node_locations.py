"""A GKE node pool of 3 a2-highgpu-2g in each of 3 listed zones: 18 A100s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.container.NodePool(
    NAME,
    cluster="ml",
    location="us-central1",
    node_locations=["us-central1-a", "us-central1-b", "us-central1-c"],
    node_count=3,
    node_config={"machine_type": "a2-highgpu-2g", "resource_labels": TAGS},
)
