"""A Cloud Run service asking for an L4: GPUs gpufleet reads no size of."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

gcp.cloudrunv2.Service(
    NAME,
    location="us-central1",
    template={
        "containers": [{"image": "us-docker.pkg.dev/acme/serve:1"}],
        "node_selector": {"accelerator": "nvidia-l4"},
    },
    labels=TAGS,
)
