"""A node pool that sets no node locations, in a regional cluster of 4 zones: its 5 nodes per
zone are 20 L4, not the 15 a 3-zone default would say."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

cluster = gcp.container.Cluster(
    f"{NAME}-cluster",
    location="us-central1",
    node_locations=["us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"],
    remove_default_node_pool=True,
    initial_node_count=1,
    resource_labels=TAGS,
)
gcp.container.NodePool(
    NAME,
    cluster=cluster.name,
    location="us-central1",
    node_count=5,
    node_config={"machine_type": "g2-standard-4", "spot": True, "resource_labels": TAGS},
)
