"""An AKS cluster with a system pool and a pool of 3 x Standard_ND96asr_v4: 24 A100s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

azure.containerservice.ManagedCluster(
    NAME,
    resource_group_name="ml",
    dns_prefix="ml",
    agent_pool_profiles=[
        {"name": "system", "mode": "System", "vm_size": "Standard_D4s_v5", "count": 3},
        {"name": "gpu", "mode": "User", "vm_size": "Standard_ND96asr_v4", "count": 3},
    ],
    tags=TAGS,
)
