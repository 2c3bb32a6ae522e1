"""An Azure ML compute cluster whose owner tag is empty."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget", "required-tags"}

azure.machinelearningservices.Compute(
    NAME,
    resource_group_name="ml",
    workspace_name="ml",
    properties={
        "compute_type": "AmlCompute",
        "properties": {
            "vm_size": "Standard_NC4as_T4_v3",
            "enable_node_public_ip": False,
            "scale_settings": {"max_node_count": 2, "min_node_count": 0},
        },
    },
    tags={**TAGS, "owner": ""},
)
