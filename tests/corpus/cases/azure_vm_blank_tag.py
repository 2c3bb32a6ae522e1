"""An Azure VM whose cost-center tag is blank, its size in lower case."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

azure.compute.VirtualMachine(
    NAME,
    resource_group_name="ml",
    hardware_profile={"vm_size": "standard_nc24ads_a100_v4"},
    tags={**TAGS, "cost-center": " "},
)
