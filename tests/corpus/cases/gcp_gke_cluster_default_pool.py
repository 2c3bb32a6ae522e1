"""A zonal GKE cluster whose default pool is 5 x a2-highgpu-4g: 20 A100s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.container.Cluster(
    NAME,
    location="us-central1-a",
    initial_node_count=5,
    node_config={"machine_type": "a2-highgpu-4g", "resource_labels": TAGS},
    resource_labels=TAGS,
)
