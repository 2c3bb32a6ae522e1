"""A Model Garden deployment on up to 3 replicas of a3-highgpu-8g: 24 H100s."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.vertex.AiEndpointWithModelGardenDeployment(
    NAME,
    location="us-central1",
    publisher_model_name="publishers/meta/models/llama3-3@llama-3.3-70b-instruct",
    deploy_config={
        "dedicated_resources": {
            "machine_spec": {
                "machine_type": "a3-highgpu-8g",
                "accelerator_type": "NVIDIA_H100_80GB",
                "accelerator_count": 8,
            },
            "min_replica_count": 1,
            "max_replica_count": 3,
        }
    },
)
