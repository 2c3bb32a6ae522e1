"""An Azure ML online deployment of T4s scaling on utilization up to 30 instances."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

azure.machinelearningservices.OnlineDeployment(
    NAME,
    resource_group_name="ml",
    workspace_name="ml",
    endpoint_name="serve",
    sku={"name": "Default", "capacity": 1},
    properties={
        "endpoint_compute_type": "Managed",
        "instance_type": "Standard_NC4as_T4_v3",
        "scale_settings": {
            "scale_type": "TargetUtilization",
            "min_instances": 1,
            "max_instances": 30,
        },
    },
    tags=TAGS,
)
