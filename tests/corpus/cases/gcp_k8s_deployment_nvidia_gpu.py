"""A Kubernetes Deployment on GKE of 4 replicas, each asking for 8 GPUs (nvidia.com/gpu): 32
GPUs on nodes gpufleet may not see."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

k8s.Deployment(
    NAME,
    metadata={"name": "vllm", "namespace": "inference", "labels": {"app": "vllm"}},
    spec={
        "replicas": 4,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.6.3",
                        "resources": {
                            "limits": {"nvidia.com/gpu": 8, "memory": "600Gi"},
                            "requests": {"cpu": "32"},
                        },
                    }
                ],
            },
        },
    },
)
