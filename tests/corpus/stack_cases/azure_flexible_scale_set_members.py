"""A flexible-orchestration scale set with no capacity of its own and 24 member VMs of one
A100 each: every VM is within the dev fleet limit (16), but the scale set is one fleet of 24."""

import pulumi_azure_native as azure
from _tags import TAGS

EXPECT = {"gpu-fleet-size", "gpu-budget"}  # 24 A100s all month: over the dev budget too

scale_set = azure.compute.VirtualMachineScaleSet(
    "flex",
    resource_group_name="rg",
    location="eastus2",
    orchestration_mode="Flexible",
    platform_fault_domain_count=1,
    tags=TAGS,
)
for i in range(24):
    azure.compute.VirtualMachine(
        f"flex-vm-{i}",
        resource_group_name="rg",
        location="eastus2",
        hardware_profile={"vm_size": "Standard_NC24ads_A100_v4"},
        virtual_machine_scale_set={"id": scale_set.id},
        network_profile={"network_interfaces": [{"id": "/subscriptions/x/nic"}]},
        tags=TAGS,
    )
