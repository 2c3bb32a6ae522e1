"""A GKE cluster of CPU nodes only, its default pool removed: passes."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

gcp.container.Cluster(
    NAME,
    location="us-central1-a",
    initial_node_count=1,
    remove_default_node_pool=True,
    resource_labels=TAGS,
)
gcp.container.NodePool(
    f"{NAME}-cpu",
    cluster="ml",
    location="us-central1-a",
    node_count=10,
    node_config={"machine_type": "e2-standard-8", "resource_labels": TAGS},
)
