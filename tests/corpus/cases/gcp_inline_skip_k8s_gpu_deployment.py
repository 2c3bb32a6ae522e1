"""Acknowledged: a Kubernetes Deployment asking for GPUs, with an inline skip and its reason
(its pods run on a GKE pool of this stack, sized and priced there): suppressed, listed as such,
no finding."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

# The pods' GPUs are the l4-pool node pool's, which gpufleet reads and prices.
# gpufleet:skip=gpu-size-undetermined,gpu-budget: pods run on the l4-pool GKE node pool, sized there
k8s.Deployment(
    NAME,
    metadata={"name": "embedder", "namespace": "serving"},
    spec={
        "replicas": 2,
        "selector": {"matchLabels": {"app": "embedder"}},
        "template": {
            "metadata": {"labels": {"app": "embedder"}},
            "spec": {
                "nodeSelector": {"cloud.google.com/gke-nodepool": "l4-pool"},
                "containers": [
                    {
                        "name": "embedder",
                        "image": "acme/embedder:7",
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ],
            },
        },
    },
)
