"""Honest: a scale set of 2 x Standard_NC24ads_A100_v4 with a standby pool of 10 deallocated
VMs: they bill their disks, not their GPUs, until the scale set takes them in."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

scale_set = azure.compute.VirtualMachineScaleSet(
    NAME,
    resource_group_name="ml",
    location="eastus2",
    orchestration_mode="Flexible",
    platform_fault_domain_count=1,
    sku={"name": "Standard_NC24ads_A100_v4", "capacity": 2},
    tags=TAGS,
)
azure.standbypool.StandbyVirtualMachinePool(
    f"{NAME}-standby",
    resource_group_name="ml",
    location="eastus2",
    attached_virtual_machine_scale_set_id=scale_set.id,
    virtual_machine_state="Deallocated",
    elasticity_profile={"max_ready_capacity": 10, "min_ready_capacity": 2},
    tags=TAGS,
)
