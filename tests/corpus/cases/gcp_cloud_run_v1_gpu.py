"""Cloud Run (v1) asking for a GPU through a resource limit and a node selector."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

gcp.cloudrun.Service(
    NAME,
    location="us-central1",
    metadata={"labels": TAGS},
    template={
        "metadata": {"annotations": {"autoscaling.knative.dev/maxScale": "100"}},
        "spec": {
            "node_selector": {"run.googleapis.com/accelerator": "nvidia-l4"},
            "containers": [
                {"image": "us-docker.pkg.dev/x/y", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
            ],
        },
    },
)
