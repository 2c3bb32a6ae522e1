"""An inline skip with a reason that acknowledges only gpu-size-undetermined on a Kubernetes GPU
StatefulSet: the budget's finding (GPUs it cannot price) stays."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget"}

k8s.StatefulSet(  # gpufleet:skip=gpu-size-undetermined: the AKS gpu pool bounds these replicas
    NAME,
    metadata={"name": "vectordb", "namespace": "search"},
    spec={
        "serviceName": "vectordb",
        "replicas": 2,
        "selector": {"matchLabels": {"app": "vectordb"}},
        "template": {
            "metadata": {"labels": {"app": "vectordb"}},
            "spec": {
                "containers": [
                    {
                        "name": "db",
                        "image": "acme/vdb:2",
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
)
