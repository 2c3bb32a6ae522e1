"""A bare Kubernetes Pod asking for GPUs as a string quantity ("2")."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

k8s.Pod(
    NAME,
    metadata={"name": "notebook", "namespace": "research"},
    spec={
        "restartPolicy": "Never",
        "containers": [
            {
                "name": "jupyter",
                "image": "jupyter/pytorch-notebook:cuda12-latest",
                "resources": {
                    "requests": {"nvidia.com/gpu": "2"},
                    "limits": {"nvidia.com/gpu": "2"},
                },
            }
        ],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    },
)
