"""A scale set with instance mix: sku.name "Mix" and the sizes in sku_profile.vm_sizes, 3 x
Standard_ND96asr_v4 = 24 GPUs."""

import pulumi_azure_native as az
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

az.compute.VirtualMachineScaleSet(
    NAME,
    resource_group_name="ml",
    location="eastus",
    orchestration_mode="Flexible",
    platform_fault_domain_count=1,
    sku={"name": "Mix", "capacity": 3},
    sku_profile={
        "vm_sizes": [{"name": "Standard_ND96asr_v4"}],
        "allocation_strategy": "LowestPrice",
    },
    tags=TAGS,
)
