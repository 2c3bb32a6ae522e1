"""A zonal GKE node pool autoscaling to 5 n1-standard-8 with 4 T4s each: 20 T4s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
# Scaling from zero with no declared use: what it runs is load's to say, so the budget
# cannot price it (never $0).
EXPECT = {"gpu-fleet-size", "gpu-budget"}

gcp.container.NodePool(
    NAME,
    cluster="ml",
    location="us-central1-a",
    autoscaling={"min_node_count": 0, "max_node_count": 5},
    node_config={
        "machine_type": "n1-standard-8",
        "guest_accelerators": [{"type": "nvidia-tesla-t4", "count": 4}],
        "resource_labels": TAGS,
    },
)
