"""A VM scale set of 3 x standard_nd96asr_v4 (lower case): 24 A100s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

azure.compute.VirtualMachineScaleSet(
    NAME,
    resource_group_name="ml",
    sku={"name": "standard_nd96asr_v4", "capacity": 3},
    tags=TAGS,
)
