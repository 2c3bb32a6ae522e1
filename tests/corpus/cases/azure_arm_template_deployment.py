"""An ARM deployment whose template holds a GPU scale set."""

import pulumi_azure_native as az
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = {
    "contentVersion": "1.0.0.0",
    "resources": [
        {
            "type": "Microsoft.Compute/virtualMachineScaleSets",
            "apiVersion": "2024-07-01",
            "name": "ss",
            "sku": {"name": "Standard_ND96asr_v4", "capacity": 3},
            "properties": {},
        }
    ],
}
az.resources.Deployment(
    NAME,
    resource_group_name="ml",
    properties=az.resources.DeploymentPropertiesArgs(
        mode=az.resources.DeploymentMode.INCREMENTAL, template=template
    ),
    tags=TAGS,
)
