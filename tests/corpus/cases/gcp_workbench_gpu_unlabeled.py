"""A Workbench instance with an attached T4 and no labels."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

gcp.workbench.Instance(
    NAME,
    location="us-central1-a",
    gce_setup={
        "machine_type": "n1-standard-8",
        "accelerator_configs": [{"type": "NVIDIA_TESLA_T4", "core_count": "1"}],
    },
)
