"""A container app on a serverless T4 profile that scales to 20 replicas: a T4 each, 20 GPUs,
at Container Apps' own rates (not in the catalog)."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size", "gpu-budget"}

environment = azure.app.ManagedEnvironment(
    f"{NAME}-env",
    resource_group_name="ml",
    location="westus3",
    workload_profiles=[
        {"name": "Consumption", "workload_profile_type": "Consumption"},
        {"name": "gpu", "workload_profile_type": "Consumption-GPU-NC8as-T4"},
    ],
    tags=TAGS,
)
azure.app.ContainerApp(
    NAME,
    resource_group_name="ml",
    managed_environment_id=environment.id,
    workload_profile_name="gpu",
    template={
        "containers": [{"name": "infer", "image": "acme.azurecr.io/infer:1"}],
        "scale": {"min_replicas": 0, "max_replicas": 20},
    },
    tags=TAGS,
)
