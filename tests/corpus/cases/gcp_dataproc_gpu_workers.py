"""A Dataproc cluster whose workers carry 4 T4s each: sized (16 GPUs), but the catalog has
no price for n1-standard-16 with 4 x T4."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget"}

gcp.dataproc.Cluster(
    NAME,
    region="us-central1",
    cluster_config={
        "worker_config": {
            "num_instances": 4,
            "machine_type": "n1-standard-16",
            "accelerators": [{"accelerator_type": "nvidia-tesla-t4", "accelerator_count": 4}],
        }
    },
    labels=TAGS,
)
