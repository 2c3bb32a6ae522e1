"""Honest: an AKS cluster with a CPU system pool and a T4 pool, and a tagged T4 scale set: every
fleet within the fleet limit, the stack within its GPU limit and the worst-case cap."""

import pulumi_azure_native as azure
from _tags import TAGS

EXPECT: set[str] = set()
POLICY_CONFIG = {
    "gpu-fleet-size": {"maxGpusPerStack": 12},
    "gpu-budget": {"worstCaseMonthlyUsd": 15000},
}

azure.containerservice.ManagedCluster(
    "aks",
    resource_group_name="ml",
    location="eastus2",
    dns_prefix="ml",
    identity={"type": azure.containerservice.ResourceIdentityType.SYSTEM_ASSIGNED},
    agent_pool_profiles=[
        {"name": "system", "mode": "System", "vm_size": "Standard_D4s_v5", "count": 2},
        {
            "name": "t4",
            "mode": "User",
            "vm_size": "Standard_NC4as_T4_v3",
            "enable_auto_scaling": True,
            "count": 1,
            "min_count": 1,
            "max_count": 6,
        },
    ],
    tags=TAGS,
)
azure.compute.VirtualMachineScaleSet(
    "t4-set",
    resource_group_name="ml",
    location="eastus2",
    sku={"name": "Standard_NC4as_T4_v3", "capacity": 4},
    tags=TAGS,
)
