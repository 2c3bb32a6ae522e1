"""An AKS agent pool of 3 x Standard_ND96asr_v4: 24 A100s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

azure.containerservice.AgentPool(
    NAME,
    resource_group_name="ml",
    resource_name_="ml-aks",
    vm_size="Standard_ND96asr_v4",
    count=3,
    tags=TAGS,
)
