"""A tagged CPU VM: passes."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

azure.compute.VirtualMachine(
    NAME,
    resource_group_name="ml",
    hardware_profile={"vm_size": "Standard_D4s_v5"},
    tags=TAGS,
)
