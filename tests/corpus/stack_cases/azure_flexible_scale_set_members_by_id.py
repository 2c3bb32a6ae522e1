"""A flexible scale set named in the program, and 4 VMs of Standard_ND96asr_v4 (8 A100s each)
that join it by a literal resource id (no Output): one fleet of 32 GPUs. The budget is raised so
only the fleet is judged."""

import pulumi
import pulumi_azure_native as azure
from _tags import TAGS

EXPECT = {"gpu-fleet-size"}
POLICY_CONFIG = {"gpu-budget": {"monthlyBudgetUsd": 250000}}

SET_ID = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/ml/providers/"
    "Microsoft.Compute/virtualMachineScaleSets/nd-flex"
)
flex = azure.compute.VirtualMachineScaleSet(
    "nd-flex",
    resource_group_name="ml",
    location="eastus2",
    vm_scale_set_name="nd-flex",
    orchestration_mode="Flexible",
    platform_fault_domain_count=1,
    tags=TAGS,
)
for i in range(4):
    azure.compute.VirtualMachine(
        f"nd-vm-{i}",
        resource_group_name="ml",
        location="eastus2",
        hardware_profile={"vm_size": "Standard_ND96asr_v4"},
        virtual_machine_scale_set={"id": SET_ID},
        network_profile={"network_interfaces": [{"id": f"/subscriptions/x/nic-{i}"}]},
        tags=TAGS,
        opts=pulumi.ResourceOptions(depends_on=[flex]),
    )
