"""An AKS agent pool autoscaling to 20 x Standard_NC24ads_A100_v4: 20 A100s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
# Scaling from zero with no declared use: what it runs is load's to say, so the budget
# cannot price it (never $0).
EXPECT = {"gpu-fleet-size", "gpu-budget"}

azure.containerservice.AgentPool(
    NAME,
    resource_group_name="ml",
    resource_name_="ml-aks",
    vm_size="Standard_NC24ads_A100_v4",
    enable_auto_scaling=True,
    min_count=0,
    max_count=20,
    tags=TAGS,
)
