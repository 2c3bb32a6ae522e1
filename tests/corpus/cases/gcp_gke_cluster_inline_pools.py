"""A GKE cluster listing a CPU pool and a pool of 9 a2-highgpu-2g: 18 A100s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.container.Cluster(
    NAME,
    location="us-central1-a",
    node_pools=[
        {"name": "cpu", "node_count": 3, "node_config": {"machine_type": "e2-standard-4"}},
        {"name": "gpu", "node_count": 9, "node_config": {"machine_type": "a2-highgpu-2g"}},
    ],
    resource_labels=TAGS,
)
