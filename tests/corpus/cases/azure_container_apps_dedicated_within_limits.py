"""A Container Apps environment with a dedicated NC48-A100 profile of at most 4 nodes: 8 A100s,
within the fleet limit, but at Container Apps' own rates, which the catalog lacks: the budget
cannot hold it."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget"}

azure.app.ManagedEnvironment(
    NAME,
    resource_group_name="ml",
    location="westus3",
    workload_profiles=[
        {"name": "Consumption", "workload_profile_type": "Consumption"},
        {
            "name": "GPU-A100",
            "workload_profile_type": "nc48-a100",
            "minimum_count": 0,
            "maximum_count": 4,
        },
    ],
    zone_redundant=False,
    tags=TAGS,
)
