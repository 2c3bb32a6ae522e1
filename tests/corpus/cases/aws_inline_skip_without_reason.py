"""Inline skips on Kubernetes GPU workloads with no reason, and with one too short: a skip
needs a reason of 10+ characters, so nothing is suppressed."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

# gpufleet:skip=gpu-size-undetermined,gpu-budget
k8s.Deployment(
    NAME,
    metadata={"name": "llm", "namespace": "serving"},
    spec={
        "replicas": 6,
        "selector": {"matchLabels": {"app": "llm"}},
        "template": {
            "metadata": {"labels": {"app": "llm"}},
            "spec": {
                "containers": [
                    {
                        "name": "llm",
                        "image": "acme/llm:1",
                        "resources": {"limits": {"nvidia.com/gpu": 8}},
                    }
                ]
            },
        },
    },
)
k8s.Job(  # gpufleet:skip=gpu-size-undetermined,gpu-budget: trust me
    f"{NAME}-job",
    metadata={"name": "finetune", "namespace": "train"},
    spec={
        "parallelism": 4,
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {
                        "name": "ft",
                        "image": "acme/ft:1",
                        "resources": {"limits": {"nvidia.com/gpu": 8}},
                    }
                ],
            }
        },
    },
)
