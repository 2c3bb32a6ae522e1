"""Honest: CPU-only Kubernetes workloads on EKS — a Deployment with cpu and memory limits, a
CronJob, and a Pod whose nvidia.com/gpu limit is 0 — ask for no GPUs."""

import _k8s as k8s

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

k8s.Deployment(
    f"{NAME}-api",
    metadata={"name": "api", "namespace": "web"},
    spec={
        "replicas": 12,
        "selector": {"matchLabels": {"app": "api"}},
        "template": {
            "metadata": {"labels": {"app": "api"}},
            "spec": {
                "nodeSelector": {"node.kubernetes.io/instance-type": "m7i.2xlarge"},
                "containers": [
                    {
                        "name": "api",
                        "image": "acme/api:1.4",
                        "resources": {
                            "requests": {"cpu": "500m", "memory": "1Gi"},
                            "limits": {"cpu": "2", "memory": "2Gi"},
                        },
                    }
                ],
            },
        },
    },
)
k8s.CronJob(
    f"{NAME}-report",
    metadata={"name": "report", "namespace": "web"},
    spec={
        "schedule": "0 6 * * *",
        "jobTemplate": {
            "spec": {
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [
                            {
                                "name": "report",
                                "image": "acme/report:2",
                                "resources": {"limits": {"cpu": "1", "memory": "512Mi"}},
                            }
                        ],
                    }
                }
            }
        },
    },
)
k8s.Pod(
    f"{NAME}-debug",
    metadata={"name": "debug", "namespace": "web"},
    spec={
        "containers": [
            {
                "name": "shell",
                "image": "busybox:1.36",
                "resources": {"limits": {"cpu": "250m", "nvidia.com/gpu": 0}},
            }
        ]
    },
)
