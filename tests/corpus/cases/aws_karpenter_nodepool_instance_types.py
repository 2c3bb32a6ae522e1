"""A Karpenter NodePool that names its machines by the well-known instance-type label:
p4d.24xlarge and p5.48xlarge (8 GPUs each), up to 2,000 vCPUs of them."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

k8s.CustomResource(
    NAME,
    api_version="karpenter.sh/v1",
    kind="NodePool",
    metadata={"name": "training"},
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
                        "key": "node.kubernetes.io/instance-type",
                        "operator": "In",
                        "values": ["p4d.24xlarge", "p5.48xlarge"],
                    }
                ],
            }
        },
        "limits": {"cpu": "2000"},
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m"},
    },
)
