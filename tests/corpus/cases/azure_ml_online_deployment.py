"""An Azure ML online deployment of 20 Standard_NC24ads_A100_v4 instances: 20 A100s."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

azure.machinelearningservices.OnlineDeployment(
    NAME,
    resource_group_name="ml",
    workspace_name="ml",
    endpoint_name="serve",
    sku={"name": "Default", "capacity": 20},
    properties={
        "endpoint_compute_type": "Managed",
        "instance_type": "Standard_NC24ads_A100_v4",
    },
    tags=TAGS,
)
