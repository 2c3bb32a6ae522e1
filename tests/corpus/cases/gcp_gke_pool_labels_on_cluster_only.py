"""A GKE cluster carrying the cost labels, and a separate L4 node pool that sets none on its
nodes: a cluster's resourceLabels do not label the VMs of a pool created apart."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

cluster = gcp.container.Cluster(
    NAME,
    location="us-central1",
    remove_default_node_pool=True,
    initial_node_count=1,
    resource_labels=TAGS,
    deletion_protection=False,
)
gcp.container.NodePool(
    f"{NAME}-l4",
    cluster=cluster.name,
    location="us-central1",
    node_locations=["us-central1-a"],
    autoscaling={"min_node_count": 1, "max_node_count": 2},
    node_config={
        "machine_type": "g2-standard-8",
        "guest_accelerators": [{"type": "nvidia-l4", "count": 1}],
        "labels": {"team": "ml"},  # Kubernetes node labels, not GCE labels
        "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"],
    },
)
