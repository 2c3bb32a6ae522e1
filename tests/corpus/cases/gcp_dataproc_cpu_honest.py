"""An honest Dataproc cluster of CPU machines, autoscaled by a policy: no GPUs."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

policy = gcp.dataproc.AutoscalingPolicy(
    f"{NAME}-policy",
    policy_id="cpu-workers",
    location="us-central1",
    worker_config={"max_instances": 50},
    secondary_worker_config={"max_instances": 100},
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
        "worker_config": {"num_instances": 4, "machine_type": "n2-highmem-16"},
        "preemptible_worker_config": {"num_instances": 8},
        "autoscaling_config": {"policy_uri": policy.name},
    },
    labels=TAGS,
)
