"""A Dataproc cluster of CPU primary workers and 10 spot secondary workers of g2-standard-24
(2 L4s each): 20 L4s in its secondary workers."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.dataproc.Cluster(
    NAME,
    region="us-central1",
    cluster_config={
        "master_config": {"num_instances": 1, "machine_type": "n2-standard-8"},
        "worker_config": {"num_instances": 2, "machine_type": "n2-standard-8"},
        "preemptible_worker_config": {
            "num_instances": 10,
            "preemptibility": "SPOT",
            "instance_flexibility_policy": {
                "instance_selection_lists": [{"machine_types": ["g2-standard-24"], "rank": 1}]
            },
        },
        "gce_cluster_config": {"internal_ip_only": True, "zone": "us-central1-a"},
    },
    labels=TAGS,
)
