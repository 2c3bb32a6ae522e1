"""A Kubernetes StatefulSet on AKS of 3 replicas with 4 GPUs each, from a manifest the program
loads as YAML (the nvidia.com/gpu key quoted)."""

import _k8s as k8s
import yaml

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

manifest = yaml.safe_load(
    """
metadata:
  name: triton
  namespace: serving
spec:
  serviceName: triton
  replicas: 3
  selector:
    matchLabels: {app: triton}
  template:
    metadata:
      labels: {app: triton}
    spec:
      nodeSelector:
        kubernetes.azure.com/agentpool: gpu
      containers:
        - name: triton
          image: nvcr.io/nvidia/tritonserver:24.08-py3
          resources:
            requests: {"nvidia.com/gpu": 4}
            limits: {"nvidia.com/gpu": 4}
"""
)
k8s.StatefulSet(NAME, metadata=manifest["metadata"], spec=manifest["spec"])
