"""A GKE cluster whose node auto-provisioning may add up to 64 A100s of machines it picks."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size", "gpu-size-undetermined", "gpu-budget"}

gcp.container.Cluster(
    NAME,
    location="us-central1-a",
    initial_node_count=1,
    remove_default_node_pool=True,
    cluster_autoscaling={
        "enabled": True,
        "resource_limits": [
            {"resource_type": "cpu", "maximum": 1000},
            {"resource_type": "memory", "maximum": 4000},
            {"resource_type": "nvidia-tesla-a100", "maximum": 64},
        ],
    },
    resource_labels=TAGS,
)
