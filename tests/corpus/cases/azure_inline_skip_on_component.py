"""Acknowledged: a component of the program wrapping a Kubernetes GPU Deployment, skipped with
a reason where the program creates the component: the skip covers its children."""

import _k8s as k8s
import pulumi

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()


class ModelServer(pulumi.ComponentResource):
    def __init__(self, name: str, gpus: int, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("acme:serving:ModelServer", name, None, opts)
        k8s.Deployment(
            f"{name}-deployment",
            metadata={"name": name, "namespace": "serving"},
            spec={
                "replicas": 1,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {
                        "containers": [
                            {
                                "name": "server",
                                "image": "acme/server:4",
                                "resources": {"limits": {"nvidia.com/gpu": gpus}},
                            }
                        ]
                    },
                },
            },
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({})


# gpufleet:skip=gpu-size-undetermined,gpu-budget: runs on the AKS gpu pool, which this stack sizes
ModelServer(NAME, gpus=1)
