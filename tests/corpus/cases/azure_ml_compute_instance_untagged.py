"""An Azure ML compute instance on Standard_NC24ads_A100_v4 with no tags."""

import pulumi_azure_native as azure

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
# A compute instance gets a public IP unless it says otherwise, as a cluster does.
EXPECT = {"required-tags", "gpu-no-public-ip"}

azure.machinelearningservices.Compute(
    NAME,
    resource_group_name="ml",
    workspace_name="ml",
    properties={
        "compute_type": "ComputeInstance",
        "properties": {"vm_size": "Standard_NC24ads_A100_v4"},
    },
)
