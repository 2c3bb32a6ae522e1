"""A Karpenter NodePool (karpenter.sh/v1) whose limits allow 64 GPUs and whose requirements ask
for nodes with a GPU count: GPU nodes Karpenter launches outside any group gpufleet reads."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

k8s.CustomResource(
    NAME,
    api_version="karpenter.sh/v1",
    kind="NodePool",
    metadata={"name": "gpu"},
    spec={
        "template": {
            "spec": {
                "nodeClassRef": {
                    "group": "karpenter.k8s.aws",
                    "kind": "EC2NodeClass",
                    "name": "gpu",
                },
                "requirements": [
                    {
                        "key": "karpenter.k8s.aws/instance-gpu-count",
                        "operator": "Gt",
                        "values": ["0"],
                    },
                    {
                        "key": "karpenter.sh/capacity-type",
                        "operator": "In",
                        "values": ["on-demand"],
                    },
                ],
                "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
            }
        },
        "limits": {"cpu": "1000", "nvidia.com/gpu": 64},
    },
)
