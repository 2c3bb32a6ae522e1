"""A GKE node pool of 3 x a3-highgpu-8g in one zone: 24 H100s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.container.NodePool(
    NAME,
    cluster="ml",
    location="us-central1-a",
    node_count=3,
    node_config={"machine_type": "a3-highgpu-8g", "resource_labels": TAGS},
)
