"""A versioned azure-native module and the classic azure provider's scale set, registered
directly by type token."""

import pulumi

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

pulumi.CustomResource(
    "azure-native:compute/v20240701:VirtualMachineScaleSet",
    NAME,
    {"resourceGroupName": "ml", "sku": {"name": "Standard_ND96asr_v4", "capacity": 3}},
)
pulumi.CustomResource(
    "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
    f"{NAME}-classic",
    {"resourceGroupName": "ml", "sku": "Standard_ND96asr_v4", "instances": 3},
)
