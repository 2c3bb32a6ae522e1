"""An AKS pool of type VirtualMachines listing two GPU sizes in its manual scale profile: one
Standard_ND96asr_v4 (8 A100s) and 10 x Standard_NC24ads_A100_v4 (one A100 each): one pool of
18 A100s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

azure.containerservice.AgentPool(
    NAME,
    resource_group_name="ml",
    resource_name_="ml-aks",
    agent_pool_name="gpumix",
    type="VirtualMachines",
    mode="User",
    os_type="Linux",
    virtual_machines_profile={
        "scale": {
            "manual": [
                {"size": "Standard_ND96asr_v4", "count": 1},
                {"size": "Standard_NC24ads_A100_v4", "count": 10},
            ]
        }
    },
    node_taints=["sku=gpu:NoSchedule"],
    tags=TAGS,
)
