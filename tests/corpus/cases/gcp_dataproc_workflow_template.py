"""A Dataproc workflow template whose runs create a cluster of 4 a2-highgpu-8g workers: 32
A100s a run, started outside the stack."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.dataproc.WorkflowTemplate(
    NAME,
    location="us-central1",
    dag_timeout="7200s",
    placement={
        "managed_cluster": {
            "cluster_name": "nightly-train",
            "config": {
                "worker_config": {"num_instances": 4, "machine_type": "a2-highgpu-8g"},
            },
        }
    },
    jobs=[{"step_id": "train", "pyspark_job": {"main_python_file_uri": "gs://b/train.py"}}],
    labels=TAGS,
)
