"""A tagged Spot VM with one T4: within the dev limits, priced."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

azure.compute.VirtualMachine(
    NAME,
    resource_group_name="ml",
    location="eastus2",
    hardware_profile={"vm_size": "Standard_NC4as_T4_v3"},
    priority="Spot",
    eviction_policy="Deallocate",
    tags=TAGS,
)
