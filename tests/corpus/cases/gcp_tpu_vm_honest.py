"""A TPU VM: an accelerator outside the GPU catalog, classified as holding no GPUs."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

gcp.tpu.V2Vm(
    NAME,
    zone="us-central1-c",
    accelerator_type="v5litepod-8",
    runtime_version="v2-alpha-tpuv5-lite",
    labels=TAGS,
)
