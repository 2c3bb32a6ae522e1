"""A scale set of 2 x Standard_NC24ads_A100_v4 and a standby pool that keeps 20 more running
beside it: 22 A100s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

scale_set = azure.compute.VirtualMachineScaleSet(
    NAME,
    resource_group_name="ml",
    sku={"name": "Standard_NC24ads_A100_v4", "capacity": 2},
    tags=TAGS,
)
azure.standbypool.StandbyVirtualMachinePool(
    f"{NAME}-standby",
    resource_group_name="ml",
    attached_virtual_machine_scale_set_id=scale_set.id,
    virtual_machine_state="Running",
    elasticity_profile={"max_ready_capacity": 20, "min_ready_capacity": 5},
    tags=TAGS,
)
