"""An Azure VM of Standard_NC24ads_A100_v4 with no tags."""

import pulumi_azure_native as azure

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

azure.compute.VirtualMachine(
    NAME,
    resource_group_name="ml",
    hardware_profile={"vm_size": "Standard_NC24ads_A100_v4"},
)
