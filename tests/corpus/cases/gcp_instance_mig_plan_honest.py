"""A GCP A100 VM that cuts its GPU into two 3g.20gb MIG instances at boot, a layout NVIDIA's
placements allow: passes."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

gcp.compute.Instance(
    NAME,
    machine_type="a2-highgpu-1g",
    zone="us-central1-a",
    boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    metadata_startup_script="#!/bin/bash\nnvidia-smi -i 0 -mig 1\n"
    "nvidia-smi mig -i 0 -cgi 3g.20gb,3g.20gb -C\n",
    labels=TAGS,
)
