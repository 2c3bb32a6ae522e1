"""A Dataproc cluster of two g2-standard-8 workers (an L4 each) whose autoscaling policy lets
it grow to 20 workers: 20 GPUs."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

policy = gcp.dataproc.AutoscalingPolicy(
    f"{NAME}-policy",
    policy_id="gpu-workers",
    location="us-central1",
    worker_config={"min_instances": 2, "max_instances": 20},
    basic_algorithm={
        "yarn_config": {
            "graceful_decommission_timeout": "30s",
            "scale_up_factor": 0.5,
            "scale_down_factor": 0.5,
        }
    },
)
gcp.dataproc.Cluster(
    NAME,
    region="us-central1",
    cluster_config={
        "master_config": {"num_instances": 1, "machine_type": "n2-standard-4"},
        "worker_config": {"num_instances": 2, "machine_type": "g2-standard-8"},
        "autoscaling_config": {"policy_uri": policy.name},
    },
    labels=TAGS,
)
