"""An AKS node pool through the classic azure provider (azure:, not azure-native): 3 x
Standard_ND96asr_v4 (8 A100s each), a type gpufleet has no reader for."""

import pulumi
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

pulumi.CustomResource(
    "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool",
    NAME,
    {
        "kubernetesClusterId": "/subscriptions/0000/resourceGroups/ml/providers/"
        "Microsoft.ContainerService/managedClusters/ml",
        "vmSize": "Standard_ND96asr_v4",
        "nodeCount": 3,
        "autoScalingEnabled": False,
        "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"],
        "tags": TAGS,
    },
)
