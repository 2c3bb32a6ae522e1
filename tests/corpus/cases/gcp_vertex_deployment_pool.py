"""A Vertex AI deployment resource pool of up to 10 a2-highgpu-2g replicas: 20 A100s."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.vertex.AiDeploymentResourcePool(
    NAME,
    region="us-central1",
    dedicated_resources={
        "machine_spec": {
            "machine_type": "a2-highgpu-2g",
            "accelerator_type": "NVIDIA_TESLA_A100",
            "accelerator_count": 2,
        },
        "min_replica_count": 1,
        "max_replica_count": 10,
    },
)
