"""An Azure ML compute cluster through the classic azure provider: Standard_NC24ads_A100_v4
scaled to 20 nodes, a type gpufleet has no reader for."""

import pulumi
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

pulumi.CustomResource(
    "azure:machinelearning/computeCluster:ComputeCluster",
    NAME,
    {
        "location": "eastus2",
        "machineLearningWorkspaceId": "/subscriptions/0000/resourceGroups/ml/providers/"
        "Microsoft.MachineLearningServices/workspaces/ml",
        "vmPriority": "Dedicated",
        "vmSize": "STANDARD_NC24ADS_A100_V4",
        "scaleSettings": {
            "minNodeCount": 0,
            "maxNodeCount": 20,
            "scaleDownNodesAfterIdleDuration": "PT15M",
        },
        "identity": {"type": "SystemAssigned"},
        "tags": TAGS,
    },
)
