"""Four GKE node pools of a2-highgpu-2g (2 A100s) that autoscale from 0 to 4 nodes, each pool
8 GPUs at most and expected use declared: within the fleet limit, 32 GPUs in all, over a stack
limit of 24."""

import pulumi_gcp as gcp
from _tags import TAGS

EXPECT = {"gpu-fleet-size"}
POLICY_CONFIG = {"gpu-fleet-size": {"maxGpusPerStack": 24}}

cluster = gcp.container.Cluster(
    "ml-gke",
    location="us-central1-a",
    remove_default_node_pool=True,
    initial_node_count=1,
    resource_labels=TAGS,
    deletion_protection=False,
)
for team in ("nlp", "vision", "speech", "recsys"):
    gcp.container.NodePool(
        f"{team}-a100",
        cluster=cluster.name,
        location="us-central1-a",
        autoscaling={"min_node_count": 0, "max_node_count": 4},
        node_config={
            "machine_type": "a2-highgpu-2g",
            "spot": True,
            "resource_labels": {**TAGS, "expected-minutes": "1200"},
        },
    )
