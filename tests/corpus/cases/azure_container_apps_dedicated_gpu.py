"""A Container Apps environment with a dedicated NC96-A100 profile of up to 5 nodes: 20 A100s,
at Container Apps' own rates (not in the catalog)."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size", "gpu-budget"}

azure.app.ManagedEnvironment(
    NAME,
    resource_group_name="ml",
    location="westus3",
    workload_profiles=[
        {"name": "Consumption", "workload_profile_type": "Consumption"},
        {
            "name": "a100",
            "workload_profile_type": "NC96-A100",
            "minimum_count": 0,
            "maximum_count": 5,
        },
    ],
    tags=TAGS,
)
