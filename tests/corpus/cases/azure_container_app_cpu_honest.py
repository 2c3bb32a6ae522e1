"""An honest container app on a dedicated D4 profile of an environment that also has GPU
profiles it does not use: no GPUs of its own."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

environment = azure.app.ManagedEnvironment(
    f"{NAME}-env",
    resource_group_name="ml",
    location="westus3",
    workload_profiles=[
        {"name": "Consumption", "workload_profile_type": "Consumption"},
        {"name": "general", "workload_profile_type": "D4", "minimum_count": 1, "maximum_count": 3},
        {"name": "t4", "workload_profile_type": "Consumption-GPU-NC8as-T4"},
    ],
    tags=TAGS,
)
azure.app.ContainerApp(
    NAME,
    resource_group_name="ml",
    environment_id=environment.id,
    workload_profile_name="general",
    template={
        "containers": [{"name": "api", "image": "acme.azurecr.io/api:1"}],
        "scale": {"min_replicas": 1, "max_replicas": 30},
    },
    tags=TAGS,
)
