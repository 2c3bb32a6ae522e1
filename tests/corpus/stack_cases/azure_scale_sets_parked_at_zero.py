"""Five scale sets of Standard_NC48ads_A100_v4 (2 A100s) at capacity 0, each with an autoscale
setting that allows 4: 8 GPUs a set, within the fleet limit, 40 in all, over a stack limit of
32."""

import pulumi_azure_native as azure
from _tags import TAGS

EXPECT = {"gpu-fleet-size"}
POLICY_CONFIG = {"gpu-fleet-size": {"maxGpusPerStack": 32}}

for i in range(5):
    scale_set = azure.compute.VirtualMachineScaleSet(
        f"a100-set-{i}",
        resource_group_name="ml",
        location="eastus2",
        sku={"name": "Standard_NC48ads_A100_v4", "capacity": 0},
        orchestration_mode="Uniform",
        tags={**TAGS, "expected-minutes": "600"},
    )
    azure.monitor.AutoscaleSetting(
        f"a100-set-{i}-autoscale",
        resource_group_name="ml",
        location="eastus2",
        enabled=True,
        target_resource_uri=scale_set.id,
        profiles=[
            {
                "name": "burst",
                "capacity": {"minimum": "0", "maximum": "4", "default": "0"},
                "rules": [],
            }
        ],
        tags=TAGS,
    )
