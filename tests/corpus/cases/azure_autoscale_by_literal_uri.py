"""A scale set of Standard_ND96asr_v4 at capacity 0, and an autoscale setting naming it by a
literal resource id (no Output) that keeps 3: 24 GPUs."""

import pulumi_azure_native as az
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

az.compute.VirtualMachineScaleSet(
    NAME,
    vm_scale_set_name="gpu-ss-by-uri",
    resource_group_name="ml",
    location="eastus",
    sku={"name": "Standard_ND96asr_v4", "capacity": 0},
    tags=TAGS,
)
az.monitor.AutoscaleSetting(
    f"{NAME}-autoscale",
    resource_group_name="ml",
    enabled=True,
    tags=TAGS,
    target_resource_uri="/subscriptions/0000/resourceGroups/ml/providers/"
    "Microsoft.Compute/virtualMachineScaleSets/gpu-ss-by-uri",
    profiles=[
        {"name": "p", "capacity": {"minimum": "3", "maximum": "3", "default": "3"}, "rules": []}
    ],
)
