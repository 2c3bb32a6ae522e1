"""A Helm release whose values give 8 replicas of a model server 4 GPUs each: GPUs asked for
through a chart's values."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

k8s.Release(
    NAME,
    chart="text-generation-inference",
    repository_opts={"repo": "https://charts.acme.example"},
    version="1.2.0",
    namespace="inference",
    values={
        "replicaCount": 8,
        "model": {"id": "meta-llama/Llama-3.1-70B-Instruct"},
        "resources": {"limits": {"nvidia.com/gpu": 4}},
        "nodeSelector": {"karpenter.k8s.aws/instance-family": "p4d"},
    },
)
