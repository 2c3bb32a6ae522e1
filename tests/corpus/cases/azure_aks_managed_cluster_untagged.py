"""An AKS cluster with a GPU pool and no tags."""

import pulumi_azure_native as azure

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

azure.containerservice.ManagedCluster(
    NAME,
    resource_group_name="ml",
    dns_prefix="ml",
    agent_pool_profiles=[
        {"name": "gpu", "mode": "System", "vm_size": "Standard_NC4as_T4_v3", "count": 1},
    ],
)
