"""An ARM deployment whose template takes its VM size from a parameter
("[parameters('vmSku')]") that defaults to a CPU size, and the deployment's parameters give it
Standard_ND96isr_H100_v5 (8 H100s): a scale set of 2, held in a template."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = {
    "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
    "contentVersion": "1.0.0.0",
    "parameters": {
        "vmSku": {"type": "string", "defaultValue": "Standard_D4s_v5"},
        "instanceCount": {"type": "int", "defaultValue": 2},
    },
    "resources": [
        {
            "type": "Microsoft.Compute/virtualMachineScaleSets",
            "apiVersion": "2024-07-01",
            "name": "train",
            "location": "[resourceGroup().location]",
            "sku": {"name": "[parameters('vmSku')]", "capacity": "[parameters('instanceCount')]"},
            "properties": {"orchestrationMode": "Uniform"},
        }
    ],
}
azure.resources.Deployment(
    NAME,
    resource_group_name="ml",
    properties={
        "mode": azure.resources.DeploymentMode.INCREMENTAL,
        "template": template,
        "parameters": {"vmSku": {"value": "Standard_ND96isr_H100_v5"}},
    },
    tags=TAGS,
)
