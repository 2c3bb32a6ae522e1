"""A GKE node pool labelled as training, on standard (not Spot) VMs."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"training-on-spot"}

gcp.container.NodePool(
    NAME,
    cluster="ml",
    location="us-central1-a",
    node_count=1,
    node_config={
        "machine_type": "g2-standard-8",
        "resource_labels": {**TAGS, "workload-kind": "training"},
    },
)
