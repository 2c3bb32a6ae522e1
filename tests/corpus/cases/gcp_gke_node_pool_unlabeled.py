"""A GKE node pool of g2-standard-4 (one L4) with no labels on its VMs."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

gcp.container.NodePool(
    NAME,
    cluster="ml",
    location="us-central1-a",
    node_count=1,
    node_config={"machine_type": "g2-standard-4"},
)
