"""An AKS agent pool tagged as training, on regular (not Spot) VMs."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"training-on-spot"}

azure.containerservice.AgentPool(
    NAME,
    resource_group_name="ml",
    resource_name_="ml-aks",
    vm_size="Standard_NC4as_T4_v3",
    count=1,
    tags={**TAGS, "workload-kind": "training"},
)
