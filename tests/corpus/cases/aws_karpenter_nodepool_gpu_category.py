"""A Karpenter NodePool that allows only GPU instance categories (p, g) and GPU families by
label, with a CPU limit alone: GPU machines of any size and number Karpenter picks."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

k8s.CustomResource(
    NAME,
    api_version="karpenter.sh/v1",
    kind="NodePool",
    metadata={"name": "accelerated"},
    spec={
        "template": {
            "spec": {
                "nodeClassRef": {
                    "group": "karpenter.k8s.aws",
                    "kind": "EC2NodeClass",
                    "name": "default",
                },
                "requirements": [
                    {
                        "key": "karpenter.k8s.aws/instance-category",
                        "operator": "In",
                        "values": ["p", "g"],
                    },
                    {
                        "key": "karpenter.k8s.aws/instance-family",
                        "operator": "In",
                        "values": ["p5", "p4d", "g6e"],
                    },
                ],
            }
        },
        "limits": {"cpu": "4000", "memory": "16000Gi"},
    },
)
