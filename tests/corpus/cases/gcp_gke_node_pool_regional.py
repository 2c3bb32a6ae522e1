"""A regional GKE node pool of 6 a2-highgpu-1g per zone: 18 A100s across three zones."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.container.NodePool(
    NAME,
    cluster="ml",
    location="us-central1",
    node_count=6,
    node_config={"machine_type": "a2-highgpu-1g", "resource_labels": TAGS},
)
