"""A Kubernetes Job on EKS running 16 pods at once, each on 7 MIG slices of an A100
(nvidia.com/mig-1g.10gb): GPUs asked for through Kubernetes."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

k8s.Job(
    NAME,
    metadata={"name": "batch-embed", "namespace": "batch"},
    spec={
        "parallelism": 16,
        "completions": 64,
        "backoffLimit": 2,
        "template": {
            "spec": {
                "restartPolicy": "OnFailure",
                "containers": [
                    {
                        "name": "embed",
                        "image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/embed:3",
                        "resources": {"limits": {"nvidia.com/mig-1g.10gb": 7}},
                    }
                ],
            }
        },
    },
)
