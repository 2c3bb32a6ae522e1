"""An AKS agent pool of T4 nodes with public IPs."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-no-public-ip"}

azure.containerservice.AgentPool(
    NAME,
    resource_group_name="ml",
    resource_name_="ml-aks",
    vm_size="Standard_NC4as_T4_v3",
    count=1,
    enable_node_public_ip=True,
    tags=TAGS,
)
