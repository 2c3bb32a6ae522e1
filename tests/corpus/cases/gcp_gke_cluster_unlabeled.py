"""A GKE cluster with a GPU default pool and no resource labels."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

gcp.container.Cluster(
    NAME,
    location="us-central1-a",
    initial_node_count=1,
    node_config={"machine_type": "g2-standard-4"},
)
